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

/** What a configuration's rules are for the candidate index; undefined when the full match must always decide. */
export type RulesOf<T> = (item: T) => { owner: object; rules: readonly RuleWithOperations[] } | undefined;

// Per frozen list of configurations (a snapshot): request shape → the configurations whose rules may select it.
// The request shape is the operation and the resource names rulesMayMatch compares, so an entry is exact for
// every request of that shape; the equivalents are asked per request, as CRDs add and remove them.
const candidatesByList = new WeakMap<readonly unknown[], Map<string, readonly unknown[]>>();
// request shapes are few (operation × served resource); the bound only guards against unbounded growth
const maxShapesPerList = 1024;

/**
 * The items of `items`, in order, whose rules may select the request (rulesMayMatch), the others being certain not
 * to match it. For a frozen list of frozen owners the answer is kept per request shape, so a request with many
 * configurations in force costs one lookup instead of one check per configuration.
 */
export function ruleCandidates<T>(
  items: readonly T[],
  rulesOf: RulesOf<T>,
  attrs: Pick<AdmissionAttributes, 'operation' | 'resource' | 'subresource'>,
  mapper: EquivalentResourceMapper,
): readonly T[] {
  if (items.length === 0) return items;
  const mayMatch = (item: T): boolean => {
    const r = rulesOf(item);
    return r === undefined || rulesMayMatch(r.owner, r.rules, attrs, mapper);
  };
  if (!Object.isFrozen(items)) return items.filter(mayMatch);
  const names = [attrs.resource.resource];
  for (const r of mapper.equivalentResourcesFor(attrs.resource, attrs.subresource)) if (!names.includes(r.resource)) names.push(r.resource);
  const shape = `${attrs.operation}\u0000${names.join('\u0000')}`;
  let byShape = candidatesByList.get(items);
  const known = byShape?.get(shape);
  if (known) return known as readonly T[];
  // only lists whose every owner is frozen can be remembered: their rules cannot change
  const frozen = items.every((item) => {
    const r = rulesOf(item);
    return r === undefined || Object.isFrozen(r.owner);
  });
  const candidates = Object.freeze(items.filter(mayMatch));
  if (!frozen) return candidates;
  if (!byShape) candidatesByList.set(items, (byShape = new Map()));
  if (byShape.size >= maxShapesPerList) byShape.clear();
  byShape.set(shape, candidates);
  return candidates;
}
