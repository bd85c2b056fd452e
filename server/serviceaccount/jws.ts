// Compact JWS as go-jose signs and verifies service-account tokens (pkg/serviceaccount/jwt.go): RS256 for RSA keys,
// ES256/ES384/ES512 for P-256/P-384/P-521 keys (raw r||s signatures), a `kid` header naming the key.
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export type JwsAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

const ecAlgorithms: Record<string, JwsAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
const hashOf: Record<JwsAlgorithm, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/**
 * The algorithm kube signs with for a key (openidmetadata.go algorithmFromPublicKey), or the error text kube gives
 * for a key it cannot use.
 */
export function algorithmFor(key: KeyObject): { ok: true; alg: JwsAlgorithm } | { ok: false; error: string } {
  if (key.asymmetricKeyType === 'rsa') return { ok: true, alg: 'RS256' };
  if (key.asymmetricKeyType === 'ec') {
    const alg = ecAlgorithms[key.asymmetricKeyDetails?.namedCurve ?? ''];
    return alg ? { ok: true, alg } : { ok: false, error: 'unknown private key curve, must be 256, 384, or 521' };
  }
  return { ok: false, error: 'unknown public key type, must be *rsa.PublicKey, *ecdsa.PublicKey, or jose.OpaqueSigner' };
}

/** kube's keyIDFromPublicKey: base64url(sha256(PKIX DER of the public key)), unpadded. */
export function keyIdOf(key: KeyObject): string {
  // createPublicKey takes private KeyObjects only
  const der = (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

function b64json(o: unknown): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url');
}

/** Signs `payload` (already in its final key order) with the private key; the header is go-jose's {alg, kid}. */
export function signCompact(key: KeyObject, keyId: string, payload: unknown): string {
  const alg = algorithmFor(key);
  if (!alg.ok) throw new Error(alg.error);
  const signingInput = `${b64json({ alg: alg.alg, kid: keyId })}.${b64json(payload)}`;
  const signature = sign(hashOf[alg.alg], Buffer.from(signingInput), alg.alg === 'RS256' ? key : { key, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

export interface ParsedJws {
  header: { alg?: unknown; kid?: unknown; [k: string]: unknown };
  /** the payload bytes, not yet trusted */
  payload: Buffer;
  signingInput: string;
  signature: Buffer;
}

const base64url = /^[A-Za-z0-9_-]*$/u;

/** jwt.ParseSigned: three base64url parts and a JSON header; undefined when the text is no compact JWS. */
export function parseCompact(token: string): ParsedJws | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => base64url.test(p))) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as unknown;
    if (!header || typeof header !== 'object' || Array.isArray(header)) return undefined;
    return { header: header as ParsedJws['header'], payload: Buffer.from(parts[1]!, 'base64url'), signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
  } catch {
    return undefined;
  }
}

/** go-jose's (gopkg.in/go-jose/go-jose.v2, kube's copy) error for any signature that does not verify with a key. */
export const errCryptoFailure = 'go-jose/go-jose: error in cryptographic primitive';

/** Verifies with one public key: undefined on success, else go-jose's error text. */
export function verifyWith(jws: ParsedJws, key: KeyObject): string | undefined {
  const alg = algorithmFor(key);
  if (!alg.ok || jws.header.alg !== alg.alg) return errCryptoFailure;
  const ok = verify(hashOf[alg.alg], Buffer.from(jws.signingInput), alg.alg === 'RS256' ? key : { key, dsaEncoding: 'ieee-p1363' }, jws.signature);
  return ok ? undefined : errCryptoFailure;
}
