// The worker side of ensureServingBundleOffThread (certs/bundle-off-thread.ts), bundled on its own into
// dist/server/cert-worker-body.cjs (scripts/bundle.mjs) and run by certs/cert-worker-loader.ts with a V8 code cache:
// it loads the certificate code and selfsigned's x509 stack on another thread, without the server. It may be started
// before the server knows whether it needs it (certs/cert-worker-prewarm.ts): it loads selfsigned at once, then waits
// for the one request.
import { parentPort } from 'node:worker_threads';
import { ensureServingBundle } from './bundle.js';
import type { ServingBundleWorkerRequest, ServingBundleWorkerReply } from './bundle-off-thread.js';

/** Answers the one request; `afterReply` runs once the result is posted (the loader writes its code cache then). */
export function serveCertRequest(afterReply: () => void): void {
  // the module loads a generation would otherwise wait for; a failure here shows again in the generation
  void import('selfsigned').catch(() => undefined);
  parentPort!.once('message', (request: ServingBundleWorkerRequest) => {
    const opts = { ...(request.hosts ? { hosts: request.hosts } : {}), ...(request.now ? { now: request.now } : {}) };
    // An exception ends the worker with an 'error' event; the main thread then generates in-thread, which reports it.
    void ensureServingBundle(request.dir, opts).then((result) => {
      const reply: ServingBundleWorkerReply = { result };
      parentPort!.postMessage(reply);
      afterReply();
      parentPort!.close();
    });
  });
}
