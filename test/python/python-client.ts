// Runs the scripts of test/python with the Python `kubernetes` client (Debian's python3-kubernetes, installed by
// .ci/run). `python3` on PATH may be a pyenv shim that does not see Debian's dist-packages, so the interpreter is
// the first of $KAH_PYTHON, /usr/bin/python3 and python3 that can import the package.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const scriptDir = path.dirname(fileURLToPath(import.meta.url));

let found: string | undefined;

/** The interpreter to use; throws (failing the suite, never skipping it) when none has the package. */
export function pythonWithKubernetes(): string {
  if (found) return found;
  const candidates = [process.env['KAH_PYTHON'], '/usr/bin/python3', 'python3'].filter((c): c is string => !!c);
  const tried: string[] = [];
  for (const candidate of candidates) {
    const r = spawnSync(candidate, ['-c', 'import kubernetes, sys; print(kubernetes.__version__)'], { encoding: 'utf8', timeout: 60_000 });
    if (r.status === 0) {
      found = candidate;
      return candidate;
    }
    tried.push(`${candidate}: ${r.error?.message ?? r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`}`);
  }
  throw new Error(`no Python interpreter with the kubernetes package (apt-get install python3-kubernetes, as .ci/run does; or set KAH_PYTHON):\n${tried.join('\n')}`);
}

export interface StepResult {
  ok: boolean;
  value?: unknown;
  status?: number;
  reason?: string;
  body?: unknown;
  error?: string;
  trace?: string;
}

/** The JSON object a script printed: step results (StepResult) and raw data under other keys. */
export type ScriptResult = Record<string, unknown>;

/**
 * Runs test/python/<script> with the kubeconfig and namespace (and extra arguments) and returns the JSON object it
 * prints last. Rejects with the script's output when it fails or prints no result within timeoutMs.
 */
export function runPythonScript(script: string, args: string[], timeoutMs = 120_000): Promise<ScriptResult> {
  const python = pythonWithKubernetes();
  return new Promise((resolve, reject) => {
    const child = spawn(python, [path.join(scriptDir, script), ...args], {
      cwd: scriptDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      // no __pycache__ in the source tree; unbuffered so a killed script still shows what it printed
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exit ${signal ?? code}`);
        resolve(JSON.parse(last) as ScriptResult);
      } catch (err) {
        reject(new Error(`${script} failed (${(err as Error).message}):\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      }
    });
  });
}
