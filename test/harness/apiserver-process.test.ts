// The apiserver and etcd as real processes: kill -9 and restart keep the data, an etcd outage shows in /readyz and
// as 5xx writes and heals without restarting the apiserver, a bad flag is a startup failure, nothing is left behind.
import { existsSync, readFileSync } from 'node:fs';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { ApiServerStartError, startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { trackedResources } from '../../harness/cleanup.js';
import { serverNodeFlags } from '../../harness/server-node-flags.js';
import { expectStartupFailure, UnexpectedStartupError } from '../../harness/startup-failure.js';
import { isAlive } from '../support/process.js';

/** Polls `check` until it returns a value other than undefined; no fixed sleeps. */
async function pollUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const configMap = (name: string): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { answer: '42' } });

describe('startApiServer on a harness-started etcd', () => {
  let server: ApiServerHandle;

  beforeAll(async () => {
    server = await startApiServer();
  }, 90_000);
  afterAll(async () => {
    await server?.cleanup();
  });

  it('is ready with a URL, a CA, an admin kubeconfig and its own etcd', async () => {
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    expect(server.caPem).toContain('-----BEGIN CERTIFICATE-----');
    expect(server.etcd?.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.args).toEqual(expect.arrayContaining([`--secure-port=${server.port}`, '--storage-backend=etcd3', `--etcd-servers=${server.etcd!.endpoint}`]));
    const readyz = await server.request('/readyz');
    expect(readyz.status).toBe(200);
    const ns = await server.client(CoreV1Api).readNamespace({ name: 'default' });
    expect(ns.metadata?.name).toBe('default');
  });

  it('keeps a ConfigMap across kill -9 and restart on the same port', async () => {
    const core = server.client(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: configMap('survivor') });
    const firstPid = server.pid!;

    const exit = await server.kill();
    expect(exit?.signal).toBe('SIGKILL');
    expect(isAlive(firstPid)).toBe(false);

    await server.restart();
    expect(server.pid).not.toBe(firstPid);
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    const got = await server.client(CoreV1Api).readNamespacedConfigMap({ namespace: 'default', name: 'survivor' });
    expect(got.data).toEqual({ answer: '42' });
  }, 60_000);

  it('reports etcd failing in /readyz and answers writes with a 5xx Status while etcd is down, then recovers without a restart', async () => {
    const apiserverPid = server.pid;
    await server.etcd!.kill('SIGKILL');

    const notReady = await pollUntil('/readyz to report etcd failing', async () => {
      const r = await server.request('/readyz?verbose');
      return r.status !== 200 && r.body.includes('[-]etcd failed') ? r : undefined;
    });
    expect(notReady.status).toBeGreaterThanOrEqual(500);

    const write = await server.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('during-outage'), timeoutMs: 30_000 });
    expect(write.status).toBeGreaterThanOrEqual(500);
    expect(write.status).toBeLessThan(600);
    expect(write.json()).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: write.status });

    await server.etcd!.restart();
    await server.waitReady(30_000);
    expect(server.pid).toBe(apiserverPid);
    const created = await pollUntil('a write to succeed again', async () => {
      const r = await server.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('after-outage') });
      return r.status === 201 ? r : undefined;
    });
    expect(created.json()).toMatchObject({ metadata: { name: 'after-outage' } });
  }, 90_000);

  it('stops with SIGTERM and exit code 0', async () => {
    const exit = await server.stop();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(server.running).toBe(false);
  }, 30_000);
});

describe('startApiServer with memory storage', () => {
  it('starts no etcd, serves, and removes its temp dir on cleanup', async () => {
    const server = await startApiServer({ storage: 'memory' });
    try {
      expect(server.etcd).toBeUndefined();
      expect(server.args).toContain('--storage-backend=memory');
      // node's own flags for this machine come before the entry script (harness/server-node-flags.ts)
      const cmdline = readFileSync(`/proc/${server.pid!}/cmdline`, 'utf8').split('\0');
      expect(cmdline.slice(1, cmdline.indexOf(server.args[0]!))).toEqual(serverNodeFlags());
      const created = await server.client(CoreV1Api).createNamespacedConfigMap({ namespace: 'default', body: configMap('in-memory') });
      expect(created.metadata?.resourceVersion).toBeTruthy();
      // Logs: one JSON object per line, already-printed lines match too.
      const serving = await server.waitForLog(/"msg":"Serving securely"/, 5000);
      expect(JSON.parse(serving)).toMatchObject({ url: server.url, kubeconfig: server.kubeconfigPath });
      expect(server.stdout()).toContain(serving);
      await expect(server.waitForLog('no such line', 200)).rejects.toThrow(/no log line matching no such line within 200 ms/);
    } finally {
      await server.cleanup();
    }
    expect(isAlive(server.pid!)).toBe(false);
    expect(existsSync(server.certDir)).toBe(false);
    expect(trackedResources().tempDirs.filter((d) => server.certDir.startsWith(d))).toEqual([]);
  }, 60_000);
});

describe('startup failures', () => {
  it('expectStartupFailure returns exit code 1 and the message for an unknown flag', async () => {
    const failure = await expectStartupFailure({ storage: 'memory', flags: ['--no-such-flag'] });
    expect(failure.exitCode).toBe(1);
    expect(failure.stderr).toContain('unknown flag: --no-such-flag');
  }, 60_000);

  it('expectStartupFailure rejects, and stops the server, when it becomes ready', async () => {
    const before = new Set(trackedResources().pids);
    await expect(expectStartupFailure({ storage: 'memory' })).rejects.toBeInstanceOf(UnexpectedStartupError);
    expect(trackedResources().pids.filter((p) => !before.has(p) && isAlive(p))).toEqual([]);
  }, 60_000);

  it('startApiServer rejects with the exit code and stderr when the server exits before ready, and leaves its etcd stopped', async () => {
    const before = new Set(trackedResources().pids);
    const err = await startApiServer({ flags: ['--no-such-flag'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiServerStartError);
    expect((err as ApiServerStartError).message).toMatch(/exited with code 1 before becoming ready[\s\S]*unknown flag: --no-such-flag/);
    expect((err as ApiServerStartError).exit?.code).toBe(1);
    expect(trackedResources().pids.filter((p) => !before.has(p))).toEqual([]);
  }, 60_000);
});
