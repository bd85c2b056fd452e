// SIGTERM during a start that generates its certificates (a fresh --cert-dir, on the certificate worker, the
// default): once the server's signal handlers are in place (before its first log line), the process ends at once with
// exit 0 and its "shutting down" line, whether the worker still generates, the server is being built or it already
// listens. It must never abort: node 20 aborted a process that exited while the worker's asynchronous key generation
// was in flight (certs/key-pair.ts, certs/cert-worker-exit.test.ts).
import { startApiServer, type ApiServerHandle } from '../../harness/index.js';

const startingLine = /"msg":"starting kube-admission-harness apiserver"/;

describe('SIGTERM while a fresh start generates its certificates', () => {
  it('shuts down with exit 0 and its "shutting down" line, never by a signal (32 starts, 4 at a time, 0–62 ms after the first log line)', async () => {
    const outcomes: string[] = [];
    const one = async (delayMs: number): Promise<void> => {
      const server: ApiServerHandle = await startApiServer({ storage: 'memory', waitForReady: false, env: { KAH_CERT_WORKER: undefined } });
      try {
        await server.waitForLog(startingLine, 30_000);
        // not a wait for a condition: the signal is sent at a different point of the start each time
        await new Promise((r) => setTimeout(r, delayMs));
        const exit = await server.stop();
        const shutDown = server.stdout().includes('"msg":"shutting down","signal":"SIGTERM"');
        outcomes.push(exit.code === 0 && exit.signal === null && shutDown ? 'exit 0' : `${delayMs} ms: code ${exit.code}, signal ${exit.signal}: ${server.stderr().slice(0, 600)}`);
      } finally {
        await server.cleanup();
      }
    };
    for (let round = 0; round < 8; round++) await Promise.all([0, 1, 2, 3].map((k) => one((round * 4 + k) * 2)));
    expect(outcomes.filter((o) => o !== 'exit 0')).toEqual([]);
    expect(outcomes).toHaveLength(32);
  }, 240_000);
});
