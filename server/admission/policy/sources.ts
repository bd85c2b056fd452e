// Policies and bindings as configuration sources: the items one stored (or manifest) object contributes, and the
// pair of sources a policy plugin reads, built the way the webhook sources are (ApiConfigurationSource per
// resource, static manifests first when there are some).
import { createHash } from 'node:crypto';
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from '../../api/admissionregistration.js';
import type { KubeObject } from '../../api/types.js';
import { compositeSource } from '../sources/api-source.js';
import type { ConfigurationSource } from '../sources/source.js';
import type { BindingItem, ConfigurationOrigin, PolicyItem } from './generic/types.js';
import { deepFreeze } from '../../api/deep-freeze.js';

// The compiled form of a policy depends on its name (audit annotation keys, metrics) and spec only.
function specKey(source: ConfigurationOrigin, name: string, spec: unknown): string {
  return `${source}:${name}:${createHash('sha256').update(JSON.stringify(spec ?? null)).digest('hex')}`;
}

/** The item a policy object contributes to its source's snapshot. */
export function policyItemsOf<P extends KubeObject>(obj: KubeObject, source: ConfigurationOrigin): PolicyItem<P>[] {
  const name = obj.metadata?.name ?? '';
  const object = deepFreeze(structuredClone(obj)) as P;
  return [Object.freeze({ source, name, key: specKey(source, name, obj['spec']), object })];
}

/** The item a binding object contributes to its source's snapshot. */
export function bindingItemsOf<B extends KubeObject>(obj: KubeObject, source: ConfigurationOrigin): BindingItem<B>[] {
  const name = obj.metadata?.name ?? '';
  const spec = obj['spec'] as { policyName?: unknown } | undefined;
  const policyName = typeof spec?.policyName === 'string' ? spec.policyName : '';
  return [Object.freeze({ source, name, policyName, object: deepFreeze(structuredClone(obj)) as B })];
}

/** What a policy plugin reads: its policies and its bindings. */
export interface PolicySources<P extends KubeObject, B extends KubeObject> {
  policies: ConfigurationSource<PolicyItem<P>>;
  bindings: ConfigurationSource<BindingItem<B>>;
}

export type ValidatingPolicySources = PolicySources<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding>;
export type MutatingPolicySources = PolicySources<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding>;

/** How the apiserver makes an API source for one admissionregistration resource (ApiServer.apiSource). */
export type ApiSourceFactory = <T>(resource: string, itemsOf: (obj: KubeObject) => T[]) => ConfigurationSource<T>;

/** The REST-registered ValidatingAdmissionPolicies and ValidatingAdmissionPolicyBindings. */
export function validatingPolicyApiSources(apiSource: ApiSourceFactory): ValidatingPolicySources {
  return {
    policies: apiSource('validatingadmissionpolicies', (o) => policyItemsOf<ValidatingAdmissionPolicy>(o, 'api')),
    bindings: apiSource('validatingadmissionpolicybindings', (o) => bindingItemsOf<ValidatingAdmissionPolicyBinding>(o, 'api')),
  };
}

/** The REST-registered MutatingAdmissionPolicies and MutatingAdmissionPolicyBindings. */
export function mutatingPolicyApiSources(apiSource: ApiSourceFactory): MutatingPolicySources {
  return {
    policies: apiSource('mutatingadmissionpolicies', (o) => policyItemsOf<MutatingAdmissionPolicy>(o, 'api')),
    bindings: apiSource('mutatingadmissionpolicybindings', (o) => bindingItemsOf<MutatingAdmissionPolicyBinding>(o, 'api')),
  };
}

/** Static (manifest) sources first, then the API ones, as kube's composite policy source evaluates them. */
export function compositePolicySources<P extends KubeObject, B extends KubeObject>(...sources: PolicySources<P, B>[]): PolicySources<P, B> {
  return {
    policies: compositeSource(...sources.map((s) => s.policies)),
    bindings: compositeSource(...sources.map((s) => s.bindings)),
  };
}
