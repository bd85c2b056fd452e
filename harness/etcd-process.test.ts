import { existsSync } from 'node:fs';
import { Etcd3 } from 'etcd3';
import { cleanupAll, trackedResources } from './cleanup.js';
import { resolveEtcdBinary, startEtcd, type EtcdProcess } from './etcd-process.js';

describe('startEtcd', () => {
  let etcd: EtcdProcess | undefined;
  afterEach(async () => {
    await etcd?.cleanup();
    etcd = undefined;
  });

  it('starts a healthy etcd on free ports and keeps its data across kill -9 and restart', async () => {
    etcd = await startEtcd();
    expect(etcd.endpoint).toBe(`http://127.0.0.1:${etcd.clientPort}`);
    expect(etcd.running).toBe(true);
    expect(existsSync(etcd.dataDir)).toBe(true);
    expect(etcd.startupMs).toBeGreaterThan(0);

    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      await client.put('/kah/test').value('before-kill');
      const firstPid = etcd.pid;
      await etcd.kill('SIGKILL');
      expect(etcd.running).toBe(false);
      expect(await etcd.exited).toEqual({ code: null, signal: 'SIGKILL' });

      await etcd.restart();
      expect(etcd.running).toBe(true);
      expect(etcd.pid).not.toBe(firstPid);
      expect(etcd.endpoint).toBe(`http://127.0.0.1:${etcd.clientPort}`);
      const deadline = Date.now() + 10_000;
      let value: string | null = null;
      while (Date.now() < deadline) {
        try {
          value = await client.get('/kah/test').string();
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      expect(value).toBe('before-kill');
    } finally {
      client.close();
    }
    expect(etcd.logs()).toContain('serving client traffic');
    expect(etcd.logs()).toContain('--- kah: restarting etcd');
  });

  it('stops with SIGTERM, and cleanup removes the data dir it created', async () => {
    etcd = await startEtcd();
    const { dataDir } = etcd;
    await etcd.stop();
    expect(etcd.running).toBe(false);
    expect((await etcd.exited).signal ?? 'exited').not.toBe('SIGKILL');
    await etcd.cleanup();
    expect(existsSync(dataDir)).toBe(false);
    expect(trackedResources().tempDirs).not.toContain(dataDir);
  });

  it('is stopped and removed by cleanupAll', async () => {
    const e = await startEtcd();
    expect(trackedResources().pids).toContain(e.pid);
    await cleanupAll();
    expect(e.running).toBe(false);
    expect(existsSync(e.dataDir)).toBe(false);
    expect(trackedResources()).toEqual({ pids: [], tempDirs: [] });
  });

  it('fails with etcd’s own output when etcd exits during startup, leaving nothing behind', async () => {
    const before = trackedResources();
    await expect(startEtcd({ extraArgs: ['--no-such-flag'] })).rejects.toThrow(/etcd exited during startup[\s\S]*no-such-flag/);
    expect(trackedResources()).toEqual(before);
  });

  it('says how to get etcd when the binary is missing', async () => {
    await expect(startEtcd({ binary: '/nonexistent/etcd' })).rejects.toThrow(
      "etcd was not found: /nonexistent/etcd (from the binary option) does not exist or is not an executable file. Install Debian's etcd-server package (apt-get install etcd-server) or set ETCD_BIN to the path of an etcd binary.",
    );
    expect(() => resolveEtcdBinary(undefined, { PATH: '/nonexistent' })).toThrow(/^etcd was not found: no "etcd" executable on PATH\. Install Debian's etcd-server package/);
    expect(() => resolveEtcdBinary(undefined, { PATH: '/nonexistent', ETCD_BIN: '/opt/none/etcd' })).toThrow(/\/opt\/none\/etcd \(from ETCD_BIN\)/);
  });

  it('finds etcd through ETCD_BIN, then PATH', () => {
    const onPath = resolveEtcdBinary(undefined, { PATH: process.env.PATH });
    expect(resolveEtcdBinary(undefined, { PATH: '/nonexistent', ETCD_BIN: onPath })).toBe(onPath);
  });
});
