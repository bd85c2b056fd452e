// The informers kube's RBAC authorizer reads (roles, clusterroles, rolebindings, clusterrolebindings): one
// list-then-watch per resource into the RBAC policy cache. The server also reports its own writes to the cache
// (ApiServer.storeFor), so the watch only matters for writes by another server on the same etcd.
import type { UserInfo } from '../api/types.js';
import type { RbacPolicyCache, RbacResource } from '../authz/rbac/policy-cache.js';
import type { ResourceStore } from '../registry/store.js';
import { ListWatch } from './list-watch.js';

export const rbacResources: readonly RbacResource[] = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'];

export interface RbacInformersDeps {
  cache: RbacPolicyCache;
  storeFor(resource: RbacResource): ResourceStore;
  user: UserInfo;
  log(msg: string, fields?: Record<string, unknown>): void;
}

export class RbacInformers {
  private readonly watches: ListWatch[] = [];
  private readonly listed = new Set<RbacResource>();

  constructor(private readonly deps: RbacInformersDeps) {}

  start(): void {
    for (const resource of rbacResources) {
      const lw = new ListWatch({
        store: {
          list: (ctx, q) => this.deps.storeFor(resource).list(ctx, q),
          watch: (ctx, rv, handlers) => this.deps.storeFor(resource).watch(ctx, rv, handlers),
        },
        user: this.deps.user,
        retryMs: 500,
        onList: (items) => {
          this.deps.cache.replace(resource, items);
          this.listed.add(resource);
        },
        onEvent: (e) => this.deps.cache.apply(resource, e.type, e.object),
        onListError: (err) => this.deps.log('RBAC informer could not list; retrying', { resource, error: err.message }),
        onWatchError: (err) => this.deps.log('RBAC informer watch ended; listing again', { resource, error: err.message }),
      });
      this.watches.push(lw);
      void lw.start();
    }
  }

  /** every resource listed once (kube's informer-sync readiness) */
  hasSynced(): boolean {
    return this.listed.size === rbacResources.length;
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }
}
