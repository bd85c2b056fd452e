// The `request` and `namespaceObject` CEL variables of admission policies, as kube's plugin/cel builds them
// (CreateAdmissionRequest, CreateNamespaceObject) and converts them to unstructured JSON.
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../../../api/types.js';
import type { AdmissionAttributes } from '../../attributes.js';
import { deepFreeze } from '../../../api/deep-freeze.js';

/**
 * cel.CreateAdmissionRequest: `kind` and `resource` are those the policy matched the request as (an equivalent
 * version under matchPolicy Equivalent), the request* fields what the client used. object and oldObject are not
 * part of it (they are variables of their own); omitempty fields are left out when empty, as the unstructured
 * converter leaves them out.
 */
export function admissionRequestFor(attrs: AdmissionAttributes, resource: GroupVersionResource, kind: GroupVersionKind): Record<string, unknown> {
  const req: Record<string, unknown> = {
    uid: '',
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
  };
  if (attrs.subresource) req['subResource'] = attrs.subresource;
  req['requestKind'] = { group: attrs.kind.group, version: attrs.kind.version, kind: attrs.kind.kind };
  req['requestResource'] = { group: attrs.resource.group, version: attrs.resource.version, resource: attrs.resource.resource };
  if (attrs.subresource) req['requestSubResource'] = attrs.subresource;
  if (attrs.name) req['name'] = attrs.name;
  if (attrs.namespace) req['namespace'] = attrs.namespace;
  req['operation'] = attrs.operation;
  const u = attrs.userInfo;
  const userInfo: Record<string, unknown> = {};
  if (u.username) userInfo['username'] = u.username;
  if (u.uid) userInfo['uid'] = u.uid;
  if (u.groups && u.groups.length > 0) userInfo['groups'] = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) userInfo['extra'] = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  req['userInfo'] = userInfo;
  req['dryRun'] = attrs.dryRun;
  if (attrs.operation !== 'CONNECT' && attrs.options) req['options'] = attrs.options;
  return req;
}

/**
 * cel.CreateNamespaceObject: the namespace without its type meta, ownerReferences and managedFields — what a
 * policy may read about the namespace of the request.
 */
export function namespaceObjectFor(ns: KubeObject | undefined): KubeObject | null {
  if (!ns) return null;
  // Derived once per stored namespace object (a request evaluates it for every policy, and the namespace lister hands
  // out the same object until the namespace changes): frozen, since every evaluation shares it.
  const rv = ns.metadata?.resourceVersion;
  const memo = namespaceObjects.get(ns);
  if (memo && memo.resourceVersion === rv) return memo.object;
  const object = deepFreeze(createNamespaceObject(ns));
  namespaceObjects.set(ns, { resourceVersion: rv, object });
  return object;
}

const namespaceObjects = new WeakMap<KubeObject, { resourceVersion: string | undefined; object: KubeObject }>();

function createNamespaceObject(ns: KubeObject): KubeObject {
  const m = ns.metadata ?? {};
  const meta: Record<string, unknown> = {};
  for (const key of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const) {
    if (m[key] !== undefined) meta[key] = structuredClone(m[key]);
  }
  const out: KubeObject = { metadata: meta };
  out['spec'] = structuredClone(ns['spec'] ?? {});
  out['status'] = structuredClone(ns['status'] ?? {});
  return out;
}

/** The namespace whose object a policy sees: none for cluster-scoped requests, nor for Namespace objects themselves. */
export function namespaceNameFor(attrs: AdmissionAttributes): string {
  // kube sets a Namespace object's own name as its namespace ("maybe a bug") and unsets it here
  if (attrs.kind.group === '' && attrs.kind.version === 'v1' && attrs.kind.kind === 'Namespace') return '';
  return attrs.namespace;
}
