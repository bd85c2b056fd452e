// The garbage collector kube-controller-manager runs (pkg/controller/garbagecollector), so ownerReferences and
// DeleteOptions.propagationPolicy behave as in a cluster:
// - background: the owner is gone at once; every object whose owners are all gone (by uid) is deleted, also when
//   the owner went while the server was down or the dependent was created after it;
// - foreground: the owner waits (deletionTimestamp + `foregroundDeletion`) while its dependents are deleted, until
//   none with blockOwnerDeletion remains; then the finalizer goes and the owner with it;
// - orphan: the owner waits (`orphan`) while its reference is removed from every dependent.
// One list-then-watch monitor per deletable resource builds the dependency graph; the work goes through a queue
// (kube's attemptToDelete and attemptToOrphan), with live reads before every decision and writes through the
// store's compare-and-swap, as the GC's own identity so admission sees who deletes.
import { StatusError } from '../api/errors.js';
import type { KubeObject, OwnerReference, UserInfo } from '../api/types.js';
import { FinalizerDeleteDependents, FinalizerOrphanDependents } from '../registry/deletion-finalizers.js';
import { finalizersOf, jsonEqual, metaOf, ownerReferencesOf } from '../registry/object-fields.js';
import { newRequestContext } from '../registry/request-context.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import type { ManagedFieldsTracker, ResourceStore } from '../registry/store.js';
import type { StorageEvent } from '../storage/interface.js';
import { DelayedCalls } from './delayed-calls.js';
import { DependencyGraph, nodeOf, type GraphNode } from './dependency-graph.js';
import { ListWatch } from './list-watch.js';
import { WorkQueue, type WorkResult } from './work-queue.js';

/** kube-controller-manager's GC runs as this service account (its controller client). */
export const garbageCollectorUser: UserInfo = {
  username: 'system:serviceaccount:kube-system:generic-garbage-collector',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};

export interface GarbageCollectorDeps {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** routine decisions (kube logs them at V(2)) */
  debug?(msg: string, fields?: Record<string, unknown>): void;
  /**
   * Records the GC's writes in metadata.managedFields, as kube's field manager records its patches (manager
   * `kube-controller-manager`, from its user agent); without it managedFields are left as they were.
   */
  trackManagedFields?(info: ResourceInfo): ManagedFieldsTracker;
  /** how often the served resources are compared with the monitored ones (custom resources come and go) */
  resyncMs?: number;
  /** how long a monitor waits before listing again after a failed list or an ended watch */
  relistMs?: number;
}

/** kube's DefaultIgnoredResources: the GC never follows events. */
const ignoredResources = new Set(['/events', 'events.k8s.io/events']);

interface Monitor {
  listWatch: ListWatch;
  synced: boolean;
}

/** Why an owner reference cannot be checked (kube's classifyReferences errors). */
type OwnerState = 'solid' | 'dangling' | 'waiting' | { error: string; retry: boolean };

export class GarbageCollector {
  private readonly graph = new DependencyGraph();
  /**
   * kube's virtual nodes: owners named by an observed dependent but not observed themselves (their monitor has not
   * listed yet, or they are gone), with where to look them up. Checked until observed, or found gone.
   */
  private readonly virtualOwners = new Map<string, { ref: OwnerReference; namespace: string }>();
  private readonly monitors = new Map<string, Monitor>();
  private readonly queue: WorkQueue;
  private readonly timers = new DelayedCalls();
  private indexGeneration = -1;
  /** deletableResources() of one index generation */
  private deletable: { generation: number; resources: Map<string, ResourceInfo> } | undefined;
  private stopped = false;

  constructor(private readonly deps: GarbageCollectorDeps) {
    this.queue = new WorkQueue({
      workers: 2,
      baseDelayMs: 50,
      maxDelayMs: 5000,
      ready: () => this.synced(),
      process: (key) => this.process(key),
      onError: (key, err) => this.deps.log('garbage collector: processing failed; retrying', { item: key, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** Starts a monitor for every deletable resource and follows the served resources from then on. */
  start(): void {
    this.resync();
  }

  stop(): void {
    this.stopped = true;
    this.timers.stop();
    this.queue.stop();
    for (const m of this.monitors.values()) m.listWatch.stop();
    this.monitors.clear();
  }

  /** Every monitor has listed once: the graph holds every object, so no decision is made on half of it. */
  private synced(): boolean {
    for (const m of this.monitors.values()) if (!m.synced) return false;
    return true;
  }

  // ---- monitors (kube's GraphBuilder.syncMonitors over GetDeletableResources) ----

  /** One resource per group/resource that can be listed, watched and deleted: the store every version shares. */
  private deletableResources(): Map<string, ResourceInfo> {
    // asked per monitor and per object checked: worked out once per set of served resources
    const generation = this.deps.index.generation;
    if (this.deletable?.generation === generation) return this.deletable.resources;
    const out = new Map<string, ResourceInfo>();
    for (const info of this.deps.index.all()) {
      const gr = `${info.group}/${info.resource}`;
      if (info.virtual || ignoredResources.has(gr)) continue;
      if (!['list', 'watch', 'delete'].every((v) => info.verbs.includes(v as never))) continue;
      const seen = out.get(gr);
      // the storage version when there are several (custom resources): no conversion of what is stored
      if (!seen || (info.storageVersion ?? info.version) === info.version) out.set(gr, info);
    }
    this.deletable = { generation, resources: out };
    return out;
  }

  private resync(): void {
    if (this.stopped) return;
    if (this.deps.index.generation !== this.indexGeneration) {
      this.indexGeneration = this.deps.index.generation;
      const wanted = this.deletableResources();
      for (const [gr, m] of this.monitors) {
        if (wanted.has(gr)) continue;
        m.listWatch.stop();
        this.monitors.delete(gr);
        // the resource is no longer served, so none of its objects exists any more
        for (const n of this.graph.nodesOf(gr)) this.observeDeletion(n.uid);
      }
      for (const gr of wanted.keys()) if (!this.monitors.has(gr)) this.startMonitor(gr);
    }
    this.timers.after(this.deps.resyncMs ?? 250, () => this.resync());
  }

  private currentInfo(gr: string): ResourceInfo {
    const info = this.deletableResources().get(gr);
    if (!info) throw new Error(`${gr} is no longer served`);
    return info;
  }

  private startMonitor(gr: string): void {
    const monitor: Monitor = {
      synced: false,
      listWatch: new ListWatch({
        // the store is looked up on each list and watch: a CRD update replaces its ResourceInfos
        store: {
          list: (ctx, q) => this.deps.storeFor(this.currentInfo(gr)).list(ctx, q),
          watch: (ctx, rv, handlers) => this.deps.storeFor(this.currentInfo(gr)).watch(ctx, rv, handlers),
        },
        user: garbageCollectorUser,
        retryMs: this.deps.relistMs ?? 1000,
        onList: (items) => {
          this.replace(gr, items);
          monitor.synced = true;
          this.queue.pump();
        },
        onEvent: (e) => this.observe(gr, e),
        onListError: (err) => this.deps.log('garbage collector: list failed; retrying', { resource: gr, error: err.message }),
        onWatchError: (err) => this.deps.log('garbage collector: watch ended; listing again', { resource: gr, error: err.message }),
      }),
    };
    this.monitors.set(gr, monitor);
    void monitor.listWatch.start();
  }

  // ---- the graph (kube's GraphBuilder.processGraphChanges) ----

  /** A (re)list: every listed object is observed, and what the graph had that the list lacks was deleted meanwhile. */
  private replace(gr: string, items: readonly KubeObject[]): void {
    const listed = new Set<string>();
    for (const obj of items) {
      listed.add(metaOf(obj).uid ?? '');
      this.observe(gr, { type: 'ADDED', object: obj });
    }
    for (const n of this.graph.nodesOf(gr)) if (!listed.has(n.uid)) this.observeDeletion(n.uid);
  }

  private observe(gr: string, e: StorageEvent): void {
    const uid = metaOf(e.object).uid;
    if (!uid) return;
    if (e.type === 'DELETED') {
      this.observeDeletion(uid);
      return;
    }
    const node = nodeOf(gr, e.object);
    const { previous, changes } = this.graph.upsert(node);
    this.virtualOwners.delete(uid);
    for (const r of changes.added) {
      if (this.graph.get(r.uid) || this.virtualOwners.has(r.uid)) continue;
      this.virtualOwners.set(r.uid, { ref: r, namespace: node.namespace });
      this.queue.add(virtualKey(r.uid));
    }
    // a new object with owners, or new owners: are they all there?
    if ((!previous && node.owners.length > 0) || changes.added.length > 0) this.queue.add(deleteKey(uid));
    // a reference removed or unblocked may be what an owner deleting in the foreground waits for
    for (const r of [...changes.removed, ...changes.unblocked]) {
      if (this.graph.get(r.uid)?.deletingDependents) this.queue.add(deleteKey(r.uid));
    }
    if (node.orphaningDependents && !previous?.orphaningDependents) this.queue.add(orphanKey(uid));
    if (node.deletingDependents && !previous?.deletingDependents) {
      // kube's startsWaitingForDependentsDeleted: every dependent is looked at, then the owner itself
      for (const d of this.graph.dependentsOf(uid)) this.queue.add(deleteKey(d.uid));
      this.queue.add(deleteKey(uid));
    }
  }

  private observeDeletion(uid: string): void {
    const node = this.graph.remove(uid);
    // its dependents may have lost their last owner (also when it was only a virtual node)
    for (const d of this.graph.dependentsOf(uid)) this.queue.add(deleteKey(d.uid));
    if (!node) return;
    // an owner deleting in the foreground may have been waiting for this one
    for (const r of node.owners) if (this.graph.get(r.uid)?.deletingDependents) this.queue.add(deleteKey(r.uid));
  }

  // ---- the work (kube's attemptToDeleteItem and attemptToOrphanWorker) ----

  private async process(key: string): Promise<WorkResult> {
    const [kind, uid] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (kind === 'virtual') return this.checkVirtualOwner(uid);
    const node = this.graph.get(uid);
    if (!node) return 'done';
    return kind === 'orphan' ? this.attemptToOrphan(node) : this.attemptToDelete(node);
  }

  /**
   * kube's handling of a virtual node: gone (or another uid) is a virtual delete event, so its dependents are looked
   * at; still there but not observed yet is looked at again later (its monitor lists soon, and its events follow).
   */
  private async checkVirtualOwner(uid: string): Promise<WorkResult> {
    const virtual = this.virtualOwners.get(uid);
    if (!virtual || this.graph.get(uid)) return 'done';
    if (this.graph.dependentsOf(uid).length === 0) {
      this.virtualOwners.delete(uid);
      return 'done';
    }
    const state = await this.ownerState(virtual.ref, { namespace: virtual.namespace });
    if (state === 'dangling') {
      this.virtualOwners.delete(uid);
      this.observeDeletion(uid);
      return 'done';
    }
    if (typeof state === 'object' && !state.retry) {
      this.virtualOwners.delete(uid);
      return 'done';
    }
    return 'retry';
  }

  private storeOf(node: GraphNode): ResourceStore | undefined {
    const info = this.deletableResources().get(node.groupResource);
    return info ? this.deps.storeFor(info) : undefined;
  }

  /** The object as stored now, if it is still the one the node stands for. */
  private async live(node: GraphNode): Promise<KubeObject | undefined> {
    const store = this.storeOf(node);
    if (!store) return undefined;
    try {
      const obj = await store.get(newRequestContext(garbageCollectorUser, node.namespace), node.name);
      return metaOf(obj).uid === node.uid ? obj : undefined;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  private async attemptToDelete(node: GraphNode): Promise<WorkResult> {
    // "being deleted" is a one-way trip: its dependents are looked at once it is gone
    if (node.beingDeleted && !node.deletingDependents) return 'done';
    const latest = await this.live(node);
    if (!latest) return 'done';
    const meta = metaOf(latest);
    const beingDeleted = meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;
    if (beingDeleted && finalizersOf(meta).includes(FinalizerDeleteDependents)) return this.processDeletingDependents(node, latest);
    const owners = ownerReferencesOf(meta);
    if (owners.length === 0) return 'done';

    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of owners) {
      const state = await this.ownerState(ref, node);
      if (typeof state === 'object') {
        this.deps.log('garbage collector: cannot check an owner reference', { object: describe(node), owner: `${ref.apiVersion}/${ref.kind} ${ref.name}`, error: state.error });
        return state.retry ? 'retry' : 'done';
      }
      (state === 'solid' ? solid : state === 'dangling' ? dangling : waiting).push(ref);
    }

    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return 'done';
      // kube: the references to owners that are gone, or that wait for their dependents, are removed; otherwise an
      // owner deleting in the foreground would wait for an object that another owner keeps
      const gone = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.updateOwnerReferences(node, (refs) => refs.filter((r) => !gone.has(r.uid)));
      return 'done';
    }
    if (waiting.length > 0 && this.graph.dependentsOf(node.uid).length > 0) {
      // kube's cycle guard: a dependent that itself deletes in the foreground while we wait on an owner that does
      // too could block both forever, so our references stop blocking before we go in the foreground
      if (this.graph.dependentsOf(node.uid).some((d) => d.deletingDependents)) {
        await this.updateOwnerReferences(node, (refs) => refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)));
      }
      await this.deleteObject(node, latest, 'Foreground');
      return 'done';
    }
    // no owner left: the object goes, in the way its own finalizers asked for
    const finalizers = finalizersOf(meta);
    const policy = finalizers.includes(FinalizerOrphanDependents) ? 'Orphan' : finalizers.includes(FinalizerDeleteDependents) ? 'Foreground' : 'Background';
    this.deps.debug?.('garbage collector: deleting an object whose owners are gone', { object: describe(node), propagationPolicy: policy });
    await this.deleteObject(node, latest, policy);
    return 'done';
  }

  /** kube's processDeletingDependentsItem: the finalizer goes once no dependent blocks the owner any more. */
  private async processDeletingDependents(node: GraphNode, latest: KubeObject): Promise<WorkResult> {
    const blocking = this.graph.blockingDependentsOf(node.uid);
    if (blocking.length === 0) {
      await this.removeFinalizer(node, latest, FinalizerDeleteDependents);
      return 'done';
    }
    for (const d of blocking) if (!d.deletingDependents) this.queue.add(deleteKey(d.uid));
    return 'done';
  }

  /** kube's attemptToOrphanWorker: every dependent loses its reference to the owner, then the owner its finalizer. */
  private async attemptToOrphan(node: GraphNode): Promise<WorkResult> {
    const latest = await this.live(node);
    if (!latest) return 'done';
    const meta = metaOf(latest);
    if (!meta.deletionTimestamp || !finalizersOf(meta).includes(FinalizerOrphanDependents)) return 'done';
    const failures: string[] = [];
    await Promise.all(
      this.graph.dependentsOf(node.uid).map(async (d) => {
        try {
          await this.updateOwnerReferences(d, (refs) => refs.filter((r) => r.uid !== node.uid));
        } catch (err) {
          failures.push(`${describe(d)}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    );
    if (failures.length) {
      this.deps.log('garbage collector: orphaning dependents failed; retrying', { owner: describe(node), errors: failures });
      return 'retry';
    }
    await this.removeFinalizer(node, latest, FinalizerOrphanDependents);
    return 'done';
  }

  /** kube's isDangling, through the served resources: absent or another uid is dangling. */
  private async ownerState(ref: OwnerReference, dependent: Pick<GraphNode, 'namespace'>): Promise<OwnerState> {
    const info = this.deps.index.lookupKind(ref.apiVersion, ref.kind);
    if (!info || info.virtual) return { error: `unable to get REST mapping for ${ref.apiVersion}/${ref.kind}.`, retry: true };
    // a cluster-scoped object cannot be owned by a namespaced one: retrying will not change that (kube's
    // namespacedOwnerOfClusterScopedObjectErr)
    if (info.namespaced && dependent.namespace === '') return { error: 'cluster-scoped object cannot refer to namespace-scoped owner', retry: false };
    let owner: KubeObject;
    try {
      owner = await this.deps.storeFor(info).get(newRequestContext(garbageCollectorUser, info.namespaced ? dependent.namespace : ''), ref.name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return 'dangling';
      throw err;
    }
    const m = metaOf(owner);
    if (m.uid !== ref.uid) return 'dangling';
    return m.deletionTimestamp && finalizersOf(m).includes(FinalizerDeleteDependents) ? 'waiting' : 'solid';
  }

  /**
   * Rewrites the object's ownerReferences through the store's compare-and-swap (kube sends a patch naming the uid,
   * so it never lands on a namesake created meanwhile).
   */
  private async updateOwnerReferences(node: GraphNode, change: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const store = this.storeOf(node);
    if (!store) return;
    const ctx = newRequestContext(garbageCollectorUser, node.namespace);
    try {
      await store.update(
        ctx,
        node.name,
        '',
        (cur) => {
          const m = metaOf(cur);
          if (m.uid !== node.uid) throw new StatusError(404, 'NotFound', 'replaced');
          const refs = change(ownerReferencesOf(m));
          if (refs.length) m.ownerReferences = refs;
          else delete m.ownerReferences;
          return cur;
        },
        { kind: 'PatchOptions', apiVersion: 'meta.k8s.io/v1' },
        false,
        undefined,
        this.deps.trackManagedFields?.(store.info),
      );
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }

  /** kube's removeFinalizer: a no-op when it is already gone; the store deletes the object with its last finalizer. */
  private async removeFinalizer(node: GraphNode, latest: KubeObject, finalizer: string): Promise<void> {
    if (!finalizersOf(metaOf(latest)).includes(finalizer)) return;
    const store = this.storeOf(node);
    if (!store) return;
    try {
      await store.update(
        newRequestContext(garbageCollectorUser, node.namespace),
        node.name,
        '',
        (cur) => {
          const m = metaOf(cur);
          if (m.uid !== node.uid) throw new StatusError(404, 'NotFound', 'replaced');
          const rest = finalizersOf(m).filter((f) => f !== finalizer);
          if (rest.length) m.finalizers = rest;
          else delete m.finalizers;
          return cur;
        },
        { kind: 'PatchOptions', apiVersion: 'meta.k8s.io/v1' },
        false,
        undefined,
        this.deps.trackManagedFields?.(store.info),
      );
      this.deps.debug?.('garbage collector: removed finalizer', { object: describe(node), finalizer });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }

  /**
   * kube's deleteObject: preconditioned on the uid and the resourceVersion the decision was made on; when that
   * resourceVersion is stale but the ownerReferences are still the same, the decision holds and the delete is sent
   * again with the uid alone.
   */
  private async deleteObject(node: GraphNode, latest: KubeObject, policy: 'Orphan' | 'Foreground' | 'Background'): Promise<void> {
    const store = this.storeOf(node);
    if (!store) return;
    const ctx = newRequestContext(garbageCollectorUser, node.namespace);
    const rv = metaOf(latest).resourceVersion;
    const attempt = async (preconditions: { uid: string; resourceVersion?: string }) => {
      await store.delete(ctx, node.name, { preconditions, propagationPolicy: policy }, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', preconditions, propagationPolicy: policy });
    };
    try {
      await attempt({ uid: node.uid, ...(rv ? { resourceVersion: rv } : {}) });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      if (!(err instanceof StatusError && err.code === 409 && rv)) throw err;
      const now = await this.live(node);
      if (!now) return;
      if (!jsonEqual(metaOf(now).ownerReferences ?? [], metaOf(latest).ownerReferences ?? [])) throw err;
      try {
        await attempt({ uid: node.uid });
      } catch (again) {
        if (again instanceof StatusError && again.code === 404) return;
        throw again;
      }
    }
  }
}

function deleteKey(uid: string): string {
  return `delete:${uid}`;
}

function virtualKey(uid: string): string {
  return `virtual:${uid}`;
}

function orphanKey(uid: string): string {
  return `orphan:${uid}`;
}

function describe(n: GraphNode): string {
  return `${n.groupResource} ${n.namespace ? `${n.namespace}/` : ''}${n.name} (uid ${n.uid})`;
}
