// A self-signed certificate authority for the apiserver's serving and client certificates. EC P-256 with
// SHA-256: generated in milliseconds, and accepted by Node's TLS, Go clients (kubectl) and client-node.
import { certificateKeyOptions } from './key-pair.js';
// selfsigned (and its x509 stack) loads only when a certificate is generated: a restart that reuses --cert-dir
// never pays for it.
const loadSelfsigned = () => import('selfsigned');

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertKeyPair {
  cert: string;
  key: string;
}

export interface ValidityOptions {
  /** days the certificate is valid for */
  validityDays?: number;
  /** the clock, for tests */
  now?: Date;
}

export interface CAOptions extends ValidityOptions {
  commonName?: string;
}

/** kube's cert utilities backdate by an hour so that a slightly slow clock elsewhere still accepts the cert. */
export const backdateMs = 60 * 60 * 1000;
const dayMs = 24 * 60 * 60 * 1000;

export function validityWindow(opts: ValidityOptions, defaultDays: number): { notBeforeDate: Date; notAfterDate: Date } {
  const now = opts.now ?? new Date();
  return {
    notBeforeDate: new Date(now.getTime() - backdateMs),
    notAfterDate: new Date(now.getTime() + (opts.validityDays ?? defaultDays) * dayMs),
  };
}

/** RFC 4514 escaping: selfsigned joins attributes into a DN string, so a "," in a group name must not split it. */
export function escapeDnValue(v: string): string {
  return v
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^([ #])/, '\\$1')
    .replace(/ $/, '\\ ');
}

export async function generateCA(opts: CAOptions = {}): Promise<CertKeyPair> {
  const pems = await (await loadSelfsigned()).generate([{ name: 'commonName', value: escapeDnValue(opts.commonName ?? 'kube-admission-harness-ca') }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ...certificateKeyOptions(),
    ...validityWindow(opts, 3650),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
