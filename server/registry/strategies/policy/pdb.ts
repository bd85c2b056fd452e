// PodDisruptionBudgets: the core of ValidatePodDisruptionBudget(Spec) and ValidatePodDisruptionBudgetStatusUpdate
// (pkg/apis/policy/validation/validation.go, with appsvalidation.ValidatePositiveIntOrPercent and
// IsNotMoreThan100Percent): minAvailable xor maxUnavailable, each a non-negative count or a percentage of at most
// 100%, the selector, the unhealthyPodEvictionPolicy enum. policy/v1 defaults nothing; the status struct is always
// serialized with its four counters.
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { validateLabelSelector, type LabelSelectorLike } from '../../selectors/label-selector.js';
import { regexError } from '../../validation/name.js';
import { objAt, setDefault, type Obj } from '../fields.js';

const percentRe = /^[0-9]+%$/;
const percentErrMsg = "a valid percent string must be a numeric string followed by an ending '%'";

/** Go's %#v of an intstr.IntOrString, which is how kube prints these bad values (its String method has a pointer receiver). */
function goIntOrString(v: number | string): GoStructValue {
  return typeof v === 'number'
    ? new GoStructValue(`intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`)
    : new GoStructValue(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`);
}

function validateIntOrPercent(v: unknown, path: FieldPath): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number') {
    if (v < 0) return [fieldErrors.invalid(path, v, 'must be greater than or equal to 0')];
    return [];
  }
  if (typeof v !== 'string') return [fieldErrors.invalid(path, v, "must be an integer or percentage (e.g '5%')")];
  if (!percentRe.test(v)) return [fieldErrors.invalid(path, goIntOrString(v), regexError(percentErrMsg, '[0-9]+%', '1%', '93%'))];
  if (Number(v.slice(0, -1)) > 100) return [fieldErrors.invalid(path, goIntOrString(v), 'must not be greater than 100%')];
  return [];
}

function validatePdbSpec(specValue: unknown, allowInvalidLabelValueInSelector: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (specValue ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const min = spec['minAvailable'];
  const max = spec['maxUnavailable'];
  const set = (v: unknown): boolean => v !== undefined && v !== null;
  // kube prints the whole spec struct (with pointer addresses) as the bad value; its type name is kept
  if (set(min) && set(max)) errs.push(fieldErrors.invalid(path, new GoStructValue('policy.PodDisruptionBudgetSpec{...}'), 'minAvailable and maxUnavailable cannot be both set'));
  errs.push(...validateIntOrPercent(min, path.child('minAvailable')));
  errs.push(...validateIntOrPercent(max, path.child('maxUnavailable')));
  errs.push(...validateLabelSelector(spec['selector'] as LabelSelectorLike | null | undefined, path.child('selector'), { allowInvalidLabelValueInSelector }));
  const policy = spec['unhealthyPodEvictionPolicy'];
  if (set(policy) && policy !== 'AlwaysAllow' && policy !== 'IfHealthyBudget') errs.push(fieldErrors.notSupported(path.child('unhealthyPodEvictionPolicy'), policy, ['AlwaysAllow', 'IfHealthyBudget']));
  return errs;
}

function validatePdbStatus(statusValue: unknown): FieldError[] {
  const status = (statusValue ?? {}) as Obj;
  const path = FieldPath.root('status');
  const errs: FieldError[] = [];
  for (const key of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) {
    const v = status[key];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(path.child(key), v, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** metav1validation.LabelSelectorHasInvalidLabelValue: objects that already had one may keep it. */
function hasInvalidLabelValue(selector: unknown): boolean {
  return validateLabelSelector(selector as LabelSelectorLike | null | undefined, FieldPath.root('s')).length > 0 && validateLabelSelector(selector as LabelSelectorLike | null | undefined, FieldPath.root('s'), { allowInvalidLabelValueInSelector: true }).length === 0;
}

export const pdbStrategy: Strategy = {
  applyDefaults(obj: KubeObject) {
    const status = objAt(obj as Obj, 'status');
    for (const key of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) setDefault(status, key, 0);
  },
  validate(obj) {
    return validatePdbSpec(obj['spec'], false);
  },
  validateUpdate(obj, old) {
    const allowInvalid = hasInvalidLabelValue(((old['spec'] ?? {}) as Obj)['selector']);
    return validatePdbSpec(obj['spec'], allowInvalid).concat(validatePdbStatus(obj['status']));
  },
};
