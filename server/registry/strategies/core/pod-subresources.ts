// pods/ephemeralcontainers and pods/resize: kube's podEphemeralContainersStrategy and podResizeStrategy
// (pkg/registry/core/pod/strategy.go) with the core of ValidatePodEphemeralContainersUpdate and ValidatePodResize
// (pkg/apis/core/validation/validation.go). Each writes the stored pod with only its own fields taken from the
// request, so everything else a client sends through these subresources is ignored, as in kube.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual, metaOf } from '../../object-fields.js';
import type { SubresourceUpdateStrategy } from '../../resource.js';
import { isDNS1123Label } from '../../validation/name.js';
import { listAt, type Obj } from '../fields.js';
import { validatePodSpec } from './pod.js';

const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

/** kube's dropNonEphemeralContainerUpdates / dropNonResizeUpdates: the stored pod, with the request's identity. */
function storedWithIdentity(desired: KubeObject, old: KubeObject): KubeObject {
  const pod = structuredClone(old);
  const m = metaOf(pod);
  const d = metaOf(desired);
  if (d.resourceVersion !== undefined) m.resourceVersion = d.resourceVersion;
  return pod;
}

function specOf(o: KubeObject): Obj {
  return (o['spec'] ?? {}) as Obj;
}

// Fields validateEphemeralContainers forbids: "cannot be set for an Ephemeral Container".
const forbiddenEphemeralFields = ['ports', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'resources', 'resizePolicy'];

/** The core of kube's validateEphemeralContainers: names, images, forbidden fields, target container. */
function validateEphemeralContainers(spec: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set<string>([...listAt(spec, 'containers'), ...listAt(spec, 'initContainers')].map((c) => String(c['name'] ?? '')));
  const regular = new Set<string>([...listAt(spec, 'containers'), ...listAt(spec, 'initContainers')].map((c) => String(c['name'] ?? '')));
  listAt(spec, 'ephemeralContainers').forEach((ec, i) => {
    const p = path.index(i);
    const name = ec['name'];
    if (typeof name !== 'string' || name === '') errs.push(fieldErrors.required(p.child('name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(p.child('name'), name, msg));
      if (others.has(name)) errs.push(fieldErrors.duplicate(p.child('name'), name));
      others.add(name);
    }
    if (typeof ec['image'] !== 'string' || (ec['image'] as string).trim() === '') errs.push(fieldErrors.required(p.child('image')));
    for (const f of forbiddenEphemeralFields) {
      const v = ec[f];
      const empty = v === undefined || v === null || (typeof v === 'object' && Object.keys(v as object).length === 0);
      if (!empty) errs.push(fieldErrors.forbidden(p.child(f), 'cannot be set for an Ephemeral Container'));
    }
    const target = ec['targetContainerName'];
    if (typeof target === 'string' && target !== '' && !regular.has(target)) errs.push(fieldErrors.notFound(p.child('targetContainerName'), target));
  });
  return errs;
}

export const ephemeralContainersStrategy: SubresourceUpdateStrategy = {
  prepareForUpdate(desired, old) {
    const pod = storedWithIdentity(desired, old);
    const next = specOf(desired)['ephemeralContainers'];
    const spec = { ...specOf(pod) };
    if (next === undefined || next === null) delete spec['ephemeralContainers'];
    else spec['ephemeralContainers'] = next;
    pod['spec'] = spec;
    return pod;
  },
  validateUpdate(obj, old) {
    // static pods don't support ephemeral containers (kube #113935)
    if (metaOf(old).annotations?.[mirrorPodAnnotation] !== undefined) return [fieldErrors.forbidden('', 'static pods do not support ephemeral containers')];
    const specPath = FieldPath.root('spec').child('ephemeralContainers');
    const errs = validatePodSpec(obj['spec'], FieldPath.root('spec')).concat(validateEphemeralContainers(specOf(obj), specPath));
    // Existing ephemeral containers may be neither removed nor changed; order does not matter (patches reorder).
    const byName = new Map(listAt(specOf(obj), 'ephemeralContainers').map((c) => [String(c['name'] ?? ''), c] as const));
    for (const before of listAt(specOf(old), 'ephemeralContainers')) {
      const name = String(before['name'] ?? '');
      const now = byName.get(name);
      if (!now) errs.push(fieldErrors.forbidden(specPath.toString(), `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
      else if (!jsonEqual(before, now)) errs.push(fieldErrors.forbidden(specPath.key(name).toString(), `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
    }
    return errs;
  },
};

type Resources = { requests?: Record<string, unknown>; limits?: Record<string, unknown> };

/** kube's qos.ComputePodQOS over the pod's regular and init containers (cpu and memory only). */
export function podQOS(pod: KubeObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const spec = specOf(pod);
  const containers = [...listAt(spec, 'containers'), ...listAt(spec, 'initContainers')];
  let anySet = false;
  let guaranteed = true;
  for (const c of containers) {
    const r = (c['resources'] ?? {}) as Resources;
    for (const res of ['cpu', 'memory']) {
      const req = r.requests?.[res];
      const lim = r.limits?.[res];
      if (req !== undefined || lim !== undefined) anySet = true;
      // a limit alone defaults the request to it
      if (lim === undefined || (req !== undefined && String(req) !== String(lim))) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The spec with containers' cpu/memory resources and resizePolicy taken out: what a resize may not change. */
function nonResizableView(spec: Obj): Obj {
  const copy = structuredClone(spec);
  for (const c of listAt(copy, 'containers')) {
    delete c['resizePolicy'];
    const r = (c['resources'] ?? {}) as Resources;
    for (const part of ['requests', 'limits'] as const) {
      const m = r[part];
      if (!m) continue;
      delete m['cpu'];
      delete m['memory'];
      if (Object.keys(m).length === 0) delete r[part];
    }
    c['resources'] = r;
  }
  return copy;
}

export const resizeStrategy: SubresourceUpdateStrategy = {
  prepareForUpdate(desired, old) {
    // kube's dropNonResizeUpdates: only the resources and resizePolicy of containers the pod already has
    const pod = storedWithIdentity(desired, old);
    const wanted = new Map(listAt(specOf(desired), 'containers').map((c) => [String(c['name'] ?? ''), c] as const));
    const spec = structuredClone(specOf(pod));
    for (const c of listAt(spec, 'containers')) {
      const w = wanted.get(String(c['name'] ?? ''));
      if (!w) continue;
      if (w['resources'] === undefined) delete c['resources'];
      else c['resources'] = structuredClone(w['resources']);
      if (w['resizePolicy'] === undefined) delete c['resizePolicy'];
      else c['resizePolicy'] = structuredClone(w['resizePolicy']);
    }
    pod['spec'] = spec;
    return pod;
  },
  validateUpdate(obj, old) {
    if (metaOf(old).annotations?.[mirrorPodAnnotation] !== undefined) return [fieldErrors.forbidden('', 'static pods cannot be resized')];
    const os = (specOf(old)['os'] as { name?: string } | undefined)?.name;
    if (os === 'windows') return [fieldErrors.forbidden('', 'windows pods cannot be resized')];
    const errs = validatePodSpec(obj['spec'], FieldPath.root('spec'));
    // kube's GetPodQOS reads status.qosClass; computed here, as this server's pods do not compute it on create
    const oldQOS = podQOS(old);
    const newQOS = podQOS(obj);
    if (oldQOS !== newQOS) errs.push(fieldErrors.invalid('spec', ((obj['status'] ?? {}) as Obj)['qosClass'] ?? '', 'Pod QOS Class may not change as a result of resizing'));
    if (!jsonEqual(nonResizableView(specOf(obj)), nonResizableView(specOf(old)))) errs.push(fieldErrors.forbidden('spec', 'only cpu and memory resources are mutable'));
    return errs;
  },
};
