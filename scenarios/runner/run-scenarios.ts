// Many scenarios: up to `parallel` at once, each with its own processes, ports and temp dir. With one at a time the
// progress lines stream; in parallel each scenario's lines are printed together when it ends, so they never interleave.
import os from 'node:os';
import { formatScenarioHeader, formatScenarioLine, formatStepLine, type RunSummary } from './report.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import type { Scenario } from './scenario-types.js';
import { mergeCoverageReports } from '../../server/admission/coverage/build-report.js';

export interface RunScenariosOptions {
  /** How many scenarios run at once (default: the number of cores). */
  parallel?: number;
  /** Start no further scenario after the first failure. */
  bail?: boolean;
  keep?: boolean;
  /** Progress output, a chunk of whole lines at a time (default: nothing). */
  write?: (text: string) => void;
  /** Record admission coverage in every scenario's apiservers; the summary's `coverage` merges them all. */
  admissionCoverage?: boolean;
}

export function defaultParallelism(): number {
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

export async function runScenarios(scenarios: readonly Scenario[], opts: RunScenariosOptions = {}): Promise<RunSummary> {
  const started = Date.now();
  const parallel = Math.max(1, Math.min(opts.parallel ?? defaultParallelism(), scenarios.length || 1));
  const write = opts.write ?? (() => undefined);
  const results: (ScenarioResult | undefined)[] = new Array(scenarios.length).fill(undefined);
  let next = 0;
  let bailed = false;

  const runOne = async (i: number): Promise<void> => {
    const s = scenarios[i]!;
    const streaming = parallel === 1;
    const buffer: string[] = [];
    const emit = (line: string): void => {
      if (streaming) write(`${line}\n`);
      else buffer.push(line);
    };
    emit(formatScenarioHeader(s.name, s.source.file));
    let result: ScenarioResult;
    try {
      result = await runScenario(s, { keep: opts.keep ?? false, admissionCoverage: opts.admissionCoverage ?? false, onStep: (r) => emit(formatStepLine(r)) });
    } catch (err) {
      // The environment could not even be made (no temp dir, no port): a failed scenario, not a crashed run.
      result = { name: s.name, ...(s.source.file ? { file: s.source.file } : {}), passed: false, durationMs: 0, steps: [], failure: { step: 0, label: 'setup', message: (err as Error).message, logs: '' } };
    }
    emit(formatScenarioLine(result));
    if (!streaming) write(`${buffer.join('\n')}\n`);
    results[i] = result;
    if (!result.passed && opts.bail) bailed = true;
  };

  const worker = async (): Promise<void> => {
    while (!bailed && next < scenarios.length) await runOne(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));

  const done = results.filter((r): r is ScenarioResult => r !== undefined);
  const skipped = scenarios.filter((_, i) => results[i] === undefined).map((s) => ({ name: s.name, ...(s.source.file ? { file: s.source.file } : {}) }));
  const coverage = opts.admissionCoverage ? mergeCoverageReports(done.flatMap((r) => (r.coverage ? [r.coverage] : []))) : undefined;
  return { results: done, skipped, durationMs: Date.now() - started, ...(coverage ? { coverage } : {}) };
}
