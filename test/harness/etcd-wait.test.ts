// kube-apiserver waits for etcd to accept connections before it builds its storage (preflight.EtcdConnection, up to
// 60 s): a server started while its etcd is down serves once etcd is up. The harness relies on it to start etcd and
// the apiserver at once.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { trackedResources } from '../../harness/cleanup.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { isAlive } from '../support/process.js';

describe('an apiserver whose etcd is not up yet', () => {
  let etcd: EtcdProcess | undefined;
  let server: ApiServerHandle | undefined;
  afterEach(async () => {
    await server?.cleanup();
    await etcd?.cleanup();
    server = undefined;
    etcd = undefined;
  });

  it('waits for etcd, says so, and serves once etcd listens', async () => {
    etcd = await startEtcd();
    await etcd.stop();
    server = await startApiServer({ etcdServers: etcd.endpoint, waitForReady: false });
    const waiting = await server.waitForLog('"msg":"waiting for etcd connection"', 30_000);
    expect(JSON.parse(waiting)).toMatchObject({ level: 'info', msg: 'waiting for etcd connection', etcdServers: [etcd.endpoint] });
    // nothing was built on storage yet: the port is not open
    expect(server.stdout()).not.toContain('"msg":"Serving securely"');
    await etcd.restart();
    await server.waitReady();
    expect((await server.request('/readyz')).status).toBe(200);
    const ns = await server.request('/api/v1/namespaces/default');
    expect(ns.json<{ metadata: { name: string } }>().metadata.name).toBe('default');
  }, 90_000);

  it('startApiServer starts its etcd and the apiserver together; an etcd that cannot start fails the start with its error and leaves nothing running', async () => {
    const before = new Set(trackedResources().pids);
    const err = await startApiServer({ etcd: { extraArgs: ['--no-such-etcd-flag'] } }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/etcd exited during startup[\s\S]*no-such-etcd-flag/);
    expect(trackedResources().pids.filter((p) => !before.has(p) && isAlive(p))).toEqual([]);
  }, 90_000);
});
