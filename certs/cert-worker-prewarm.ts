// Starts the certificate worker (dist/server/cert-worker.cjs) before the server bundle loads, when the command line
// suggests a fresh --cert-dir: its thread then loads selfsigned's x509 stack while the main thread loads the server.
// Only a guess from argv, made without the server's option parser: certs/bundle-off-thread.ts decides from the
// parsed options, uses the worker when it decides to generate, and terminates it otherwise. A wrong guess costs time,
// never a different result.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CertWorkerHints } from './bundle-worker.js';
import { servingHosts } from './serving-hosts.js';

const prewarmedKey = Symbol.for('kube-admission-harness.prewarmedCertWorker');

interface PrewarmedWorker {
  worker: Worker;
  file: string;
  /** set when the worker failed before it was taken; it is then not used */
  failed?: Error;
}

type WithPrewarmed = typeof globalThis & { [prewarmedKey]?: PrewarmedWorker };

/** A flag's explicit value (`--name=VALUE` or `--name VALUE`, the last one wins, as the parser does). */
export function flagFromArgs(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3);
    else if (a === `--${name}` && i + 1 < args.length) value = args[++i];
  }
  return value;
}

export const certDirFromArgs = (args: readonly string[]): string | undefined => flagFromArgs(args, 'cert-dir');

/** The serving certificate's hosts as the server will compute them, if its options are what `args` suggest. */
export function certWorkerHints(args: readonly string[]): CertWorkerHints {
  const bindAddress = flagFromArgs(args, 'bind-address');
  if (bindAddress === undefined) return {};
  return { servingHosts: servingHosts(bindAddress.trim(), flagFromArgs(args, 'external-hostname')) };
}

/** Whether a start with these arguments will probably generate certificates: no CA in --cert-dir nor in its kah/. */
export function likelyFreshCertDir(args: readonly string[]): boolean {
  const dir = certDirFromArgs(args);
  if (!dir) return false;
  return !existsSync(path.join(dir, 'ca.crt')) && !existsSync(path.join(dir, 'kah', 'ca.crt'));
}

/** Starts the worker (unreferenced: a start that ends early, --help or bad flags, does not wait for it). */
export function prewarmCertWorker(workerFile: string, args: readonly string[]): void {
  if (!likelyFreshCertDir(args) || !existsSync(workerFile)) return;
  let worker: Worker;
  try {
    worker = new Worker(workerFile, { workerData: certWorkerHints(args) });
  } catch {
    return;
  }
  worker.unref();
  const entry: PrewarmedWorker = { worker, file: workerFile };
  const onError = (err: Error) => {
    entry.failed = err;
  };
  worker.once('error', onError);
  worker.once('exit', (code) => onError(new Error(`certificate worker exited with code ${code}`)));
  // the taker attaches its own listeners; until then a failure only marks the worker unusable
  (globalThis as WithPrewarmed)[prewarmedKey] = entry;
}

/** The prewarmed worker for `workerFile`, once: undefined when none was started or it already failed. */
export function takePrewarmedCertWorker(workerFile: string): Worker | undefined {
  const g = globalThis as WithPrewarmed;
  const entry = g[prewarmedKey];
  if (!entry) return undefined;
  delete g[prewarmedKey];
  if (entry.failed || path.resolve(entry.file) !== path.resolve(workerFile)) {
    void entry.worker.terminate();
    return undefined;
  }
  entry.worker.removeAllListeners('error');
  entry.worker.removeAllListeners('exit');
  entry.worker.ref();
  return entry.worker;
}

/** Stops a prewarmed worker the start turned out not to need. */
export function discardPrewarmedCertWorker(): void {
  const g = globalThis as WithPrewarmed;
  const entry = g[prewarmedKey];
  if (!entry) return;
  delete g[prewarmedKey];
  void entry.worker.terminate();
}
