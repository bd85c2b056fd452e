// kube's DefaultRuleResolver (pkg/registry/rbac/validation/rule.go) over the policy cache: the rules of every
// ClusterRoleBinding naming the user, then of every RoleBinding in the namespace naming the user, with the binding
// that granted each rule (for "RBAC: allowed by …") and the errors met on the way (a binding to a missing role).
import type { UserInfo } from '../../api/types.js';
import { goQuote } from '../../options/go-strconv.js';
import { subjectAppliesTo, userKeys, type RbacPolicyCache } from './policy-cache.js';
import type { PolicyRule, RbacBinding, RoleRef, Subject } from './types.js';

/** Return false to stop visiting. `source` describes the binding; rule is undefined when err is set. */
export type RuleVisitor = (source: (() => string) | undefined, rule: PolicyRule | undefined, err: string | undefined) => boolean;

/** describeSubject: `User "bob"`, `Group "g"`, `ServiceAccount "name/namespace"`. */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/**
 * utilerrors.NewAggregate(errs).Error(): one error as is; several de-duplicated, comma-joined in brackets
 * (a single distinct message stays bare).
 */
export function aggregateErrors(errs: readonly string[]): string {
  if (errs.length === 0) return '';
  if (errs.length === 1) return errs[0]!;
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export class RbacRuleResolver {
  constructor(private readonly cache: RbacPolicyCache) {}

  /**
   * GetRoleReferenceRules; the error is the informer lister's NotFound text
   * (`clusterrole.rbac.authorization.k8s.io "x" not found`).
   */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): { rules: readonly PolicyRule[] } | { error: string } {
    switch (ref.kind) {
      case 'Role': {
        const role = this.cache.getRole(bindingNamespace, ref.name);
        return role ? { rules: role.rules ?? [] } : { error: `role.rbac.authorization.k8s.io ${goQuote(ref.name)} not found` };
      }
      case 'ClusterRole': {
        const role = this.cache.getClusterRole(ref.name);
        return role ? { rules: role.rules ?? [] } : { error: `clusterrole.rbac.authorization.k8s.io ${goQuote(ref.name)} not found` };
      }
      default:
        return { error: `unsupported role reference kind: ${goQuote(ref.kind)}` };
    }
  }

  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    const keys = userKeys(user);
    if (!this.visitBindings(user, this.cache.clusterRoleBindingsFor(keys), '', visitor)) return;
    if (namespace) this.visitBindings(user, this.cache.roleBindingsFor(namespace, keys), namespace, visitor);
  }

  private visitBindings(user: UserInfo, bindings: readonly RbacBinding[], namespace: string, visitor: RuleVisitor): boolean {
    for (const binding of bindings) {
      const subject = (binding.subjects ?? []).find((s) => subjectAppliesTo(user, s, namespace));
      if (!subject) continue;
      const resolved = this.roleReferenceRules(binding.roleRef, namespace);
      if ('error' in resolved) {
        if (!visitor(undefined, undefined, resolved.error)) return false;
        continue;
      }
      const source = () =>
        namespace
          ? `RoleBinding ${goQuote(`${binding.metadata.name ?? ''}/${namespace}`)} of ${binding.roleRef.kind} ${goQuote(binding.roleRef.name)} to ${describeSubject(subject, namespace)}`
          : `ClusterRoleBinding ${goQuote(binding.metadata.name ?? '')} of ${binding.roleRef.kind} ${goQuote(binding.roleRef.name)} to ${describeSubject(subject, '')}`;
      for (const rule of resolved.rules) if (!visitor(source, rule, undefined)) return false;
    }
    return true;
  }

  /** RulesFor: every rule that applies, and the resolution errors (the rules found still count). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_s, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}
