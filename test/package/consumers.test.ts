// The package as a user gets it: `npm pack`, installed with the test runners into a throwaway directory, and the
// minimal project for each runner (test/package/fixtures/, the setups the README shows) run there: TypeScript
// under ts-jest's default CommonJS preset, plain JavaScript under jest's defaults, vitest 3 (vite 7: vitest 4+ and
// vite 8 need Node 22) and node's own runner. Each project starts a server with useApiServer, talks to it through
// the client the package hands out (`k8s`), and checks that an error thrown by the harness names files the
// installed package has (its source maps point at the shipped TypeScript sources).
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = path.join(repoRoot, 'test', 'package', 'fixtures');

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command to completion; the output (stdout and stderr interleaved) is kept for the assertion message. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1' };
    // The outer jest's own variables would make the inner jest believe it is one of its workers.
    delete env.JEST_WORKER_ID;
    delete env.NODE_OPTIONS;
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // The whole process group: a runner's workers and the apiservers they started go with it.
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function expectSuccess(r: Run, what: string): void {
  if (r.code !== 0) throw new Error(`${what} exited with ${r.code}:\n${r.output}`);
}

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'kah-consumers-'));
  // prepack builds first (a no-op when dist/ is current).
  const packed = await run('npm', ['pack', '--pack-destination', workDir, '--silent'], repoRoot, 120_000);
  expectSuccess(packed, 'npm pack');
  const tarball = (await readdir(workDir)).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${workDir}:\n${packed.output}`);
  // One install for the four projects, which sit below it (node resolves packages upwards, as in a monorepo).
  const base = path.join(workDir, 'consumers');
  await mkdir(base);
  await writeFile(path.join(base, 'package.json'), JSON.stringify({ name: 'consumers', private: true }));
  const installed = await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(workDir, tarball), 'jest@29', 'ts-jest@29', 'typescript@5.9', '@types/jest@29', '@types/node@20', 'vitest@3', 'vite@7'],
    base,
    240_000,
  );
  expectSuccess(installed, 'npm install');
  await cp(fixtures, base, { recursive: true });
}, 400_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const project = (name: string): string => path.join(workDir, 'consumers', name);

// Each project has two tests; a runner that found none, or skipped one, must not pass here.
it('works from a TypeScript jest project with ts-jest’s default (CommonJS) preset', async () => {
  const r = await run(path.join(workDir, 'consumers', 'node_modules', '.bin', 'jest'), ['--ci'], project('ts-jest'), 120_000);
  expectSuccess(r, 'jest (ts-jest)');
  expect(r.output).toMatch(/Tests:\s+2 passed, 2 total/);
  expect(r.output).toMatch(/harness frames: .*harness\/etcd-process\.ts/);
}, 130_000);

it('works from a plain JavaScript jest project with no configuration', async () => {
  const r = await run(path.join(workDir, 'consumers', 'node_modules', '.bin', 'jest'), ['--ci'], project('js-jest'), 120_000);
  expectSuccess(r, 'jest (JavaScript)');
  expect(r.output).toMatch(/Tests:\s+2 passed, 2 total/);
}, 130_000);

it('works from vitest with the hooks passed to useApiServer', async () => {
  const r = await run(path.join(workDir, 'consumers', 'node_modules', '.bin', 'vitest'), ['run'], project('vitest'), 120_000);
  expectSuccess(r, 'vitest run');
  expect(r.output).toMatch(/Tests\s+2 passed \(2\)/);
}, 130_000);

it('works from node:test, with stack traces mapped to the shipped TypeScript sources', async () => {
  const r = await run(process.execPath, ['--enable-source-maps', '--test'], project('node-test'), 120_000);
  expectSuccess(r, 'node --test');
  expect(r.output).toMatch(/# pass 2\n/);
  expect(r.output).toMatch(/# fail 0\n/);
  expect(r.output).toMatch(/harness frames: .*harness\/etcd-process\.ts/);
}, 130_000);
