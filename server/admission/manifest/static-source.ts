// The static configuration source (KEP-5793): a plugin's manifest controller seen as a ConfigurationSource, to be
// composed before the API source (compositeSource(static, api)). The items of a snapshot are derived once per
// controller snapshot, so every request between two reloads sees the same frozen list.
import type { WebhookAccessor } from '../../api/admissionregistration.js';
import type { KubeObject } from '../../api/types.js';
import { bindingItemsOf, policyItemsOf, type PolicySources } from '../policy/sources.js';
import type { ConfigurationSnapshot, ConfigurationSource } from '../sources/source.js';
import { webhookAccessorsOf } from '../sources/webhook-accessors.js';
import type { ManifestSnapshot } from './controller.js';
import { manifestPlugins, type ManifestPlugin } from './plugins.js';

/** What a static source reads: StaticManifestController, or a stand-in in tests. */
export interface ManifestSnapshotProvider {
  readonly plugin: ManifestPlugin;
  snapshot(): ManifestSnapshot;
  /** false until the initial load completed */
  hasSynced(): boolean;
}

export class StaticManifestSource<T> implements ConfigurationSource<T> {
  private last?: { from: ManifestSnapshot; snap: ConfigurationSnapshot<T> };

  constructor(
    private readonly provider: ManifestSnapshotProvider,
    private readonly itemsOf: (obj: KubeObject) => readonly T[],
  ) {}

  snapshot(): ConfigurationSnapshot<T> {
    const from = this.provider.snapshot();
    if (this.last?.from !== from) {
      const items = Object.freeze(from.objects.flatMap((o) => this.itemsOf(o)));
      this.last = { from, snap: Object.freeze({ generation: from.generation, items }) };
    }
    return this.last.snap;
  }

  hasSynced(): boolean {
    return this.provider.hasSynced();
  }
}

/** ValidatingAdmissionWebhook / MutatingAdmissionWebhook: the static configurations' webhooks, source 'static'. */
export function staticWebhookSource(provider: ManifestSnapshotProvider): ConfigurationSource<WebhookAccessor> {
  const spec = manifestPlugins[provider.plugin];
  if (spec.family !== 'webhook') throw new Error(`staticWebhookSource: ${provider.plugin} is not a webhook plugin`);
  const kind = spec.configurationKind === 'ValidatingWebhookConfiguration' ? 'validating' : 'mutating';
  return new StaticManifestSource(provider, (o) => webhookAccessorsOf(o, kind, 'static'));
}

/** ValidatingAdmissionPolicy / MutatingAdmissionPolicy: the policies, then the bindings, as loaded. */
export function staticPolicySource(provider: ManifestSnapshotProvider): ConfigurationSource<KubeObject> {
  if (manifestPlugins[provider.plugin].family !== 'policy') throw new Error(`staticPolicySource: ${provider.plugin} is not a policy plugin`);
  return new StaticManifestSource(provider, (o) => [o]);
}

/**
 * ValidatingAdmissionPolicy / MutatingAdmissionPolicy as the policy plugins read them: policy and binding items of
 * origin 'static', for compositePolicySources(staticPolicySources(controller), <api sources>).
 */
export function staticPolicySources<P extends KubeObject, B extends KubeObject>(provider: ManifestSnapshotProvider): PolicySources<P, B> {
  const spec = manifestPlugins[provider.plugin];
  if (spec.family !== 'policy') throw new Error(`staticPolicySources: ${provider.plugin} is not a policy plugin`);
  return {
    policies: new StaticManifestSource(provider, (o) => (o.kind === spec.policyKind ? policyItemsOf<P>(o, 'static') : [])),
    bindings: new StaticManifestSource(provider, (o) => (o.kind === spec.bindingKind ? bindingItemsOf<B>(o, 'static') : [])),
  };
}
