// autoscaling horizontalpodautoscalers as kube-apiserver serves them: v2 and v1 from one store (kept in v2), v1
// carrying v2's other metrics, current metrics and conditions in kube's autoscaling.alpha.kubernetes.io/*
// annotations (pkg/apis/autoscaling/v1/conversion.go), SetDefaults_HorizontalPodAutoscaler of both versions,
// ValidateHorizontalPodAutoscaler's texts, `kubectl autoscale` and `kubectl get hpa`, and matchPolicy
// Equivalent: a webhook registered for autoscaling/v1 reviews a v2 write converted to v1 (and its patch is
// converted back).
import { allow, deny, patch, type ReceivedReview, type WebhookReply } from '../../harness/webhook-server.js';
import { useApiServer, useWebhookServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';

const env = useApiServer({ storage: process.env['KAH_RESOURCES_STORAGE'] === 'etcd' ? 'etcd' : 'memory' });

type Obj = Record<string, unknown>;
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

const v2Walk: ResourceWalk = {
  group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true,
  object: () => ({ spec: { scaleTargetRef: target, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } }),
  defaulted: [
    { path: 'spec.minReplicas', value: 1 },
    // no metric: SetDefaults_HorizontalPodAutoscaler's 80% CPU utilization
    { path: 'spec.metrics', value: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
    // a given rule set keeps what it sets, the rest is kube's default
    { path: 'spec.behavior.scaleDown', value: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
    {
      path: 'spec.behavior.scaleUp',
      value: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    },
    { path: 'status.desiredReplicas', value: 0 },
  ],
  invalid: [
    {
      name: 'maxReplicas 0, below minReplicas',
      object: { spec: { scaleTargetRef: target, minReplicas: 2, maxReplicas: 0 } },
      message:
        'HorizontalPodAutoscaler.autoscaling "walk-horizontalpodautoscaler-invalid" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`]',
    },
    {
      name: 'minReplicas 0 (HPAScaleToZero is alpha) and a scale target without kind',
      object: { spec: { scaleTargetRef: { name: 'web' }, minReplicas: 0, maxReplicas: 3 } },
      causes: [
        { reason: 'FieldValueInvalid', field: 'spec.minReplicas', message: 'Invalid value: 0: must be greater than or equal to 1' },
        { reason: 'FieldValueRequired', field: 'spec.scaleTargetRef.kind', message: 'Required value' },
      ],
    },
    {
      name: 'a scaling policy with a zero period and an unknown select policy',
      object: { spec: { scaleTargetRef: target, maxReplicas: 3, behavior: { scaleUp: { selectPolicy: 'Sometimes', policies: [{ type: 'Pods', value: 1, periodSeconds: 0 }] } } } },
      causes: [
        { reason: 'FieldValueNotSupported', field: 'spec.behavior.scaleUp.selectPolicy', message: 'Unsupported value: "Sometimes": supported values: "Disabled", "Max", "Min"' },
        { reason: 'FieldValueInvalid', field: 'spec.behavior.scaleUp.policies[0].periodSeconds', message: 'Invalid value: 0: must be greater than zero' },
      ],
    },
  ],
};

const v1Walk: ResourceWalk = {
  group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true,
  object: () => ({ spec: { scaleTargetRef: target, maxReplicas: 4 } }),
  defaulted: [
    { path: 'spec.minReplicas', value: 1 },
    // the implicit 80% of autoscaling/v1, made explicit by the conversion to the v2 storage
    { path: 'spec.targetCPUUtilizationPercentage', value: 80 },
    { path: 'status.currentReplicas', value: 0 },
    { path: 'status.desiredReplicas', value: 0 },
  ],
  invalid: [
    {
      name: 'maxReplicas below minReplicas',
      object: { spec: { scaleTargetRef: target, minReplicas: 3, maxReplicas: 1 } },
      message: 'HorizontalPodAutoscaler.autoscaling "walk-horizontalpodautoscaler-invalid" is invalid: spec.maxReplicas: Invalid value: 1: must be greater than or equal to `minReplicas`',
    },
  ],
};

// separate namespaces: both versions are the same objects, and each walk watches its own
describeResourceWalks(env, 'hpa-v2-walk', [v2Walk]);
describeResourceWalks(env, 'hpa-v1-walk', [v1Walk]);

const ns = 'hpa-roundtrip';
const v2Path = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`;
const v1Path = `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`;

const podsMetric = { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: '1k' } } };
const cpu = (pct: number): Obj => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: pct } } });

beforeAll(async () => {
  const res = await env.server.request('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  if (res.status !== 201) throw new Error(`namespace: ${res.status} ${res.body}`);
});

describe('autoscaling/v1 ⇄ v2 round trips', () => {
  it('serves a v2 object at v1 with the cpu target in the spec and the other metrics in kube\'s annotation, and back', async () => {
    const created = await env.server.request(v2Path, {
      method: 'POST',
      body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'two-metrics' }, spec: { scaleTargetRef: target, minReplicas: 2, maxReplicas: 6, metrics: [cpu(60), podsMetric] } },
    });
    expect(created.status).toBe(201);
    const asV1 = await env.server.request(`${v1Path}/two-metrics`);
    const v1 = asV1.json<{ apiVersion: string; metadata: { annotations: Record<string, string> }; spec: Obj }>();
    expect(v1.apiVersion).toBe('autoscaling/v1');
    expect(v1.spec).toEqual({ scaleTargetRef: target, minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 60 });
    expect(v1.metadata.annotations).toEqual({ 'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k"}}]' });

    // a v1 update keeps the annotated metrics: kube puts them first, the spec's cpu target after them
    (v1.spec as Obj)['maxReplicas'] = 8;
    const put = await env.server.request(`${v1Path}/two-metrics`, { method: 'PUT', body: v1 });
    expect(put.status).toBe(200);
    expect(put.json<{ metadata: { annotations?: Record<string, string> } }>().metadata.annotations).toEqual(v1.metadata.annotations);
    const v2 = (await env.server.request(`${v2Path}/two-metrics`)).json<{ metadata: { annotations?: unknown }; spec: Obj }>();
    expect(v2.spec['maxReplicas']).toBe(8);
    expect(v2.spec['metrics']).toEqual([podsMetric, cpu(60)]);
    expect(v2.metadata.annotations).toBeUndefined();
  });

  it('keeps a v2 behavior through a v1 read-modify-write (the behavior annotation)', async () => {
    const created = await env.server.request(v2Path, {
      method: 'POST',
      body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'behaved' }, spec: { scaleTargetRef: target, maxReplicas: 6, behavior: { scaleUp: { selectPolicy: 'Disabled' } } } },
    });
    expect(created.status).toBe(201);
    const behavior = created.json<{ spec: { behavior: Obj } }>().spec.behavior;
    const v1 = (await env.server.request(`${v1Path}/behaved`)).json<{ metadata: { annotations: Record<string, string> }; spec: Obj }>();
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior']!)).toMatchObject({ ScaleUp: { SelectPolicy: 'Disabled', StabilizationWindowSeconds: 0 } });
    (v1.spec as Obj)['minReplicas'] = 2;
    expect((await env.server.request(`${v1Path}/behaved`, { method: 'PUT', body: v1 })).status).toBe(200);
    const v2 = (await env.server.request(`${v2Path}/behaved`)).json<{ metadata: { annotations?: unknown }; spec: Obj }>();
    expect([v2.spec['minReplicas'], v2.spec['behavior'], v2.metadata.annotations]).toEqual([2, behavior, undefined]);
  });

  it('serves a v1 object at v2 with its cpu target as a Resource metric', async () => {
    const created = await env.server.request(v1Path, {
      method: 'POST',
      body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'from-v1' }, spec: { scaleTargetRef: target, maxReplicas: 3, targetCPUUtilizationPercentage: 50 } },
    });
    expect(created.status).toBe(201);
    const v2 = (await env.server.request(`${v2Path}/from-v1`)).json<{ apiVersion: string; spec: Obj }>();
    expect([v2.apiVersion, v2.spec]).toEqual(['autoscaling/v2', { scaleTargetRef: target, minReplicas: 1, maxReplicas: 3, metrics: [cpu(50)] }]);
    // both versions list the same object
    const names = async (p: string) => (await env.server.request(p)).json<{ items: Array<{ apiVersion?: string; metadata: { name: string } }> }>().items.map((i) => i.metadata.name).sort();
    expect(await names(v1Path)).toEqual(await names(v2Path));
  });

  it('carries v2 status (current metrics, conditions) to v1 in annotations and the current cpu utilization', async () => {
    await env.server.request(v2Path, { method: 'POST', body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'with-status' }, spec: { scaleTargetRef: target, maxReplicas: 3 } } });
    const status = {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 91, averageValue: '455m' } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 3' }],
    };
    const put = await env.server.request(`${v2Path}/with-status/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status } });
    expect(put.status).toBe(200);
    const v1 = (await env.server.request(`${v1Path}/with-status`)).json<{ metadata: { annotations: Record<string, string> }; status: Obj }>();
    expect(v1.status).toEqual({ currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 91 });
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/current-metrics']!)).toEqual([{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 91, currentAverageValue: '455m' } }]);
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/conditions']!)).toEqual(status.conditions);
    // and a v1 status write comes back to v2 from those annotations
    const v1Status = await env.server.request(`${v1Path}/with-status/status`, { method: 'PUT', body: { ...v1, status: { ...v1.status, desiredReplicas: 2 } } });
    expect(v1Status.status).toBe(200);
    const v2 = (await env.server.request(`${v2Path}/with-status`)).json<{ status: Obj }>();
    expect(v2.status).toEqual({ ...status, desiredReplicas: 2 });
    const negative = await env.server.request(`${v2Path}/with-status/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { desiredReplicas: -1 } } });
    expect([negative.status, negative.json<{ message: string }>().message]).toEqual([
      422,
      'HorizontalPodAutoscaler.autoscaling "with-status" is invalid: status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
});

describe('kubectl', () => {
  const k = (args: string[]) => kubectl(env.server.kubeconfigPath, ['-n', ns, ...args]);

  it('autoscales a deployment (`kubectl autoscale`) and prints kube\'s hpa columns at both versions', async () => {
    const dep = await k(['create', 'deployment', 'web', '--image=nginx:1.27']);
    expect([dep.code, dep.stderr]).toEqual([0, '']);
    const auto = await k(['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=70']);
    expect([auto.code, auto.stderr, auto.stdout.trim()]).toEqual([0, '', 'horizontalpodautoscaler.autoscaling/web autoscaled']);
    for (const resource of ['hpa', 'horizontalpodautoscalers.v1.autoscaling', 'horizontalpodautoscalers.v2.autoscaling']) {
      const table = await k(['get', resource, 'web']);
      expect([resource, table.code, table.stderr]).toEqual([resource, 0, '']);
      const [header, row] = table.stdout.trim().split('\n');
      expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
      expect(row!.split(/\s{2,}/).slice(0, 6)).toEqual(['web', 'Deployment/web', 'cpu: <unknown>/70%', '2', '5', '0']);
    }
    const all = await k(['get', 'all']);
    expect(all.stdout).toContain('horizontalpodautoscaler.autoscaling/web');
  });
});

describe('matchPolicy Equivalent', () => {
  const received: ReceivedReview[] = [];
  const hooks = useWebhookServer({
    handler: (r: ReceivedReview): WebhookReply => {
      received.push(r);
      const spec = ((r.request.object as Obj | undefined)?.['spec'] ?? {}) as Obj;
      if (r.path === '/validate') return spec['targetCPUUtilizationPercentage'] === 99 ? deny('99% is too hot for a v1 reviewer') : allow();
      // a v1 mutation: the field exists only in v1, so the server must convert the patched object back to v2
      if (r.path === '/mutate' && spec['targetCPUUtilizationPercentage'] === 42) return patch([{ op: 'replace', path: '/spec/targetCPUUtilizationPercentage', value: 55 }]);
      return allow();
    },
  });

  const config = (kind: 'Validating' | 'Mutating', matchPolicy: 'Equivalent' | 'Exact', p: string): Obj => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: `hpa-v1-${kind.toLowerCase()}-${matchPolicy.toLowerCase()}` },
    webhooks: [
      {
        name: `hpa-v1-${matchPolicy.toLowerCase()}.example.com`,
        clientConfig: { url: hooks.url(p), caBundle: hooks.caBundle },
        rules: [{ apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'], operations: ['CREATE', 'UPDATE'] }],
        matchPolicy,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
      },
    ],
  });

  beforeAll(async () => {
    for (const [kind, policy, p] of [
      ['Validating', 'Equivalent', '/validate'],
      ['Mutating', 'Equivalent', '/mutate'],
      ['Validating', 'Exact', '/exact'],
    ] as const) {
      const res = await env.server.request(`/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}webhookconfigurations`, { method: 'POST', body: config(kind, policy, p) });
      if (res.status !== 201) throw new Error(`${kind} ${policy}: ${res.status} ${res.body}`);
    }
  });

  it('sends a v2 write to a webhook registered for autoscaling/v1, converted to v1, and applies its v1 patch to the v2 object', async () => {
    received.length = 0;
    const create = (name: string, pct: number) =>
      env.server.request(v2Path, {
        method: 'POST',
        body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name }, spec: { scaleTargetRef: target, maxReplicas: 4, metrics: [cpu(pct), podsMetric] } },
      });
    const hot = await create('hot', 99);
    // the webhook's deny carries code 403
    expect([hot.status, hot.json<{ message: string }>().message]).toEqual([
      403,
      'admission webhook "hpa-v1-equivalent.example.com" denied the request: 99% is too hot for a v1 reviewer',
    ]);
    const review = received.find((r) => r.path === '/validate')!.request;
    expect(review.kind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    expect(review.resource).toEqual({ group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
    expect(review.requestKind).toEqual({ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
    expect(review.requestResource).toEqual({ group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' });
    const obj = review.object as { apiVersion: string; metadata: { annotations: Record<string, string> }; spec: Obj };
    expect(obj.apiVersion).toBe('autoscaling/v1');
    expect(obj.spec['targetCPUUtilizationPercentage']).toBe(99);
    expect(obj.spec['metrics']).toBeUndefined();
    expect(obj.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']).toBe('[{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k"}}]');
    // matchPolicy Exact: a v1 rule does not see v2 writes
    expect(received.filter((r) => r.path === '/exact')).toEqual([]);

    const mutated = await create('mutated', 42);
    expect(mutated.status).toBe(201);
    // the v1 patch, converted back: the cpu target changed, the pods metric kept (moved first, as kube's v1 conversion orders them)
    expect(mutated.json<{ spec: { metrics: Obj[] } }>().spec.metrics).toEqual([podsMetric, cpu(55)]);
  });

  it('calls a webhook registered for autoscaling/v1 with matchPolicy Exact for v1 writes only', async () => {
    received.length = 0;
    const res = await env.server.request(v1Path, {
      method: 'POST',
      body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'v1-write' }, spec: { scaleTargetRef: target, maxReplicas: 2 } },
    });
    expect(res.status).toBe(201);
    const exact = received.filter((r) => r.path === '/exact').map((r) => r.request);
    expect(exact).toHaveLength(1);
    expect([exact[0]!.kind, exact[0]!.requestKind]).toEqual([
      { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
    ]);
    // the implicit 80% is explicit in what admission sees, as kube decodes v1 through the internal type
    expect(((exact[0]!.object as Obj)['spec'] as Obj)['targetCPUUtilizationPercentage']).toBe(80);
  });
});
