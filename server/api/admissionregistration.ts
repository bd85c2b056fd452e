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

// ---- ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings (admissionregistration.k8s.io/v1) ----

/** metav1.Condition */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** A rule that may also name the objects it applies to (empty resourceNames: every object). */
export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[];
}

/** Which requests a policy (matchConstraints) or a binding (matchResources) applies to. */
export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: MatchPolicyType;
}

/** The kind of the policy's parameter objects. */
export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export type ParameterNotFoundActionType = 'Allow' | 'Deny';

/** How a binding finds the parameter objects of its policy. */
export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: ParameterNotFoundActionType;
}

export interface Variable {
  name: string;
  expression: string;
}

/** The status reasons a validation may answer with. */
export type ValidationReason = 'Unauthorized' | 'Forbidden' | 'Invalid' | 'RequestEntityTooLarge';

export interface Validation {
  expression: string;
  message?: string;
  reason?: ValidationReason;
  messageExpression?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

export interface TypeChecking {
  expressionWarnings?: ExpressionWarning[];
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: FailurePolicyType;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
}

export interface ValidatingAdmissionPolicyStatus {
  observedGeneration?: number;
  typeChecking?: TypeChecking;
  conditions?: Condition[];
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  metadata?: ObjectMeta;
  spec?: ValidatingAdmissionPolicySpec;
  status?: ValidatingAdmissionPolicyStatus;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: ValidationAction[];
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  metadata?: ObjectMeta;
  spec?: ValidatingAdmissionPolicyBindingSpec;
}

export type PatchType = 'ApplyConfiguration' | 'JSONPatch';

export interface ApplyConfiguration {
  expression?: string;
}

export interface JSONPatch {
  expression?: string;
}

export interface Mutation {
  patchType: PatchType;
  applyConfiguration?: ApplyConfiguration;
  jsonPatch?: JSONPatch;
}

export interface MutatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  variables?: Variable[];
  mutations?: Mutation[];
  failurePolicy?: FailurePolicyType;
  matchConditions?: MatchCondition[];
  reinvocationPolicy?: ReinvocationPolicyType;
}

export interface MutatingAdmissionPolicy extends KubeObject {
  metadata?: ObjectMeta;
  spec?: MutatingAdmissionPolicySpec;
}

export interface MutatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
}

export interface MutatingAdmissionPolicyBinding extends KubeObject {
  metadata?: ObjectMeta;
  spec?: MutatingAdmissionPolicyBindingSpec;
}
