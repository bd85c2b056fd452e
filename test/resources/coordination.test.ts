// coordination.k8s.io/v1 Leases as kube-apiserver serves them: no defaults, kube's ValidateLeaseSpec texts,
// kube's columns (Holder).
import { useApiServer } from '../../harness/jest.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory' });

const walks: ResourceWalk[] = [
  {
    group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true,
    object: () => ({ spec: { holderIdentity: 'walker-1', leaseDurationSeconds: 15, renewTime: '2026-01-02T03:04:05.000000Z' } }),
    // kube defaults nothing in a Lease
    defaulted: [{ path: 'spec.holderIdentity', value: 'walker-1' }],
    invalid: [
      {
        name: 'a non-positive duration',
        object: { spec: { leaseDurationSeconds: 0 } },
        message: 'Lease.coordination.k8s.io "walk-lease-invalid" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      },
      { name: 'negative transitions', object: { spec: { leaseTransitions: -1 } }, causes: [{ reason: 'FieldValueInvalid', field: 'spec.leaseTransitions', message: 'Invalid value: -1: must be greater than or equal to 0' }] },
    ],
  },
];

describeResourceWalks(env, 'coordination-walk', walks);

describe('coordination.k8s.io/v1 Lease columns', () => {
  it('prints the holder', async () => {
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'held', namespace: 'default' }, spec: { holderIdentity: 'node-a' } };
    expect((await env.server.request('/apis/coordination.k8s.io/v1/namespaces/default/leases', { method: 'POST', body })).status).toBe(201);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'leases', '-n', 'default']);
    expect(table.stdout).toMatch(/^NAME\s+HOLDER\s+AGE\nheld\s+node-a\s+/);
  });
});
