// --service-account-key-file: PEM files of RSA or ECDSA public keys, private keys (their public half) or
// certificates (their subject key), several blocks per file, as client-go's keyutil.PublicKeysFromFile reads them.
// Each key gets kube's key id, the one issued tokens carry in their `kid` header and the JWKS lists.
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { goPathErrorMessage } from '../options/go-fs-errors.js';
import { algorithmFor, keyIdOf } from './jws.js';

export interface ServiceAccountPublicKey {
  keyId: string;
  key: KeyObject;
}

/** The public keys that verify tokens and are published at /openid/v1/jwks (kube's PublicKeysGetter). */
export interface PublicKeysGetter {
  /** keys whose id is `keyId`, or all keys when it is empty (staticPublicKeysGetter.GetPublicKeys) */
  publicKeys(keyId?: string): readonly ServiceAccountPublicKey[];
}

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/gu;

function publicKeyOf(blockType: string, pem: string): KeyObject | undefined {
  try {
    const key = blockType === 'CERTIFICATE' ? new X509Certificate(pem).publicKey : createPublicKey(pem);
    return algorithmFor(key).ok ? key : undefined;
  } catch {
    return undefined;
  }
}

/** keyutil.ParsePublicKeysPEM: every usable block; blocks that are no RSA/ECDSA key are tolerated. */
export function parsePublicKeysPem(text: string): { ok: true; keys: KeyObject[] } | { ok: false; error: string } {
  const keys: KeyObject[] = [];
  for (const m of text.matchAll(pemBlock)) {
    const key = publicKeyOf(m[1]!, m[0]);
    if (key) keys.push(key);
  }
  if (keys.length === 0) return { ok: false, error: 'data does not contain any valid RSA or ECDSA public keys' };
  return { ok: true, keys };
}

export function toServiceAccountKeys(keys: readonly KeyObject[]): ServiceAccountPublicKey[] {
  return keys.map((k) => {
    const key = k.type === 'private' ? createPublicKey(k) : k;
    return { keyId: keyIdOf(key), key };
  });
}

/** Reads every --service-account-key-file; errors are keyutil.PublicKeysFromFile's, which kube-apiserver prints as is. */
export function loadPublicKeyFiles(files: readonly string[]): { ok: true; keys: ServiceAccountPublicKey[] } | { ok: false; errors: string[] } {
  const keys: KeyObject[] = [];
  const errors: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      errors.push(goPathErrorMessage(err, file));
      continue;
    }
    const parsed = parsePublicKeysPem(text);
    if (parsed.ok) keys.push(...parsed.keys);
    else errors.push(`error reading public key file ${file}: ${parsed.error}`);
  }
  return errors.length ? { ok: false, errors } : { ok: true, keys: toServiceAccountKeys(keys) };
}

/** staticPublicKeysGetter, over keys read once, or lazily (the signing key generated on first use). */
export function staticPublicKeys(load: () => readonly ServiceAccountPublicKey[]): PublicKeysGetter {
  let keys: readonly ServiceAccountPublicKey[] | undefined;
  return {
    publicKeys(keyId?: string) {
      keys ??= load();
      return keyId ? keys.filter((k) => k.keyId === keyId) : keys;
    },
  };
}
