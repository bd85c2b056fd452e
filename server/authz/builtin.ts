// The built-in authorizers of k8s.io/apiserver/pkg/authorization/authorizerfactory.
import type { UserInfo } from '../api/types.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RuleResolver, RulesResult } from './types.js';

export class AlwaysAllowAuthorizer implements Authorizer, RuleResolver {
  authorize(): AuthorizationDecision {
    return { decision: 'Allow', reason: '' };
  }
  rulesFor(): RulesResult {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
}

/** NoOpinion rather than Deny, as kube's: a later mode in the list may still allow. */
export class AlwaysDenyAuthorizer implements Authorizer, RuleResolver {
  authorize(): AuthorizationDecision {
    return { decision: 'NoOpinion', reason: 'Everything is forbidden.' };
  }
  rulesFor(): RulesResult {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}

/** authorizerfactory.NewPrivilegedGroups: members of these groups may do anything. */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  constructor(private readonly groups: readonly string[]) {}
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    const userGroups = attrs.user.groups ?? [];
    if (userGroups.some((g) => this.groups.includes(g))) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: '' };
  }
  isPrivileged(user: UserInfo): boolean {
    return (user.groups ?? []).some((g) => this.groups.includes(g));
  }
}

/**
 * --authorization-mode=Node, accepted so that kube's usual `Node,RBAC` starts; this server runs no kubelets, so
 * it decides nothing (kube's Node authorizer also has no opinion on anyone outside system:nodes).
 */
export class NodeNoOpinionAuthorizer implements Authorizer, RuleResolver {
  authorize(): AuthorizationDecision {
    return { decision: 'NoOpinion', reason: '' };
  }
  rulesFor(): RulesResult {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}
