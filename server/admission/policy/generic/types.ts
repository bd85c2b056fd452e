// What the ValidatingAdmissionPolicy and MutatingAdmissionPolicy plugins share (kube's policy/generic): the
// configuration items their sources hand out, the (policy, bindings) hooks built from them, and the seams the
// plugins are given (parameter lookup, namespaces).
import type { ParamKind } from '../../../api/admissionregistration.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../../../api/types.js';
import type { Selector } from '../../../registry/selectors/label-selector.js';

/** Where a configuration came from: the REST API, or a manifest file (KEP-5793). */
export type ConfigurationOrigin = 'api' | 'static';

/** One policy object of a source's snapshot. */
export interface PolicyItem<P extends KubeObject = KubeObject> {
  readonly source: ConfigurationOrigin;
  readonly name: string;
  /** changes whenever the policy's spec changes: compiled evaluators are cached under it */
  readonly key: string;
  /** frozen */
  readonly object: P;
}

/** One binding object of a source's snapshot. */
export interface BindingItem<B extends KubeObject = KubeObject> {
  readonly source: ConfigurationOrigin;
  readonly name: string;
  /** spec.policyName */
  readonly policyName: string;
  /** frozen */
  readonly object: B;
}

/** The served resource a paramKind names (kube's RESTMapping of it). */
export interface ParamResource {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  readonly namespaced: boolean;
}

/**
 * How policies read their parameter objects: kube keeps an informer per paramKind; this server reads its
 * storage directly (so a parameter written by a client is visible to that client's next request).
 */
export interface ParamLookup {
  /** the resource serving a paramKind, undefined when this server does not serve that kind */
  resolve(kind: GroupVersionKind): ParamResource | undefined;
  /** one parameter object, undefined when it does not exist */
  get(resource: ParamResource, namespace: string, name: string): Promise<KubeObject | undefined>;
  /** the parameter objects matching a label selector; namespace '' lists every namespace (or a cluster-scoped kind) */
  list(resource: ParamResource, namespace: string, selector: Selector): Promise<KubeObject[]>;
}

/** One policy with the bindings that reference it, compiled once per policy version (kube's PolicyHook). */
export interface PolicyHook<P extends KubeObject, B extends KubeObject, E> {
  readonly policy: PolicyItem<P>;
  readonly bindings: readonly BindingItem<B>[];
  readonly evaluator: E;
  /** the paramKind's resource, when the policy has a paramKind this server serves */
  readonly paramResource?: ParamResource;
  /** why the policy cannot be evaluated at all, e.g. a paramKind this server does not serve (kube's ConfigurationError) */
  readonly configurationError?: string;
}

/** The parts of a policy the generic code reads. */
export interface PolicyAccessor<P extends KubeObject> {
  paramKind(policy: P): ParamKind | undefined;
}
