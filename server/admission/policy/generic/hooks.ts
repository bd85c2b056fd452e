// kube's policySource.calculatePolicyData: every policy that has bindings becomes a hook with its bindings and
// its compiled evaluator; bindings of a policy that does not exist are skipped. Compiled evaluators are cached
// per policy version, and the hook list per pair of source generations, so a request only pays for matching.
import type { ParamKind } from '../../../api/admissionregistration.js';
import type { GroupVersionKind, KubeObject } from '../../../api/types.js';
import type { ConfigurationSnapshot, ConfigurationSource } from '../../sources/source.js';
import type { BindingItem, ParamLookup, PolicyHook, PolicyItem } from './types.js';

/** schema.ParseGroupVersion */
export function parseGroupVersion(apiVersion: string): { ok: true; group: string; version: string } | { ok: false; error: string } {
  if (apiVersion === '' || apiVersion === '/') return { ok: true, group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { ok: true, group: '', version: apiVersion };
  if (parts.length === 2) return { ok: true, group: parts[0]!, version: parts[1]! };
  return { ok: false, error: `unexpected GroupVersion string: ${apiVersion}` };
}

/** GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap" */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

export interface PolicyHookOptions<P extends KubeObject, E> {
  compile(policy: P): E;
  paramKindOf(policy: P): ParamKind | undefined;
  params: Pick<ParamLookup, 'resolve'>;
}

/**
 * Pairs policies with their bindings. Static and API configurations pair only among themselves (a static binding
 * names a static policy), and the static hooks come first, as kube's composite policy source lists them. Within a
 * source, policies and bindings keep the snapshot's order (by name).
 */
export function buildPolicyHooks<P extends KubeObject, B extends KubeObject, E>(
  policies: readonly PolicyItem<P>[],
  bindings: readonly BindingItem<B>[],
  opts: PolicyHookOptions<P, E> & { cached?: (item: PolicyItem<P>) => E },
): PolicyHook<P, B, E>[] {
  const hooks: PolicyHook<P, B, E>[] = [];
  for (const source of ['static', 'api'] as const) {
    for (const policy of policies) {
      if (policy.source !== source) continue;
      const mine = bindings.filter((b) => b.source === source && b.policyName === policy.name);
      if (mine.length === 0) continue;
      const paramKind = opts.paramKindOf(policy.object);
      let paramResource;
      let configurationError: string | undefined;
      if (paramKind) {
        const gv = parseGroupVersion(paramKind.apiVersion ?? '');
        // kube skips a policy whose paramKind apiVersion does not parse (validation keeps them out)
        if (!gv.ok) continue;
        const gvk = { group: gv.group, version: gv.version, kind: paramKind.kind ?? '' };
        paramResource = opts.params.resolve(gvk);
        if (!paramResource) configurationError = `failed to find resource referenced by paramKind: '${gvkString(gvk)}'`;
      }
      const evaluator = opts.cached ? opts.cached(policy) : opts.compile(policy.object);
      hooks.push(Object.freeze({ policy, bindings: Object.freeze(mine), evaluator, ...(paramResource ? { paramResource } : {}), ...(configurationError ? { configurationError } : {}) }));
    }
  }
  return hooks;
}

/**
 * The hooks of a pair of sources, rebuilt only when one of them changed. Evaluators are compiled at most once
 * per policy version (PolicyItem.key) and dropped with the policy.
 */
export class PolicyHookSource<P extends KubeObject, B extends KubeObject, E> {
  private last?: { policies: ConfigurationSnapshot<PolicyItem<P>>; bindings: ConfigurationSnapshot<BindingItem<B>>; hooks: readonly PolicyHook<P, B, E>[] };
  private compiled = new Map<string, E>();

  constructor(
    private readonly sources: { policies: ConfigurationSource<PolicyItem<P>>; bindings: ConfigurationSource<BindingItem<B>> },
    private readonly opts: PolicyHookOptions<P, E>,
  ) {}

  hasSynced(): boolean {
    return this.sources.policies.hasSynced() && this.sources.bindings.hasSynced();
  }

  hooks(): readonly PolicyHook<P, B, E>[] {
    const policies = this.sources.policies.snapshot();
    const bindings = this.sources.bindings.snapshot();
    if (this.last && this.last.policies === policies && this.last.bindings === bindings) return this.last.hooks;
    const compiled = new Map<string, E>();
    const hooks = Object.freeze(
      buildPolicyHooks(policies.items, bindings.items, {
        ...this.opts,
        cached: (item) => {
          const e = compiled.get(item.key) ?? this.compiled.get(item.key) ?? this.opts.compile(item.object);
          compiled.set(item.key, e);
          return e;
        },
      }),
    );
    this.compiled = compiled;
    this.last = { policies, bindings, hooks };
    return hooks;
  }
}
