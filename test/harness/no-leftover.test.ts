// "No process is left over after the suite": a child jest runs a failing fixture suite that starts etcd, the
// apiserver and a webhook server through the jest helpers; once that jest exits, none of them may be alive.
// (jest's sandboxed `process` never sees exit events, so only the helpers' afterAll can clean up: if it breaks,
// the processes outlive the child jest and this test fails.)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../harness/apiserver-process.js';
import { isAlive } from '../support/process.js';

interface Report {
  pids: (number | undefined)[];
  dirs: (string | undefined)[];
  webhookPort: number;
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function runJest(root: string, testMatch: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', path.join(root, 'node_modules/jest/bin/jest.js'), '--ci', '--runInBand', '--testMatch', testMatch],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // A child jest kept alive by a leaked handle is itself a leftover: fail rather than wait forever.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the fixture jest did not exit within ${timeoutMs} ms (a leaked handle?):\n${output}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('cleanup after a suite', () => {
  it('leaves no etcd, apiserver, webhook server or temp dir behind when a suite using the jest helpers fails', async () => {
    const root = packageRoot();
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'kah-leftover-'));
    const reportFile = path.join(tmp, 'report.json');
    const readReport = (): Report | undefined => (existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as Report) : undefined);
    try {
      const { code, output } = await runJest(root, '**/test/harness/fixtures/leftover.fixture.ts', { ...process.env, KAH_LEFTOVER_REPORT: reportFile }, 60_000);

      // The fixture really ran: one test passed and reported, the other failed on purpose.
      const report = readReport();
      expect(report).toBeDefined();
      expect(output).toContain('deliberate failure');
      expect(code).toBe(1);

      const pids = report!.pids.filter((p): p is number => typeof p === 'number' && p > 0);
      expect(pids).toHaveLength(2);
      expect(pids.filter(isAlive)).toEqual([]);
      const dirs = report!.dirs.filter((d): d is string => typeof d === 'string');
      expect(dirs).toHaveLength(3);
      expect(dirs.filter((d) => existsSync(d))).toEqual([]);
      expect(await refusesConnections(report!.webhookPort)).toBe(true);
    } finally {
      // If cleanup did break, this test fails above; don't let its leftovers outlive it too.
      for (const pid of readReport()?.pids ?? []) if (typeof pid === 'number' && pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
      for (const dir of readReport()?.dirs ?? []) {
        // The harness's temp dirs are <tmpdir>/kah-apiserver-* and <tmpdir>/kah-etcd-*; remove only those.
        const top = dir && path.relative(os.tmpdir(), dir).split(path.sep)[0];
        if (top && /^kah-(apiserver|etcd)-/.test(top)) rmSync(path.join(os.tmpdir(), top), { recursive: true, force: true });
      }
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 90_000);
});
