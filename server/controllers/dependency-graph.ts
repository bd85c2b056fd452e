// The garbage collector's view of every object that can own or be owned (kube's GraphBuilder uidToNode): one node
// per uid with what the GC decides on, and the reverse index owner uid → dependents, kept whether or not the owner
// itself was ever seen (a dependent may name an owner that is already gone).
import type { KubeObject, OwnerReference } from '../api/types.js';
import { FinalizerDeleteDependents, FinalizerOrphanDependents } from '../registry/deletion-finalizers.js';
import { finalizersOf, metaOf, ownerReferencesOf } from '../registry/object-fields.js';

export interface GraphNode {
  /** "group/resource" of the monitor that saw it */
  groupResource: string;
  namespace: string;
  name: string;
  uid: string;
  owners: OwnerReference[];
  /** metadata.deletionTimestamp is set */
  beingDeleted: boolean;
  /** being deleted with the `foregroundDeletion` finalizer: waits for its blocking dependents */
  deletingDependents: boolean;
  /** being deleted with the `orphan` finalizer: waits for its dependents to lose their references to it */
  orphaningDependents: boolean;
}

export function nodeOf(groupResource: string, obj: KubeObject): GraphNode {
  const m = metaOf(obj);
  // whatever is stored: an older server stored objects without decoding them into their Go types
  const finalizers = finalizersOf(m);
  const beingDeleted = m.deletionTimestamp !== undefined && m.deletionTimestamp !== null;
  return {
    groupResource,
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    owners: ownerReferencesOf(m).map((r) => ({ ...r })),
    beingDeleted,
    deletingDependents: beingDeleted && finalizers.includes(FinalizerDeleteDependents),
    orphaningDependents: beingDeleted && finalizers.includes(FinalizerOrphanDependents),
  };
}

/** What changed in a node's ownerReferences (kube's referencesDiffs). */
export interface OwnerChanges {
  added: OwnerReference[];
  removed: OwnerReference[];
  /** references whose blockOwnerDeletion went from true to false */
  unblocked: OwnerReference[];
}

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Stores the node; answers the node it replaced (undefined for a new uid) and how its owners changed. */
  upsert(node: GraphNode): { previous: GraphNode | undefined; changes: OwnerChanges } {
    const previous = this.nodes.get(node.uid);
    const changes = diffOwners(previous?.owners ?? [], node.owners);
    for (const r of changes.removed) this.unlink(r.uid, node.uid);
    for (const r of node.owners) {
      let set = this.dependents.get(r.uid);
      if (!set) this.dependents.set(r.uid, (set = new Set()));
      set.add(node.uid);
    }
    this.nodes.set(node.uid, node);
    return { previous, changes };
  }

  /** Forgets the node (its dependents stay indexed under its uid: they still name it). */
  remove(uid: string): GraphNode | undefined {
    const node = this.nodes.get(uid);
    if (!node) return undefined;
    this.nodes.delete(uid);
    for (const r of node.owners) this.unlink(r.uid, uid);
    return node;
  }

  /** The observed objects that name uid as an owner. */
  dependentsOf(uid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const d of this.dependents.get(uid) ?? []) {
      const n = this.nodes.get(d);
      if (n) out.push(n);
    }
    return out;
  }

  /** Dependents whose reference to uid has blockOwnerDeletion: true (kube's blockingDependents). */
  blockingDependentsOf(uid: string): GraphNode[] {
    return this.dependentsOf(uid).filter((d) => d.owners.some((r) => r.uid === uid && r.blockOwnerDeletion === true));
  }

  /** Every node a monitor of groupResource saw. */
  nodesOf(groupResource: string): GraphNode[] {
    return [...this.nodes.values()].filter((n) => n.groupResource === groupResource);
  }

  private unlink(ownerUid: string, dependentUid: string): void {
    const set = this.dependents.get(ownerUid);
    if (!set) return;
    set.delete(dependentUid);
    if (set.size === 0) this.dependents.delete(ownerUid);
  }
}

function diffOwners(before: readonly OwnerReference[], after: readonly OwnerReference[]): OwnerChanges {
  const old = new Map(before.map((r) => [r.uid, r]));
  const now = new Map(after.map((r) => [r.uid, r]));
  const changes: OwnerChanges = { added: [], removed: [], unblocked: [] };
  for (const r of after) {
    const o = old.get(r.uid);
    if (!o) changes.added.push(r);
    else if (o.blockOwnerDeletion === true && r.blockOwnerDeletion !== true) changes.unblocked.push(r);
  }
  for (const r of before) if (!now.has(r.uid)) changes.removed.push(r);
  return changes;
}
