// A cheap, conservative first look at whether a configuration's rules can select a request at all, before the full
// match (selectors, scope, groups, versions, subresources, equivalents) runs. With many configurations in force —
// 100 static policies and 100 static webhooks, say — nearly all of them name other resources than the request's,
// and kube's order (namespaceSelector, objectSelector, then rules) would parse and evaluate two selectors for each
// of them. Skipping them is unobservable: kube returns a selector's error only when the rules select the request,
// and a configuration whose rules name neither the request's operation nor any resource equivalent to it never does.
import type { RuleWithOperations } from '../../api/admissionregistration.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { EquivalentResourceMapper } from './equivalence.js';

/** The operations and resource names (before any `/subresource`) some rule of a list names; `any` for a `*`. */
interface RulesReach {
  operations: ReadonlySet<string> | 'any';
  resources: ReadonlySet<string> | 'any';
}

function reachOf(rules: readonly RuleWithOperations[]): RulesReach {
  const operations = new Set<string>();
  const resources = new Set<string>();
  let anyOperation = false;
  let anyResource = false;
  for (const rule of rules) {
    for (const op of rule.operations ?? []) {
      if (op === '*') anyOperation = true;
      else operations.add(op);
    }
    for (const entry of rule.resources ?? []) {
      const slash = entry.indexOf('/');
      const res = slash < 0 ? entry : entry.slice(0, slash);
      if (res === '*') anyResource = true;
      else resources.add(res);
    }
  }
  return { operations: anyOperation ? 'any' : operations, resources: anyResource ? 'any' : resources };
}

// Keyed by the frozen object that owns the rules (a webhook accessor, a policy item): computed once per
// configuration version, dropped with it.
const reachByOwner = new WeakMap<object, RulesReach>();

function cachedReach(owner: object, rules: readonly RuleWithOperations[]): RulesReach {
  // only an owner that cannot change can key a cache
  if (!Object.isFrozen(owner)) return reachOf(rules);
  let reach = reachByOwner.get(owner);
  if (!reach) reachByOwner.set(owner, (reach = reachOf(rules)));
  return reach;
}

/**
 * false when no rule of `rules` (owned by the frozen `owner`) can select the request, under either match policy;
 * true when the full match has to decide. `mapper` must be the one the full match uses: under matchPolicy
 * Equivalent a rule naming an equivalent resource selects the request too (asked only when the request's own
 * resource is not named). Rules that name the operation and the resource in different entries still count as
 * reaching it (a looser, still conservative, test).
 */
export function rulesMayMatch(
  owner: object,
  rules: readonly RuleWithOperations[],
  attrs: Pick<AdmissionAttributes, 'operation' | 'resource' | 'subresource'>,
  mapper: EquivalentResourceMapper,
): boolean {
  const reach = cachedReach(owner, rules);
  if (reach.operations !== 'any' && !reach.operations.has(attrs.operation)) return false;
  if (reach.resources === 'any' || reach.resources.has(attrs.resource.resource)) return true;
  const resources = reach.resources;
  return mapper.equivalentResourcesFor(attrs.resource, attrs.subresource).some((r) => resources.has(r.resource));
}
