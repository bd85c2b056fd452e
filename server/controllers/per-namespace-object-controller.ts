// The shape of kube-controller-manager's serviceaccounts controller and root-ca-cert-publisher: one object every
// active namespace must hold (the `default` ServiceAccount, the kube-root-ca.crt ConfigMap). They follow namespaces
// (created → the object is created) and the objects themselves (deleted → created again; for the ConfigMap, a
// changed bundle → put back), and leave terminating namespaces alone.
import type { KubeObject, UserInfo } from '../api/types.js';
import { StatusError } from '../api/errors.js';
import { metaOf } from '../registry/object-fields.js';
import { newRequestContext } from '../registry/request-context.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import type { ResourceStore } from '../registry/store.js';
import { ListWatch } from './list-watch.js';

export interface PerNamespaceObjectControllerDeps {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** the controller's identity (kube: system:serviceaccount:kube-system:<controller>) */
  user: UserInfo;
  /** the core/v1 resource of the object, e.g. serviceaccounts */
  resource: string;
  name: string;
  /** the object a namespace must hold */
  desired(namespace: string): KubeObject;
  /** whether a stored object must be put back to the desired one (the ConfigMap's data) */
  drifted?(stored: KubeObject, desired: KubeObject): boolean;
}

export class PerNamespaceObjectController {
  private readonly namespaceWatch: ListWatch;
  private readonly objectWatch: ListWatch;
  private readonly active = new Set<string>();
  private started = false;

  constructor(private readonly deps: PerNamespaceObjectControllerDeps) {
    const follow = (resource: string) => ({
      list: (ctx: Parameters<ResourceStore['list']>[0], q: Parameters<ResourceStore['list']>[1]) => this.store(resource).list(ctx, q),
      watch: (ctx: Parameters<ResourceStore['watch']>[0], rv: string, h: Parameters<ResourceStore['watch']>[2]) => this.store(resource).watch(ctx, rv, h),
    });
    this.namespaceWatch = new ListWatch({
      store: follow('namespaces'),
      user: deps.user,
      retryMs: 1000,
      onList: (items) => {
        for (const ns of items) this.considerNamespace(ns);
      },
      onEvent: (e) => {
        if (e.type === 'DELETED') this.active.delete(metaOf(e.object).name ?? '');
        else this.considerNamespace(e.object);
      },
      onListError: (err) => deps.log(`${deps.resource} controller could not list namespaces; retrying`, { error: err.message }),
      onWatchError: (err) => deps.log(`${deps.resource} controller namespace watch ended; restarting`, { error: err.message }),
    });
    this.objectWatch = new ListWatch({
      store: follow(deps.resource),
      user: deps.user,
      retryMs: 1000,
      onList: () => {},
      onEvent: (e) => {
        const meta = metaOf(e.object);
        if (meta.name !== deps.name || !this.active.has(meta.namespace ?? '')) return;
        if (e.type === 'DELETED' || deps.drifted?.(e.object, deps.desired(meta.namespace ?? ''))) this.ensure(meta.namespace ?? '');
      },
      onListError: (err) => deps.log(`${deps.resource} controller could not list; retrying`, { error: err.message }),
      onWatchError: (err) => deps.log(`${deps.resource} controller watch ended; restarting`, { error: err.message }),
    });
  }

  private store(resource: string): ResourceStore {
    return this.deps.storeFor(this.deps.index.lookup('', 'v1', resource)!);
  }

  async start(): Promise<void> {
    this.started = true;
    await Promise.all([this.namespaceWatch.start(), this.objectWatch.start()]);
  }

  stop(): void {
    this.namespaceWatch.stop();
    this.objectWatch.stop();
  }

  /**
   * A namespace this server has just written: acted on at once, not when the watch reports it. Before start() it
   * is left to start's list, so a controller started later (the root CA publisher, once the server is ready)
   * writes nothing before then.
   */
  observeNamespace(ns: KubeObject): void {
    if (this.started) this.considerNamespace(ns);
  }

  private considerNamespace(ns: KubeObject): void {
    const meta = metaOf(ns);
    const name = meta.name ?? '';
    const terminating = meta.deletionTimestamp || (ns['status'] as { phase?: string } | undefined)?.phase === 'Terminating';
    if (terminating) {
      this.active.delete(name);
      return;
    }
    if (this.active.has(name)) return;
    this.active.add(name);
    this.ensure(name);
  }

  private ensure(namespace: string): void {
    void this.sync(namespace).catch((err: Error) => this.deps.log(`${this.deps.resource} controller could not sync namespace`, { namespace, error: err.message }));
  }

  private async sync(namespace: string): Promise<void> {
    const store = this.store(this.deps.resource);
    const ctx = newRequestContext(this.deps.user, namespace);
    const desired = this.deps.desired(namespace);
    const options = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' };
    let stored: KubeObject | undefined;
    try {
      stored = await store.get(ctx, this.deps.name);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
    try {
      if (!stored) await store.create(ctx, desired, options);
      else if (this.deps.drifted?.(stored, desired)) {
        await store.update(ctx, this.deps.name, '', (cur) => ({ ...cur, ...Object.fromEntries(Object.entries(desired).filter(([k]) => k !== 'metadata')) }), { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' }, false);
      }
    } catch (err) {
      // 409: someone created it first; 403/404: the namespace started terminating or is gone
      if (err instanceof StatusError && [403, 404, 409].includes(err.code)) return;
      throw err;
    }
  }
}
