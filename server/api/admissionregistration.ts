// admissionregistration.k8s.io/v1 types, with the v1 API's JSON field names.
import type { KubeObject, ObjectMeta } from './types.js';
import type { LabelSelector } from '../registry/selectors/label-selector.js';

export type OperationType = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*';
export type ScopeType = 'Cluster' | 'Namespaced' | '*';
export type FailurePolicyType = 'Ignore' | 'Fail';
export type MatchPolicyType = 'Exact' | 'Equivalent';
export type SideEffectClass = 'Unknown' | 'None' | 'Some' | 'NoneOnDryRun';
export type ReinvocationPolicyType = 'Never' | 'IfNeeded';

export interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: ScopeType;
}

export interface RuleWithOperations extends Rule {
  operations?: OperationType[];
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** base64 PEM */
  caBundle?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

/** Fields shared by validating and mutating webhooks. */
export interface WebhookCommon {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: FailurePolicyType;
  matchPolicy?: MatchPolicyType;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: SideEffectClass;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

export type ValidatingWebhook = WebhookCommon;

export interface MutatingWebhook extends WebhookCommon {
  reinvocationPolicy?: ReinvocationPolicyType;
}

export interface ValidatingWebhookConfiguration extends KubeObject {
  metadata?: ObjectMeta;
  webhooks?: ValidatingWebhook[];
}

export interface MutatingWebhookConfiguration extends KubeObject {
  metadata?: ObjectMeta;
  webhooks?: MutatingWebhook[];
}

export type WebhookKind = 'validating' | 'mutating';

/**
 * One webhook of one configuration, as the dispatcher sees it: kube's webhook.WebhookAccessor.
 * `uid` identifies the webhook across snapshots ("<configuration name>/<webhook name>/<index>" plus the source).
 */
export interface WebhookAccessor {
  uid: string;
  kind: WebhookKind;
  /** 'api' for REST-registered configurations, 'static' for manifest files (KEP-5793) */
  source: 'api' | 'static';
  configurationName: string;
  webhook: ValidatingWebhook | MutatingWebhook;
}
