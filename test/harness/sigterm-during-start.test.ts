// SIGTERM during a start that generates its certificates (a fresh --cert-dir, on the certificate worker, the
// default): the process ends at once with exit 0 and its "shutting down" line, whether the server bundle still loads
// (server/main-loader.ts handles the signal from before it starts the worker), the worker still generates, the server
// is being built or it already listens. It must never abort: node 20 aborted a process that exited while the worker's
// asynchronous key generation was in flight (certs/key-pair.ts, certs/cert-worker-exit.test.ts).
import { startApiServer, type ApiServerHandle } from '../../harness/index.js';

const startingLine = /"msg":"starting kube-admission-harness apiserver"/;
/** NODE_DEBUG=kah_compile_cache: written by server/main-loader.ts as it loads a bundle, after its signal handlers */
const loadingLine = /KAH_COMPILE_CACHE \d+:/;

/** Starts a server, waits for `line`, waits `delayMs`, sends SIGTERM: 'exit 0' if it shut down as it should. */
async function stopOnceLogged(line: RegExp, delayMs: number, env: Record<string, string | undefined>): Promise<string> {
  const server: ApiServerHandle = await startApiServer({ storage: 'memory', certificates: 'fresh', waitForReady: false, env: { KAH_CERT_WORKER: undefined, ...env } });
  try {
    await server.waitForLog(line, 30_000);
    // not a wait for a condition: the signal is sent at a different point of the start each time
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const exit = await server.stop();
    const shutDown = server.stdout().includes('"msg":"shutting down","signal":"SIGTERM"');
    return exit.code === 0 && exit.signal === null && shutDown ? 'exit 0' : `${delayMs} ms: code ${exit.code}, signal ${exit.signal}: ${server.stderr().slice(0, 600)}`;
  } finally {
    await server.cleanup();
  }
}

describe('SIGTERM while a fresh start generates its certificates', () => {
  it('shuts down with exit 0 and its "shutting down" line, never by a signal (32 starts, 4 at a time, 0–62 ms after the first log line)', async () => {
    const outcomes: string[] = [];
    const one = async (delayMs: number): Promise<void> => void outcomes.push(await stopOnceLogged(startingLine, delayMs, {}));
    for (let round = 0; round < 8; round++) await Promise.all([0, 1, 2, 3].map((k) => one((round * 4 + k) * 2)));
    expect(outcomes.filter((o) => o !== 'exit 0')).toEqual([]);
    expect(outcomes).toHaveLength(32);
  }, 240_000);

  it('shuts down with exit 0 when the signal comes while the server bundle loads (12 starts, 4 at a time)', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) await Promise.all([0, 1, 2, 3].map(async () => void outcomes.push(await stopOnceLogged(loadingLine, 0, { NODE_DEBUG: 'kah_compile_cache' }))));
    expect(outcomes.filter((o) => o !== 'exit 0')).toEqual([]);
    expect(outcomes).toHaveLength(12);
  }, 240_000);
});
