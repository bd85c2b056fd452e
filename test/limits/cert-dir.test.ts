// The cert dir the real server process creates under `umask 000`, and its refusal of a CA directory other users
// may write (on first start and when a restart would reuse the CA). Modes follow client-go's WriteCert/WriteKey
// (k8s.io/client-go/util/cert/io.go, util/keyutil/key.go): directory 0755, certificates 0644, keys 0600.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultServerEntry } from '../../harness/apiserver-process.js';
import { freePort } from '../../harness/ports.js';
import { certDirModeProblem } from '../../certs/cert-dir.js';

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

let dir: string;
const runs: Run[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kah-umask-'));
});
afterEach(async () => {
  for (const r of runs.splice(0)) {
    if (r.child.exitCode === null && r.child.signalCode === null) {
      r.child.kill('SIGKILL');
      await r.exited;
    }
  }
  await rm(dir, { recursive: true, force: true });
});

/** The server as a user would start it from a shell whose umask is 000. */
async function startUnderUmask000(certDir: string): Promise<Run> {
  const port = await freePort();
  const args = [`--secure-port=${port}`, '--bind-address=127.0.0.1', '--storage-backend=memory', `--cert-dir=${certDir}`, `--write-kubeconfig=${path.join(certDir, 'admin.kubeconfig')}`];
  const child = spawn('sh', ['-c', 'umask 000; exec "$0" "$@"', process.execPath, defaultServerEntry(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  child.stdout!.on('data', (c: Buffer) => (run.stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (run.stderr += c.toString()));
  runs.push(run);
  return run;
}

/** Resolves when the server logs that it serves, or rejects with what it printed if it exits first. */
async function serving(run: Run, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!run.stdout.includes('"msg":"Serving securely"')) {
    if (run.child.exitCode !== null) throw new Error(`the server exited ${run.child.exitCode}: ${run.stderr}`);
    if (Date.now() > deadline) throw new Error(`the server did not start in ${timeoutMs} ms: ${run.stdout}\n${run.stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stop(run: Run): Promise<void> {
  run.child.kill('SIGTERM');
  expect(await run.exited).toBe(0);
}

const modeOf = async (p: string): Promise<number> => (await stat(p)).mode & 0o7777;

/** stderr without its warnings (default flags print kube's AnonymousAuth warning first): one line per problem. */
const problemLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l !== '' && !l.startsWith('Warning: '));

describe('the cert dir under umask 000', () => {
  it('is created 0755 with 0644 certificates and 0600 keys, and reused as it is on restart', async () => {
    const certDir = path.join(dir, 'certs');
    const first = await startUnderUmask000(certDir);
    await serving(first);
    expect(await modeOf(certDir)).toBe(0o755);
    for (const name of ['ca', 'apiserver', 'admin']) {
      expect(await modeOf(path.join(certDir, `${name}.crt`))).toBe(0o644);
      expect(await modeOf(path.join(certDir, `${name}.key`))).toBe(0o600);
    }
    expect(await modeOf(path.join(certDir, 'admin.kubeconfig'))).toBe(0o600);
    const ca = await readFile(path.join(certDir, 'ca.crt'), 'utf8');
    await stop(first);

    const second = await startUnderUmask000(certDir);
    await serving(second);
    expect(await readFile(path.join(certDir, 'ca.crt'), 'utf8')).toBe(ca);
    expect(await modeOf(certDir)).toBe(0o755);
    await stop(second);
  }, 90_000);

  it('refuses, on restart, a CA directory that has become writable by group and others', async () => {
    const certDir = path.join(dir, 'certs');
    const first = await startUnderUmask000(certDir);
    await serving(first);
    await stop(first);
    const ca = await readFile(path.join(certDir, 'ca.crt'), 'utf8');

    await chmod(certDir, 0o777);
    const second = await startUnderUmask000(certDir);
    expect(await second.exited).toBe(1);
    expect(problemLines(second.stderr)).toEqual([`Error: ${certDirModeProblem(certDir, 0o777)}`]);
    expect(second.stdout).not.toContain('Serving securely');
    expect(await readFile(path.join(certDir, 'ca.crt'), 'utf8')).toBe(ca);
  }, 90_000);

  it('refuses a pre-existing group-writable directory before writing a CA into it', async () => {
    const certDir = path.join(dir, 'shared');
    await mkdir(certDir);
    await chmod(certDir, 0o775);
    const run = await startUnderUmask000(certDir);
    expect(await run.exited).toBe(1);
    expect(problemLines(run.stderr)).toEqual([`Error: ${certDirModeProblem(certDir, 0o775)}`]);
    await expect(stat(path.join(certDir, 'ca.key'))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 60_000);
});
