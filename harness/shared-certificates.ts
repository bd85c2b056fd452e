// The certificates of the servers startApiServer starts in its own temp --cert-dir: the first server of this process
// generates them (a CA, its serving and its admin certificate, on its certificate worker), and every later server
// with the same serving hosts finds a copy of them in its new --cert-dir and reuses them, as a restart does. So only
// the first start of a test process pays for generating them, as envtest makes its certificates once in the test
// process and hands them to each kube-apiserver it starts. The server checks what it finds as on any start (CA,
// validity, hosts, key pairs) and generates whatever does not fit. `certificates: 'fresh'` opts out.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { certMode, keyMode, servingBundlePaths, type ServingBundlePaths } from '../certs/bundle.js';
import { servingHosts } from '../certs/serving-hosts.js';

type KeptFiles = ReadonlyArray<{ name: string; content: string; mode: number }>;

const kept = new Map<string, KeptFiles>();

/** The files ensureServingBundle keeps in a --cert-dir, and their modes. */
function bundleFiles(certDir: string): Array<{ file: string; mode: number }> {
  const paths = servingBundlePaths(certDir);
  const keys: ReadonlyArray<keyof ServingBundlePaths> = ['caKey', 'servingKey', 'adminKey'];
  return (Object.keys(paths) as Array<keyof ServingBundlePaths>).map((k) => ({ file: paths[k], mode: keys.includes(k) ? keyMode : certMode }));
}

/** Servers whose serving certificate must cover the same hosts, as the server computes them, share one set. */
export function sharedCertificatesKey(bindAddress: string, externalHostname: string | undefined): string {
  return servingHosts(bindAddress.trim(), externalHostname).join('\n');
}

/** Writes the kept certificates for `key` into `certDir`, keys first; false when no server of this process has made them yet. */
export function provideSharedCertificates(key: string, certDir: string): boolean {
  const files = kept.get(key);
  if (!files) return false;
  for (const f of files) writeFileSync(path.join(certDir, f.name), f.content, { mode: f.mode });
  return true;
}

/** Keeps the certificates a ready server holds in `certDir` for the next servers with the same key (the first ones kept stay). */
export function keepSharedCertificates(key: string, certDir: string): void {
  if (kept.has(key)) return;
  try {
    kept.set(key, bundleFiles(certDir).map(({ file, mode }) => ({ name: path.basename(file), content: readFileSync(file, 'utf8'), mode })));
  } catch {
    // a server whose --cert-dir does not hold the whole set (custom serving files): nothing to share
  }
}

/** Forgets every kept set (tests). */
export function forgetSharedCertificates(): void {
  kept.clear();
}
