// A simple form of kube-controller-manager's resourcequota controller (pkg/controller/resourcequota): a quota's
// status.hard mirrors spec.hard and status.used is recalculated from the stored objects. kube recalculates on a
// resync period and on changes of the tracked kinds; here a write in a namespace (this server's own writes, as they
// return) schedules one recalculation of that namespace's quotas, and startup recalculates every quota.
// Quotas with scopes not evaluated here (PriorityClass, CrossNamespacePodAffinity) get status.hard and no used.
import type { KubeObject, UserInfo } from '../api/types.js';
import { StatusError } from '../api/errors.js';
import { addUsage, hardOf, isBinaryQuantity, quotaScopes, resourceQuotas, scopesMatch } from '../admission/plugins/resource-quota.js';
import { formatQuantity, objectUsage, tracksResource, type Usage } from '../admission/plugins/resource-quota-usage.js';
import { metaOf } from '../registry/object-fields.js';
import { newRequestContext } from '../registry/request-context.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import type { ResourceStore } from '../registry/store.js';
import { DelayedCalls } from './delayed-calls.js';

const controllerUser: UserInfo = { username: 'system:serviceaccount:kube-system:resourcequota-controller', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] };

export interface ResourceQuotaStatusControllerDeps {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** the pause that gathers a burst of writes into one recalculation */
  delayMs?: number;
  /** false when a namespace surely holds no quota: its writes schedule nothing */
  mayHaveQuotas?(namespace: string): boolean;
}

export class ResourceQuotaStatusController {
  private readonly pending = new Set<string>();
  private readonly timers = new DelayedCalls();
  private stopped = false;

  constructor(private readonly deps: ResourceQuotaStatusControllerDeps) {}

  private quotaStore(): ResourceStore {
    return this.deps.storeFor(this.deps.index.lookup(resourceQuotas.group, resourceQuotas.version, resourceQuotas.resource)!);
  }

  /** Recalculates every quota, retrying while storage is unreachable. */
  async start(): Promise<void> {
    try {
      const all = await this.quotaStore().list(newRequestContext(controllerUser, ''), {});
      for (const ns of new Set(all.items.map((q) => metaOf(q).namespace ?? ''))) this.schedule(ns);
    } catch (err) {
      this.deps.log('resourcequota controller could not list quotas; retrying', { error: (err as Error).message });
      if (!this.stopped) this.timers.after(1000, () => void this.start());
    }
  }

  stop(): void {
    this.stopped = true;
    this.timers.stop();
  }

  /** A write this server made. Its own status writes (already up to date) schedule nothing. */
  observe(info: ResourceInfo, obj: KubeObject): void {
    const ns = metaOf(obj).namespace;
    if (!ns || !info.namespaced) return;
    if (this.deps.mayHaveQuotas && !this.deps.mayHaveQuotas(ns)) return;
    if (info.group === '' && info.resource === 'resourcequotas' && JSON.stringify((obj['status'] as { hard?: unknown } | undefined)?.hard ?? null) === JSON.stringify((obj['spec'] as { hard?: unknown } | undefined)?.hard ?? null)) return;
    this.schedule(ns);
  }

  private schedule(namespace: string): void {
    if (this.stopped || this.pending.has(namespace)) return;
    this.pending.add(namespace);
    this.timers.after(this.deps.delayMs ?? 20, () => {
      this.pending.delete(namespace);
      void this.recalculate(namespace).catch((err: Error) => {
        this.deps.log('resourcequota controller could not recalculate; retrying', { namespace, error: err.message });
        this.timers.after(1000, () => this.schedule(namespace));
      });
    });
  }

  private async recalculate(namespace: string): Promise<void> {
    const ctx = newRequestContext(controllerUser, namespace);
    const quotas = (await this.quotaStore().list(ctx, {})).items;
    const objects = new Map<ResourceInfo, KubeObject[]>();
    const usageOf = async (info: ResourceInfo, scopes: readonly string[]): Promise<Usage> => {
      let items = objects.get(info);
      if (!items) objects.set(info, (items = (await this.deps.storeFor(info).list(ctx, {})).items));
      const u: Usage = {};
      for (const o of items) if (scopesMatch(scopes, info.group, info.resource, o as Record<string, unknown>)) addUsage(u, objectUsage(info.group, info.resource, o as Record<string, unknown>));
      return u;
    };
    const namespaced = this.deps.index.all().filter((r) => r.namespaced);
    for (const quota of quotas) {
      const specHard = hardOf(quota);
      const scopes = quotaScopes(quota);
      const used: Record<string, string> = {};
      if (scopes) {
        for (const [name, limit] of Object.entries(specHard)) {
          let total = 0;
          const seen = new Set<string>();
          for (const info of namespaced) {
            const key = `${info.group}/${info.resource}`;
            if (seen.has(key) || !tracksResource(info.group, info.resource, name)) continue;
            seen.add(key);
            total += (await usageOf(info, scopes))[name] ?? 0;
          }
          used[name] = formatQuantity(total, isBinaryQuantity(limit));
        }
      }
      const status = scopes ? { hard: specHard, used } : { hard: specHard };
      if (JSON.stringify(quota['status'] ?? null) === JSON.stringify(status)) continue;
      try {
        await this.quotaStore().update(ctx, metaOf(quota).name ?? '', 'status', (cur) => ({ ...cur, status }), { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' }, false);
      } catch (err) {
        // deleted meanwhile, or its namespace is going
        if (err instanceof StatusError && [403, 404, 409].includes(err.code)) continue;
        throw err;
      }
    }
  }
}
