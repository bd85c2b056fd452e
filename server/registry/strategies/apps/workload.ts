// What kube's apps validation (pkg/apis/apps/validation/validation.go) repeats for every workload kind
// (Deployment, ReplicaSet, StatefulSet, DaemonSet): the selector (required, valid, non-empty, matching the pod
// template's labels), the pod template of a controller (restartPolicy Always, no activeDeadlineSeconds),
// non-negative counts, int-or-percent fields, and the selector's immutability in apps/v1
// (pkg/registry/apps/<kind>/strategy.go ValidateUpdate).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import { jsonEqual } from '../../object-fields.js';
import { labelSelectorAsSelector, validateLabelSelector, type LabelSelectorLike } from '../../selectors/label-selector.js';
import { regexError } from '../../validation/name.js';
import { validateLabels } from '../../validation/object-meta.js';
import { defaultPodSpec, validateTemplatePodSpec } from '../core/pod.js';
import { objAt, type Obj } from '../fields.js';

const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** spec of a workload, read without a schema */
export const specOf = (obj: Obj): Obj => asObj(obj['spec']);

/** apivalidation.ValidateNonnegativeField: absent fields are 0 in Go and pass. */
export function nonNegative(value: unknown, path: FieldPath): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** Go's json.Marshal of a map[string]string sorts its keys; kube renders bad values that way since 1.34. */
function sortedMap(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k]!;
  return out;
}

/** A LabelSelector as json.Marshal prints it: empty matchLabels/matchExpressions are omitempty. */
function selectorBadValue(sel: LabelSelectorLike): Obj {
  const out: Obj = {};
  if (Object.keys(sel.matchLabels ?? {}).length > 0) out['matchLabels'] = sortedMap(sel.matchLabels as Record<string, string>);
  if ((sel.matchExpressions ?? []).length > 0) out['matchExpressions'] = sel.matchExpressions;
  return out;
}

export interface WorkloadSelectorRules {
  /** the word in "empty selector is invalid for <kind>" (ReplicaSet says "deployment", as kube does) */
  emptyName: string;
  /** the detail of the Invalid error when the selector does not convert ("invalid label selector"; StatefulSet's is
   * empty); DaemonSet reports nothing then */
  unconvertibleDetail?: string;
  /** DaemonSet: a missing selector is only what ValidateLabelSelector says of it (nothing), not Required */
  selectorOptional?: boolean;
}

/**
 * The selector and its template: ValidateDeploymentSpec / ValidateReplicaSetSpec / ValidateStatefulSetSpec /
 * ValidateDaemonSetSpec. A missing selector converts to labels.Nothing(), which matches no labels, so kube
 * reports the template's labels as not matching too; an empty one matches everything and is not compared.
 */
export function validateSelectorAndTemplate(spec: Obj, path: FieldPath, rules: WorkloadSelectorRules): FieldError[] {
  const errs: FieldError[] = [];
  const raw = spec['selector'];
  const selector = raw && typeof raw === 'object' ? (raw as LabelSelectorLike) : undefined;
  const selPath = path.child('selector');
  if (!selector) {
    if (!rules.selectorOptional) errs.push(fieldErrors.required(selPath));
  } else {
    errs.push(...validateLabelSelector(selector, selPath));
    if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
      errs.push(fieldErrors.invalid(selPath, selectorBadValue(selector), `empty selector is invalid for ${rules.emptyName}`));
    }
  }
  const template = asObj(spec['template']);
  const labels = asObj(asObj(template['metadata'])['labels']) as Record<string, string>;
  const converted = labelSelectorAsSelector(selector);
  if (!converted.ok) {
    if (rules.unconvertibleDetail !== undefined) errs.push(fieldErrors.invalid(selPath, selectorBadValue(selector!), rules.unconvertibleDetail));
  } else if (!selector || !converted.selector.empty()) {
    if (!selector || !converted.selector.matches(labels)) {
      errs.push(fieldErrors.invalid(path.child('template', 'metadata', 'labels'), sortedMap(labels), '`selector` does not match template `labels`'));
    }
  }
  return errs;
}

/**
 * ValidatePodTemplateSpec (labels are reported at template.labels, as kube does) and the rules every controller
 * adds: its pods restart Always and have no activeDeadlineSeconds (kind: "ReplicaSet", "StatefulSet", "DaemonSet").
 */
export function validateControllerTemplate(spec: Obj, path: FieldPath, kind: string, opts: { validatePodSpec?: boolean } = {}): FieldError[] {
  const errs: FieldError[] = [];
  const templatePath = path.child('template');
  const template = asObj(spec['template']);
  const podSpec = asObj(template['spec']);
  errs.push(...validateLabels(asObj(asObj(template['metadata'])['labels']) as Record<string, string>, templatePath.child('labels')));
  // StatefulSet leaves its template's pod spec unvalidated (a TODO in kube: volumes vs volumeClaimTemplates).
  if (opts.validatePodSpec !== false) errs.push(...validateTemplatePodSpec(podSpec, templatePath.child('spec')));
  const restartPolicy = podSpec['restartPolicy'];
  if (restartPolicy !== 'Always') errs.push(fieldErrors.notSupported(templatePath.child('spec', 'restartPolicy'), restartPolicy ?? '', ['Always']));
  if (podSpec['activeDeadlineSeconds'] !== undefined && podSpec['activeDeadlineSeconds'] !== null) {
    errs.push(fieldErrors.forbidden(templatePath.child('spec', 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

/** apps/v1 strategies refuse a changed selector (ValidateImmutableField, kube's "field is immutable"). */
export function selectorImmutable(obj: Obj, old: Obj): FieldError[] {
  const sel = specOf(obj)['selector'];
  const oldSel = specOf(old)['selector'];
  return jsonEqual(sel ?? null, oldSel ?? null) ? [] : [fieldErrors.invalid(FieldPath.root('spec', 'selector'), sel ?? null, 'field is immutable')];
}

/** The pod template's defaults (SetObjectDefaults_<Kind> runs the PodSpec defaulters on spec.template.spec). */
export function defaultTemplate(spec: Obj): void {
  defaultPodSpec(objAt(objAt(spec, 'template'), 'spec'));
}

const percentPattern = /^[0-9]+%$/;

/** The value of an IntOrString: getIntOrPercentValue (a malformed percent counts as 0, as intstr does). */
export function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && percentPattern.test(v)) return Number.parseInt(v.slice(0, -1), 10);
  return 0;
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
export function validateIntOrPercent(v: unknown, path: FieldPath, opts: { notOver100?: boolean } = {}): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') {
    // validation.IsValidPercent
    if (!percentPattern.test(v)) return [fieldErrors.invalid(path, v, regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%'))];
    if (opts.notOver100 && intOrPercentValue(v) > 100) return [fieldErrors.invalid(path, v, 'must not be greater than 100%')];
    return [];
  }
  return nonNegative(v, path);
}
