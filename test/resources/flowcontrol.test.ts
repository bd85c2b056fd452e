// flowcontrol.apiserver.k8s.io/v1 through the real server: kube's mandatory priority levels and flow schemas are
// there at startup (with the status the APF controller writes), one walk per kind with kube's defaults and
// texts, and `kubectl get flowschemas|prioritylevelconfigurations` columns.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks } from '../support/resource-walk.js';

const env = useApiServer({ storage: 'memory' });
const base = '/apis/flowcontrol.apiserver.k8s.io/v1';

describeResourceWalks(env, 'walk-flowcontrol', [
  {
    group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', kind: 'FlowSchema', namespaced: false,
    object: () => ({ spec: { priorityLevelConfiguration: { name: 'catch-all' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }] } }),
    defaulted: [{ path: 'spec.matchingPrecedence', value: 1000 }],
    invalid: [
      {
        name: 'no priority level, precedence out of range',
        object: { spec: { priorityLevelConfiguration: {}, matchingPrecedence: 10001 } },
        causes: [
          { reason: 'FieldValueInvalid', field: 'spec.matchingPrecedence', message: 'Invalid value: 10001: must not be greater than 10000' },
          { reason: 'FieldValueRequired', field: 'spec.priorityLevelConfiguration.name', message: 'Required value: must reference a priority level' },
        ],
      },
      {
        name: 'precedence 1 on a schema not named exempt',
        object: { spec: { priorityLevelConfiguration: { name: 'catch-all' }, matchingPrecedence: 1 } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.matchingPrecedence', message: "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1" }],
      },
    ],
  },
  {
    group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', namespaced: false,
    object: () => ({ spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } }),
    defaulted: [
      { path: 'spec.limited.nominalConcurrencyShares', value: 30 },
      { path: 'spec.limited.lendablePercent', value: 0 },
      { path: 'spec.limited.limitResponse.queuing.handSize', value: 8 },
      { path: 'spec.limited.limitResponse.queuing.queues', value: 64 },
      { path: 'spec.limited.limitResponse.queuing.queueLengthLimit', value: 50 },
    ],
    invalid: [
      { name: 'an unknown type', object: { spec: { type: 'Unlimited' } }, causes: [{ reason: 'FieldValueNotSupported', field: 'spec.type', message: 'Unsupported value: "Unlimited": supported values: "Exempt", "Limited"' }] },
      {
        name: 'Limited without limited',
        object: { spec: { type: 'Limited' } },
        message: 'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "walk-prioritylevelconfiguration-invalid" is invalid: spec.limited: Required value: must not be empty when type is Limited',
      },
      {
        name: 'a lendable percent over 100',
        object: { spec: { type: 'Limited', limited: { lendablePercent: 101, limitResponse: { type: 'Reject' } } } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.limited.lendablePercent', message: 'Invalid value: 101: must be between 0 and 100, inclusive' }],
      },
    ],
  },
]);

describe("API Priority and Fairness' bootstrap objects", () => {
  it('are all present at startup: the mandatory and the suggested ones', async () => {
    const names = async (resource: string): Promise<string[]> =>
      (await env.server.request(`${base}/${resource}`)).json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name).sort();
    expect(await names('prioritylevelconfigurations')).toEqual(['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    expect(await names('flowschemas')).toEqual([
      'catch-all', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes',
    ]);
  });

  it('the mandatory ones have their specs and the Dangling=False status', async () => {
    const pls = (await env.server.request(`${base}/prioritylevelconfigurations`)).json<{ items: Array<{ metadata: { name: string; annotations?: Record<string, string> }; spec: unknown }> }>();
    const byName = new Map(pls.items.map((i) => [i.metadata.name, i]));
    expect(byName.get('exempt')?.spec).toEqual({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
    expect(byName.get('catch-all')?.spec).toEqual({ type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } });
    expect(byName.get('exempt')?.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
    const fs = (await env.server.request(`${base}/flowschemas/catch-all`)).json<{ spec: Record<string, unknown>; status: { conditions: Array<Record<string, unknown>> } }>();
    expect(fs.spec['matchingPrecedence']).toBe(10000);
    expect(fs.spec['distinguisherMethod']).toEqual({ type: 'ByUser' });
    expect(fs.status.conditions).toEqual([
      expect.objectContaining({ type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "catch-all" and it exists' }),
    ]);
  });

  it("are listed by kubectl with kube's columns", async () => {
    const all = await kubectl(env.server.kubeconfigPath, ['get', 'flowschemas']);
    expect(all.stdout).toMatch(/\nglobal-default\s+global-default\s+9900\s+ByUser\s+\S+\s+False\n/);
    const levels = await kubectl(env.server.kubeconfigPath, ['get', 'prioritylevelconfigurations', 'workload-high']);
    expect(levels.stdout).toMatch(/\nworkload-high\s+Limited\s+40\s+128\s+6\s+50\s+\S+\n$/);
    const fs = await kubectl(env.server.kubeconfigPath, ['get', 'flowschemas', 'exempt', 'catch-all']);
    expect([fs.code, fs.stderr]).toEqual([0, '']);
    expect(fs.stdout).toMatch(
      /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\nexempt\s+exempt\s+1\s+<none>\s+\S+\s+False\ncatch-all\s+catch-all\s+10000\s+ByUser\s+\S+\s+False\n$/,
    );
    const pl = await kubectl(env.server.kubeconfigPath, ['get', 'prioritylevelconfigurations', 'exempt', 'catch-all']);
    expect(pl.stdout).toMatch(
      /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE\nexempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\S+\ncatch-all\s+Limited\s+5\s+<none>\s+<none>\s+<none>\s+\S+\n$/,
    );
  });

  it('readyz names the config producer hook', async () => {
    const res = await env.server.request('/readyz?verbose');
    expect(res.body).toContain('[+]poststarthook/priority-and-fairness-config-producer ok');
  });

  it('a spec change bumps generation; a status write does not', async () => {
    const body = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'gen' }, spec: { priorityLevelConfiguration: { name: 'catch-all' } } };
    const created = (await env.server.request(`${base}/flowschemas`, { method: 'POST', body })).json<{ metadata: { generation: number } }>();
    expect(created.metadata.generation).toBe(1);
    const updated = await env.server.request(`${base}/flowschemas/gen`, { method: 'PUT', body: { ...body, spec: { ...body.spec, matchingPrecedence: 500 } } });
    expect(updated.json<{ metadata: { generation: number } }>().metadata.generation).toBe(2);
    const status = await env.server.request(`${base}/flowschemas/gen/status`, { method: 'PUT', body: { ...body, status: { conditions: [{ type: 'Dangling', status: 'False' }] } } });
    expect(status.json<{ metadata: { generation: number } }>().metadata.generation).toBe(2);
  });
});
