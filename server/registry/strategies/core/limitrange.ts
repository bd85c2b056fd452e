// LimitRanges: SetDefaults_LimitRangeItem (a Container item's default from max, defaultRequest from default or min)
// and ValidateLimitRange (pkg/apis/core/validation): limit types, resource names, and min <= defaultRequest <=
// default <= max, with kube's texts. Quantities print as sent where kube prints Go's %#v of resource.Quantity.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { isQualifiedName } from '../../validation/name.js';
import { compareQuantities, quantityString, quantityValue } from '../../validation/quantity.js';
import { listAt, type Obj } from '../fields.js';
import { resourceList, validateContainerResourceName, validateResourceName } from './resources.js';

const standardLimitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'];
const quantityMaps = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

function validateTypeName(value: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(value).map((msg) => fieldErrors.invalid(path, value, msg));
  if (errs.length > 0) return errs;
  if (!value.includes('/') && !standardLimitTypes.includes(value)) errs.push(fieldErrors.invalid(path, value, 'must be a standard limit type or fully qualified'));
  return errs;
}

/** helper.IsOvercommitAllowed: native resources but huge pages. */
const overcommitAllowed = (name: string): boolean => (!name.includes('/') || name.includes('kubernetes.io/')) && !name.startsWith('hugepages-');

function validateItem(limit: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof limit['type'] === 'string' ? limit['type'] : '';
  const nameCheck = type === 'Pod' || type === 'Container' ? validateContainerResourceName : validateResourceName;
  const maps: Record<string, Record<string, unknown>> = {};
  const keys = new Set<string>();
  for (const m of quantityMaps) {
    maps[m] = resourceList(limit[m]);
    if (type === 'Pod' && (m === 'default' || m === 'defaultRequest')) continue;
    for (const k of Object.keys(maps[m]!)) {
      errs.push(...nameCheck(k, path.child(m).key(k)));
      keys.add(k);
    }
  }
  if (type === 'Pod') {
    if (Object.keys(maps['default']!).length > 0) errs.push(fieldErrors.forbidden(path.child('default'), "may not be specified when `type` is 'Pod'"));
    if (Object.keys(maps['defaultRequest']!).length > 0) errs.push(fieldErrors.forbidden(path.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
  }
  if (type === 'PersistentVolumeClaim' && !('storage' in maps['min']!) && !('storage' in maps['max']!)) {
    errs.push(fieldErrors.required(path.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'));
  }
  const defaults = type === 'Pod' ? {} : maps['default']!;
  const defaultRequests = type === 'Pod' ? {} : maps['defaultRequest']!;
  const gt = (a: unknown, b: unknown): boolean => (compareQuantities(a, b) ?? 0) > 0;
  const s = quantityString;
  for (const k of keys) {
    const min = maps['min']![k];
    const max = maps['max']![k];
    const def = defaults[k];
    const defReq = defaultRequests[k];
    const ratio = maps['maxLimitRequestRatio']![k];
    if (min !== undefined && max !== undefined && gt(min, max)) errs.push(fieldErrors.invalid(path.child('min').key(k), s(min), `min value ${s(min)} is greater than max value ${s(max)}`));
    if (defReq !== undefined && min !== undefined && gt(min, defReq)) errs.push(fieldErrors.invalid(path.child('defaultRequest').key(k), s(defReq), `min value ${s(min)} is greater than default request value ${s(defReq)}`));
    if (defReq !== undefined && max !== undefined && gt(defReq, max)) errs.push(fieldErrors.invalid(path.child('defaultRequest').key(k), s(defReq), `default request value ${s(defReq)} is greater than max value ${s(max)}`));
    if (defReq !== undefined && def !== undefined && gt(defReq, def)) errs.push(fieldErrors.invalid(path.child('defaultRequest').key(k), s(defReq), `default request value ${s(defReq)} is greater than default limit value ${s(def)}`));
    if (def !== undefined && min !== undefined && gt(min, def)) errs.push(fieldErrors.invalid(path.child('default').key(k), s(min), `min value ${s(min)} is greater than default value ${s(def)}`));
    if (def !== undefined && max !== undefined && gt(def, max)) errs.push(fieldErrors.invalid(path.child('default').key(k), s(max), `default value ${s(def)} is greater than max value ${s(max)}`));
    if (ratio !== undefined && (compareQuantities(ratio, '1') ?? 0) < 0) errs.push(fieldErrors.invalid(path.child('maxLimitRequestRatio').key(k), s(ratio), `ratio ${s(ratio)} is less than 1`));
    if (ratio !== undefined && min !== undefined && max !== undefined) {
      const limit = (quantityValue(max) ?? 0) / (quantityValue(min) ?? 0);
      if ((quantityValue(ratio) ?? 0) > limit) errs.push(fieldErrors.invalid(path.child('maxLimitRequestRatio').key(k), s(ratio), `ratio ${s(ratio)} is greater than max/min = ${limit.toFixed(6)}`));
    }
    if (!overcommitAllowed(k) && def !== undefined && defReq !== undefined && compareQuantities(def, defReq) !== 0) {
      errs.push(fieldErrors.invalid(path.child('defaultRequest').key(k), s(defReq), `default value ${s(def)} must equal to defaultRequest value ${s(defReq)} in ${k}`));
    }
  }
  return errs;
}

function validateLimitRange(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const path = FieldPath.root('spec', 'limits');
  listAt((obj['spec'] ?? {}) as Obj, 'limits').forEach((limit, i) => {
    const p = path.index(i);
    const type = typeof limit['type'] === 'string' ? limit['type'] : '';
    errs.push(...validateTypeName(type, p.child('type')));
    if (seen.has(type)) errs.push(fieldErrors.duplicate(p.child('type'), type));
    seen.add(type);
    errs.push(...validateItem(limit, p));
  });
  return errs;
}

export const limitRangeStrategy: Strategy = {
  applyDefaults(obj) {
    for (const limit of listAt((obj['spec'] ?? {}) as Obj, 'limits')) {
      if (limit['type'] !== 'Container') continue;
      const def = { ...resourceList(limit['default']) };
      const defReq = { ...resourceList(limit['defaultRequest']) };
      for (const [k, v] of Object.entries(resourceList(limit['max']))) if (!(k in def)) def[k] = v;
      for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
      for (const [k, v] of Object.entries(resourceList(limit['min']))) if (!(k in defReq)) defReq[k] = v;
      // empty maps are omitted on the wire (omitempty)
      if (Object.keys(def).length > 0) limit['default'] = def;
      if (Object.keys(defReq).length > 0) limit['defaultRequest'] = defReq;
    }
  },
  validate: (obj) => validateLimitRange(obj as Obj),
  validateUpdate: (obj) => validateLimitRange(obj as Obj),
};
