// The names a generated serving certificate covers, from the server's flags. Shared by the server (server/main.ts) and
// the certificate worker, which issues the serving certificate ahead for the flags it finds on the command line; it
// loads nothing else, as server/main-loader.ts runs it before the server bundle.
import os from 'node:os';

/** What a serving certificate covers unless told otherwise (issueServingCert, ensureServingBundle). */
export const defaultServingHosts: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/**
 * Loopback, the host name (a compose service's `hostname`), the bind address, and the in-cluster names
 * kube-apiserver's self-signed certificate carries.
 */
export function servingHosts(bindAddress: string, externalHostname: string | undefined): string[] {
  const hosts = new Set([...defaultServingHosts, os.hostname(), 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']);
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::') hosts.add(bindAddress);
  if (externalHostname) hosts.add(externalHostname);
  return [...hosts].filter(Boolean);
}
