// ensureServingBundle on a worker thread when a start has to generate certificates: loading selfsigned's x509 stack
// and issuing the CA, serving and admin certificates costs ≈ 70 ms of CPU, which then runs on another core while the
// main thread builds the server (server/main.ts; the worker was started before the server bundle loaded,
// certs/cert-worker-prewarm.ts). A directory that already holds a CA is handled
// in-thread, as before: reusing certificates loads no x509 code, and a worker would only add its own startup.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { debuglog } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ensureServingBundle, servingBundlePaths, type ServingBundleOptions, type ServingBundleResult } from './bundle.js';
import { discardPrewarmedCertWorker, takePrewarmedCertWorker } from './cert-worker-prewarm.js';
import { certWorkerEnabled } from './cert-worker-switch.js';

/** NODE_DEBUG=kah_cert_worker: how each start got its certificates, and how long it waited for the worker */
const debugCertWorker = debuglog('kah_cert_worker');

/** what the worker is sent, once */
export interface ServingBundleWorkerRequest {
  dir: string;
  hosts: readonly string[] | undefined;
  now: Date | undefined;
}

/** what the worker posts back: the same result ensureServingBundle gives in-thread */
export interface ServingBundleWorkerReply {
  result: ServingBundleResult;
}

export interface OffThreadOptions extends ServingBundleOptions {
  /** the worker's script (dist/server/cert-worker.cjs); none, or a missing file, means in-thread */
  workerFile?: string;
  /** told how the bundle was made, for the debug log and tests */
  onMode?: (mode: 'worker' | 'in-thread' | 'fallback', why?: string) => void;
}

/** The worker beside the server bundle (dist/server/cert-worker.cjs), when this code runs from it and it is on (KAH_CERT_WORKER). */
export function defaultCertWorkerFile(): string | undefined {
  if (!certWorkerEnabled()) return undefined;
  // in the server bundle import.meta.url is dist/server/server.cjs; from tsc's output there is no worker beside it
  const file = new URL('./cert-worker.cjs', import.meta.url);
  return file.protocol === 'file:' ? fileURLToPath(file) : undefined;
}

function runWorker(workerFile: string, request: ServingBundleWorkerRequest): Promise<ServingBundleResult> {
  return new Promise((resolve, reject) => {
    const worker = takePrewarmedCertWorker(workerFile) ?? new Worker(workerFile);
    let settled = false;
    worker.once('message', (reply: ServingBundleWorkerReply) => {
      settled = true;
      resolve(reply.result);
      // it ends by itself once it has written its code cache; it must not keep the process alive meanwhile
      worker.unref();
    });
    worker.once('error', (err) => {
      if (!settled) reject(err);
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`certificate worker exited with code ${code}`));
      settled = true;
    });
    worker.postMessage(request);
  });
}

/**
 * ensureServingBundle, generating on a worker thread when `dir` has no CA yet (a fresh start) and a worker script is
 * available. Any worker failure (cannot start, crashes, throws) falls back to ensureServingBundle in-thread, which then
 * reports whatever error that generation hits, exactly as without the worker.
 */
export async function ensureServingBundleOffThread(dir: string, opts: OffThreadOptions = {}): Promise<ServingBundleResult> {
  const { workerFile = defaultCertWorkerFile(), onMode: notify, ...bundleOpts } = opts;
  const onMode = (mode: 'worker' | 'in-thread' | 'fallback', why?: string) => {
    debugCertWorker('%s%s', mode, why === undefined ? '' : `: ${why}`);
    notify?.(mode, why);
  };
  if (!workerFile || !existsSync(workerFile)) {
    discardPrewarmedCertWorker();
    onMode('in-thread', 'no worker script');
    return ensureServingBundle(dir, bundleOpts);
  }
  if (existsSync(servingBundlePaths(dir).caCert)) {
    discardPrewarmedCertWorker();
    onMode('in-thread', 'a CA is already there');
    return ensureServingBundle(dir, bundleOpts);
  }
  try {
    const since = performance.now();
    const result = await runWorker(workerFile, { dir, hosts: bundleOpts.hosts, now: bundleOpts.now });
    onMode('worker', `waited ${(performance.now() - since).toFixed(1)} ms`);
    return result;
  } catch (err) {
    onMode('fallback', (err as Error).message);
    return ensureServingBundle(dir, bundleOpts);
  }
}
