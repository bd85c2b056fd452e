// HorizontalPodAutoscalers, served as autoscaling/v2 (the storage version) and autoscaling/v1 from one store.
// Defaults: SetDefaults_HorizontalPodAutoscaler of pkg/apis/autoscaling/v2/defaults.go (minReplicas 1, 80% CPU
// when no metric is given, the behavior's missing rules filled in) and of …/v1/defaults.go (minReplicas 1).
// Validation: the core of pkg/apis/autoscaling/validation/validation.go, run on the v2 shape (kube validates
// the internal type, which v2 mirrors) so that both versions answer with the same field errors.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { isValidPathSegmentName } from '../../validation/name.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { defaultCPUUtilization, hpaV1ToV2, hpaV2ToV1 } from './hpa-conversion.js';

// pkg/apis/autoscaling/validation: MaxPeriodSeconds and MaxStabilizationWindowSeconds
const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;

/** GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: a given rule set keeps what it sets, the rest is kube's default. */
function defaultScalingRules(rules: Obj | undefined, up: boolean): Obj {
  const r: Obj = rules ? { ...rules } : {};
  if (!Array.isArray(r['policies']) || (r['policies'] as unknown[]).length === 0) {
    r['policies'] = up
      ? [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ]
      : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  }
  setDefault(r, 'selectPolicy', 'Max');
  setDefault(r, 'stabilizationWindowSeconds', up ? 0 : 300);
  return r;
}

export function defaultHpaV2(obj: KubeObject): void {
  const spec = objAt(obj as Obj, 'spec');
  setDefault(spec, 'minReplicas', 1);
  if (!Array.isArray(spec['metrics']) || (spec['metrics'] as unknown[]).length === 0) {
    spec['metrics'] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  }
  const behavior = spec['behavior'];
  if (behavior && typeof behavior === 'object') {
    const b = behavior as Obj;
    b['scaleUp'] = defaultScalingRules(b['scaleUp'] as Obj | undefined, true);
    b['scaleDown'] = defaultScalingRules(b['scaleDown'] as Obj | undefined, false);
  }
  // the status struct is always serialized: desiredReplicas has no omitempty in v2
  setDefault(objAt(obj as Obj, 'status'), 'desiredReplicas', 0);
}

function validateCrossVersionObjectReference(ref: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const r = (ref ?? {}) as Obj;
  for (const key of ['kind', 'name']) {
    const v = typeof r[key] === 'string' ? (r[key] as string) : '';
    if (v.length === 0) errs.push(fieldErrors.required(path.child(key)));
    else for (const msg of isValidPathSegmentName(v)) errs.push(fieldErrors.invalid(path.child(key), v, msg));
  }
  return errs;
}

const metricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceFields: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

function validateMetricSpec(m: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof m['type'] === 'string' ? (m['type'] as string) : '';
  if (type.length === 0) errs.push(fieldErrors.required(path.child('type'), 'must specify a metric source type'));
  if (!metricSourceTypes.includes(type)) errs.push(fieldErrors.notSupported(path.child('type'), type, metricSourceTypes));
  const present = ['object', 'external', 'pods', 'resource', 'containerResource'].filter((k) => m[k] !== undefined && m[k] !== null);
  const first = present[0];
  if (first === 'resource' || first === 'containerResource') {
    const src = m[first] as Obj;
    const sp = path.child(first);
    if (typeof src['name'] !== 'string' || src['name'] === '') errs.push(fieldErrors.required(sp.child('name'), 'must specify a resource name'));
    const target = (src['target'] ?? {}) as Obj;
    if (first === 'containerResource' && (typeof src['container'] !== 'string' || src['container'] === '')) errs.push(fieldErrors.required(sp.child('container'), 'must specify a container'));
    errs.push(...validateMetricTarget(target, sp.child('target')));
    if ((target['averageUtilization'] === undefined || target['averageUtilization'] === null) && (target['averageValue'] === undefined || target['averageValue'] === null)) {
      errs.push(fieldErrors.required(sp.child('target', 'averageUtilization'), 'must set either a target raw value or a target utilization'));
    }
  }
  const expected = sourceFields[type];
  if (expected !== undefined && (m[expected] === undefined || m[expected] === null)) errs.push(fieldErrors.required(path.child(expected), 'must populate information for the given metric source'));
  // kube reports an unknown (or empty) type twice: once against the set, once in its switch's default
  if (expected === undefined) errs.push(fieldErrors.notSupported(path.child('type'), type, metricSourceTypes));
  if (present.length !== 1) for (const k of present) if (k !== expected) errs.push(fieldErrors.forbidden(path.child(k), 'must populate the given metric source only'));
  return errs;
}

/** validateMetricTarget: the target type and its value's sign. */
function validateMetricTarget(t: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof t['type'] === 'string' ? (t['type'] as string) : '';
  if (type.length === 0) errs.push(fieldErrors.required(path.child('type'), 'must specify a metric target type'));
  else if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(fieldErrors.notSupported(path.child('type'), type, ['AverageValue', 'Utilization', 'Value']));
  const util = t['averageUtilization'];
  if (typeof util === 'number' && util < 1) errs.push(fieldErrors.invalid(path.child('averageUtilization'), util, 'must be greater than 0'));
  return errs;
}

function validateScalingRules(rules: unknown, path: FieldPath): FieldError[] {
  if (!rules || typeof rules !== 'object') return [];
  const r = rules as Obj;
  const errs: FieldError[] = [];
  const sws = r['stabilizationWindowSeconds'];
  if (typeof sws === 'number' && sws < 0) errs.push(fieldErrors.invalid(path.child('stabilizationWindowSeconds'), sws, 'must be greater than or equal to zero'));
  if (typeof sws === 'number' && sws > maxStabilizationWindowSeconds) errs.push(fieldErrors.invalid(path.child('stabilizationWindowSeconds'), sws, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  const sp = r['selectPolicy'];
  if (sp !== undefined && sp !== null && !['Disabled', 'Max', 'Min'].includes(String(sp))) errs.push(fieldErrors.notSupported(path.child('selectPolicy'), sp, ['Disabled', 'Max', 'Min']));
  const policies = Array.isArray(r['policies']) ? (r['policies'] as Obj[]) : [];
  if (policies.length === 0) errs.push(fieldErrors.required(path.child('policies'), 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const pp = path.child('policies').index(i);
    const pol = (p ?? {}) as Obj;
    if (pol['type'] !== 'Pods' && pol['type'] !== 'Percent') errs.push(fieldErrors.notSupported(pp.child('type'), pol['type'] ?? '', ['Percent', 'Pods']));
    const value = typeof pol['value'] === 'number' ? pol['value'] : 0;
    if (value <= 0) errs.push(fieldErrors.invalid(pp.child('value'), value, 'must be greater than zero'));
    const period = typeof pol['periodSeconds'] === 'number' ? pol['periodSeconds'] : 0;
    if (period <= 0) errs.push(fieldErrors.invalid(pp.child('periodSeconds'), period, 'must be greater than zero'));
    if (period > maxPeriodSeconds) errs.push(fieldErrors.invalid(pp.child('periodSeconds'), period, `must be less than or equal to ${maxPeriodSeconds}`));
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec over a v2-shaped object. */
export function validateHpaV2(obj: KubeObject, minReplicasLowerBound: number): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const min = spec['minReplicas'];
  const max = typeof spec['maxReplicas'] === 'number' ? spec['maxReplicas'] : 0;
  if (typeof min === 'number' && min < minReplicasLowerBound) errs.push(fieldErrors.invalid(path.child('minReplicas'), min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(fieldErrors.invalid(path.child('maxReplicas'), max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) errs.push(fieldErrors.invalid(path.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(spec['scaleTargetRef'], path.child('scaleTargetRef')));
  const metrics = Array.isArray(spec['metrics']) ? (spec['metrics'] as Obj[]) : [];
  metrics.forEach((m, i) => errs.push(...validateMetricSpec((m ?? {}) as Obj, path.child('metrics').index(i))));
  const behavior = spec['behavior'];
  if (behavior && typeof behavior === 'object') {
    errs.push(...validateScalingRules((behavior as Obj)['scaleUp'], path.child('behavior', 'scaleUp')));
    errs.push(...validateScalingRules((behavior as Obj)['scaleDown'], path.child('behavior', 'scaleDown')));
  }
  return errs;
}

/** HPAScaleToZero is alpha (off): minReplicas 0 is kept only on objects that already had it. */
const lowerBoundFor = (old: KubeObject | undefined): number => (old && ((old['spec'] ?? {}) as Obj)['minReplicas'] === 0 ? 0 : 1);

/** ValidateHorizontalPodAutoscalerStatusUpdate: the replica counts are never negative (only /status changes them). */
function validateHpaStatus(obj: KubeObject): FieldError[] {
  const status = (obj['status'] ?? {}) as Obj;
  const errs: FieldError[] = [];
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    const v = status[key];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(FieldPath.root('status', key), v, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const hpaV2Strategy: Strategy = {
  applyDefaults: defaultHpaV2,
  validate: (obj) => validateHpaV2(obj, 1),
  validateUpdate: (obj, old) => validateHpaV2(obj, lowerBoundFor(old)).concat(validateHpaStatus(obj)),
};

// autoscaling/v1: defaulted as v1, validated through its conversion to the v2 shape.
export const hpaV1Strategy: Strategy = {
  applyDefaults(obj) {
    setDefault(objAt(obj as Obj, 'spec'), 'minReplicas', 1);
    // kube decodes a v1 request into the internal (v2-shaped) type and hands admission that object converted back:
    // the implicit 80% CPU target becomes explicit and the annotations are re-encoded. The round trip does that.
    const rt = hpaV2ToV1(hpaV1ToV2(obj));
    (obj as Obj)['spec'] = rt['spec'];
    if (rt['status'] !== undefined) (obj as Obj)['status'] = rt['status'];
    if (obj.metadata) {
      if (rt.metadata?.annotations) obj.metadata.annotations = rt.metadata.annotations;
      else delete obj.metadata.annotations;
    }
    // v1's status fields have no omitempty
    const status = objAt(obj as Obj, 'status');
    setDefault(status, 'currentReplicas', 0);
    setDefault(status, 'desiredReplicas', 0);
  },
  validate: (obj) => validateHpaV2(hpaV1ToV2(obj), 1),
  validateUpdate: (obj, old) => validateHpaV2(hpaV1ToV2(obj), lowerBoundFor(old)).concat(validateHpaStatus(obj)),
};
