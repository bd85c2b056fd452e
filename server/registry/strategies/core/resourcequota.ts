// ResourceQuotas: ValidateResourceQuota (pkg/apis/core/validation): hard and status quantities with standard quota
// resource names, scopes and scope selectors that fit the resources they limit. No defaults; the status is the
// quota controller's (reset on create, kept on spec writes).
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { listAt, type Obj } from '../fields.js';
import { isStandardContainerResourceName, resourceList, validateResourceName, validateResourceQuantityValue } from './resources.js';

const standardQuotaResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims',
  'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
const scopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'];
const podCompute = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
// scopes that select pods by an existence test only
const existsOnlyScopes = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity']);

/** helper.IsResourceQuotaScopeValidForResource */
function scopeFits(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating': case 'NotTerminating': case 'NotBestEffort': case 'PriorityClass': case 'CrossNamespacePodAffinity':
      return resource === 'pods' || podCompute.has(resource);
    case 'BestEffort':
      return resource === 'pods';
    case 'VolumeAttributesClass':
      return resource === 'persistentvolumeclaims' || resource === 'requests.storage';
    default:
      return true;
  }
}

function validateQuotaResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = validateResourceName(name, path);
  const hugePages = name.startsWith('requests.hugepages-') || name.startsWith('hugepages-');
  if (!name.includes('/') && !standardQuotaResources.has(name) && !hugePages) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

function validateQuantities(list: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(resourceList(list))) {
    errs.push(...validateQuotaResourceName(k, path.key(k)));
    errs.push(...validateResourceQuantityValue(k, v, path.key(k)));
  }
  return errs;
}

const conflicting = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];

function validateScopes(spec: Obj, hard: string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const list = Array.isArray(spec['scopes']) ? spec['scopes'].map(String) : [];
  if (list.length === 0) return errs;
  // kube prints the whole []core.ResourceQuotaScope as the value
  const bad = new GoStructValue(`[]core.ResourceQuotaScope{${list.map((s) => JSON.stringify(s)).join(', ')}}`);
  for (const scope of list) {
    if (!scopes.includes(scope)) errs.push(fieldErrors.invalid(path, bad, 'unsupported scope'));
    for (const k of hard) if (isStandardContainerResourceName(k) && !scopeFits(scope, k)) errs.push(fieldErrors.invalid(path, bad, 'unsupported scope applied to resource'));
  }
  for (const pair of conflicting) if (pair.every((s) => list.includes(s))) errs.push(fieldErrors.invalid(path, bad, 'conflicting scopes'));
  return errs;
}

function validateScopeSelector(selector: Obj, hard: string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const p = path.child('matchExpressions');
  const seen = new Set<string>();
  for (const req of listAt(selector, 'matchExpressions')) {
    const scope = String(req['scopeName'] ?? '');
    const op = String(req['operator'] ?? '');
    const values = Array.isArray(req['values']) ? (req['values'] as unknown[]).map(String) : [];
    if (!scopes.includes(scope)) errs.push(fieldErrors.invalid(p.child('scopeName'), scope, 'unsupported scope'));
    for (const k of hard) if (isStandardContainerResourceName(k) && !scopeFits(scope, k)) errs.push(fieldErrors.invalid(p, selector, 'unsupported scope applied to resource'));
    if (existsOnlyScopes.has(scope) && op !== 'Exists') {
      errs.push(fieldErrors.invalid(p.child('operator'), op, "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
    }
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(fieldErrors.required(p.child('values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length !== 0) errs.push(fieldErrors.invalid(p.child('values'), values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else errs.push(fieldErrors.invalid(p.child('operator'), op, 'not a valid selector operator'));
    seen.add(scope);
  }
  for (const pair of conflicting) if (pair.every((s) => seen.has(s))) errs.push(fieldErrors.invalid(p, selector, 'conflicting scopes'));
  return errs;
}

function validateResourceQuota(obj: Obj): FieldError[] {
  const spec = (obj['spec'] ?? {}) as Obj;
  const status = (obj['status'] ?? {}) as Obj;
  const hard = Object.keys(resourceList(spec['hard']));
  const errs = validateQuantities(spec['hard'], FieldPath.root('spec', 'hard'));
  errs.push(...validateScopes(spec, hard, FieldPath.root('spec', 'scopes')));
  if (spec['scopeSelector'] && typeof spec['scopeSelector'] === 'object') errs.push(...validateScopeSelector(spec['scopeSelector'] as Obj, hard, FieldPath.root('spec', 'scopeSelector')));
  errs.push(...validateQuantities(status['hard'], FieldPath.root('status', 'hard')));
  errs.push(...validateQuantities(status['used'], FieldPath.root('status', 'used')));
  return errs;
}

export const resourceQuotaStrategy: Strategy = {
  validate: (obj) => validateResourceQuota(obj as Obj),
  validateUpdate: (obj) => validateResourceQuota(obj as Obj),
};
