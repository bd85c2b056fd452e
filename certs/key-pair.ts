// The certificates' EC P-256 key pairs, made synchronously and handed to selfsigned (its `keyPair` option) instead of
// its own crypto.subtle.generateKey. Node 20 aborts the whole process (FATAL ERROR: v8::ToLocalChecked Empty
// MaybeLocal, in KeyObjectHandle::Create from the key generation job's completion) when an asynchronous key
// generation completes on a worker thread that is being torn down: process.exit, worker.terminate() or an uncaught
// exception while the certificate worker (certs/bundle-off-thread.ts) generates. A synchronous generation leaves no
// completion behind; selfsigned's other asynchronous steps (import, sign, export, digest) complete safely there.
import { generateKeyPairSync } from 'node:crypto';

/** PEM key pair in the form selfsigned's `keyPair` option takes (and returns unchanged as `private` / `public`) */
export interface PemKeyPair {
  /** PKCS#8 */
  privateKey: string;
  /** SPKI */
  publicKey: string;
}

/** A new P-256 key pair (the curve the certificates are made for: ca.ts, issue.ts). */
export function newP256KeyPair(): PemKeyPair {
  return generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}
