// kube's LimitRanger (plugin/pkg/admission/limitranger/admission.go), the Container limits of the namespace's
// LimitRanges: Admit fills each container's and init container's missing limits from `default` and requests from
// `defaultRequest`, recording what it set in the kubernetes.io/limit-ranger annotation; Validate enforces `min`
// and `max` with kube's texts. Pod updates are skipped as in kube (containers' resources cannot change there).
// Not reproduced: maxLimitRequestRatio, the Pod and PersistentVolumeClaim limit types.
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { compareQuantities, quantityString } from '../../registry/validation/quantity.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import { asObj, isMainResource, objList, podSpecOf, type Obj, type ObjectLister } from './object-lister.js';

export const limitRangerAnnotation = 'kubernetes.io/limit-ranger';
const limitRanges = { group: '', version: 'v1', resource: 'limitranges' };

type ResourceList = Record<string, unknown>;

function containerLimits(limitRanges: readonly KubeObject[]): Obj[] {
  return limitRanges.flatMap((lr) => objList(asObj((lr as Obj)['spec'])?.['limits'])).filter((l) => l['type'] === 'Container');
}

/** defaultContainerResourceRequirements of one LimitRange (its later Container items override earlier ones). */
export function defaultRequirements(ranges: readonly KubeObject[]): { requests: ResourceList; limits: ResourceList } {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const l of containerLimits(ranges)) {
    Object.assign(requests, asObj(l['defaultRequest']) ?? {});
    Object.assign(limits, asObj(l['default']) ?? {});
  }
  return { requests, limits };
}

/** mergePodResourceRequirements: fills what is missing and returns the annotation text, if anything was set. */
export function mergePodResourceRequirements(spec: Obj, defaults: { requests: ResourceList; limits: ResourceList }): string | undefined {
  const notes: string[] = [];
  const merge = (c: Obj, prefix: string) => {
    const resources = asObj(c['resources']) ?? {};
    const limits: ResourceList = { ...(asObj(resources['limits']) ?? {}) };
    const requests: ResourceList = { ...(asObj(resources['requests']) ?? {}) };
    const setLimits: string[] = [];
    const setRequests: string[] = [];
    for (const [k, v] of Object.entries(defaults.limits)) if (!(k in limits)) (limits[k] = v), setLimits.push(k);
    for (const [k, v] of Object.entries(defaults.requests)) if (!(k in requests)) (requests[k] = v), setRequests.push(k);
    if (!setLimits.length && !setRequests.length) return;
    c['resources'] = { ...resources, ...(Object.keys(limits).length ? { limits } : {}), ...(Object.keys(requests).length ? { requests } : {}) };
    if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${prefix} ${String(c['name'])}`);
    if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${String(c['name'])}`);
  };
  for (const c of objList(spec['containers'])) merge(c, 'container');
  for (const c of objList(spec['initContainers'])) merge(c, 'init container');
  return notes.length ? `LimitRanger plugin set: ${notes.join('; ')}` : undefined;
}

/** minConstraint / maxConstraint of one resource against one container's requests and limits. */
function checkMin(limitType: string, resource: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const e = quantityString(enforced);
  if (!(resource in requests)) return `minimum ${resource} usage per ${limitType} is ${e}.  No request is specified`;
  if ((compareQuantities(requests[resource], enforced) ?? 0) < 0) return `minimum ${resource} usage per ${limitType} is ${e}, but request is ${quantityString(requests[resource])}`;
  if (resource in limits && (compareQuantities(limits[resource], enforced) ?? 0) < 0) return `minimum ${resource} usage per ${limitType} is ${e}, but limit is ${quantityString(limits[resource])}`;
  return undefined;
}

function checkMax(limitType: string, resource: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const e = quantityString(enforced);
  if (!(resource in limits)) return `maximum ${resource} usage per ${limitType} is ${e}.  No limit is specified`;
  if ((compareQuantities(limits[resource], enforced) ?? 0) > 0) return `maximum ${resource} usage per ${limitType} is ${e}, but limit is ${quantityString(limits[resource])}`;
  if (resource in requests && (compareQuantities(requests[resource], enforced) ?? 0) > 0) return `maximum ${resource} usage per ${limitType} is ${e}, but request is ${quantityString(requests[resource])}`;
  return undefined;
}

/** PodValidateLimitFunc for the Container type: every violation, in kube's order (min, then max, per container). */
export function validatePodLimits(spec: Obj, ranges: readonly KubeObject[]): string[] {
  const errs: string[] = [];
  for (const l of containerLimits(ranges)) {
    const min = asObj(l['min']) ?? {};
    const max = asObj(l['max']) ?? {};
    for (const key of ['containers', 'initContainers']) {
      for (const c of objList(spec[key])) {
        const resources = asObj(c['resources']) ?? {};
        const requests = asObj(resources['requests']) ?? {};
        const limits = asObj(resources['limits']) ?? {};
        for (const [k, v] of Object.entries(min)) {
          const e = checkMin('Container', k, v, requests, limits);
          if (e) errs.push(e);
        }
        for (const [k, v] of Object.entries(max)) {
          const e = checkMax('Container', k, v, requests, limits);
          if (e) errs.push(e);
        }
      }
    }
  }
  return errs;
}

/** utilerrors.NewAggregate's text: one error alone, several in brackets. */
export function aggregateMessage(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

export class LimitRanger implements AdmissionPlugin {
  readonly name = 'LimitRanger';
  constructor(private readonly deps: { lister: ObjectLister }) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  private async ranges(namespace: string): Promise<KubeObject[]> {
    return (await this.deps.lister.list(limitRanges, namespace)) ?? [];
  }

  // nothing to do for other resources: answered at once, without a promise
  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (!isMainResource(attrs, '', 'pods')) return;
    return this.admitPod(attrs);
  }

  private async admitPod(attrs: AdmissionAttributes): Promise<void> {
    const ranges = await this.ranges(attrs.namespace);
    if (!ranges.length) return;
    const pod = attrs.object as KubeObject;
    // kube mutates once per LimitRange, in list order: the first range to default a resource wins, and the
    // annotation is that of the last range that set anything
    for (const range of ranges) {
      const note = mergePodResourceRequirements(podSpecOf(pod), defaultRequirements([range]));
      if (note) {
        const meta = (pod.metadata ??= {});
        meta.annotations = { ...(meta.annotations ?? {}), [limitRangerAnnotation]: note };
      }
    }
  }

  // nothing to do for other resources: answered at once, without a promise
  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (!isMainResource(attrs, '', 'pods')) return;
    return this.validatePod(attrs);
  }

  private async validatePod(attrs: AdmissionAttributes): Promise<void> {
    const ranges = await this.ranges(attrs.namespace);
    if (!ranges.length) return;
    const errs = validatePodLimits(podSpecOf(attrs.object as KubeObject), ranges);
    if (!errs.length) return;
    const name = attrs.name || (attrs.object as KubeObject).metadata?.name || '';
    throw errors.forbidden({ group: '', resource: 'pods' }, name, aggregateMessage(errs));
  }
}
