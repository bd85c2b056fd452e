// --write-kubeconfig: the file is in place before the server can answer anything, so a client that waits for
// /readyz 200 (docker compose's healthcheck, a script polling the port) can read it at once; so can one that sees
// any answer at all. It is written as the
// port opens, synchronously, before libuv accepts a first connection.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { freePort } from '../../harness/ports.js';
import { eventually } from '../support/eventually.js';

const entry = path.resolve('dist/server/main.cjs');

function readyzStatus(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
  });
}

describe('--write-kubeconfig', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let stdout = '';

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kah-kubeconfig-'));
    stdout = '';
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  function start(port: number, kubeconfig: string): ChildProcess {
    child = spawn(process.execPath, [entry, '--storage-backend=memory', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${path.join(dir, 'certs')}`, `--write-kubeconfig=${kubeconfig}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.resume();
    return child;
  }

  it('exists, complete, when the server first answers anything', async () => {
    const port = await freePort();
    const kubeconfig = path.join(dir, 'nested', 'dir', 'kubeconfig');
    start(port, kubeconfig);
    // poll back to back: the first answer (401 to an anonymous client under AlwaysAllow, as kube) is the moment that
    // counts; any answer at all means the server accepted a connection
    let status: number | undefined;
    const deadline = Date.now() + 60_000;
    while (status === undefined && Date.now() < deadline) {
      if (child!.exitCode !== null) throw new Error(`server exited ${child!.exitCode}`);
      status = await readyzStatus(port);
    }
    expect(status).toBe(401);
    expect(existsSync(kubeconfig)).toBe(true);
    const config = YAML.parse(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    expect(config.clusters[0]!.cluster.server).toBe(`https://127.0.0.1:${port}`);
    // and it works, with a client nobody here wrote
    const kubectl = await eventually(() => {
      const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/readyz'], { encoding: 'utf8' });
      if (r.stdout !== 'ok') throw new Error(`not ready: ${r.stdout}${r.stderr}`);
      return r;
    }, 60_000);
    expect(kubectl.stderr).toBe('');
    expect(kubectl.stdout).toBe('ok');
  });

  it('names the port the system chose for --secure-port=0', async () => {
    const kubeconfig = path.join(dir, 'kubeconfig');
    start(0, kubeconfig);
    const url = await eventually(() => {
      const m = /"msg":"Serving securely","url":"([^"]+)"/.exec(stdout);
      if (!m) throw new Error(`not serving yet: ${stdout}`);
      return m[1]!;
    }, 60_000);
    const config = YAML.parse(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    expect(config.clusters[0]!.cluster.server).toBe(url);
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:[1-9][0-9]*$/);
  });

  // node 20's own recursive mkdir never returns for a path under /proc: these starts used to hang (server/make-dirs.ts)
  it.each([
    ['--cert-dir', ['--cert-dir=/proc/kah-nope'], "Error: unable to create certificate directory /proc/kah-nope: ENOENT: no such file or directory, mkdir '/proc/kah-nope'"],
    ['--write-kubeconfig', ['--write-kubeconfig=/proc/kah-nope/kubeconfig'], "Error: unable to write the --write-kubeconfig file /proc/kah-nope/kubeconfig: ENOENT: no such file or directory, mkdir '/proc/kah-nope'"],
  ])('an impossible %s ends the start with an error', async (_flag, flags, message) => {
    const run = spawnSync(process.execPath, [entry, '--storage-backend=memory', '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${path.join(dir, 'certs')}`, ...flags], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(message);
  });
});
