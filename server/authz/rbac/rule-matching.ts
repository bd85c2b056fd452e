// Whether one PolicyRule allows a request: kube's RuleAllows (plugin/pkg/auth/authorizer/rbac/rbac.go) over the
// matchers of pkg/apis/rbac/v1/evaluation_helpers.go. Pure functions, on every authorized request: no allocation.
import type { AuthorizationAttributes } from '../types.js';
import { all, type PolicyRule } from './types.js';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === all || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === all || g === group) return true;
  return false;
}

/** `*`, the exact "resource/subresource", or "*\/subresource" for any resource's subresource. */
export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === all || r === combinedResource) return true;
    if (subresource === '') continue;
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** No resourceNames allow every name (and requests without a name: list, create). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  for (const n of names) if (n === name) return true;
  return false;
}

/** `*`, the exact path, or a prefix ending in `*` ("/healthz/*", "/apis*"). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === all || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    const resource = attrs.resource ?? '';
    const subresource = attrs.subresource ?? '';
    const combined = subresource ? `${resource}/${subresource}` : resource;
    return verbMatches(rule, attrs.verb) && apiGroupMatches(rule, attrs.apiGroup ?? '') && resourceMatches(rule, combined, subresource) && resourceNameMatches(rule, attrs.name ?? '');
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path ?? '');
}

export function rulesAllow(attrs: AuthorizationAttributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(attrs, r));
}
