// A kubeconfig for a client of this apiserver, with every credential embedded (the *-data fields), so the file
// works wherever it is copied and kubectl, client-go and client-node all read it the same way.
import { stringify } from 'yaml';
import { writeFileAtomic, writeFileAtomicSync } from './atomic-write.js';

interface KubeconfigCommon {
  /** https://host:port */
  server: string;
  /** the CA that signed the serving certificate */
  caPem: string;
  /** name of the users[] entry (and of the identity, when it comes from a client certificate) */
  user: string;
  /** default kube-admission-harness */
  clusterName?: string;
  /** default <user>@<clusterName>, as kubeadm names its admin context */
  contextName?: string;
  namespace?: string;
}

export type KubeconfigOptions = KubeconfigCommon &
  ({ clientCertPem: string; clientKeyPem: string; token?: never } | { token: string; clientCertPem?: never; clientKeyPem?: never });

export const defaultClusterName = 'kube-admission-harness';

const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

export function buildKubeconfig(opts: KubeconfigOptions): string {
  const clusterName = opts.clusterName ?? defaultClusterName;
  const contextName = opts.contextName ?? `${opts.user}@${clusterName}`;
  const user: Record<string, string> =
    opts.token !== undefined
      ? { token: opts.token }
      : { 'client-certificate-data': b64(opts.clientCertPem), 'client-key-data': b64(opts.clientKeyPem) };
  const context: Record<string, string> = { cluster: clusterName, user: opts.user };
  if (opts.namespace) context['namespace'] = opts.namespace;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caPem) } }],
    users: [{ name: opts.user, user }],
    contexts: [{ name: contextName, context }],
    'current-context': contextName,
    preferences: {},
  });
}

/** Writes the kubeconfig with mode 0600: it holds a private key or a token. */
export async function writeKubeconfig(path: string, opts: KubeconfigOptions): Promise<void> {
  await writeFileAtomic(path, buildKubeconfig(opts), 0o600);
}

/** writeKubeconfig, blocking: the server writes its --write-kubeconfig file as its port opens. */
export function writeKubeconfigSync(path: string, opts: KubeconfigOptions): void {
  writeFileAtomicSync(path, buildKubeconfig(opts), 0o600);
}
