// Authorization: AlwaysAllow, AlwaysDeny, ABAC, RBAC and Node (deciding nothing) behind kube's system:masters authorizer, kube's 403 text,
// and the authorization.k8s.io reviews answered from the same authorizer.
export { buildAuthorizer, loadAuthorizer, UnionAuthorizer, UnionRuleResolver } from './authorizer.js';
export type { AuthorizationModeName, AuthorizerConfig, AuthorizerFiles, BuiltAuthorizer, LoadAuthorizerResult } from './authorizer.js';
export { AbacAuthorizer, abacPolicyMatches, loadAbacPolicyFile, parseAbacPolicyFile } from './abac.js';
export type { AbacPolicy, AbacPolicyFileResult, AbacPolicySpec } from './abac.js';
export { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, NodeNoOpinionAuthorizer, PrivilegedGroupsAuthorizer } from './builtin.js';
export { RbacPolicy } from './rbac/index.js';
export { forbiddenError, forbiddenMessage } from './forbidden.js';
export {
  answerLocalSubjectAccessReview,
  answerSelfSubjectAccessReview,
  answerSelfSubjectRulesReview,
  answerSubjectAccessReview,
  authorizationGroup,
} from './reviews.js';
export type {
  AccessReviewContext,
  LocalAccessReviewContext,
  NonResourceAttributes,
  ResourceAttributes,
  RulesReviewContext,
  SelfAccessReviewContext,
  SelfSubjectAccessReviewSpec,
  SelfSubjectRulesReview,
  SubjectAccessReview,
  SubjectAccessReviewSpec,
  SubjectAccessReviewStatus,
} from './reviews.js';
export { isReadOnly } from './types.js';
export type { AuthorizationAttributes, AuthorizationDecision, Authorizer, Decision, NonResourceRule, ResourceRule, RuleResolver, RulesResult } from './types.js';
