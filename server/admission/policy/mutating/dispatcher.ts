// kube's generic policyDispatcher.Dispatch with the mutating delegate (mutating.dispatcher.dispatchInvocations):
// every (policy, binding, param) that applies to the request is an invocation; invocations run in order, each
// seeing the object as the previous ones left it; a policy's matchConditions decide per invocation; its mutations
// run in order and the object is defaulted after each. Configuration errors (a selector that cannot be evaluated,
// missing params, an unknown paramKind), matchCondition errors and mutation errors follow the policy's
// failurePolicy: under Fail they deny the request once every invocation has run, the first error's message being
// the Status message ("policy '<p>' with binding '<b>' denied request: …"); API errors (a patched object that does
// not decode, a missing namespace) are sent as they are.
//
// Reinvocation (reinvocationPolicy IfNeeded) follows kube's policyReinvokeContext: an invocation that ran and whose
// object was changed afterwards — by a later invocation, or by a later plugin before the chain's second round — is
// run once more in that round; no invocation runs for the first time in it.
import type { FailurePolicyType, MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from '../../../api/admissionregistration.js';
import { errors, type StatusError } from '../../../api/errors.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../../../api/types.js';
import { apiVersionOf } from '../../../api/types.js';
import { goQuote } from '../../../options/go-strconv.js';
import type { AdmissionAttributes } from '../../attributes.js';
import type { CelAuthorizer } from '../../cel/environment.js';
import type { EquivalentResourceMapper } from '../../matching/equivalence.js';
import type { ObjectConverter } from '../../webhook/dispatch.js';
import { semanticallyEqual } from '../../webhook/mutating.js';
import { evaluateMatchConditions, type MatchConditionObserver } from '../generic/match-conditions.js';
import { bindingMatches, definitionMatches, policyCandidates, type PolicyMatchContext } from '../generic/matching.js';
import { collectParams } from '../generic/params.js';
import { admissionRequestFor, namespaceNameFor, namespaceObjectFor } from '../generic/request.js';
import { forbiddenFor, type RequestNamespace } from '../generic/scope.js';
import type { ParamLookup, PolicyHook } from '../generic/types.js';
import { MutatingVersionedObjects, VersionedObjectsByKind } from '../generic/versioned-attributes.js';
import { loadApplySchema } from './apply-schema.js';
import { loadTypedKind } from '../../../api/openapi/typed-object.js';
import type { MutatingPolicyEvaluator } from './compile.js';
import { mutationErrorTypeOf, type MutatingAdmissionPolicyMetrics } from './metrics.js';
import { applyMutation } from './mutate.js';
import { invocationKey, PolicyReinvokeContext } from './reinvocation.js';
import { mutatingInvocationEvent, mutatingMatchConditionsEvent, type AdmissionCoverageObserver } from '../../coverage/recorder.js';

export const mutatingAdmissionPolicyPluginName = 'MutatingAdmissionPolicy';

export type MutatingPolicyHook = PolicyHook<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, MutatingPolicyEvaluator>;

export interface MutatingDispatchDeps {
  params: Pick<ParamLookup, 'get' | 'list'>;
  namespace: RequestNamespace;
  equivalentResources?: EquivalentResourceMapper;
  /** the request's `authorizer` (kube's caching authorizer, one per request) */
  authorizer?: CelAuthorizer;
  metrics?: MutatingAdmissionPolicyMetrics;
  matchConditionObserver?: (policyName: string) => MatchConditionObserver;
  /** the resource's defaulting, run on the object after each mutation (kube's ObjectDefaulter) */
  defaultObject?: (object: KubeObject, attrs: AdmissionAttributes) => KubeObject | void;
  /** cost budgets, for tests: each mutation's (kube's RuntimeCELCostBudget) and the matchConditions' */
  runtimeCostBudget?: number;
  matchConditionBudget?: number;
  /** the resource's converter (custom resources): a policy matched through another version mutates the object in it */
  convert?: ObjectConverter;
  /** the admission coverage recorder (--admission-coverage); undefined when coverage is off */
  coverage?: AdmissionCoverageObserver;
}

/** generic.PolicyError */
export interface MutatingPolicyError {
  policy: string;
  /** absent for an error of the policy itself */
  binding?: string;
  message: string;
  /** the Status reason the error sets when it is the first; Forbidden otherwise */
  reason?: string;
  failurePolicy: FailurePolicyType;
}

/** PolicyError.Error() */
export function policyErrorMessage(e: Pick<MutatingPolicyError, 'policy' | 'binding' | 'message'>): string {
  if (e.binding !== undefined) return `policy '${e.policy}' with binding '${e.binding}' denied request: ${e.message}`;
  return `policy ${goQuote(e.policy)} denied request: ${e.message}`;
}

/**
 * The request's denial: admission.NewForbidden, its message replaced by the first error's (and its reason, when the
 * error has one), every error a cause.
 */
export function mutatingDenialError(attrs: AdmissionAttributes, policyErrors: readonly MutatingPolicyError[]): StatusError {
  const err = forbiddenFor(attrs, 'admission request denied by policy');
  const messages = policyErrors.map(policyErrorMessage);
  const first = policyErrors[0]!;
  err.status.message = messages[0]!;
  err.message = messages[0]!;
  if (first.reason) err.status.reason = first.reason;
  err.status.details = { ...err.status.details, causes: [...(err.status.details?.causes ?? []), ...messages.map((message) => ({ message }))] };
  return err;
}

interface Invocation {
  hook: MutatingPolicyHook;
  binding: MutatingAdmissionPolicyBinding;
  param: KubeObject | null;
  /** what the policy matched the request as */
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

// A parameter always carries its type meta, as kube's wrappedParam ensures for typed objects.
function withTypeMeta(param: KubeObject | null, policy: MutatingAdmissionPolicy): KubeObject | null {
  if (!param || (param.apiVersion && param.kind)) return param;
  return { ...param, apiVersion: param.apiVersion || (policy.spec?.paramKind?.apiVersion ?? ''), kind: param.kind || (policy.spec?.paramKind?.kind ?? '') };
}

// The object as kube encodes the versioned object for the patchers: with its apiVersion and kind.
function withKind(object: KubeObject, kind: GroupVersionKind): KubeObject {
  if (object.apiVersion && object.kind) return object;
  return { ...object, apiVersion: object.apiVersion || apiVersionOf(kind.group, kind.version), kind: object.kind || kind.kind };
}

export async function dispatchMutatingPolicies(hooks: readonly MutatingPolicyHook[], attrs: AdmissionAttributes, deps: MutatingDispatchDeps): Promise<void> {
  const policyErrors: MutatingPolicyError[] = [];
  const addConfigError = (message: string, policy: MutatingAdmissionPolicy, binding?: MutatingAdmissionPolicyBinding): void => {
    policyErrors.push({
      policy: policy.metadata?.name ?? '',
      ...(binding ? { binding: binding.metadata?.name ?? '' } : {}),
      message: `failed to configure ${binding ? 'binding' : 'policy'}: ${message}`,
      failurePolicy: policy.spec?.failurePolicy ?? 'Fail',
    });
  };
  const matchCtx: PolicyMatchContext = {
    namespaceLabels: () => deps.namespace.labels(),
    ...(deps.equivalentResources ? { equivalentResources: deps.equivalentResources } : {}),
  };

  const versions = new VersionedObjectsByKind(attrs, deps.convert);
  const invocations: Invocation[] = [];
  // most policies name other resources: they are skipped before their selectors are looked at
  for (const hook of policyCandidates(hooks, attrs, matchCtx)) {
    const policy = hook.policy.object;
    const matched = definitionMatches(policy.spec?.matchConstraints, attrs, matchCtx);
    const definition = matched instanceof Promise ? await matched : matched;
    if (!definition.matches) {
      if (definition.error) addConfigError(definition.error.message, policy);
      continue;
    }
    if (hook.configurationError) {
      addConfigError(hook.configurationError, policy);
      continue;
    }
    for (const bindingItem of hook.bindings) {
      const binding = bindingItem.object;
      const bindingMatched = bindingMatches(binding.spec?.matchResources, attrs, matchCtx);
      const bm = bindingMatched instanceof Promise ? await bindingMatched : bindingMatched;
      if (bm.error) {
        addConfigError(bm.error.message, policy, binding);
        continue;
      }
      if (!bm.matches) continue;
      // kube's generic dispatcher converts the objects for every matched kind before any invocation runs; a
      // failure is an error of the policy (without the binding)
      const versioned = await versions.objectsFor(definition.kind);
      if (!versioned.ok) {
        addConfigError(versioned.error, policy);
        continue;
      }
      const collected = collectParams(policy.spec?.paramKind, hook.paramResource, binding.spec?.paramRef, attrs.namespace, deps.params);
      const params = collected instanceof Promise ? await collected : collected;
      if (!params.ok) {
        addConfigError(params.error, policy, binding);
        continue;
      }
      // no params under parameterNotFoundAction Allow: no invocation
      for (const param of params.params) invocations.push({ hook, binding, param, resource: definition.resource, kind: definition.kind });
    }
  }

  if (invocations.length > 0) policyErrors.push(...(await dispatchInvocations(invocations, attrs, deps, versions)));

  // failurePolicy Ignore drops the error; anything else (Fail, or unset) keeps it
  const failing = policyErrors.filter((e) => e.failurePolicy !== 'Ignore');
  if (failing.length > 0) throw mutatingDenialError(attrs, failing);
}

async function dispatchInvocations(
  invocations: readonly Invocation[],
  attrs: AdmissionAttributes,
  deps: MutatingDispatchDeps,
  versions: VersionedObjectsByKind,
): Promise<MutatingPolicyError[]> {
  const reinvocation = attrs.reinvocation;
  let ctx = reinvocation.values.get(mutatingAdmissionPolicyPluginName) as PolicyReinvokeContext | undefined;
  if (!ctx) {
    ctx = new PolicyReinvokeContext();
    reinvocation.values.set(mutatingAdmissionPolicyPluginName, ctx);
  }
  // a later plugin changed the object since this plugin's first run: every IfNeeded invocation that ran is due
  if (reinvocation.isReinvoke && ctx.isOutputChangedSinceLastPolicyInvocation(attrs.object)) ctx.requireReinvokingPreviouslyInvokedPlugins();
  try {
    return await runInvocations(invocations, attrs, deps, ctx, new MutatingVersionedObjects(attrs, versions, deps.convert));
  } finally {
    ctx.setLastPolicyInvocationOutput(attrs.object);
  }
}

async function runInvocations(
  invocations: readonly Invocation[],
  attrs: AdmissionAttributes,
  deps: MutatingDispatchDeps,
  ctx: PolicyReinvokeContext,
  versioned: MutatingVersionedObjects,
): Promise<MutatingPolicyError[]> {
  const reinvocation = attrs.reinvocation;
  const policyErrors: MutatingPolicyError[] = [];

  let namespace: KubeObject | undefined;
  const namespaceName = namespaceNameFor(attrs);
  if (namespaceName !== '') {
    namespace = await deps.namespace.get(namespaceName);
    // kube returns the lookup's NotFound as the request's error
    if (!namespace) throw errors.notFound({ group: '', resource: 'namespaces' }, namespaceName);
  }
  const namespaceObject = namespaceObjectFor(namespace);
  const objectAtStart = attrs.object;

  for (const inv of invocations) {
    const e = inv.hook.evaluator;
    const policy = inv.hook.policy.object;
    const policyName = policy.metadata?.name ?? '';
    const bindingName = inv.binding.metadata?.name ?? '';
    const addError = (message: string): void => {
      policyErrors.push({ policy: policyName, binding: bindingName, message, reason: 'Invalid', failurePolicy: e.failurePolicy });
    };
    if (e.mutations.length !== e.mutationCount) {
      // a bug in kube's compiler, which always returns as many patchers as there are mutations
      throw errors.internal(new Error(`expected ${e.mutationCount} compiled evaluators for policy ${policyName}, got ${e.mutations.length}`));
    }
    // matchPolicy Equivalent: the invocation sees, and mutates, the objects in the version it matched
    const current = await versioned.objectsFor(inv.kind);
    const params = withTypeMeta(inv.param, policy);
    const request = admissionRequestFor(attrs, inv.resource, inv.kind);
    const authorizer = deps.authorizer ? { authorizer: deps.authorizer } : {};

    if (e.matchConditions.length > 0) {
      const m = evaluateMatchConditions(
        e.matchConditions,
        e.variables,
        { object: current.object ?? null, oldObject: current.oldObject ?? null, request, params, namespaceObject: null, ...authorizer },
        {
          failurePolicy: e.failurePolicy,
          operation: attrs.operation,
          ...(deps.matchConditionBudget !== undefined ? { budget: deps.matchConditionBudget } : {}),
          ...(deps.matchConditionObserver ? { observer: deps.matchConditionObserver(policyName) } : {}),
        },
      );
      if (!m.matches) {
        if ('error' in m) addError(m.error);
        if (!reinvocation.isReinvoke) deps.coverage?.mutatingPolicyInvoked(inv.hook.policy, bindingName, attrs, inv.resource, mutatingMatchConditionsEvent(m, e.failurePolicy));
        continue;
      }
    }

    const key = invocationKey(inv.hook.policy, bindingName, inv.param);
    if (reinvocation.isReinvoke && !ctx.shouldReinvoke(key)) continue;

    const objectBeforeMutations = current.object;
    const errorsBeforeMutations = policyErrors.length;
    let object = current.object;
    // the kind's OpenAPI shape for the patchers (imported once per kind, then cached)
    if (object && e.mutations.length > 0) await Promise.all([loadApplySchema(current.kind), loadTypedKind(current.kind)]);
    // the defaulting of the version the object is in (kube's ObjectDefaulter on the versioned object)
    const defaultAs = current.converted ? { ...attrs, kind: inv.kind, resource: inv.resource } : attrs;
    for (const mutation of e.mutations) {
      // nothing to patch (CONNECT)
      if (!object) continue;
      const start = process.hrtime.bigint();
      const outcome = applyMutation(
        mutation,
        e.variables,
        {
          object: withKind(object, current.kind),
          activation: { oldObject: current.oldObject ?? null, request, params, namespaceObject, ...authorizer },
          kind: current.kind,
        },
        deps.runtimeCostBudget !== undefined ? { budget: deps.runtimeCostBudget } : {},
      );
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (!outcome.ok) {
        const message = 'status' in outcome ? outcome.status.message : outcome.error;
        deps.metrics?.observe(policyName, bindingName, mutationErrorTypeOf(message), seconds);
        if ('status' in outcome) throw outcome.status;
        addError(outcome.error);
        continue;
      }
      deps.metrics?.observe(policyName, bindingName, 'no_error', seconds);
      let next = outcome.object;
      const defaulted = deps.defaultObject?.(next, { ...defaultAs, object: next });
      if (defaulted) next = defaulted;
      object = next;
      versioned.setObject(next);
    }
    const changed = !semanticallyEqual(objectBeforeMutations, object);
    deps.coverage?.mutatingPolicyInvoked(inv.hook.policy, bindingName, attrs, inv.resource, mutatingInvocationEvent(policyErrors.slice(errorsBeforeMutations), e.failurePolicy, changed));
    if (changed) {
      // the invocation changed the object: the IfNeeded invocations that ran before it are due again
      ctx.requireReinvokingPreviouslyInvokedPlugins();
      reinvocation.shouldReinvoke = true;
    }
    if (e.reinvocationPolicy === 'IfNeeded') ctx.addReinvocablePolicyToPreviouslyInvoked(key);
  }

  // kube's write-back of a changed versioned object (converted back to the request's version): the IfNeeded
  // invocations that ran after the last change are due too, and the chain runs its second round
  await versioned.writeBack();
  if (!semanticallyEqual(objectAtStart, attrs.object)) {
    ctx.requireReinvokingPreviouslyInvokedPlugins();
    reinvocation.shouldReinvoke = true;
  }
  return policyErrors;
}
