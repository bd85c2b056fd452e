// One scenario from setup to cleanup: steps in order, each within its own limit and the scenario's; the first failing
// step ends the run, and the result names it (`step 4 (apply Pod/default/p1): expected code 422, got 201`) with the
// last server log lines. Callable from TypeScript: `await runScenario(obj)` in a jest test.
import { formatDuration } from './duration.js';
import { formatFileProblem, loadScenarioFile } from './load-scenarios.js';
import { describeStep, runStep, type StepOutcome, type StepProgress } from './run-step.js';
import { ScenarioEnvironment } from './scenario-environment.js';
import type { Scenario, ScenarioProblem } from './scenario-types.js';
import { validateScenario } from './validate-scenario.js';
import type { AdmissionCoverageReport } from '../../server/admission/coverage/report-schema.js';

export interface StepResult {
  /** 1-based, as progress lines count; 0 is the setup. */
  number: number;
  label: string;
  ok: boolean;
  durationMs: number;
  message?: string;
}

export interface ScenarioFailure {
  /** 1-based step number; 0 when the setup (or the cleanup) failed. */
  step: number;
  label: string;
  message: string;
  /** The last lines of the apiservers' and processes' output. */
  logs: string;
}

export interface ScenarioResult {
  name: string;
  file?: string;
  passed: boolean;
  durationMs: number;
  steps: StepResult[];
  failure?: ScenarioFailure;
  /** Set with `keep`: the temp dir left behind, with logs/ in it. */
  keptDir?: string;
  /** With `admissionCoverage`: what the scenario's apiservers recorded (every run and apiserver merged). */
  coverage?: AdmissionCoverageReport;
}

export interface RunScenarioOptions {
  /** Leave the temp dir (manifests, logs) for debugging. */
  keep?: boolean;
  /** Called as each step (and the setup) ends. */
  onStep?: (result: StepResult) => void;
  /** Called once the scenario's temp dir exists. */
  onTempDir?: (dir: string) => void;
  /** Where relative paths of an in-memory scenario start (default: the current directory). */
  baseDir?: string;
  /** Record admission coverage in the scenario's apiservers (the result's `coverage`). */
  admissionCoverage?: boolean;
}

export class ScenarioValidationError extends Error {
  constructor(readonly problems: ScenarioProblem[], where: string) {
    super(`invalid scenario${where}:\n${problems.map((p) => `  ${p.path ? `${p.path}: ` : ''}${p.message}`).join('\n')}`);
    this.name = 'ScenarioValidationError';
  }
}

/** "step 4 (apply Pod/default/p1): expected code 422, got 201" */
export function formatFailure(f: ScenarioFailure): string {
  return f.step === 0 ? `${f.label}: ${f.message}` : `step ${f.step} (${f.label}): ${f.message}`;
}

function isValidated(input: object): input is Scenario {
  return 'source' in input && 'setup' in input && !('apiVersion' in input);
}

/** A scenario from a validated object, a parsed YAML document, or a file holding exactly one scenario. */
export async function toScenario(input: Scenario | Record<string, unknown> | string, baseDir?: string): Promise<Scenario> {
  if (typeof input === 'string') {
    const loaded = await loadScenarioFile(input);
    if (loaded.problems.length > 0) throw new ScenarioValidationError(loaded.problems.map((p) => ({ path: '', message: formatFileProblem(p) })), ` in ${input}`);
    if (loaded.scenarios.length !== 1) throw new Error(`${input} holds ${loaded.scenarios.length} scenarios; runScenario runs one (use runScenarios for several)`);
    return loaded.scenarios[0]!;
  }
  if (isValidated(input)) return input;
  const r = validateScenario(input, { document: 0, dir: baseDir ?? process.cwd() });
  if (!r.ok) throw new ScenarioValidationError(r.problems, typeof input.name === 'string' ? ` ${JSON.stringify(input.name)}` : '');
  return r.scenario;
}

type Timed = { outcome: StepOutcome } | { timedOut: true };

/** The step's outcome, or a timeout; a step left running after its timeout is ended by the cleanup. */
async function within(ms: number, run: () => Promise<StepOutcome>): Promise<Timed> {
  let timer: NodeJS.Timeout | undefined;
  const work = run().then(
    (outcome): Timed => ({ outcome }),
    (err: unknown): Timed => ({ outcome: { ok: false, message: err instanceof Error ? err.message : String(err) } }),
  );
  const timeout = new Promise<Timed>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runScenario(input: Scenario | Record<string, unknown> | string, opts: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const scenario = await toScenario(input, opts.baseDir);
  const started = Date.now();
  const deadline = started + scenario.timeoutMs;
  const steps: StepResult[] = [];
  const result = (): ScenarioResult => ({
    name: scenario.name,
    ...(scenario.source.file !== undefined ? { file: scenario.source.file } : {}),
    passed: failure === undefined,
    durationMs: Date.now() - started,
    steps,
    ...(failure !== undefined ? { failure } : {}),
    ...(opts.keep ? { keptDir: env.tempDir } : {}),
    ...(env.coverage ? { coverage: env.coverage } : {}),
  });
  let failure: ScenarioFailure | undefined;
  const env = await ScenarioEnvironment.create(scenario, { admissionCoverage: opts.admissionCoverage ?? false });
  opts.onTempDir?.(env.tempDir);
  const record = (r: StepResult): void => {
    steps.push(r);
    opts.onStep?.(r);
    if (!r.ok) failure = { step: r.number, label: r.label, message: r.message ?? 'failed', logs: env.logTail(20) };
  };
  try {
    const setupStart = Date.now();
    const setup = await within(Math.max(0, deadline - Date.now()), async () => {
      await env.setup();
      return { ok: true };
    });
    const setupOutcome: StepOutcome = 'timedOut' in setup ? { ok: false, message: `timed out after ${formatDuration(scenario.timeoutMs)} (the scenario's limit)` } : setup.outcome;
    record({ number: 0, label: 'setup', ok: setupOutcome.ok, durationMs: Date.now() - setupStart, ...(setupOutcome.ok ? {} : { message: setupOutcome.message }) });
    for (const step of scenario.steps) {
      if (failure) break;
      const progress: StepProgress = { label: describeStep(step) };
      const remaining = deadline - Date.now();
      const limit = Math.min(step.timeoutMs, remaining);
      const stepStart = Date.now();
      const timed = remaining <= 0 ? ({ timedOut: true } as const) : await within(limit, () => runStep(env, step, progress));
      let outcome: StepOutcome;
      if ('timedOut' in timed) {
        outcome = { ok: false, message: limit < step.timeoutMs ? `the scenario timed out (limit ${formatDuration(scenario.timeoutMs)})` : `timed out after ${formatDuration(step.timeoutMs)}` };
      } else outcome = timed.outcome;
      record({ number: step.index + 1, label: progress.label, ok: outcome.ok, durationMs: Date.now() - stepStart, ...(outcome.ok ? {} : { message: outcome.message }) });
    }
  } finally {
    try {
      await env.cleanup(opts.keep ?? false);
    } catch (err) {
      // A scenario that passed but could not stop what it started is a failure: something would be left behind.
      if (!failure) failure = { step: 0, label: 'cleanup', message: (err as Error).message, logs: '' };
    }
  }
  return result();
}
