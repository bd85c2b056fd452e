// Node's own flags for the apiserver processes the harness starts (startApiServer, the envtest launcher) and the
// benchmark measures. One today: the size of V8's platform thread pool, which runs TurboFan's concurrent compiles and
// the garbage collector's helper tasks. Node starts 4 such threads on any machine; on 2 cores they compete with the
// main thread (and the certificate worker) for the second core while a start loads static manifests, whose YAML and
// CEL functions get hot and are optimized in the background. One thread per core beyond the main thread's, at most
// node's 4: on 2 cores, a start with 100 + 100 static manifests ≈ 30 ms sooner, other starts as before (README,
// Performance).
import os from 'node:os';

/** V8 platform threads for a machine with `cores` cores: one core is left to the main thread. */
export function v8PoolSizeFor(cores: number): number {
  return Math.max(1, Math.min(4, cores - 1));
}

/** Whether NODE_OPTIONS already sets the pool size: the command line would override it, so it is left alone. */
export function nodeOptionsSetPoolSize(nodeOptions: string | undefined): boolean {
  return /(?:^|\s)--v8-pool-size(?:[=\s]|$)/.test(nodeOptions ?? '');
}

/** The node flags to start an apiserver process with, before its entry script. */
export function serverNodeFlags(env: NodeJS.ProcessEnv = process.env, cores: number = os.availableParallelism()): string[] {
  if (nodeOptionsSetPoolSize(env['NODE_OPTIONS'])) return [];
  return [`--v8-pool-size=${v8PoolSizeFor(cores)}`];
}
