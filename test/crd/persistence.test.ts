// CRDs and their custom resources on etcd survive an apiserver kill -9: after the restart the CRD is served
// again from storage before /readyz turns ready, and kubectl explain reads the CRD schema from OpenAPI v3.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { crontabCRD } from './fixtures.js';

const env = useApiServer({ storage: 'etcd3' });
const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);

describe('CRDs on etcd', () => {
  it('serve their custom resources again right after a kill -9 and restart', async () => {
    let r = await k(['apply', '-f', '-'], crontabCRD);
    expect(r.stderr).toBe('');
    r = await k(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']);
    expect(r.code).toBe(0);
    r = await k(['apply', '-f', '-'], 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: survivor, namespace: default}\nspec: {cronSpec: "* * * * *"}\n');
    expect(r.stderr).toBe('');

    await env.server.kill('SIGKILL');
    await env.server.restart();
    // ready means the stored CRDs are served: the very first request finds the resource
    const res = await env.server.request('/apis/stable.example.com/v1/namespaces/default/crontabs/survivor');
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
