// autoscaling/v1 ⇄ autoscaling/v2 HorizontalPodAutoscaler, as kube's pkg/apis/autoscaling/v1/conversion.go converts
// through the internal (v2-shaped) type. v1 has only targetCPUUtilizationPercentage; every other metric, the
// current metrics and the conditions ride in annotations (autoscaling.alpha.kubernetes.io/…) as v1's own
// MetricSpec/MetricStatus JSON, and come back out of them on the way in; the behavior rides as Go's JSON of the
// internal type (no json tags: Go field names, kube's own TODO). A v1 object without any metric gets the implicit
// 80% CPU target (autoscaling.DefaultCPUUtilization) when converted. Round-trip annotations never reach storage:
// they are dropped after converting to v2 (DropRoundTripHorizontalPodAutoscalerAnnotations), and dropped from a
// stored object before the conversion to v1 writes its own.
import type { KubeObject } from '../../../api/types.js';
import type { Obj } from '../fields.js';

export const metricSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const metricStatusesAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const behaviorSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
// pkg/apis/autoscaling/annotations.go: every annotation the conversions round-trip through
const roundTripAnnotations = [
  metricSpecsAnnotation,
  behaviorSpecsAnnotation,
  'autoscaling.alpha.kubernetes.io/scale-down-tolerance',
  'autoscaling.alpha.kubernetes.io/scale-up-tolerance',
  metricStatusesAnnotation,
  conditionsAnnotation,
];
export const defaultCPUUtilization = 80;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const present = (v: unknown): boolean => v !== undefined && v !== null;

/** Builds an object in Go field order, leaving out omitempty fields that are unset. */
function goStruct(fields: Array<[string, unknown, 'omitempty' | 'always']>): Obj {
  const out: Obj = {};
  for (const [k, v, mode] of fields) if (mode === 'always' || present(v)) out[k] = v;
  return out;
}

// ---- v2 (internal) → v1 metric shapes: autoscaling/v1 MetricSpec / MetricStatus (the v2beta1 field names)

function v2SpecToV1(m: Obj): Obj {
  const target = (src: Obj | undefined): Obj => (isObj(src?.['target']) ? (src!['target'] as Obj) : {});
  const metric = (src: Obj | undefined): Obj => (isObj(src?.['metric']) ? (src!['metric'] as Obj) : {});
  const out: Obj = { type: m['type'] };
  const o = m['object'] as Obj | undefined;
  if (isObj(o)) {
    const t = target(o);
    const described = (o['describedObject'] ?? {}) as Obj;
    out['object'] = goStruct([
      ['target', goStruct([['kind', described['kind'] ?? '', 'always'], ['name', described['name'] ?? '', 'always'], ['apiVersion', described['apiVersion'], 'omitempty']]), 'always'],
      ['metricName', metric(o)['name'] ?? '', 'always'],
      ['targetValue', t['value'] ?? '0', 'always'],
      ['selector', metric(o)['selector'], 'omitempty'],
      ['averageValue', t['averageValue'], 'omitempty'],
    ]);
  }
  const p = m['pods'] as Obj | undefined;
  if (isObj(p)) {
    out['pods'] = goStruct([
      ['metricName', metric(p)['name'] ?? '', 'always'],
      ['targetAverageValue', target(p)['averageValue'] ?? '0', 'always'],
      ['selector', metric(p)['selector'], 'omitempty'],
    ]);
  }
  const r = m['resource'] as Obj | undefined;
  if (isObj(r)) {
    out['resource'] = goStruct([
      ['name', r['name'] ?? '', 'always'],
      ['targetAverageUtilization', target(r)['averageUtilization'], 'omitempty'],
      ['targetAverageValue', target(r)['averageValue'], 'omitempty'],
    ]);
  }
  const c = m['containerResource'] as Obj | undefined;
  if (isObj(c)) {
    out['containerResource'] = goStruct([
      ['name', c['name'] ?? '', 'always'],
      ['targetAverageUtilization', target(c)['averageUtilization'], 'omitempty'],
      ['targetAverageValue', target(c)['averageValue'], 'omitempty'],
      ['container', c['container'] ?? '', 'always'],
    ]);
  }
  const e = m['external'] as Obj | undefined;
  if (isObj(e)) {
    out['external'] = goStruct([
      ['metricName', metric(e)['name'] ?? '', 'always'],
      ['metricSelector', metric(e)['selector'], 'omitempty'],
      ['targetValue', target(e)['value'], 'omitempty'],
      ['targetAverageValue', target(e)['averageValue'], 'omitempty'],
    ]);
  }
  return out;
}

function v1SpecToV2(m: Obj): Obj {
  const out: Obj = { type: m['type'] };
  const o = m['object'] as Obj | undefined;
  if (isObj(o)) {
    const t = (o['target'] ?? {}) as Obj;
    out['object'] = {
      describedObject: goStruct([['kind', t['kind'] ?? '', 'always'], ['name', t['name'] ?? '', 'always'], ['apiVersion', t['apiVersion'], 'omitempty']]),
      target: goStruct([['type', present(o['averageValue']) ? 'AverageValue' : 'Value', 'always'], ['value', o['targetValue'] ?? '0', 'always'], ['averageValue', o['averageValue'], 'omitempty']]),
      metric: goStruct([['name', o['metricName'] ?? '', 'always'], ['selector', o['selector'], 'omitempty']]),
    };
  }
  const p = m['pods'] as Obj | undefined;
  if (isObj(p)) {
    out['pods'] = {
      metric: goStruct([['name', p['metricName'] ?? '', 'always'], ['selector', p['selector'], 'omitempty']]),
      target: { type: 'AverageValue', averageValue: p['targetAverageValue'] ?? '0' },
    };
  }
  const resourceTarget = (r: Obj): Obj =>
    goStruct([
      ['type', present(r['targetAverageUtilization']) ? 'Utilization' : 'AverageValue', 'always'],
      ['averageValue', r['targetAverageValue'], 'omitempty'],
      ['averageUtilization', r['targetAverageUtilization'], 'omitempty'],
    ]);
  const r = m['resource'] as Obj | undefined;
  if (isObj(r)) out['resource'] = { name: r['name'] ?? '', target: resourceTarget(r) };
  const c = m['containerResource'] as Obj | undefined;
  if (isObj(c)) out['containerResource'] = { name: c['name'] ?? '', target: resourceTarget(c), container: c['container'] ?? '' };
  const e = m['external'] as Obj | undefined;
  if (isObj(e)) {
    out['external'] = {
      metric: goStruct([['name', e['metricName'] ?? '', 'always'], ['selector', e['metricSelector'], 'omitempty']]),
      target: goStruct([['type', present(e['targetValue']) ? 'Value' : 'AverageValue', 'always'], ['value', e['targetValue'], 'omitempty'], ['averageValue', e['targetAverageValue'], 'omitempty']]),
    };
  }
  return out;
}

function v2StatusToV1(m: Obj): Obj {
  const current = (src: Obj | undefined): Obj => (isObj(src?.['current']) ? (src!['current'] as Obj) : {});
  const metric = (src: Obj | undefined): Obj => (isObj(src?.['metric']) ? (src!['metric'] as Obj) : {});
  const out: Obj = { type: m['type'] };
  const o = m['object'] as Obj | undefined;
  if (isObj(o)) {
    const described = (o['describedObject'] ?? {}) as Obj;
    out['object'] = goStruct([
      ['target', goStruct([['kind', described['kind'] ?? '', 'always'], ['name', described['name'] ?? '', 'always'], ['apiVersion', described['apiVersion'], 'omitempty']]), 'always'],
      ['metricName', metric(o)['name'] ?? '', 'always'],
      ['currentValue', current(o)['value'] ?? '0', 'always'],
      ['selector', metric(o)['selector'], 'omitempty'],
      ['averageValue', current(o)['averageValue'], 'omitempty'],
    ]);
  }
  const p = m['pods'] as Obj | undefined;
  if (isObj(p)) out['pods'] = goStruct([['metricName', metric(p)['name'] ?? '', 'always'], ['currentAverageValue', current(p)['averageValue'] ?? '0', 'always'], ['selector', metric(p)['selector'], 'omitempty']]);
  const r = m['resource'] as Obj | undefined;
  if (isObj(r)) out['resource'] = goStruct([['name', r['name'] ?? '', 'always'], ['currentAverageUtilization', current(r)['averageUtilization'], 'omitempty'], ['currentAverageValue', current(r)['averageValue'] ?? '0', 'always']]);
  const c = m['containerResource'] as Obj | undefined;
  if (isObj(c)) {
    out['containerResource'] = goStruct([
      ['name', c['name'] ?? '', 'always'],
      ['currentAverageUtilization', current(c)['averageUtilization'], 'omitempty'],
      ['currentAverageValue', current(c)['averageValue'] ?? '0', 'always'],
      ['container', c['container'] ?? '', 'always'],
    ]);
  }
  const e = m['external'] as Obj | undefined;
  if (isObj(e)) {
    out['external'] = goStruct([
      ['metricName', metric(e)['name'] ?? '', 'always'],
      ['metricSelector', metric(e)['selector'], 'omitempty'],
      ['currentValue', current(e)['value'] ?? '0', 'always'],
      ['currentAverageValue', current(e)['averageValue'], 'omitempty'],
    ]);
  }
  return out;
}

function v1StatusToV2(m: Obj): Obj {
  const out: Obj = { type: m['type'] };
  const o = m['object'] as Obj | undefined;
  if (isObj(o)) {
    const t = (o['target'] ?? {}) as Obj;
    out['object'] = {
      metric: goStruct([['name', o['metricName'] ?? '', 'always'], ['selector', o['selector'], 'omitempty']]),
      current: goStruct([['value', o['currentValue'] ?? '0', 'always'], ['averageValue', o['averageValue'], 'omitempty']]),
      describedObject: goStruct([['kind', t['kind'] ?? '', 'always'], ['name', t['name'] ?? '', 'always'], ['apiVersion', t['apiVersion'], 'omitempty']]),
    };
  }
  const p = m['pods'] as Obj | undefined;
  if (isObj(p)) out['pods'] = { metric: goStruct([['name', p['metricName'] ?? '', 'always'], ['selector', p['selector'], 'omitempty']]), current: { averageValue: p['currentAverageValue'] ?? '0' } };
  const resCurrent = (r: Obj): Obj => goStruct([['averageValue', r['currentAverageValue'] ?? '0', 'always'], ['averageUtilization', r['currentAverageUtilization'], 'omitempty']]);
  const r = m['resource'] as Obj | undefined;
  if (isObj(r)) out['resource'] = { name: r['name'] ?? '', current: resCurrent(r) };
  const c = m['containerResource'] as Obj | undefined;
  if (isObj(c)) out['containerResource'] = { name: c['name'] ?? '', current: resCurrent(c), container: c['container'] ?? '' };
  const e = m['external'] as Obj | undefined;
  if (isObj(e)) {
    out['external'] = {
      metric: goStruct([['name', e['metricName'] ?? '', 'always'], ['selector', e['metricSelector'], 'omitempty']]),
      current: goStruct([['value', e['currentValue'] ?? '0', 'always'], ['averageValue', e['currentAverageValue'], 'omitempty']]),
    };
  }
  return out;
}

const isCpuUtilization = (m: Obj): boolean => m['type'] === 'Resource' && isObj(m['resource']) && (m['resource'] as Obj)['name'] === 'cpu';

function parseAnnotation(value: string | undefined): Obj[] | undefined {
  if (value === undefined) return undefined;
  // kube moves only well-formed data from annotations to fields: an unreadable annotation is dropped
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed.filter(isObj) : [];
  } catch {
    return [];
  }
}

/** json.Marshal of the internal HorizontalPodAutoscalerBehavior, which has no json tags: Go's field names, nil as null. */
function behaviorToGoJson(b: Obj): string {
  const rules = (r: unknown): unknown => {
    if (!isObj(r)) return null;
    const policies = Array.isArray(r['policies'])
      ? (r['policies'] as unknown[]).filter(isObj).map((p) => ({ Type: p['type'] ?? '', Value: p['value'] ?? 0, PeriodSeconds: p['periodSeconds'] ?? 0 }))
      : null;
    return { StabilizationWindowSeconds: r['stabilizationWindowSeconds'] ?? null, SelectPolicy: r['selectPolicy'] ?? null, Policies: policies, Tolerance: r['tolerance'] ?? null };
  };
  return JSON.stringify({ ScaleUp: rules(b['scaleUp']), ScaleDown: rules(b['scaleDown']) });
}

/** encoding/json matches field names case-insensitively. */
function getFold(o: Obj, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  const key = Object.keys(o).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : o[key];
}

/** The behavior annotation back to v2's field, or undefined when it does not decode or decodes to the zero behavior. */
function behaviorFromGoJson(raw: string): Obj | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObj(parsed)) return undefined;
  const rules = (r: unknown): Obj | undefined => {
    if (!isObj(r)) return undefined;
    const out: Obj = {};
    const sws = getFold(r, 'StabilizationWindowSeconds');
    if (present(sws)) out['stabilizationWindowSeconds'] = sws;
    const sp = getFold(r, 'SelectPolicy');
    if (present(sp)) out['selectPolicy'] = sp;
    const policies = getFold(r, 'Policies');
    if (Array.isArray(policies)) {
      out['policies'] = policies.filter(isObj).map((p) => ({ type: getFold(p, 'Type') ?? '', value: getFold(p, 'Value') ?? 0, periodSeconds: getFold(p, 'PeriodSeconds') ?? 0 }));
    }
    const tolerance = getFold(r, 'Tolerance');
    if (present(tolerance)) out['tolerance'] = tolerance;
    return out;
  };
  const up = rules(getFold(parsed, 'ScaleUp'));
  const down = rules(getFold(parsed, 'ScaleDown'));
  if (!up && !down) return undefined;
  return { ...(up ? { scaleUp: up } : {}), ...(down ? { scaleDown: down } : {}) };
}

/** DropRoundTripHorizontalPodAutoscalerAnnotations: all of them go when any is there; an emptied map goes too. */
function dropRoundTripAnnotations(meta: NonNullable<KubeObject['metadata']>): NonNullable<KubeObject['metadata']> {
  const annotations = meta.annotations;
  if (!annotations || !roundTripAnnotations.some((k) => k in annotations)) return meta;
  const kept = { ...annotations };
  for (const k of roundTripAnnotations) delete kept[k];
  const next = { ...meta };
  if (Object.keys(kept).length > 0) next.annotations = kept;
  else delete next.annotations;
  return next;
}

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler (the v2 object is the internal one). */
export function hpaV2ToV1(v2: KubeObject): KubeObject {
  const { spec: rawSpec, status: rawStatus, ...rest } = structuredClone(v2) as KubeObject & { spec?: Obj; status?: Obj };
  const spec = rawSpec ?? {};
  const out: KubeObject = { ...rest, apiVersion: 'autoscaling/v1' };
  if (out.metadata) out.metadata = dropRoundTripAnnotations(out.metadata);
  const metrics = Array.isArray(spec['metrics']) ? (spec['metrics'] as Obj[]).filter(isObj) : [];
  const v1Spec: Obj = { scaleTargetRef: spec['scaleTargetRef'] ?? { kind: '', name: '' } };
  if (present(spec['minReplicas'])) v1Spec['minReplicas'] = spec['minReplicas'];
  v1Spec['maxReplicas'] = spec['maxReplicas'] ?? 0;
  // the first cpu Resource metric is v1's target, when it is a utilization
  const cpu = metrics.find(isCpuUtilization);
  const cpuUtil = cpu ? ((cpu['resource'] as Obj)['target'] as Obj | undefined)?.['averageUtilization'] : undefined;
  if (present(cpuUtil)) v1Spec['targetCPUUtilizationPercentage'] = cpuUtil;
  out['spec'] = v1Spec;

  const others = metrics.filter((m) => !(isCpuUtilization(m) && present(((m['resource'] as Obj)['target'] as Obj | undefined)?.['averageUtilization']))).map(v2SpecToV1);
  const status = rawStatus;
  const currentMetrics = status && Array.isArray(status['currentMetrics']) ? (status['currentMetrics'] as Obj[]).filter(isObj) : [];
  const conditions = status && Array.isArray(status['conditions']) ? (status['conditions'] as Obj[]).filter(isObj) : [];
  const behavior = isObj(spec['behavior']) ? (spec['behavior'] as Obj) : undefined;
  if (others.length > 0 || currentMetrics.length > 0 || conditions.length > 0 || behavior) {
    const meta = (out.metadata ?? {}) as NonNullable<KubeObject['metadata']>;
    const annotations = { ...(meta.annotations ?? {}) };
    if (others.length > 0) annotations[metricSpecsAnnotation] = JSON.stringify(others);
    if (currentMetrics.length > 0) annotations[metricStatusesAnnotation] = JSON.stringify(currentMetrics.map(v2StatusToV1));
    if (behavior) annotations[behaviorSpecsAnnotation] = behaviorToGoJson(behavior);
    if (conditions.length > 0) annotations[conditionsAnnotation] = JSON.stringify(conditions);
    out.metadata = { ...meta, annotations };
  }
  if (status) {
    const v1Status: Obj = {};
    if (present(status['observedGeneration'])) v1Status['observedGeneration'] = status['observedGeneration'];
    if (present(status['lastScaleTime'])) v1Status['lastScaleTime'] = status['lastScaleTime'];
    v1Status['currentReplicas'] = status['currentReplicas'] ?? 0;
    v1Status['desiredReplicas'] = status['desiredReplicas'] ?? 0;
    for (const m of currentMetrics) {
      const util = isCpuUtilization(m) ? ((m['resource'] as Obj)['current'] as Obj | undefined)?.['averageUtilization'] : undefined;
      if (present(util)) v1Status['currentCPUUtilizationPercentage'] = util;
    }
    out['status'] = v1Status;
  }
  return out;
}

/** Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler. */
export function hpaV1ToV2(v1: KubeObject): KubeObject {
  const { spec: rawSpec, status: rawStatus, ...rest } = structuredClone(v1) as KubeObject & { spec?: Obj; status?: Obj };
  const spec = rawSpec ?? {};
  const out: KubeObject = { ...rest, apiVersion: 'autoscaling/v2' };
  const meta = (out.metadata ?? {}) as NonNullable<KubeObject['metadata']>;
  const annotations = { ...(meta.annotations ?? {}) };
  const v2Spec: Obj = { scaleTargetRef: spec['scaleTargetRef'] ?? { kind: '', name: '' } };
  if (present(spec['minReplicas'])) v2Spec['minReplicas'] = spec['minReplicas'];
  v2Spec['maxReplicas'] = spec['maxReplicas'] ?? 0;
  let metrics: Obj[] = [];
  if (present(spec['targetCPUUtilizationPercentage'])) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec['targetCPUUtilizationPercentage'] } } }];
  }
  const others = parseAnnotation(annotations[metricSpecsAnnotation]);
  if (others !== undefined) {
    // the annotated metrics come first, then the cpu target of the spec
    metrics = [...others.map(v1SpecToV2), ...metrics];
    delete annotations[metricSpecsAnnotation];
  }
  const behaviorRaw = annotations[behaviorSpecsAnnotation];
  const behavior = behaviorRaw === undefined ? undefined : behaviorFromGoJson(behaviorRaw);
  // autoscaling/v1 formerly had an implicit default applied in the controller; the conversion makes it explicit
  if (metrics.length === 0) metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  v2Spec['metrics'] = metrics;
  if (behavior) v2Spec['behavior'] = behavior;
  out['spec'] = v2Spec;

  const status = rawStatus;
  const v2Status: Obj = {};
  if (status) {
    if (present(status['observedGeneration'])) v2Status['observedGeneration'] = status['observedGeneration'];
    if (present(status['lastScaleTime'])) v2Status['lastScaleTime'] = status['lastScaleTime'];
    // v2's currentReplicas is omitempty, desiredReplicas is not
    if (present(status['currentReplicas']) && status['currentReplicas'] !== 0) v2Status['currentReplicas'] = status['currentReplicas'];
    v2Status['desiredReplicas'] = status['desiredReplicas'] ?? 0;
    if (present(status['currentCPUUtilizationPercentage'])) {
      v2Status['currentMetrics'] = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status['currentCPUUtilizationPercentage'] } } }];
    }
  }
  const current = parseAnnotation(annotations[metricStatusesAnnotation]);
  if (current !== undefined) {
    // the annotation has more information than currentCPUUtilizationPercentage
    v2Status['currentMetrics'] = current.map(v1StatusToV2);
    delete annotations[metricStatusesAnnotation];
  }
  const conditions = parseAnnotation(annotations[conditionsAnnotation]);
  if (conditions !== undefined) {
    v2Status['conditions'] = conditions;
    delete annotations[conditionsAnnotation];
  }
  if (status || Object.keys(v2Status).length > 0) out['status'] = { desiredReplicas: 0, ...v2Status };
  // drop round-tripping annotations after converting (the ones read above and any other)
  if (meta.annotations !== undefined) {
    for (const k of roundTripAnnotations) delete annotations[k];
    const next = { ...meta };
    if (Object.keys(annotations).length > 0) next.annotations = annotations;
    else delete next.annotations;
    out.metadata = next;
  }
  return out;
}

/** The HPA in the asked version (matchPolicy Equivalent: a webhook registered for the other version gets it so). */
export function convertHpa(obj: KubeObject, toVersion: string): KubeObject {
  const from = obj.apiVersion === 'autoscaling/v1' ? 'v1' : 'v2';
  if (from === toVersion) return obj;
  const out = toVersion === 'v1' ? hpaV2ToV1(obj) : hpaV1ToV2(obj);
  out.kind = 'HorizontalPodAutoscaler';
  return out;
}
