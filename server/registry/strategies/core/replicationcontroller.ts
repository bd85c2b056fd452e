// ReplicationControllers: SetDefaults_ReplicationController (selector and labels from the template's labels,
// replicas 1), the template's pod spec defaulted as a Pod's, and ValidateReplicationControllerSpec
// (pkg/apis/core/validation): a non-empty selector matching the template labels, restartPolicy Always.
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label } from '../../validation/name.js';
import { validateLabels } from '../../validation/object-meta.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { defaultPodSpec, validateTemplatePodSpec } from './pod.js';

type Labels = Record<string, string>;
const labelsOf = (v: unknown): Labels | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Labels) : undefined);

/** Go's %#v of a map[string]string, as kube prints template labels in this error. */
function goMap(labels: Labels): GoStructValue {
  const body = Object.keys(labels).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`).join(', ');
  return new GoStructValue(`map[string]string{${body}}`);
}

/** ValidatePodTemplateSpec: template labels and the pod spec. */
export function validatePodTemplateSpec(template: Obj, path: FieldPath): FieldError[] {
  const meta = (template['metadata'] ?? {}) as Obj;
  return validateLabels(labelsOf(meta['labels']), path.child('labels')).concat(validateTemplatePodSpec(template['spec'], path.child('spec')));
}

function validateSpec(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  for (const f of ['minReadySeconds', 'replicas']) {
    const v = spec[f];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(path.child(f), v, 'must be greater than or equal to 0'));
  }
  const selector = labelsOf(spec['selector']) ?? {};
  if (Object.keys(selector).length === 0) errs.push(fieldErrors.required(path.child('selector')));
  const template = spec['template'];
  if (!template || typeof template !== 'object') {
    errs.push(fieldErrors.required(path.child('template')));
    return errs;
  }
  const t = template as Obj;
  const labels = labelsOf((t['metadata'] as Obj | undefined)?.['labels']) ?? {};
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(fieldErrors.invalid(path.child('template', 'metadata', 'labels'), goMap(labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(t, path.child('template')));
  const tspec = (t['spec'] ?? {}) as Obj;
  if (tspec['restartPolicy'] !== 'Always') errs.push(fieldErrors.notSupported(path.child('template', 'spec', 'restartPolicy'), tspec['restartPolicy'] ?? '', ['Always']));
  if (tspec['activeDeadlineSeconds'] !== undefined && tspec['activeDeadlineSeconds'] !== null) {
    errs.push(fieldErrors.invalid(path.child('template', 'spec', 'activeDeadlineSeconds'), tspec['activeDeadlineSeconds'], 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

/** ValidateReplicationControllerStatus: counts are non-negative and bounded by status.replicas (status writes). */
function validateStatus(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const status = (obj['status'] ?? {}) as Obj;
  const path = FieldPath.root('status');
  const n = (f: string): number => (typeof status[f] === 'number' ? (status[f] as number) : 0);
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) {
    if (n(f) < 0) errs.push(fieldErrors.invalid(path.child(f), n(f), 'must be greater than or equal to 0'));
  }
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (n(f) > n('replicas')) errs.push(fieldErrors.invalid(path.child(f), n(f), 'cannot be greater than status.replicas'));
  }
  if (n('availableReplicas') > n('readyReplicas')) errs.push(fieldErrors.invalid(path.child('availableReplicas'), n('availableReplicas'), 'cannot be greater than readyReplicas'));
  return errs;
}

export const replicationControllerStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    const t = spec['template'];
    const template = t && typeof t === 'object' && !Array.isArray(t) ? (t as Obj) : undefined;
    const labels = labelsOf((template?.['metadata'] as Obj | undefined)?.['labels']);
    if (labels) {
      if (Object.keys(labelsOf(spec['selector']) ?? {}).length === 0) spec['selector'] = { ...labels };
      const meta = obj.metadata ?? (obj.metadata = {});
      if (Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...labels };
    }
    setDefault(spec, 'replicas', 1);
    if (template) defaultPodSpec(objAt(template, 'spec'));
    // ReplicationControllerStatus.replicas has no omitempty: an empty status reads replicas 0
    setDefault(objAt(obj as Obj, 'status'), 'replicas', 0);
  },
  validate: (obj) => validateSpec(obj as Obj),
  // the RC's name prefixes its pods' names and hostnames
  warningsOnCreate(obj) {
    const msgs = isDNS1123Label(obj.metadata?.name ?? '');
    return msgs.length > 0 ? [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`] : [];
  },
  validateUpdate: (obj) => validateSpec(obj as Obj).concat(validateStatus(obj as Obj)),
};
