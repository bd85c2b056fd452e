// Pods: kube's SetDefaults_Pod/PodSpec/Container and the core of ValidatePod (containers, names, images) and of
// ValidatePodUpdate (the spec is immutable but for images and a few fields).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label } from '../../validation/name.js';
import { listAt, objAt, setDefault, type Obj } from '../fields.js';

function defaultImagePullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const afterSlash = image.slice(image.lastIndexOf('/') + 1);
  const tagged = afterSlash.includes(':') && !image.includes('@');
  return !tagged || image.endsWith(':latest') ? 'Always' : 'IfNotPresent';
}

export function defaultContainer(c: Obj): void {
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  setDefault(c, 'imagePullPolicy', defaultImagePullPolicy(c['image']));
  setDefault(c, 'resources', {});
  for (const p of listAt(c, 'ports')) setDefault(p, 'protocol', 'TCP');
}

export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'enableServiceLinks', true);
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) for (const c of listAt(spec, key)) defaultContainer(c);
}

export function validatePodSpec(spec: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const s = (spec ?? {}) as Obj;
  const containers = listAt(s, 'containers');
  if (containers.length === 0) errs.push(fieldErrors.required(path.child('containers')));
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const cp = path.child('containers').index(i);
    const name = c['name'];
    if (typeof name !== 'string' || name === '') errs.push(fieldErrors.required(cp.child('name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(cp.child('name'), name, msg));
      if (names.has(name)) errs.push(fieldErrors.duplicate(cp.child('name'), name));
      names.add(name);
    }
    if (typeof c['image'] !== 'string' || (c['image'] as string).trim() === '') errs.push(fieldErrors.required(cp.child('image')));
  });
  const rp = s['restartPolicy'];
  if (rp !== undefined && !['Always', 'OnFailure', 'Never'].includes(String(rp))) errs.push(fieldErrors.notSupported(path.child('restartPolicy'), rp, ['Always', 'OnFailure', 'Never']));
  return errs;
}

/**
 * ValidatePodTemplateSpec's pod spec part: the pod spec, then kube's refusal of ephemeral containers, which only the
 * pods/ephemeralcontainers subresource of a running pod may add (pkg/apis/core/validation/validation.go).
 */
export function validateTemplatePodSpec(spec: unknown, path: FieldPath): FieldError[] {
  const errs = validatePodSpec(spec, path);
  if (listAt((spec ?? {}) as Obj, 'ephemeralContainers').length > 0) errs.push(fieldErrors.forbidden(path.child('ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  return errs;
}

/** Fields of a running pod's spec kube lets an update change. */
function mutablePodSpecView(spec: Obj): Obj {
  const copy = structuredClone(spec);
  for (const key of ['containers', 'initContainers']) for (const c of listAt(copy, key)) delete c['image'];
  delete copy['activeDeadlineSeconds'];
  delete copy['tolerations'];
  delete copy['terminationGracePeriodSeconds'];
  return copy;
}

function defaultRequestsFromLimits(c: Obj): void {
  const resources = c['resources'] as Obj | undefined;
  const limits = resources?.['limits'] as Obj | undefined;
  if (!resources || !limits || typeof limits !== 'object') return;
  const requests = (resources['requests'] as Obj | undefined) ?? {};
  let changed = false;
  for (const [k, v] of Object.entries(limits)) {
    if (!(k in requests)) {
      requests[k] = v;
      changed = true;
    }
  }
  if (changed) resources['requests'] = requests;
}

export const podStrategy: Strategy = {
  applyDefaults(obj: KubeObject) {
    const spec = objAt(obj as Obj, 'spec');
    defaultPodSpec(spec);
    // SetDefaults_Pod (pods only, not templates): a container's requests default to its limits, resource by resource
    for (const key of ['containers', 'initContainers']) for (const c of listAt(spec, key)) defaultRequestsFromLimits(c);
    const status = objAt(obj as Obj, 'status');
    setDefault(status, 'phase', 'Pending');
    setDefault(status, 'qosClass', 'BestEffort');
  },
  validate(obj) {
    const errs = validatePodSpec(obj['spec'], FieldPath.root('spec'));
    // ValidatePodCreate: ephemeral containers only come through the ephemeralcontainers subresource
    if (listAt((obj['spec'] ?? {}) as Obj, 'ephemeralContainers').length > 0) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
    return errs;
  },
  validateUpdate(obj, old) {
    const errs = validatePodSpec(obj['spec'], FieldPath.root('spec'));
    if (!jsonEqual(mutablePodSpecView((obj['spec'] ?? {}) as Obj), mutablePodSpecView((old['spec'] ?? {}) as Obj))) {
      errs.push(
        fieldErrors.forbidden(
          'spec',
          'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
        ),
      );
    }
    return errs;
  },
};
