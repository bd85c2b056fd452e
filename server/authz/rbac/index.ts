// --authorization-mode=RBAC: the policy cache the server fills, the rule resolver and authorizer reading it, the
// escalation checks on RBAC writes and kube's bootstrap policy.
import { RbacAuthorizer } from './authorizer.js';
import { RbacEscalationCheck } from './escalation.js';
import { RbacPolicyCache } from './policy-cache.js';
import { RbacRuleResolver } from './rule-resolver.js';
import type { Authorizer } from '../types.js';

/** Everything RBAC needs, built once at startup; the server feeds `cache` from storage. */
export class RbacPolicy {
  readonly cache = new RbacPolicyCache();
  readonly resolver = new RbacRuleResolver(this.cache);
  readonly authorizer = new RbacAuthorizer(this.resolver);

  /** kube passes the whole authorizer chain to the RBAC storage: `escalate` and `bind` may be granted by any mode */
  escalationCheck(chain: Authorizer): RbacEscalationCheck {
    return new RbacEscalationCheck({ authorizer: chain, resolver: this.resolver });
  }
}

export { RbacAuthorizer } from './authorizer.js';
export { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy.generated.js';
export { compactString, covers, escalationMessage } from './escalation-rules.js';
export { RbacEscalationCheck, type RbacWrite } from './escalation.js';
export { RbacPolicyCache, type RbacResource } from './policy-cache.js';
export { ruleAllows } from './rule-matching.js';
export { RbacRuleResolver } from './rule-resolver.js';
export type { PolicyRule, RbacBinding, RbacRole, RoleRef, Subject } from './types.js';
