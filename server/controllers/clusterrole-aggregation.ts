// kube-controller-manager's clusterrole-aggregation controller (pkg/controller/clusterroleaggregation): a
// ClusterRole with an aggregationRule gets, as its rules, the rules of every ClusterRole its selectors match
// (per selector, by name, itself left out, each distinct rule once); any ClusterRole change re-syncs every
// aggregated one. It reads the RBAC policy cache (kube's informer) and writes through the store, so admission sees
// the update as it sees the controller's in kube.
import type { PolicyRule, RbacRole } from '../authz/rbac/types.js';
import type { RbacPolicyCache } from '../authz/rbac/policy-cache.js';
import { labelSelectorMatches } from '../registry/selectors/label-selector.js';
import { WorkQueue } from './work-queue.js';

/** The rules an aggregated role should hold, from the roles in the cache. */
export function aggregatedRules(role: RbacRole, all: readonly RbacRole[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const matched = all
      .filter((r) => r.metadata.name !== role.metadata.name && labelSelectorMatches(selector, r.metadata.labels ?? {}))
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    for (const r of matched) {
      for (const rule of r.rules ?? []) {
        // ruleExists compares with equality.Semantic.DeepEqual: nil and empty lists are equal
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(rule);
      }
    }
  }
  return out;
}

const list = (v: readonly string[] | undefined): readonly string[] => v ?? [];
const ruleKey = (r: PolicyRule): string => JSON.stringify([list(r.verbs), list(r.apiGroups), list(r.resources), list(r.resourceNames), list(r.nonResourceURLs)]);

export function sameRules(a: readonly PolicyRule[] | undefined, b: readonly PolicyRule[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((r, i) => ruleKey(r) === ruleKey(y[i]!));
}

export interface ClusterRoleAggregationDeps {
  cache: RbacPolicyCache;
  /** writes the new rules of one clusterrole (a conflict or failure is retried with backoff) */
  writeRules(name: string, rules: PolicyRule[]): Promise<void>;
  log(msg: string, fields?: Record<string, unknown>): void;
}

export class ClusterRoleAggregationController {
  private readonly queue: WorkQueue;

  constructor(private readonly deps: ClusterRoleAggregationDeps) {
    this.queue = new WorkQueue({
      workers: 1,
      baseDelayMs: 50,
      maxDelayMs: 5_000,
      ready: () => true,
      process: (name) => this.sync(name),
      onError: (name, err) => deps.log('clusterrole aggregation failed; retrying', { clusterrole: name, error: (err as Error).message }),
    });
    // kube's handler enqueues every aggregated clusterrole on any clusterrole change ("a little bit of a shotgun")
    deps.cache.onClusterRole(() => this.enqueueAggregated());
  }

  private enqueueAggregated(): void {
    for (const r of this.deps.cache.listClusterRoles()) if (r.aggregationRule) this.queue.add(r.metadata.name ?? '');
  }

  private async sync(name: string): Promise<'done' | 'retry'> {
    const role = this.deps.cache.getClusterRole(name);
    if (!role?.aggregationRule) return 'done';
    const rules = aggregatedRules(role, this.deps.cache.listClusterRoles());
    if (sameRules(rules, role.rules)) return 'done';
    await this.deps.writeRules(name, rules);
    return 'done';
  }

  stop(): void {
    this.queue.stop();
  }
}
