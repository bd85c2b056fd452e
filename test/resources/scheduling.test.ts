// scheduling.k8s.io/v1 PriorityClasses as kube-apiserver serves them: kube's two system classes created at startup
// (and found again after a restart on etcd), preemptionPolicy defaulting, the reserved system- prefix, immutable
// value and preemptionPolicy, one global default, and `kubectl create priorityclass`.
import { startApiServer } from '../../harness/apiserver-process.js';
import { useApiServer } from '../../harness/jest.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory' });
const path = '/apis/scheduling.k8s.io/v1/priorityclasses';

const walks: ResourceWalk[] = [
  {
    group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false,
    object: () => ({ value: 1000, description: 'walk' }),
    defaulted: [{ path: 'preemptionPolicy', value: 'PreemptLowerPriority' }],
    invalid: [
      {
        name: 'a user class above one billion',
        object: { value: 1_000_000_001 },
        message: 'PriorityClass.scheduling.k8s.io "walk-priorityclass-invalid" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
      },
      {
        name: 'an unknown preemption policy',
        object: { value: 1, preemptionPolicy: 'Sometimes' },
        causes: [{ reason: 'FieldValueNotSupported', field: 'preemptionPolicy', message: 'Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"' }],
      },
    ],
  },
];

describeResourceWalks(env, 'scheduling-walk', walks);

interface PriorityClass {
  metadata: { name: string };
  value: number;
  description?: string;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}
const systemClasses = [
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
];
const summary = (items: PriorityClass[]) =>
  items.filter((i) => i.metadata.name.startsWith('system-')).map((i) => ({ name: i.metadata.name, value: i.value, description: i.description }));

describe('scheduling.k8s.io/v1 system priority classes', () => {
  it('are present at startup, as kube bootstraps them', async () => {
    // kube's post-start hook, which readiness waits for
    expect((await env.server.request('/readyz?verbose')).body).toContain('[+]poststarthook/scheduling/bootstrap-system-priority-classes ok');
    const list = await env.server.request(path);
    expect(summary(list.json<{ items: PriorityClass[] }>().items)).toEqual(systemClasses);
    const pc = (await env.server.request(`${path}/system-node-critical`)).json<PriorityClass>();
    expect([pc.preemptionPolicy, pc.globalDefault]).toEqual(['PreemptLowerPriority', undefined]);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'pc']);
    expect(table.stdout).toMatch(/^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/);
    expect(table.stdout).toMatch(/\nsystem-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority\n/);
  });

  it.each([
    ['an unknown system- name', { metadata: { name: 'system-mine' }, value: 5 }, "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"],
    ['a system name with another value', { metadata: { name: 'system-node-critical' }, value: 5 }, "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"],
  ])('reserve the system- prefix: %s', async (_t, body, cause) => {
    const res = await env.server.request(path, { method: 'POST', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', ...body } });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([422, `PriorityClass.scheduling.k8s.io "${body.metadata.name}" is invalid: ${cause}`]);
  });

  it('keep value and preemptionPolicy immutable', async () => {
    const res = await env.server.request(`${path}/system-cluster-critical`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { value: 1, preemptionPolicy: 'Never' },
    });
    expect(res.status).toBe(422);
    expect(res.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      { reason: 'FieldValueForbidden', field: 'value', message: 'Forbidden: may not be changed in an update.' },
      { reason: 'FieldValueInvalid', field: 'preemptionPolicy', message: 'Invalid value: "Never": field is immutable' },
    ]);
  });

  it('allow one global default only', async () => {
    const pc = (name: string) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value: 10, globalDefault: true });
    expect((await env.server.request(path, { method: 'POST', body: pc('the-default') })).status).toBe(201);
    const second = await env.server.request(path, { method: 'POST', body: pc('another-default') });
    expect([second.status, second.json<{ message: string }>().message]).toEqual([
      403,
      'priorityclasses.scheduling.k8s.io "another-default" is forbidden: PriorityClass the-default is marked as default. Only one default can exist',
    ]);
    // updating the default itself is allowed
    const same = await env.server.request(`${path}/the-default`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { description: 'still the default' } });
    expect(same.status).toBe(200);
    expect((await env.server.request(`${path}/the-default`, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('`kubectl create priorityclass`', () => {
  it('makes the PriorityClass kube makes', async () => {
    const kc = env.server.kubeconfigPath;
    const create = await kubectl(kc, ['create', 'priorityclass', 'high', '--value=1000', '--description=high priority', '--preemption-policy=Never']);
    expect([create.code, create.stderr, create.stdout.trim()]).toEqual([0, '', 'priorityclass.scheduling.k8s.io/high created']);
    const pc = JSON.parse((await kubectl(kc, ['get', 'pc', 'high', '-o', 'json'])).stdout) as PriorityClass;
    expect([pc.value, pc.description, pc.preemptionPolicy]).toEqual([1000, 'high priority', 'Never']);
  });
});

describe('system priority classes on etcd', () => {
  it('are created once and found again after a restart', async () => {
    const server = await startApiServer({ storage: 'etcd3' });
    try {
      const first = (await server.request(path)).json<{ items: Array<PriorityClass & { metadata: { uid: string } }> }>().items;
      expect(summary(first)).toEqual(systemClasses);
      await server.restart();
      const again = (await server.request(path)).json<{ items: Array<PriorityClass & { metadata: { uid: string } }> }>().items;
      expect(summary(again)).toEqual(systemClasses);
      // the same objects: the bootstrap creates only missing classes
      expect(again.filter((i) => i.metadata.name.startsWith('system-')).map((i) => i.metadata.uid)).toEqual(first.filter((i) => i.metadata.name.startsWith('system-')).map((i) => i.metadata.uid));
    } finally {
      await server.cleanup();
    }
  }, 90_000);
});
