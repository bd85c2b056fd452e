// The key pair a new certificate is made for. On a worker thread (the certificate worker, certs/bundle-off-thread.ts)
// it is made synchronously and handed to selfsigned (its `keyPair` option) instead of selfsigned's own
// crypto.subtle.generateKey: node 20 aborts the whole process (FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal, in
// KeyObjectHandle::Create from the key generation job's completion) when an asynchronous key generation completes on
// a worker thread that is being torn down — by process.exit, worker.terminate() or an uncaught exception while the
// worker generates. A synchronous generation leaves no completion behind; selfsigned's other asynchronous steps
// (import, sign, export, digest) complete safely there (certs/cert-worker-exit.test.ts). The main thread is never torn
// down that way, and there selfsigned's generation on the thread pool costs it less (≈ 6 ms of CPU per bundle).
import { generateKeyPairSync } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';

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

/** selfsigned's options for a new certificate's key: a synchronously made pair on a worker thread, none on the main thread. */
export function certificateKeyOptions(): { keyPair?: PemKeyPair } {
  return isMainThread ? {} : { keyPair: newP256KeyPair() };
}
