// --authorization-mode=RBAC: kube's RBACAuthorizer (plugin/pkg/auth/authorizer/rbac/rbac.go). Allow when a rule
// of a binding naming the user allows the request ("RBAC: allowed by ClusterRoleBinding …"); otherwise NoOpinion,
// with no reason unless resolving the bindings met errors ("RBAC: clusterrole.rbac… not found").
import type { UserInfo } from '../../api/types.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, NonResourceRule, ResourceRule, RuleResolver, RulesResult } from '../types.js';
import { ruleAllows } from './rule-matching.js';
import { aggregateErrors, type RbacRuleResolver } from './rule-resolver.js';

export class RbacAuthorizer implements Authorizer, RuleResolver {
  constructor(readonly resolver: RbacRuleResolver) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    let reason = '';
    let allowed = false;
    const errors: string[] = [];
    this.resolver.visitRulesFor(attrs.user, attrs.namespace ?? '', (source, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) {
        allowed = true;
        reason = `RBAC: allowed by ${source!()}`;
        return false;
      }
      if (err) errors.push(err);
      return true;
    });
    if (allowed) return { decision: 'Allow', reason };
    return { decision: 'NoOpinion', reason: errors.length ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  /** RulesFor, as SelfSubjectRulesReview lists them: resource and non-resource rules apart, never incomplete. */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = this.resolver.rulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const r of rules) {
      if ((r.resources ?? []).length > 0) {
        const rr: ResourceRule = { verbs: [...(r.verbs ?? [])] };
        if (r.apiGroups?.length) rr.apiGroups = [...r.apiGroups];
        rr.resources = [...r.resources!];
        if (r.resourceNames?.length) rr.resourceNames = [...r.resourceNames];
        resourceRules.push(rr);
      }
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...(r.verbs ?? [])], nonResourceURLs: [...r.nonResourceURLs!] });
    }
    const out: RulesResult = { resourceRules, nonResourceRules, incomplete: false };
    if (errors.length) out.evaluationError = aggregateErrors(errors);
    return out;
  }
}
