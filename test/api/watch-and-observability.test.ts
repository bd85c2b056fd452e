// Watch options beyond the basics, and what operators look at: health checks, metrics, audit, shutdown.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { eventually } from '../support/eventually.js';

let server: ApiServerHandle;
let dir: string;
const cmPath = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-obs-'));
  server = await startApiServer({
    storage: 'memory',
    flags: [`--audit-log-path=${path.join(dir, 'audit.log')}`],
    env: { KAH_WATCH_BOOKMARK_INTERVAL_MS: '100' },
  });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const events = (body: string) => body.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> } } });

describe('watch', () => {
  it('sends the current state first when no resourceVersion is given', async () => {
    await server.request(cmPath, { method: 'POST', body: { metadata: { name: 'initial', labels: { w: 'init' } } } });
    const r = await server.request(`${cmPath}?watch=true&labelSelector=w%3Dinit&timeoutSeconds=1`);
    expect(r.status).toBe(200);
    expect(events(r.body).map((e) => `${e.type}:${e.object.metadata?.name}`)).toEqual(['ADDED:initial']);
  });

  it('sends bookmarks when asked, and the initial-events-end bookmark with sendInitialEvents', async () => {
    const r = await server.request(`${cmPath}?watch=true&labelSelector=w%3Dinit&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
    const evs = events(r.body);
    expect(evs[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'initial' } } });
    expect(evs[1]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
    // periodic bookmarks follow on a quiet watch (interval shortened through KAH_WATCH_BOOKMARK_INTERVAL_MS)
    expect(evs.slice(2).some((e) => e.type === 'BOOKMARK')).toBe(true);
  });

  it('rejects sendInitialEvents without resourceVersionMatch=NotOlderThan', async () => {
    const r = await server.request(`${cmPath}?watch=true&sendInitialEvents=true`);
    expect(r.status).toBe(422);
    expect(JSON.parse(r.body)).toMatchObject({ reason: 'Invalid' });
  });
});

describe('health, metrics and audit', () => {
  it("answers /readyz?verbose and /livez?verbose with kube-apiserver's named checks, in its order", async () => {
    const r = await server.request('/readyz?verbose');
    expect(r.status).toBe(200);
    // kube-apiserver lists these among its own, in this order ("etcd" is a health check, "etcd-readiness" a
    // readiness check: k8s.io/apiserver options/etcd.go addEtcdHealthEndpoint)
    expect(r.body.split('\n')).toEqual([
      '[+]ping ok',
      '[+]log ok',
      '[+]etcd ok',
      '[+]etcd-readiness ok',
      '[+]informer-sync ok',
      '[+]poststarthook/crd-informer-synced ok',
      '[+]poststarthook/start-system-namespaces-controller ok',
      '[+]poststarthook/scheduling/bootstrap-system-priority-classes ok',
      '[+]poststarthook/priority-and-fairness-config-producer ok',
      '[+]autoregister-completion ok',
      '[+]shutdown ok',
      'readyz check passed',
      '',
    ]);
    // /livez and /healthz: the health checks and the post-start hooks' (kube's AddHealthChecks and
    // AddBootSequenceHealthChecks), not /readyz's own (etcd-readiness, informer-sync, shutdown)
    const health = [
      '[+]ping ok',
      '[+]log ok',
      '[+]etcd ok',
      '[+]poststarthook/crd-informer-synced ok',
      '[+]poststarthook/start-system-namespaces-controller ok',
      '[+]poststarthook/scheduling/bootstrap-system-priority-classes ok',
      '[+]poststarthook/priority-and-fairness-config-producer ok',
      '[+]autoregister-completion ok',
    ];
    expect((await server.request('/livez?verbose')).body.split('\n')).toEqual([...health, 'livez check passed', '']);
    expect((await server.request('/healthz?verbose')).body.split('\n')).toEqual([...health, 'healthz check passed', '']);
    expect((await server.request('/livez')).body).toBe('ok');
    expect((await server.request('/livez/etcd')).body).toBe('ok');
    expect((await server.request('/readyz/etcd-readiness')).body).toBe('ok');
    expect((await server.request('/livez/etcd-readiness')).status).toBe(404);
    expect((await server.request('/healthz/shutdown')).status).toBe(404);
    expect((await server.request('/healthz/ping')).body).toBe('ok');
  });

  it('counts requests in apiserver_request_total with kube-apiserver labels', async () => {
    await server.request(`${cmPath}/nope`);
    await server.request(cmPath);
    const r = await server.request('/metrics');
    expect(r.body).toMatch(/apiserver_request_total\{verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="404"\} \d+/);
    expect(r.body).toMatch(/apiserver_request_duration_seconds_bucket\{le="0.005",verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"\}/);
  });

  it('writes an audit event per request', async () => {
    await server.request(cmPath, { method: 'POST', body: { metadata: { name: 'audited' } } });
    await eventually(() => {
      const lines = readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const ev = lines.find((e) => e.verb === 'create' && e.objectRef?.name === undefined && e.responseStatus?.code === 201 && e.requestURI === cmPath);
      expect(ev).toMatchObject({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', stage: 'ResponseComplete', objectRef: { resource: 'configmaps', namespace: 'default' }, user: { username: 'kubernetes-admin' } });
    });
  });

  it('exits 0 on SIGTERM', async () => {
    const exit = await server.stop();
    expect(exit.code).toBe(0);
  });
});
