// kubectl apply (client-side: strategic merge patch with the kinds' patch keys; server-side: managed fields) on the
// core/v1 kinds served for issue #15, as users update nodes, claims and replication controllers from manifests.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: 'memory' });
const ns = 'core-apply';
type Obj = Record<string, unknown>;

const node = (taints: Obj[], addresses: Obj[]) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'apply-node' }, spec: { taints }, status: { addresses } });
const rc = (image: string) =>
  JSON.stringify({
    apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'apply-rc', namespace: ns },
    spec: { replicas: 2, template: { metadata: { labels: { app: 'apply' } }, spec: { containers: [{ name: 'c', image, env: [{ name: 'A', value: '1' }] }] } } },
  });

beforeAll(async () => {
  const res = await env.server.request('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  if (res.status !== 201) throw new Error(`namespace: ${res.status} ${res.body}`);
});

async function get(path: string): Promise<Obj> {
  return (await env.server.request(path)).json<Obj>();
}

describe.each([['client-side', []], ['server-side', ['--server-side']]] as const)('kubectl apply (%s)', (_mode, flags) => {
  afterEach(async () => {
    await kubectl(env.server.kubeconfigPath, ['delete', 'node', 'apply-node', '--ignore-not-found']);
    await kubectl(env.server.kubeconfigPath, ['delete', 'rc', 'apply-rc', '-n', ns, '--ignore-not-found']);
  });

  it('creates then updates a node and a replication controller from manifests', async () => {
    for (const [manifest, text] of [
      [node([{ key: 'a', effect: 'NoSchedule' }], [{ type: 'InternalIP', address: '10.0.0.1' }]), 'node/apply-node'],
      [rc('nginx:1.26'), 'replicationcontroller/apply-rc'],
    ] as const) {
      const out = await kubectl(env.server.kubeconfigPath, ['apply', ...flags, '-f', '-'], manifest);
      expect([out.code, out.stderr, out.stdout.startsWith(text)]).toEqual([0, '', true]);
    }
    const created = await get('/api/v1/nodes/apply-node');
    // a create keeps the node's status
    expect((created['status'] as Obj)['addresses']).toEqual([{ type: 'InternalIP', address: '10.0.0.1' }]);

    const updated = await kubectl(env.server.kubeconfigPath, ['apply', ...flags, '-f', '-'], node([{ key: 'b', effect: 'NoExecute' }], []));
    expect([updated.code, updated.stderr]).toEqual([0, '']);
    const n = await get('/api/v1/nodes/apply-node');
    expect([(n['spec'] as Obj)['taints'], (n['status'] as Obj)['addresses']]).toEqual([[{ key: 'b', effect: 'NoExecute' }], [{ type: 'InternalIP', address: '10.0.0.1' }]]);

    const rcOut = await kubectl(env.server.kubeconfigPath, ['apply', ...flags, '-f', '-'], rc('nginx:1.27'));
    expect([rcOut.code, rcOut.stderr]).toEqual([0, '']);
    const r = await get(`/api/v1/namespaces/${ns}/replicationcontrollers/apply-rc`);
    const spec = r['spec'] as { template: { spec: { containers: Obj[] } }; selector: Obj };
    expect([spec.template.spec.containers[0]!['image'], spec.template.spec.containers[0]!['env'], spec.selector, (r['metadata'] as Obj)['generation']]).toEqual([
      'nginx:1.27', [{ name: 'A', value: '1' }], { app: 'apply' }, 2,
    ]);
  });
});
