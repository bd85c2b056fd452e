// The fuzz suite (issue #13): thousands of generated malformed requests over every served resource, verb, content
// type and malformation, against memory and etcd storage. kube-apiserver answers each with a 4xx Status (never a
// crash, never a 5xx of its own making), within a time linear in the body size, and stores nothing its own type check
// would refuse. A failure prints the seed: KAH_FUZZ_SEED=<seed> reproduces the run (KAH_FUZZ_REQUESTS sets the count).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useApiServer } from '../../harness/jest.js';
import { seedFrom } from '../support/prng.js';
import { formatReport } from './check.js';
import { runFuzz } from './runner.js';

const seed = seedFrom('KAH_FUZZ_SEED');
const totalRequests = Number(process.env.KAH_FUZZ_REQUESTS ?? 5200);
// The two backends share the suite's budget (well under 2 minutes on 2 cores): each stops generating at its share.
const budgetMs = Number(process.env.KAH_FUZZ_BUDGET_MS ?? 40_000);

const allBackends = [
  { storage: 'memory' as const, seed },
  // a different stream for etcd, derived from the same printed seed
  { storage: 'etcd3' as const, seed: (seed + 1) >>> 0 },
];
// KAH_FUZZ_STORAGE=memory|etcd3 reruns one backend's stream alone (same seeds, same requests)
const only = process.env.KAH_FUZZ_STORAGE;
const backends = only ? allBackends.filter((b) => b.storage === only) : allBackends;
const requests = Math.ceil(totalRequests / allBackends.length);

describe.each(backends)('the fuzz against $storage storage', ({ storage, seed: backendSeed }) => {
  const env = useApiServer({ storage });

  it(`answers ${requests} malformed requests with a kube Status, no 5xx, no crash, in time, and stores only well-typed objects`, async () => {
    const result = await runFuzz({ server: env.server, seed: backendSeed, requests, concurrency: 4, budgetMs }).catch((err: Error) => {
      throw new Error(`fuzz against ${storage} (KAH_FUZZ_SEED=${seed}) failed: ${err.stack ?? err.message}`);
    });
    const header = `fuzz against ${storage}: KAH_FUZZ_SEED=${seed} (stream seed ${backendSeed}), ${result.sent} requests sent over ${result.resources} served resources, ${result.restarts} restarts after crashes, ${result.roundTripped} stored objects PUT back; fuzz ${result.fuzzMs} ms, round trip ${result.roundTripMs} ms`;
    if (result.findings.length > 0) {
      const report = formatReport(result.findings, header);
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'kah-fuzz-')), `report-${storage}-${seed}.txt`);
      writeFileSync(file, report);
      throw new Error(`${report}\n(full report in ${file})`);
    }
    // the budget must not silently shrink the suite below its promise
    expect(result.sent).toBe(requests);
    expect(result.roundTripped).toBeGreaterThan(0);
  }, budgetMs + 60_000);
});
