// What the built-in plugins read besides the request: kube's plugins use informer listers (ServiceAccounts,
// LimitRanges, StorageClasses, ResourceQuotas, …); here they read the stores through the resource index, so a
// resource served later (a CRD, a group merged later) needs no new wiring.
import type { KubeObject } from '../../api/types.js';

export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

export interface ObjectLister {
  /** the objects of a served resource in a namespace ('' for cluster-scoped or all); undefined when it is not served */
  list(ref: ResourceRef, namespace: string): Promise<KubeObject[] | undefined>;
  /** one object, undefined when it (or the resource) does not exist */
  get(ref: ResourceRef, namespace: string, name: string): Promise<KubeObject | undefined>;
}

export type Obj = Record<string, unknown>;

export function asObj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

export function objList(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter((x): x is Obj => asObj(x) !== undefined) : [];
}

/** The pod's spec, created when missing, for plugins that mutate it. */
export function podSpecOf(pod: KubeObject): Obj {
  const o = pod as Obj;
  if (!asObj(o['spec'])) o['spec'] = {};
  return o['spec'] as Obj;
}

/** Whether the request is a write of the main resource of group/resource (subresources are ignored, as kube's plugins do). */
export function isMainResource(attrs: { resource: { group: string; resource: string }; subresource: string; object: unknown }, group: string, resource: string): boolean {
  return attrs.resource.group === group && attrs.resource.resource === resource && attrs.subresource === '' && asObj(attrs.object) !== undefined;
}
