// autoscaling/v1 ⇄ v2 HorizontalPodAutoscaler conversion, after kube's pkg/apis/autoscaling/v1/conversion.go and
// its round-trip expectations: every v2 metric type survives v2 → v1 → v2 through the annotations.
import type { KubeObject } from '../../../api/types.js';
import { behaviorSpecsAnnotation, conditionsAnnotation, convertHpa, hpaV1ToV2, hpaV2ToV1, metricSpecsAnnotation, metricStatusesAnnotation } from './hpa-conversion.js';

const meta = { name: 'h', namespace: 'n', annotations: { keep: 'me' } };
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

const allMetrics = [
  { type: 'Object', object: { describedObject: { kind: 'Service', name: 'front', apiVersion: 'v1' }, target: { type: 'Value', value: '10k' }, metric: { name: 'rps', selector: { matchLabels: { a: 'b' } } } } },
  { type: 'Pods', pods: { metric: { name: 'packets' }, target: { type: 'AverageValue', averageValue: '1k' } } },
  { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
  { type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 }, container: 'app' } },
  { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
];

const v2 = (metrics: unknown[], status?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: structuredClone(meta),
  spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, metrics },
  ...(status ? { status } : {}),
});

describe('hpaV2ToV1 / hpaV1ToV2', () => {
  it('keeps a utilization cpu metric in the v1 spec and the others, in v1 shape, in the metrics annotation', () => {
    const out = hpaV2ToV1(v2([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }, allMetrics[1]]));
    expect(out.apiVersion).toBe('autoscaling/v1');
    expect(out['spec']).toEqual({ scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    expect(out.metadata?.annotations).toEqual({ keep: 'me', [metricSpecsAnnotation]: '[{"type":"Pods","pods":{"metricName":"packets","targetAverageValue":"1k"}}]' });
  });

  it('round-trips every metric type through v1 (others first, then the cpu target)', () => {
    const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } };
    const back = hpaV1ToV2(hpaV2ToV1(v2([cpu, ...allMetrics])));
    expect((back['spec'] as { metrics: unknown[] }).metrics).toEqual([...allMetrics, cpu]);
    expect(back.metadata?.annotations).toEqual({ keep: 'me' });
  });

  it('gives a v1 object without a target the implicit 80% cpu utilization', () => {
    const out = hpaV1ToV2({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: ref, maxReplicas: 2 } });
    expect(out['spec']).toEqual({ scaleTargetRef: ref, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] });
    expect(out.metadata).toEqual({ name: 'h' });
  });

  it('carries status current metrics and conditions through annotations, and the cpu utilization in the v1 status', () => {
    const status = {
      currentReplicas: 3,
      desiredReplicas: 4,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '200m', averageUtilization: 40 } } },
        { type: 'Pods', pods: { metric: { name: 'packets' }, current: { averageValue: '900' } } },
      ],
      conditions: [{ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    };
    const v1 = hpaV2ToV1(v2(allMetrics, status));
    expect(v1['status']).toEqual({ currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 40 });
    expect(JSON.parse(v1.metadata!.annotations![metricStatusesAnnotation]!)).toEqual([
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 40, currentAverageValue: '200m' } },
      { type: 'Pods', pods: { metricName: 'packets', currentAverageValue: '900' } },
    ]);
    expect(JSON.parse(v1.metadata!.annotations![conditionsAnnotation]!)).toEqual(status.conditions);
    const back = hpaV1ToV2(v1);
    expect(back['status']).toEqual(status);
  });

  it('carries the behavior as Go\'s JSON of the internal type (field names, nil as null) and reads it back', () => {
    const behavior = { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] }, scaleDown: { policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] } };
    const obj = v2(allMetrics);
    (obj['spec'] as Record<string, unknown>)['behavior'] = behavior;
    const v1 = hpaV2ToV1(obj);
    expect(v1.metadata!.annotations![behaviorSpecsAnnotation]).toBe(
      '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":null,"Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":null}}',
    );
    expect((hpaV1ToV2(v1)['spec'] as Record<string, unknown>)['behavior']).toEqual(behavior);
    // encoding/json matches names case-insensitively; a zero behavior is no behavior
    const lower = hpaV1ToV2({ ...v1, metadata: { name: 'h', annotations: { [behaviorSpecsAnnotation]: '{"scaleup":{"policies":[{"type":"Pods","value":1,"periodseconds":5}]}}' } } });
    expect((lower['spec'] as Record<string, unknown>)['behavior']).toEqual({ scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 5 }] } });
    const zero = hpaV1ToV2({ ...v1, metadata: { name: 'h', annotations: { [behaviorSpecsAnnotation]: '{"ScaleUp":null,"ScaleDown":null}' } } });
    expect([(zero['spec'] as Record<string, unknown>)['behavior'], zero.metadata]).toEqual([undefined, { name: 'h' }]);
  });

  it('drops every round-trip annotation on the way to v2, and stale ones on the way to v1', () => {
    const v1In: KubeObject = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h', annotations: { keep: 'me', 'autoscaling.alpha.kubernetes.io/scale-up-tolerance': '1', [metricSpecsAnnotation]: 'not json' } },
      spec: { scaleTargetRef: ref, maxReplicas: 2, targetCPUUtilizationPercentage: 30 },
    };
    const out = hpaV1ToV2(v1In);
    expect(out.metadata).toEqual({ name: 'h', annotations: { keep: 'me' } });
    expect((out['spec'] as { metrics: unknown[] }).metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 30 } } }]);
    const stale = v2([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    stale.metadata!.annotations = { keep: 'me', [metricSpecsAnnotation]: '[]', [conditionsAnnotation]: '[]' };
    expect(hpaV2ToV1(stale).metadata!.annotations).toEqual({ keep: 'me' });
  });

  it('converts to the asked version only when it differs (matchPolicy Equivalent)', () => {
    const obj = v2(allMetrics);
    expect(convertHpa(obj, 'v2')).toBe(obj);
    const v1 = convertHpa(obj, 'v1');
    expect([v1.apiVersion, v1.kind]).toEqual(['autoscaling/v1', 'HorizontalPodAutoscaler']);
    expect(convertHpa(v1, 'v2').apiVersion).toBe('autoscaling/v2');
  });
});
