// Whether a webhook is called for a request, and as which resource/kind: kube's generic.Webhook.Dispatch
// exemptions followed by generic.Webhook.ShouldCallHook (namespaceSelector, objectSelector, rules, then the
// rules again against the equivalent resources when matchPolicy is Equivalent).
//
// matchConditions are not evaluated here: they need the CEL environment, and kube evaluates them last, on the
// versioned object, only for a webhook that matched everything below.
import type { MatchPolicyType, WebhookAccessor } from '../../api/admissionregistration.js';
import type { GroupResource } from '../../api/errors.js';
import type { GroupVersionResource } from '../../api/types.js';
import type { AdmissionAttributes } from '../attributes.js';
import { defaultEquivalentResourceMapper, type EquivalentResourceMapper } from './equivalence.js';
import { excludedVirtualResources, isExcludedVirtualResource, isExemptAdmissionConfigurationResource } from './excluded.js';
import { ruleCandidates, rulesMayMatch } from './rule-reach.js';
import { matchesRule, type RuleRequest } from './rules.js';
import { internalMatchError, matchNamespaceSelector, matchObjectSelector, type WebhookMatchError } from './selectors.js';
import type { MatchContext, MatchWebhook, WebhookInvocation } from './types.js';

export type { WebhookMatchError } from './selectors.js';

/** The outcome with the Status kube-apiserver would answer when the webhook's configuration cannot be evaluated. */
export type WebhookMatchEvaluation =
  | { matches: false; error?: undefined }
  | { matches: true; invocation: WebhookInvocation }
  /**
   * kube's ShouldCallHook returns these as the request's error (the dispatchers return them as they are, whatever
   * the failurePolicy): 404 NotFound when the request's namespace does not exist, 500 InternalError for a selector
   * that does not convert or an equivalent resource without a kind.
   */
  | { matches: false; error: WebhookMatchError };

export interface WebhookMatcherOptions {
  /** which resources are the same objects at other versions (matchPolicy Equivalent) */
  equivalentResources?: EquivalentResourceMapper;
  /** the resources skipped when ExcludeAdmissionWebhookVirtualResources is on */
  excludedResources?: readonly GroupResource[];
}

/** GroupVersionResource.String() */
function gvrString(r: GroupVersionResource): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

// Configurations are defaulted on write and on load, so an absent matchPolicy only comes from a configuration
// built by hand; it is taken as the v1 default rather than as Exact.
function matchPolicyOf(accessor: WebhookAccessor): MatchPolicyType {
  return accessor.webhook.matchPolicy ?? 'Equivalent';
}

/** The whole decision, with kube's Status for the errors. */
export function evaluateWebhookMatch(accessor: WebhookAccessor, attrs: AdmissionAttributes, ctx: MatchContext, opts: WebhookMatcherOptions = {}): WebhookMatchEvaluation {
  // Dispatch-level exemptions come first: nothing about the webhook is looked at for these requests.
  if (ctx.excludeVirtualResources && isExcludedVirtualResource(attrs.resource, opts.excludedResources ?? excludedVirtualResources)) return { matches: false };
  if (accessor.source === 'api' && isExemptAdmissionConfigurationResource(attrs.kind)) return { matches: false };

  const hook = accessor.webhook;
  const rules = hook.rules ?? [];
  const mapper = opts.equivalentResources ?? defaultEquivalentResourceMapper;
  // Rules that cannot select the request decide it without the selectors (whose errors would not be returned).
  if (!rulesMayMatch(accessor, rules, attrs, mapper)) return { matches: false };
  // A selector that does not match skips the webhook at once; one that cannot be evaluated only fails the request
  // if the rules select it — a webhook that does not apply must never fail a request.
  const ns = matchNamespaceSelector(hook.namespaceSelector, attrs, ctx.namespaceLabels);
  if (!ns.matches && !ns.error) return { matches: false };
  const obj = matchObjectSelector(hook.objectSelector, attrs);
  if (!obj.matches && !obj.error) return { matches: false };

  const req: RuleRequest = { operation: attrs.operation, resource: attrs.resource, subresource: attrs.subresource, namespace: attrs.namespace };
  let invocation: WebhookInvocation | undefined;
  if (rules.some((r) => matchesRule(r, req))) {
    invocation = { resource: { ...attrs.resource }, subresource: attrs.subresource, kind: { ...attrs.kind } };
  }
  if (!invocation && matchPolicyOf(accessor) === 'Equivalent') {
    const equivalents = mapper.equivalentResourcesFor(attrs.resource, attrs.subresource);
    const isRequested = (r: GroupVersionResource): boolean =>
      r.group === attrs.resource.group && r.version === attrs.resource.version && r.resource === attrs.resource.resource;
    // earlier rules first, then the equivalents in registration order
    outer: for (const rule of rules) {
      for (const equivalent of equivalents) {
        if (isRequested(equivalent)) continue;
        if (!matchesRule(rule, { ...req, resource: equivalent })) continue;
        const kind = mapper.kindFor(equivalent, attrs.subresource);
        if (!kind) return { matches: false, error: internalMatchError(`unable to convert to ${gvrString(equivalent)}: unknown kind`) };
        invocation = { resource: equivalent, subresource: attrs.subresource, kind };
        break outer;
      }
    }
  }
  if (!invocation) return { matches: false };
  if (ns.error) return { matches: false, error: ns.error };
  if (obj.error) return { matches: false, error: obj.error };
  return { matches: true, invocation };
}

/** A MatchWebhook with its own equivalence table or excluded set. */
export function createWebhookMatcher(opts: WebhookMatcherOptions = {}): MatchWebhook {
  return (accessor, attrs, ctx) => {
    const r = evaluateWebhookMatch(accessor, attrs, ctx, opts);
    if (r.matches) return r;
    return r.error ? { matches: false, error: r.error.message } : { matches: false };
  };
}

/** The matcher of this apiserver: kube's exemptions, exclusions and equivalences (see equivalence.ts). */
export const matchWebhook: MatchWebhook = createWebhookMatcher();

/**
 * The webhooks of a snapshot, in order, that matchWebhook may call for the request: the others' rules name neither
 * its operation nor its resource (or an equivalent), so matchWebhook is sure to answer "no match" without an error.
 */
export function webhookCandidates(items: readonly WebhookAccessor[], attrs: AdmissionAttributes): readonly WebhookAccessor[] {
  return ruleCandidates(items, (accessor) => ({ owner: accessor, rules: accessor.webhook.rules ?? [] }), attrs, defaultEquivalentResourceMapper);
}

export { matchesRule } from './rules.js';
export { isExcludedVirtualResource, isExemptAdmissionConfigurationResource, excludedVirtualResources } from './excluded.js';
export { defaultEquivalentResourceMapper, newEquivalentResourceMapper } from './equivalence.js';
