// kube's webhook/predicates/rules.Matcher: whether one RuleWithOperations of a webhook selects a request, by
// scope, operation, API group, API version and resource/subresource.
import type { RuleWithOperations } from '../../api/admissionregistration.js';
import type { GroupVersionResource } from '../../api/types.js';
import type { AdmissionOperation } from '../attributes.js';

/** The parts of a request a rule looks at (admission.Attributes, with the resource possibly overridden by an equivalent one). */
export interface RuleRequest {
  operation: AdmissionOperation;
  resource: GroupVersionResource;
  subresource: string;
  /** '' for cluster-scoped requests; kube sets it to the namespace's own name for Namespace objects, we leave it '' */
  namespace: string;
}

const namespaceResource: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === namespaceResource.group && r.version === namespaceResource.version && r.resource === namespaceResource.resource;
}

// The predicates below run for every rule of every webhook and policy on every request: plain loops, no closure or
// array per call.

function exactOrWildcard(items: readonly string[] | undefined, requested: string): boolean {
  if (!items) return false;
  for (let i = 0; i < items.length; i++) if (items[i] === '*' || items[i] === requested) return true;
  return false;
}

/**
 * Scope is decided the way kube decides it, from the request alone: namespaces (core/v1, any subresource) are
 * cluster-scoped, anything else is namespaced when the request carries a namespace. That is why no
 * "is this resource namespaced" lookup is needed: a Namespace object is admitted with its own name as
 * attrs.namespace (kube's request info and create handler; the registry's attributes here) and lands on Cluster.
 */
export function matchesScope(rule: RuleWithOperations, req: RuleRequest): boolean {
  const scope = rule.scope;
  if (scope === undefined || scope === null || scope === '*') return true;
  switch (scope) {
    case 'Namespaced':
      return !isNamespaceResource(req.resource) && req.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(req.resource) || req.namespace === '';
    default:
      return false;
  }
}

export function matchesOperation(rule: RuleWithOperations, req: RuleRequest): boolean {
  return exactOrWildcard(rule.operations, req.operation);
}

/** One entry of a rule's resources against the request: strings.SplitN(resSub, "/", 2), then each part. */
function resourceEntryMatches(entry: string, resource: string, subresource: string): boolean {
  const slash = entry.indexOf('/');
  if (slash < 0) return (entry === '*' || entry === resource) && subresource === '';
  const res = entry.slice(0, slash);
  const sub = entry.slice(slash + 1);
  return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
}

// `pods` matches the pods themselves only; `pods/*` the pods and every pod subresource (a `*` subresource also
// matches "no subresource"); `*/status` every status subresource; `*` every resource but no subresource; `*/*`
// everything.
export function matchesResource(rule: RuleWithOperations, req: RuleRequest): boolean {
  const entries = rule.resources;
  if (!entries) return false;
  for (let i = 0; i < entries.length; i++) if (resourceEntryMatches(entries[i]!, req.resource.resource, req.subresource)) return true;
  return false;
}

/** rules.Matcher.Matches */
export function matchesRule(rule: RuleWithOperations, req: RuleRequest): boolean {
  return (
    matchesScope(rule, req) &&
    matchesOperation(rule, req) &&
    exactOrWildcard(rule.apiGroups, req.resource.group) &&
    exactOrWildcard(rule.apiVersions, req.resource.version) &&
    matchesResource(rule, req)
  );
}
