// The namespace lifecycle kube-controller-manager runs, so DELETE of a namespace behaves as in a cluster:
// Terminating → every namespaced object deleted (objects with finalizers wait for them) → spec.finalizers
// "kubernetes" removed → the namespace disappears.
import type { KubeObject, UserInfo } from '../api/types.js';
import { finalizersOf, metaOf } from '../registry/object-fields.js';
import { newRequestContext } from '../registry/request-context.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import type { ResourceStore } from '../registry/store.js';
import { DelayedCalls } from './delayed-calls.js';
import { ListWatch } from './list-watch.js';

const controllerUser: UserInfo = { username: 'system:serviceaccount:kube-system:namespace-controller', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] };

export interface NamespaceControllerDeps {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** how long to wait between passes while objects with finalizers remain */
  retryMs?: number;
}

export class NamespaceController {
  private readonly inFlight = new Set<string>();
  private readonly retries = new DelayedCalls();
  private readonly namespaceList: ListWatch;

  constructor(private readonly deps: NamespaceControllerDeps) {
    this.namespaceList = new ListWatch({
      // the namespaces store is looked up on each list and watch, not captured at construction
      store: {
        list: (ctx, q) => this.namespaces.list(ctx, q),
        watch: (ctx, rv, handlers) => this.namespaces.watch(ctx, rv, handlers),
      },
      user: controllerUser,
      retryMs: 1000,
      onList: (items) => {
        for (const ns of items) this.consider(ns);
      },
      onEvent: (e) => {
        if (e.type !== 'DELETED') this.consider(e.object);
      },
      onListError: (err) => this.deps.log('namespace controller could not start; retrying', { error: err.message }),
      onWatchError: (err) => this.deps.log('namespace controller watch ended; restarting', { error: err.message }),
    });
  }

  private get namespaces(): ResourceStore {
    return this.deps.storeFor(this.deps.index.lookup('', 'v1', 'namespaces')!);
  }

  /** Finalizes namespaces already Terminating (after a restart) and follows new deletions; listing is retried. */
  async start(): Promise<void> {
    await this.namespaceList.start();
  }

  stop(): void {
    this.namespaceList.stop();
    this.retries.stop();
  }

  private consider(ns: KubeObject): void {
    if (metaOf(ns).deletionTimestamp) this.schedule(metaOf(ns).name ?? '');
  }

  private schedule(name: string): void {
    if (this.inFlight.has(name)) return;
    this.inFlight.add(name);
    void this.finalize(name).finally(() => this.inFlight.delete(name));
  }

  private async finalize(namespace: string): Promise<void> {
    try {
      const remaining = await this.deleteContent(namespace);
      if (remaining > 0) {
        this.retries.after(this.deps.retryMs ?? 200, () => this.schedule(namespace));
        return;
      }
      const ctx = newRequestContext(controllerUser, '');
      await this.namespaces.update(ctx, namespace, '', (cur) => {
        const spec = { ...((cur['spec'] as Record<string, unknown>) ?? {}) };
        // a list of strings whatever was stored (an older server stored bodies without decoding them)
        const stored: unknown = spec['finalizers'];
        const left = Array.isArray(stored) ? stored.filter((f): f is string => typeof f === 'string' && f !== 'kubernetes') : [];
        if (left.length > 0) spec['finalizers'] = left;
        else delete spec['finalizers'];
        return { ...cur, spec };
      }, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
      this.deps.log('namespace finalized', { namespace });
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 404) return;
      this.deps.log('namespace finalization failed; retrying', { namespace, error: (err as Error).message });
      this.retries.after(1000, () => this.schedule(namespace));
    }
  }

  /** Deletes every namespaced object; returns how many still exist (waiting on their finalizers). */
  private async deleteContent(namespace: string): Promise<number> {
    let remaining = 0;
    const ctx = newRequestContext(controllerUser, namespace);
    for (const info of this.deps.index.all()) {
      if (!info.namespaced || info.virtual) continue;
      const store = this.deps.storeFor(info);
      const list = await store.list(ctx, {});
      for (const item of list.items) {
        remaining++;
        // marked for deletion, waiting on its finalizers; one marked while its finalizers were of another type
        // (stored by an older server) holds none, and is deleted now
        if (metaOf(item).deletionTimestamp && finalizersOf(metaOf(item)).length > 0) continue;
        try {
          // kube's namespacedResourcesDeleter: a DeleteCollection where the resource serves it (admitted per item
          // without a name), else one delete per item; Background propagation either way, so that the garbage
          // collector's orphan finalizer never holds the namespace.
          const admissionName = info.verbs.includes('deletecollection') ? { admissionName: '' } : {};
          await store.delete(ctx, metaOf(item).name ?? '', { propagationPolicy: 'Background' }, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' }, admissionName);
        } catch (err) {
          if ((err as { code?: number }).code !== 404) throw err;
        }
      }
    }
    // Count again: what was deleted outright is gone, what has finalizers remains.
    if (remaining === 0) return 0;
    let left = 0;
    for (const info of this.deps.index.all()) {
      if (!info.namespaced || info.virtual) continue;
      left += (await this.deps.storeFor(info).list(ctx, {})).items.length;
    }
    return left;
  }
}
