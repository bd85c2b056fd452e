// The namespace lifecycle kube-controller-manager runs, so DELETE of a namespace behaves as in a cluster:
// Terminating → every namespaced object deleted (objects with finalizers wait for them) → spec.finalizers
// "kubernetes" removed → the namespace disappears.
import type { KubeObject, UserInfo } from '../api/types.js';
import { metaOf } from '../registry/object-fields.js';
import { newRequestContext } from '../registry/request-context.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import type { ResourceStore } from '../registry/store.js';
import type { StorageWatch } from '../storage/interface.js';

const controllerUser: UserInfo = { username: 'system:serviceaccount:kube-system:namespace-controller', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] };

export interface NamespaceControllerDeps {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** how long to wait between passes while objects with finalizers remain */
  retryMs?: number;
}

export class NamespaceController {
  private watch?: StorageWatch;
  private readonly inFlight = new Set<string>();
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: NamespaceControllerDeps) {}

  private get namespaces(): ResourceStore {
    return this.deps.storeFor(this.deps.index.lookup('', 'v1', 'namespaces')!);
  }

  /** Finalizes namespaces already Terminating (after a restart) and follows new deletions. */
  async start(): Promise<void> {
    const ctx = newRequestContext(controllerUser, '');
    const list = await this.namespaces.list(ctx, {});
    for (const ns of list.items) this.consider(ns);
    this.watch = this.namespaces.watch(ctx, list.metadata.resourceVersion ?? '0', {
      onEvent: (e) => {
        if (e.type !== 'DELETED') this.consider(e.object);
      },
      onError: (err) => {
        this.deps.log('namespace controller watch ended; restarting', { error: err.message });
        if (!this.stopped) this.later(() => void this.start().catch(() => this.later(() => void this.start(), 1000)), 1000);
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    for (const t of this.timers) clearTimeout(t);
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    t.unref();
    this.timers.add(t);
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
        this.later(() => this.schedule(namespace), this.deps.retryMs ?? 200);
        return;
      }
      const ctx = newRequestContext(controllerUser, '');
      await this.namespaces.update(ctx, namespace, '', (cur) => {
        const spec = { ...((cur['spec'] as Record<string, unknown>) ?? {}) };
        spec['finalizers'] = ((spec['finalizers'] as string[] | undefined) ?? []).filter((f) => f !== 'kubernetes');
        if ((spec['finalizers'] as string[]).length === 0) delete spec['finalizers'];
        return { ...cur, spec };
      }, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
      this.deps.log('namespace finalized', { namespace });
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 404) return;
      this.deps.log('namespace finalization failed; retrying', { namespace, error: (err as Error).message });
      this.later(() => this.schedule(namespace), 1000);
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
        if (metaOf(item).deletionTimestamp) continue;
        try {
          await store.delete(ctx, metaOf(item).name ?? '', {}, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
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
