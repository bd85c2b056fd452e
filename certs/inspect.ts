// Reads back what a PEM certificate says, to decide whether files found on disk can be reused.
// Node 20: X509Certificate.toLegacyObject() lazily requires '_tls_common', and loading that before 'tls' leaves
// tls.createSecureContext undefined for the whole process (every later https.createServer throws). So the
// subject is parsed from X509Certificate.subject here, and tls is loaded first in case anything else does it.
import 'node:tls';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isIPAddress } from './ip-address.js';

const serverAuthOid = '1.3.6.1.5.5.7.3.1';
const clientAuthOid = '1.3.6.1.5.5.7.3.2';

export interface CertInfo {
  commonName: string;
  organizations: string[];
  notBefore: Date;
  notAfter: Date;
  isCA: boolean;
  serverAuth: boolean;
  clientAuth: boolean;
}

/** Undoes OpenSSL's RFC 2253 escaping in X509Certificate.subject: `\,` is a comma, `\09` a tab (hex pairs are UTF-8 bytes). */
function unescapeDnValue(v: string): string {
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '\\' && i + 1 < v.length) {
      const hex = v.slice(i + 1, i + 3);
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else {
        bytes.push(...enc.encode(v[i + 1]!));
        i += 1;
      }
    } else bytes.push(...enc.encode(c));
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

/** X509Certificate.subject ("CN=x\nO=a\nO=b") as attribute → values, in order. */
export function parseSubject(subject: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of subject.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    (out[line.slice(0, eq)] ??= []).push(unescapeDnValue(line.slice(eq + 1)));
  }
  return out;
}

/** Parses a PEM certificate; undefined when it is not one. */
export function inspectCert(pem: string): CertInfo | undefined {
  let x: X509Certificate;
  try {
    x = new X509Certificate(pem);
  } catch {
    return undefined;
  }
  const subject = parseSubject(x.subject);
  const cns = subject['CN'] ?? [];
  // Node's keyUsage is the extended key usage OIDs; undefined when the extension is absent (any usage).
  const eku = x.keyUsage as string[] | undefined;
  return {
    // Go's pkix.Name keeps the last CN.
    commonName: cns[cns.length - 1] ?? '',
    organizations: subject['O'] ?? [],
    notBefore: new Date(x.validFrom),
    notAfter: new Date(x.validTo),
    isCA: x.ca,
    serverAuth: eku === undefined || eku.includes(serverAuthOid),
    clientAuth: eku === undefined || eku.includes(clientAuthOid),
  };
}

/** Valid at `now` and still for `marginMs` after it. */
export function certValidAt(info: CertInfo, now: Date, marginMs = 0): boolean {
  return info.notBefore.getTime() <= now.getTime() && now.getTime() + marginMs < info.notAfter.getTime();
}

/** Every host (DNS name or IP) is in the certificate's SANs. */
export function certCoversHosts(pem: string, hosts: readonly string[]): boolean {
  try {
    const x = new X509Certificate(pem);
    return hosts.every((h) => {
      const bare = h.replace(/^\[(.*)\]$/, '$1');
      return (isIPAddress(bare) ? x.checkIP(bare) : x.checkHost(bare, { wildcards: false })) !== undefined;
    });
  } catch {
    return false;
  }
}

/** `pem` was signed by the CA certificate `caPem`. */
export function certIssuedBy(pem: string, caPem: string): boolean {
  try {
    const x = new X509Certificate(pem);
    const ca = new X509Certificate(caPem);
    return x.checkIssued(ca) && x.verify(ca.publicKey);
  } catch {
    return false;
  }
}

/** The private key belongs to the certificate. */
export function keyMatchesCert(keyPem: string, certPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}
