// The part of kube's generic.Plugin.Dispatch both policy plugins share: which policies a request sees — none for
// the excluded virtual resources, only the static (manifest) ones for the policy resources themselves, every one
// otherwise — once those sources have loaded.
import type { GroupResource } from '../../../api/errors.js';
import type { KubeObject } from '../../../api/types.js';
import type { AdmissionAttributes } from '../../attributes.js';
import { PolicyHookSource, type PolicyHookOptions } from './hooks.js';
import type { PolicyHook } from './types.js';
import { policyScopeOf, waitUntilSynced } from './scope.js';

type PolicySources<P extends KubeObject, B extends KubeObject> = ConstructorParameters<typeof PolicyHookSource<P, B, unknown>>[0];

export class PolicyHookSet<P extends KubeObject, B extends KubeObject, E> {
  private readonly all: PolicyHookSource<P, B, E>;
  private readonly staticOnly?: PolicyHookSource<P, B, E>;

  constructor(sources: PolicySources<P, B>, staticSources: PolicySources<P, B> | undefined, options: PolicyHookOptions<P, E>) {
    this.all = new PolicyHookSource(sources, options);
    if (staticSources) this.staticOnly = new PolicyHookSource(staticSources, options);
  }

  /** The hooks this request is checked against (empty when it sees none); waits for their sources' first load. */
  async forRequest(attrs: AdmissionAttributes, excluded: readonly GroupResource[] | undefined, readyTimeoutMs: number): Promise<readonly PolicyHook<P, B, E>[]> {
    const scope = policyScopeOf(attrs, excluded);
    if (scope === 'none') return [];
    // API policies never see the policy resources; static ones protect them
    const source = scope === 'static' ? this.staticOnly : this.all;
    if (!source) return [];
    await waitUntilSynced(() => source.hasSynced(), attrs, readyTimeoutMs);
    return source.hooks();
  }
}
