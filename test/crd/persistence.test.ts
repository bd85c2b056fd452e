// CRDs and their custom resources on etcd survive an apiserver kill -9: after the restart the CRD is served
// again from storage before /readyz turns ready, and kubectl explain reads the CRD schema from OpenAPI v3.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { kubectl } from '../support/kubectl.js';
import { crontabCRD } from './fixtures.js';

let server: ApiServerHandle;
const k = (args: string[], input?: string) => kubectl(server.kubeconfigPath, args, input);

beforeAll(async () => {
  server = await startApiServer({ storage: 'etcd3' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
});

describe('CRDs on etcd', () => {
  it('serve their custom resources again right after a kill -9 and restart', async () => {
    let r = await k(['apply', '-f', '-'], crontabCRD);
    expect(r.stderr).toBe('');
    r = await k(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']);
    expect(r.code).toBe(0);
    r = await k(['apply', '-f', '-'], 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: survivor, namespace: default}\nspec: {cronSpec: "* * * * *"}\n');
    expect(r.stderr).toBe('');

    await server.kill('SIGKILL');
    await server.restart();
    // ready means the stored CRDs are served: the very first request finds the resource
    const res = await server.request('/apis/stable.example.com/v1/namespaces/default/crontabs/survivor');
    expect(res.status).toBe(200);
    expect(res.json<{ spec: Record<string, unknown> }>().spec).toEqual({ cronSpec: '* * * * *', replicas: 1 });
    r = await k(['get', 'ct', 'survivor', '-o', 'jsonpath={.metadata.name}']);
    expect(r.stdout).toBe('survivor');
  });

  it('kubectl explain describes the custom resource from the CRD schema', async () => {
    const r = await k(['explain', 'crontabs.spec.replicas']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('KIND:       CronTab');
    expect(r.stdout).toContain('FIELD: replicas <integer>');
  });
});
