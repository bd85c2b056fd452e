// The authorization seam, as k8s.io/apiserver/pkg/authorization/authorizer: attributes of a request in,
// Allow/Deny/NoOpinion and a reason out; rule resolvers list what a user may do (SelfSubjectRulesReview).
import type { UserInfo } from '../api/types.js';

/** authorizer.Attributes; absent strings read as "" as the Go getters return. */
export interface AuthorizationAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, …; for non-resource requests the lower-case HTTP method */
  verb: string;
  namespace?: string;
  apiGroup?: string;
  /** "*" matches every version (SubjectAccessReview without a version) */
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  resourceRequest: boolean;
  /** the URL path, for non-resource requests */
  path?: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationDecision {
  decision: Decision;
  /** why, for the 403 message ("Everything is forbidden.", "No policy matched.") */
  reason: string;
  evaluationError?: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision;
}

/** authorization.k8s.io/v1 ResourceRule */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** authorization.k8s.io/v1 NonResourceRule */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** true when the list is known to miss rules */
  incomplete: boolean;
  evaluationError?: string;
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesResult;
}

/** AttributesRecord.IsReadOnly */
export function isReadOnly(verb: string): boolean {
  return verb === 'get' || verb === 'list' || verb === 'watch';
}
