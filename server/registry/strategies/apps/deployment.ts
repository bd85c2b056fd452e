// Deployments: kube's SetDefaults_Deployment and the core of ValidateDeployment (selector, template labels,
// replicas) and ValidateDeploymentUpdate (the selector is immutable in apps/v1).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { labelSelectorMatches } from '../../selectors/label-selector.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { defaultPodSpec, validatePodSpec } from '../core/pod.js';

/** Go's %#v of a map[string]string, as kube prints template labels in this error. */
function goMap(labels: Record<string, string>): string {
  const body = Object.keys(labels).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`).join(', ');
  return `map[string]string{${body}}`;
}

export const deploymentStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    const strategy = objAt(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      const ru = objAt(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    const template = objAt(spec, 'template');
    defaultPodSpec(objAt(template, 'spec'));
  },
  validate(obj) {
    return validateDeploymentSpec(obj['spec']);
  },
  validateUpdate(obj, old) {
    const errs = validateDeploymentSpec(obj['spec']);
    const sel = (obj['spec'] as Obj | undefined)?.['selector'];
    const oldSel = (old['spec'] as Obj | undefined)?.['selector'];
    if (!jsonEqual(sel, oldSel)) errs.push(fieldErrors.invalid('spec.selector', sel, 'field is immutable'));
    return errs;
  },
};

function validateDeploymentSpec(specValue: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (specValue ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const replicas = spec['replicas'];
  if (typeof replicas === 'number' && replicas < 0) errs.push(fieldErrors.invalid(path.child('replicas'), replicas, 'must be greater than or equal to 0'));
  const selector = spec['selector'] as { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined;
  const template = (spec['template'] ?? {}) as Obj;
  const labels = ((template['metadata'] as Obj | undefined)?.['labels'] ?? {}) as Record<string, string>;
  if (!selector) errs.push(fieldErrors.required(path.child('selector')));
  else if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
    errs.push(fieldErrors.invalid(path.child('selector'), selector, 'empty selector is invalid for deployment'));
  } else if (!labelSelectorMatches(selector, labels)) {
    errs.push(fieldErrors.invalid(path.child('template', 'metadata', 'labels'), goMap(labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodSpec(template['spec'], path.child('template', 'spec')));
  return errs;
}
