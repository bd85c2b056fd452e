// Whether a user's rules cover the rules they grant: component-helpers/auth/rbac/validation Covers (each granted
// rule broken down to one verb, group, resource and name), then kube's message for what is missing
// (pkg/registry/rbac/validation/rule.go ConfirmNoEscalation, policy_compact.go CompactRules,
// pkg/apis/rbac/v1/evaluation_helpers.go CompactString).
import { goQuote, goQuoteList } from '../../options/go-strconv.js';
import { all, type PolicyRule } from './types.js';

/** BreakdownRule: one rule per group × resource × verb (× resourceName), then per nonResourceURL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const has = (set: readonly string[] | undefined, e: string): boolean => (set ?? []).includes(e);
const hasAll = (set: readonly string[] | undefined, contains: readonly string[] | undefined): boolean => (contains ?? []).every((e) => has(set, e));

function resourceCoversAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  if (has(set, all) || hasAll(set, covers)) return true;
  for (const path of covers ?? []) {
    if (has(set, path)) continue;
    const slash = path.indexOf('/');
    // a resource without a subresource is covered only exactly; "pods/log" also by "*/log"
    if (slash < 0 || !has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

const nonResourceURLCovers = (owner: string, sub: string): boolean => owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));

function nonResourceURLsCoverAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  return (covers ?? []).every((p) => (set ?? []).some((o) => nonResourceURLCovers(o, p)));
}

/** ruleCovers: the owner rule (any shape) covers the broken-down sub rule. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, all) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, all) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** Covers: whether ownerRules cover servantRules, and the broken-down rules they do not. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const sub of breakdownRule(servant)) if (!ownerRules.some((o) => ruleCovers(o, sub))) missing.push(sub);
  }
  return { covered: missing.length === 0, missing };
}

/** CompactRules: rules with one group and one resource and nothing but verbs are merged per group/resource. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = !(r.resourceNames ?? []).length && !(r.nonResourceURLs ?? []).length && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!isSimple) {
      compacted.push(r);
      continue;
    }
    const key = `${r.apiGroups![0]}\u0000${r.resources![0]}`;
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...(r.verbs ?? [])];
    else simple.set(key, { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...(r.verbs ?? [])] });
  }
  return [...compacted, ...simple.values()];
}

/** CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`, empty fields left out. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length) parts.push(`APIGroups:${goQuoteList(r.apiGroups!)}`);
  if ((r.resources ?? []).length) parts.push(`Resources:${goQuoteList(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length) parts.push(`ResourceNames:${goQuoteList(r.resourceNames!)}`);
  if ((r.verbs ?? []).length) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * ConfirmNoEscalation's verdict: undefined when the owner's rules cover the granted ones, else kube's text
 * `user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` and
 * the missing rules, compacted, sorted and de-duplicated, one a line; rule resolution errors are appended.
 */
export function escalationMessage(
  user: { username?: string; groups?: readonly string[] },
  ownerRules: readonly PolicyRule[],
  granted: readonly PolicyRule[],
  resolutionErrors: readonly string[],
): string | undefined {
  const { covered, missing } = covers(ownerRules, granted);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${goQuote(user.username ?? '')} (groups=${goQuoteList(user.groups ?? [])}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  // kube prints the []error slice with %v: `[err1 err2]`
  if (resolutionErrors.length) msg += `; resolution errors: [${resolutionErrors.join(' ')}]`;
  return msg;
}
