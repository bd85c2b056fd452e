// node.k8s.io/v1 RuntimeClasses as kube-apiserver serves them: no defaults, handler a DNS label and immutable
// (pkg/apis/node/validation), kube's columns (Handler).
import { useApiServer } from '../../harness/jest.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory' });

const walks: ResourceWalk[] = [
  {
    group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false,
    object: () => ({ handler: 'runc', scheduling: { nodeSelector: { sandbox: 'true' } } }),
    // kube defaults nothing in a RuntimeClass
    defaulted: [{ path: 'handler', value: 'runc' }],
    invalid: [
      {
        name: 'no handler',
        object: {},
        message:
          'RuntimeClass.node.k8s.io "walk-runtimeclass-invalid" is invalid: handler: Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      },
      { name: 'a handler with dots', object: { handler: 'kata.v2' }, causes: [{ reason: 'FieldValueInvalid', field: 'handler', message: 'Invalid value: "kata.v2": must not contain dots' }] },
    ],
  },
];

describeResourceWalks(env, 'node-walk', walks);

describe('node.k8s.io/v1 RuntimeClass', () => {
  it('keeps its handler immutable and prints it', async () => {
    const path = '/apis/node.k8s.io/v1/runtimeclasses';
    expect((await env.server.request(path, { method: 'POST', body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc' } })).status).toBe(201);
    const res = await env.server.request(`${path}/gvisor`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { handler: 'kata' } });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([422, 'RuntimeClass.node.k8s.io "gvisor" is invalid: handler: Invalid value: "kata": field is immutable']);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'runtimeclasses']);
    expect(table.stdout).toMatch(/^NAME\s+HANDLER\s+AGE\n(.*\n)*gvisor\s+runsc\s+/);
  });
});
