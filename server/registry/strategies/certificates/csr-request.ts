// The check kube's validateCSR makes of spec.request (pkg/apis/certificates/validation): the bytes must hold a
// PEM block of type CERTIFICATE REQUEST (certificates.ParseCSR) whose PKCS#10 signature verifies with the key it
// carries (x509.CertificateRequest.CheckSignature). The messages are Go's where the case is simple; a DER body
// that does not parse gets one message of ours (Go's asn1 errors name the exact tag that broke).
import { createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';

interface Der {
  tag: number;
  /** the whole element, header included */
  raw: Buffer;
  /** the contents */
  body: Buffer;
}

/** One DER element at the start of buf, or undefined when it is cut short. */
function readDer(buf: Buffer, at = 0): { el: Der; next: number } | undefined {
  if (at + 2 > buf.length) return undefined;
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let off = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || off + n > buf.length) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[off + i]!;
    off += n;
  }
  if (off + len > buf.length) return undefined;
  return { el: { tag, raw: buf.subarray(at, off + len), body: buf.subarray(off, off + len) }, next: off + len };
}

function children(el: Der): Der[] | undefined {
  const out: Der[] = [];
  let at = 0;
  while (at < el.body.length) {
    const r = readDer(el.body, at);
    if (!r) return undefined;
    out.push(r.el);
    at = r.next;
  }
  return out;
}

function oid(body: Buffer): string {
  const parts: number[] = [Math.floor(body[0]! / 40), body[0]! % 40];
  let v = 0;
  for (let i = 1; i < body.length; i++) {
    v = v * 128 + (body[i]! & 0x7f);
    if (!(body[i]! & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

// Go's x509 signature algorithms a CSR may use: the digest node's verify needs (null for Ed25519), and Go's name.
const algorithms: Record<string, { hash: string | null; name: string; insecure?: boolean }> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', name: 'SHA1-RSA', insecure: true },
  '1.2.840.113549.1.1.11': { hash: 'sha256', name: 'SHA256-RSA' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', name: 'SHA384-RSA' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', name: 'SHA512-RSA' },
  '1.2.840.10045.4.1': { hash: 'sha1', name: 'ECDSA-SHA1', insecure: true },
  '1.2.840.10045.4.3.2': { hash: 'sha256', name: 'ECDSA-SHA256' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', name: 'ECDSA-SHA384' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', name: 'ECDSA-SHA512' },
  '1.3.101.112': { hash: null, name: 'Ed25519' },
};

/** The first PEM block of text: its type and DER bytes (encoding/pem's Decode, without headers). */
function pemDecode(text: string): { type: string; der: Buffer } | undefined {
  const m = /-----BEGIN ([^\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  return { type: m[1]!, der: Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64') };
}

/** undefined when the request is a well-signed PKCS#10 request, else the message kube puts in the error. */
export function checkCertificateRequest(request: Buffer): string | undefined {
  const block = pemDecode(request.toString('latin1'));
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const top = readDer(block.der);
  const parts = top && top.el.tag === 0x30 ? children(top.el) : undefined;
  const info = parts?.[0];
  const algSeq = parts?.[1];
  const sig = parts?.[2];
  const infoParts = info && info.tag === 0x30 ? children(info) : undefined;
  const spki = infoParts?.[2];
  const algOid = algSeq ? children(algSeq)?.[0] : undefined;
  if (!info || !spki || spki.tag !== 0x30 || !algOid || algOid.tag !== 0x06 || !sig || sig.tag !== 0x03 || sig.body.length < 1) {
    return 'x509: malformed certificate request';
  }
  const alg = algorithms[oid(algOid.body)];
  if (!alg) return 'x509: cannot verify signature: algorithm unimplemented';
  if (alg.insecure) return `x509: cannot verify signature: insecure algorithm ${alg.name}`;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: spki.raw, format: 'der', type: 'spki' });
  } catch {
    return 'x509: malformed certificate request';
  }
  const signature = sig.body.subarray(1); // the BIT STRING's unused-bits byte comes first
  let ok = false;
  try {
    ok = verify(alg.hash, info.raw, key, signature);
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  // Go's messages per key type (crypto/rsa, and x509's for ECDSA and Ed25519)
  if (key.asymmetricKeyType === 'rsa') return 'crypto/rsa: verification error';
  if (key.asymmetricKeyType === 'ec') return 'x509: ECDSA verification failure';
  return 'x509: Ed25519 verification failure';
}

/** Go's %#v of a []byte, as kube prints spec.request in its error. */
export function goBytes(b: Buffer): string {
  return `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`;
}

/**
 * kube's validateCertificate of status.certificate: empty, or one or more PEM blocks, each a CERTIFICATE without
 * headers holding a certificate. undefined when valid, else the message (Go's x509 parse errors are summarised).
 */
export function checkIssuedCertificate(pemData: Buffer): string | undefined {
  if (pemData.length === 0) return undefined;
  const blockRe = /-----BEGIN ([^\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  let blocks = 0;
  for (const m of pemData.toString('latin1').matchAll(blockRe)) {
    if (m[1] !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(m[1])}`;
    if (/^[\w-]+:/m.test(m[2]!)) return 'no PEM block headers are permitted';
    blocks++;
    try {
      new X509Certificate(Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64'));
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}
