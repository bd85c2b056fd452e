// PKCS#10 certificate signing requests built with node's crypto (no openssl): a DER encoder of just what a CSR
// needs, so tests can send kube valid requests, and tampered ones whose signature no longer verifies.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

function der(tag: number, body: Buffer): Buffer {
  const len = body.length;
  const head = len < 0x80 ? Buffer.from([tag, len]) : len < 0x100 ? Buffer.from([tag, 0x81, len]) : Buffer.from([tag, 0x82, len >> 8, len & 0xff]);
  return Buffer.concat([head, body]);
}
const seq = (...parts: Buffer[]): Buffer => der(0x30, Buffer.concat(parts));

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const groups: number[] = [];
    let v = n;
    do {
      groups.unshift(v & 0x7f);
      v = Math.floor(v / 128);
    } while (v > 0);
    bytes.push(...groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g)));
  }
  return der(0x06, Buffer.from(bytes));
}

export interface CsrOptions {
  commonName: string;
  /** 'ed25519' (default) or 'ec' (P-256, ECDSA with SHA-256) */
  keyType?: 'ed25519' | 'ec';
  /** send another subject than the one signed, so the signature no longer verifies */
  tamper?: boolean;
}

/** A PEM "CERTIFICATE REQUEST" for the common name. */
export function certificateRequestPem(opts: CsrOptions): string {
  const keyType = opts.keyType ?? 'ed25519';
  const { publicKey, privateKey } = keyType === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const spki = (publicKey as KeyObject).export({ format: 'der', type: 'spki' });
  const infoFor = (cn: string): Buffer => seq(der(0x02, Buffer.from([0])), seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8'))))), spki, der(0xa0, Buffer.alloc(0)));
  const info = infoFor(opts.commonName);
  const signature = keyType === 'ec' ? sign('sha256', info, privateKey) : sign(null, info, privateKey);
  const alg = keyType === 'ec' ? seq(oid('1.2.840.10045.4.3.2')) : seq(oid('1.3.101.112'));
  const sent = opts.tamper ? infoFor(`${opts.commonName}-forged`) : info;
  const csr = seq(sent, alg, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = csr.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64}\n-----END CERTIFICATE REQUEST-----\n`;
}
