// The worker side of ensureServingBundleOffThread (certs/bundle-off-thread.ts), bundled on its own into
// dist/server/cert-worker-body.cjs (scripts/bundle.mjs) and run by certs/cert-worker-loader.ts with a V8 code cache:
// it loads the certificate code and selfsigned's x509 stack on another thread, without the server. It may be started
// before the server knows whether it needs it (certs/cert-worker-prewarm.ts): it makes the certificates at once, then
// waits for the one request.
import { parentPort, workerData } from 'node:worker_threads';
import { defaultBundleGenerators, ensureServingBundle, type BundleGenerators } from './bundle.js';
import type { ServingBundleWorkerRequest, ServingBundleWorkerReply } from './bundle-off-thread.js';

/** What the prewarmed worker is told of the command line (certs/cert-worker-prewarm.ts): a guess, checked on use. */
export interface CertWorkerHints {
  /** the serving certificate's hosts if the server's options are what the command line suggests */
  servingHosts?: string[];
}

const sameHosts = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((h, i) => h === b[i]);

/**
 * The certificates, begun as soon as the worker starts, by the same calls as in-thread with this thread's clock: the
 * CA and the admin certificate depend on nothing in the request, and the serving certificate only on its hosts, used
 * only when the request asks for exactly the hosts guessed from the command line.
 */
function madeAhead(hints: CertWorkerHints | undefined): BundleGenerators {
  const defaults = defaultBundleGenerators();
  const ca = defaults.ca();
  const admin = ca.then((c) => defaults.admin(c));
  const guessedHosts = hints?.servingHosts;
  const serving = guessedHosts ? ca.then((c) => defaults.serving(c, guessedHosts)) : undefined;
  // a failure is reported when ensureServingBundle asks for them (and then again by the in-thread fallback)
  admin.catch(() => undefined);
  serving?.catch(() => undefined);
  return {
    ca: () => ca,
    serving: async (given, hosts) => (serving && guessedHosts && given === (await ca) && sameHosts(hosts, guessedHosts) ? serving : defaults.serving(given, hosts)),
    admin: async (given) => (given === (await ca) ? admin : defaults.admin(given)),
  };
}

/** Answers the one request; `afterReply` runs once the result is posted (the loader writes its code cache then). */
export function serveCertRequest(afterReply: () => void): void {
  const ahead = madeAhead(workerData as CertWorkerHints | undefined);
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
