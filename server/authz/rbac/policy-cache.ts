// The RBAC objects the authorizer reads, held in memory as kube's RBAC authorizer reads them from informer caches:
// filled by list-watches of the four resources and told of this server's own writes at once (so a binding created
// by one request is in force for the next). Bindings are indexed by subject, so that a request costs a few map
// lookups, not a scan of every binding.
import type { KubeObject, ObjectMeta } from '../../api/types.js';
import type { RbacBinding, RbacRole, Subject } from './types.js';

export type RbacResource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';
export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

const serviceAccountPrefix = 'system:serviceaccount:';

/** The index key a subject is found under; undefined for a subject that applies to nobody. */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `u:${s.name}`;
    case 'Group':
      return `g:${s.name}`;
    case 'ServiceAccount': {
      // kube's appliesToUser: a RoleBinding's service account defaults to the binding's namespace
      const ns = s.namespace || bindingNamespace;
      return ns ? `u:${serviceAccountPrefix}${ns}:${s.name}` : undefined;
    }
    default:
      return undefined;
  }
}

/** The keys a user's bindings are indexed under: the name (users and service accounts alike) and each group. */
export function userKeys(user: { username?: string; groups?: readonly string[] }): string[] {
  const keys = [`u:${user.username ?? ''}`];
  for (const g of user.groups ?? []) keys.push(`g:${g}`);
  return keys;
}

/** kube's appliesToUser for one subject. */
export function subjectAppliesTo(user: { username?: string; groups?: readonly string[] }, s: Subject, bindingNamespace: string): boolean {
  const key = subjectKey(s, bindingNamespace);
  if (!key) return false;
  return key.startsWith('g:') ? (user.groups ?? []).includes(key.slice(2)) : key.slice(2) === (user.username ?? '');
}

class BindingIndex {
  private readonly byName = new Map<string, RbacBinding>();
  private readonly bySubject = new Map<string, Set<string>>();

  constructor(private readonly namespaced: boolean) {}

  private keysOf(b: RbacBinding): Set<string> {
    const ns = this.namespaced ? (b.metadata.namespace ?? '') : '';
    const keys = new Set<string>();
    for (const s of b.subjects ?? []) {
      const k = subjectKey(s, ns);
      if (k) keys.add(k);
    }
    return keys;
  }

  set(id: string, b: RbacBinding): void {
    this.delete(id);
    this.byName.set(id, b);
    for (const k of this.keysOf(b)) {
      let set = this.bySubject.get(k);
      if (!set) this.bySubject.set(k, (set = new Set()));
      set.add(id);
    }
  }

  delete(id: string): void {
    const old = this.byName.get(id);
    if (!old) return;
    this.byName.delete(id);
    for (const k of this.keysOf(old)) {
      const set = this.bySubject.get(k);
      set?.delete(id);
      if (set?.size === 0) this.bySubject.delete(k);
    }
  }

  /**
   * The bindings naming any of these keys, in name order (rules reviews list them the same way every time). On
   * every authorized request: no copy unless more than one key has bindings.
   */
  matching(keys: readonly string[]): RbacBinding[] {
    let first: Set<string> | undefined;
    let merged: Set<string> | undefined;
    for (const k of keys) {
      const ids = this.bySubject.get(k);
      if (!ids) continue;
      if (!first) {
        first = ids;
        continue;
      }
      merged ??= new Set(first);
      for (const id of ids) merged.add(id);
    }
    const ids = merged ?? first;
    if (!ids) return [];
    if (ids.size === 1) return [this.byName.get(ids.values().next().value!)!];
    return [...ids].sort().map((id) => this.byName.get(id)!);
  }

  ids(): string[] {
    return [...this.byName.keys()];
  }

  get size(): number {
    return this.byName.size;
  }
}

const metaOf = (o: KubeObject): ObjectMeta => (o.metadata ?? {}) as ObjectMeta;
const rvOf = (o: KubeObject): number => Number(metaOf(o).resourceVersion ?? 0) || 0;

const idOf = (o: KubeObject): string => `${metaOf(o).namespace ?? ''}/${metaOf(o).name ?? ''}`;

export class RbacPolicyCache {
  /** "namespace/name" */
  private readonly roles = new Map<string, RbacRole>();
  private readonly clusterRoles = new Map<string, RbacRole>();
  /** per namespace, so a namespace's request looks only at that namespace's bindings */
  private readonly roleBindings = new Map<string, BindingIndex>();
  private readonly clusterRoleBindings = new BindingIndex(false);
  /** the newest resourceVersion seen per object, deletions included: an older event (a watch catching up with a write already observed) is ignored */
  private readonly seen = new Map<string, number>();
  private readonly clusterRoleListeners: Array<(type: CacheEventType, role: RbacRole) => void> = [];

  /** Applies one event unless an equal or newer version of that object was seen already. */
  apply(resource: RbacResource, type: CacheEventType, obj: KubeObject): void {
    const id = idOf(obj);
    const seenKey = `${resource}:${id}`;
    const rv = rvOf(obj);
    const last = this.seen.get(seenKey);
    if (last !== undefined && (rv < last || (rv === last && type !== 'DELETED'))) return;
    this.seen.set(seenKey, rv);
    if (type === 'DELETED') this.remove(resource, id);
    else this.put(resource, id, obj);
  }

  private put(resource: RbacResource, id: string, obj: KubeObject): void {
    switch (resource) {
      case 'roles':
        this.roles.set(id, obj as RbacRole);
        return;
      case 'clusterroles':
        this.clusterRoles.set(metaOf(obj).name ?? '', obj as RbacRole);
        for (const l of this.clusterRoleListeners) l('MODIFIED', obj as RbacRole);
        return;
      case 'rolebindings': {
        const ns = metaOf(obj).namespace ?? '';
        let index = this.roleBindings.get(ns);
        if (!index) this.roleBindings.set(ns, (index = new BindingIndex(true)));
        index.set(id, obj as RbacBinding);
        return;
      }
      case 'clusterrolebindings':
        this.clusterRoleBindings.set(id, obj as RbacBinding);
        return;
    }
  }

  private remove(resource: RbacResource, id: string): void {
    switch (resource) {
      case 'roles':
        this.roles.delete(id);
        return;
      case 'clusterroles': {
        const name = id.slice(1);
        const old = this.clusterRoles.get(name);
        this.clusterRoles.delete(name);
        if (old) for (const l of this.clusterRoleListeners) l('DELETED', old);
        return;
      }
      case 'rolebindings': {
        const ns = id.slice(0, id.indexOf('/'));
        const index = this.roleBindings.get(ns);
        index?.delete(id);
        if (index?.size === 0) this.roleBindings.delete(ns);
        return;
      }
      case 'clusterrolebindings':
        this.clusterRoleBindings.delete(id);
        return;
    }
  }

  private idsOf(resource: RbacResource): string[] {
    switch (resource) {
      case 'roles':
        return [...this.roles.keys()];
      case 'clusterroles':
        return [...this.clusterRoles.keys()].map((n) => `/${n}`);
      case 'rolebindings':
        return [...this.roleBindings.values()].flatMap((i) => i.ids());
      case 'clusterrolebindings':
        return this.clusterRoleBindings.ids();
    }
  }

  /** A (re)list: what the list holds replaces what the cache held for that resource. */
  replace(resource: RbacResource, items: readonly KubeObject[]): void {
    const present = new Set(items.map(idOf));
    for (const id of this.idsOf(resource)) {
      if (present.has(id)) continue;
      this.seen.delete(`${resource}:${id}`);
      this.remove(resource, id);
    }
    for (const o of items) this.apply(resource, 'ADDED', o);
  }

  getRole(namespace: string, name: string): RbacRole | undefined {
    return this.roles.get(`${namespace}/${name}`);
  }

  getClusterRole(name: string): RbacRole | undefined {
    return this.clusterRoles.get(name);
  }

  listClusterRoles(): RbacRole[] {
    return [...this.clusterRoles.values()];
  }

  clusterRoleBindingsFor(keys: readonly string[]): RbacBinding[] {
    return this.clusterRoleBindings.matching(keys);
  }

  roleBindingsFor(namespace: string, keys: readonly string[]): RbacBinding[] {
    return this.roleBindings.get(namespace)?.matching(keys) ?? [];
  }

  /** Told of every clusterrole change (the aggregation controller's informer handler). */
  onClusterRole(listener: (type: CacheEventType, role: RbacRole) => void): void {
    this.clusterRoleListeners.push(listener);
  }
}
