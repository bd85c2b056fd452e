// policy/v1 poddisruptionbudgets as kube-apiserver serves them: ValidatePodDisruptionBudget's texts (minAvailable
// xor maxUnavailable, counts or percentages up to 100%, selector, unhealthyPodEvictionPolicy), status kept for
// the status subresource, `kubectl create pdb` and `kubectl get pdb`.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';

const env = useApiServer({ storage: process.env['KAH_RESOURCES_STORAGE'] === 'etcd' ? 'etcd' : 'memory' });
const ns = 'pdb-walk';

type Obj = Record<string, unknown>;
const selector = { matchLabels: { app: 'web' } };

const walks: ResourceWalk[] = [
  {
    group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true,
    object: () => ({ spec: { minAvailable: '50%', selector } }),
    // policy/v1 defaults nothing in the spec; the status struct is always serialized with its counters
    defaulted: [
      { path: 'spec.maxUnavailable', value: undefined },
      { path: 'spec.unhealthyPodEvictionPolicy', value: undefined },
      { path: 'status', value: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } },
    ],
    invalid: [
      {
        name: 'minAvailable and maxUnavailable both set',
        object: { spec: { minAvailable: 1, maxUnavailable: 1, selector } },
        message: 'PodDisruptionBudget.policy "walk-poddisruptionbudget-invalid" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set',
      },
      {
        name: 'a percentage above 100%',
        object: { spec: { minAvailable: '120%', selector } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.minAvailable', message: 'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%' }],
      },
      {
        name: 'a malformed percentage',
        object: { spec: { maxUnavailable: 'half', selector } },
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.maxUnavailable',
            message: "Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"half\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
          },
        ],
      },
      {
        name: 'a negative count, an unknown eviction policy and a bad selector operator',
        object: { spec: { minAvailable: -1, unhealthyPodEvictionPolicy: 'Never', selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['web'] }] } } },
        causes: [
          { reason: 'FieldValueInvalid', field: 'spec.minAvailable', message: 'Invalid value: -1: must be greater than or equal to 0' },
          { reason: 'FieldValueNotSupported', field: 'spec.unhealthyPodEvictionPolicy', message: 'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"' },
          { reason: 'FieldValueInvalid', field: 'spec.selector.matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' },
        ],
      },
    ],
  },
];

describeResourceWalks(env, ns, walks);

const pdbPath = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;

describe('the status subresource', () => {
  it('resets status on create and spec writes, keeps it for /status, and counts generations of the spec', async () => {
    const created = await env.server.request(pdbPath, {
      method: 'POST',
      body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'status' }, spec: { maxUnavailable: 1, selector }, status: { disruptionsAllowed: 5 } },
    });
    expect(created.status).toBe(201);
    expect(created.json<{ status: Obj; metadata: { generation: number } }>()).toMatchObject({ status: { disruptionsAllowed: 0 }, metadata: { generation: 1 } });
    const status = await env.server.request(`${pdbPath}/status/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { disruptionsAllowed: 1, expectedPods: 3 } } });
    expect([status.status, status.json<{ status: Obj }>().status]).toEqual([200, { disruptionsAllowed: 1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 3 }]);
    const spec = await env.server.request(`${pdbPath}/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { spec: { maxUnavailable: '25%' }, status: { disruptionsAllowed: 9 } } });
    expect([spec.status, spec.json<{ status: Obj }>().status['disruptionsAllowed'], spec.json<{ metadata: { generation: number } }>().metadata.generation]).toEqual([200, 1, 2]);
    const negative = await env.server.request(`${pdbPath}/status/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { currentHealthy: -1 } } });
    expect([negative.status, negative.json<{ message: string }>().message]).toEqual([
      422,
      'PodDisruptionBudget.policy "status" is invalid: status.currentHealthy: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
});

describe('kubectl', () => {
  const k = (args: string[]) => kubectl(env.server.kubeconfigPath, ['-n', ns, ...args]);

  it('creates a pdb with `kubectl create pdb` and prints kube\'s columns', async () => {
    const create = await k(['create', 'pdb', 'kpdb', '--selector=app=rails', '--min-available=1']);
    expect([create.code, create.stderr, create.stdout.trim()]).toEqual([0, '', 'poddisruptionbudget.policy/kpdb created']);
    const pct = await k(['create', 'poddisruptionbudget', 'kpdb-pct', '--selector=app=rails', '--max-unavailable=30%']);
    expect([pct.code, pct.stderr]).toEqual([0, '']);
    const table = await k(['get', 'pdb']);
    const lines = table.stdout.trim().split('\n').map((l) => l.split(/\s{2,}/));
    expect(lines[0]).toEqual(['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    expect(lines.find((l) => l[0] === 'kpdb')!.slice(0, 4)).toEqual(['kpdb', '1', 'N/A', '0']);
    expect(lines.find((l) => l[0] === 'kpdb-pct')!.slice(0, 4)).toEqual(['kpdb-pct', 'N/A', '30%', '0']);
    const bad = await k(['create', 'pdb', 'kpdb-bad', '--selector=app=rails', '--min-available=150%']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe(
      'error: failed to create poddisruptionbudgets: PodDisruptionBudget.policy "kpdb-bad" is invalid: spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    );
  });
});
