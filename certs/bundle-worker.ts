// The worker side of ensureServingBundleOffThread (certs/bundle-off-thread.ts), bundled on its own into
// dist/server/cert-worker-body.cjs (scripts/bundle.mjs) and run by certs/cert-worker-loader.ts with a V8 code cache:
// it loads the certificate code and selfsigned's x509 stack on another thread, without the server. It may be started
// before the server knows whether it needs it (certs/cert-worker-prewarm.ts): it makes the CA and admin certificate
// at once, then waits for the one request.
import { parentPort } from 'node:worker_threads';
import { defaultBundleGenerators, ensureServingBundle, type BundleGenerators } from './bundle.js';
import type { ServingBundleWorkerRequest, ServingBundleWorkerReply } from './bundle-off-thread.js';

/**
 * The CA and admin certificate, begun as soon as the worker starts: neither depends on the request (the serving
 * certificate's hosts come from the server's options), so only the serving certificate is left for after it. They
 * are made by the same calls as in-thread, with this thread's clock at its start.
 */
function madeAhead(): BundleGenerators {
  const defaults = defaultBundleGenerators();
  const ca = defaults.ca();
  const admin = ca.then((c) => defaults.admin(c));
  // a failure is reported when ensureServingBundle asks for them (and then again by the in-thread fallback)
  admin.catch(() => undefined);
  return {
    ca: () => ca,
    admin: async (given) => (given === (await ca) ? admin : defaults.admin(given)),
  };
}

/** Answers the one request; `afterReply` runs once the result is posted (the loader writes its code cache then). */
export function serveCertRequest(afterReply: () => void): void {
  const ahead = madeAhead();
  parentPort!.once('message', (request: ServingBundleWorkerRequest) => {
    // a request with its own clock (tests) gets certificates made for that time
    const opts = { ...(request.hosts ? { hosts: request.hosts } : {}), ...(request.now ? { now: request.now } : { generate: ahead }) };
    // An exception ends the worker with an 'error' event; the main thread then generates in-thread, which reports it.
    void ensureServingBundle(request.dir, opts).then((result) => {
      const reply: ServingBundleWorkerReply = { result };
      parentPort!.postMessage(reply);
      afterReply();
      parentPort!.close();
    });
  });
}
