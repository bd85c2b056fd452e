// The controllers that kube runs in kube-controller-manager and this server runs in-process (the garbage collector,
// the root-ca-cert-publisher) start when kube-controller-manager would start them: it waits until the apiserver
// answers its health check with 200. Here that is right after the server's first 200 to /readyz or /healthz, or
// 1 s after its own readiness checks pass when nobody asks. kube-root-ca.crt therefore comes after readiness, as in
// a cluster, and its creates no longer compete with the startup.
import { startApiServer, type ApiServerHandle } from '../../harness/index.js';
import { eventually } from '../support/eventually.js';

const started = /"msg":"starting the controllers kube-controller-manager runs".*"after":"([^"]+)"/;

describe('the controllers kube-controller-manager runs', () => {
  let server: ApiServerHandle | undefined;
  afterEach(async () => {
    await server?.cleanup();
    server = undefined;
  });

  it('start right after the first 200 answer to /readyz, and publish kube-root-ca.crt then', async () => {
    server = await startApiServer({ storage: 'memory' });
    const line = await server.waitForLog(started, 10_000);
    expect(started.exec(line)?.[1]).toBe('the first 200 answer to a health check');
    const cm = await eventually(async () => {
      const r = await server!.request('/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt');
      expect(r.status).toBe(200);
      return JSON.parse(r.body) as { data: Record<string, string> };
    });
    expect(cm.data['ca.crt']).toBe(server.caPem);
  }, 60_000);

  it('start 1 s after the server is ready when nobody asks for its health', async () => {
    server = await startApiServer({ storage: 'memory', waitForReady: false });
    await server.waitForLog(/"msg":"Serving securely"/, 30_000);
    const line = await server.waitForLog(started, 10_000);
    expect(started.exec(line)?.[1]).toBe('1 s of readiness with no health check asked');
    await eventually(async () => expect((await server!.request('/api/v1/namespaces/default/configmaps/kube-root-ca.crt')).status).toBe(200));
  }, 60_000);
});
