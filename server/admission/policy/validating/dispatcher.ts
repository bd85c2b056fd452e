// kube's validating.dispatcher.Dispatch: for every (policy, binding, param) that applies to the request, the
// validations' decisions go where the binding's validationActions send them — Deny into the request's denial,
// Warn into a Warning header, Audit into the validation_failure audit annotation — and the auditAnnotations are
// published as "<policy>/<key>". Configuration errors (a selector that cannot be evaluated, missing params, an
// unknown paramKind) follow the policy's failurePolicy. The first denial becomes the request's error.
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidationAction } from '../../../api/admissionregistration.js';
import { errors, type StatusError } from '../../../api/errors.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../../../api/types.js';
import type { Logger } from '../../../log.js';
import type { AdmissionAttributes } from '../../attributes.js';
import type { CelAuthorizer } from '../../cel/environment.js';
import type { EquivalentResourceMapper } from '../../matching/equivalence.js';
import { addAuditAnnotation, addWarnings, goJsonMarshal, type ObjectConverter } from '../../webhook/dispatch.js';
import type { MatchConditionObserver } from '../generic/match-conditions.js';
import { bindingMatches, definitionMatches, policyCandidates, type PolicyMatchContext } from '../generic/matching.js';
import { collectParams } from '../generic/params.js';
import { admissionRequestFor, namespaceNameFor } from '../generic/request.js';
import { forbiddenFor, type RequestNamespace } from '../generic/scope.js';
import type { ParamLookup, PolicyHook } from '../generic/types.js';
import { VersionedObjectsByKind } from '../generic/versioned-attributes.js';
import type { EnforcementAction, ValidatingAdmissionPolicyMetrics, ValidationErrorType } from '../metrics.js';
import type { ValidatingPolicyEvaluator } from './compile.js';
import { validatePolicy, type PolicyDecision, type ValidateInput, type ValidateOptions, type ValidateResult } from './validator.js';
import type { AdmissionCoverageObserver } from '../../coverage/recorder.js';

export type ValidatingPolicyHook = PolicyHook<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingPolicyEvaluator>;

/** The audit annotation a failed validation of a binding with the Audit action writes. */
export const validationFailureAnnotationKey = 'validation.policy.admission.k8s.io/validation_failure';
/** Published audit annotation values are cut to 10 kB. */
export const maxAuditAnnotationValueLength = 10 * 1024;

export interface ValidatingDispatchDeps {
  params: Pick<ParamLookup, 'get' | 'list'>;
  namespace: RequestNamespace;
  equivalentResources?: EquivalentResourceMapper;
  /** the request's `authorizer` (kube's caching authorizer, one per request) */
  authorizer?: CelAuthorizer;
  metrics?: ValidatingAdmissionPolicyMetrics;
  matchConditionObserver?: (policyName: string) => MatchConditionObserver;
  validateOptions?: ValidateOptions;
  logger?: Logger;
  /** the resource's converter (custom resources): a policy matched through another version sees objects in it */
  convert?: ObjectConverter;
  /** the admission coverage recorder (--admission-coverage); undefined when coverage is off */
  coverage?: AdmissionCoverageObserver;
}

interface DeniedDecision {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

/** ErrorType: how the metrics label a decision (a false validation is an invalid_error too). */
export function errorTypeOf(decision: Pick<PolicyDecision, 'evaluation' | 'message'>): ValidationErrorType {
  if (decision.evaluation === 'admit') return 'no_error';
  if (decision.message.startsWith('compilation')) return 'compile_error';
  if (decision.message.startsWith('validation failed due to running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

/** reasonToCode */
function codeFor(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** The request's denial: admission.NewForbidden with the decision's reason and code, and the message as a cause. */
export function denialError(attrs: AdmissionAttributes, denied: DeniedDecision): StatusError {
  const message = denied.binding !== undefined
    ? `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.message}`
    : `ValidatingAdmissionPolicy '${denied.policy}' denied request: ${denied.message}`;
  const err = forbiddenFor(attrs, message);
  const reason = denied.reason || 'Invalid';
  err.status.reason = reason;
  err.status.code = codeFor(reason);
  err.status.details = { ...err.status.details, causes: [...(err.status.details?.causes ?? []), { message }] };
  return err;
}

// Go truncates the string's bytes: value[:maxAuditAnnotationValueLength]
function truncateBytes(value: string, max: number): string {
  const bytes = Buffer.from(value, 'utf8');
  return bytes.length <= max ? value : bytes.subarray(0, max).toString('utf8');
}

/** auditAnnotationCollector: a key's distinct values from several bindings (or params) are joined with ", ". */
class AuditAnnotationCollector {
  private readonly values = new Map<string, string[]>();

  add(key: string, value: string): void {
    const list = this.values.get(key) ?? [];
    if (!list.includes(value)) list.push(value);
    this.values.set(key, list);
  }

  publish(policyName: string, attrs: AdmissionAttributes, logger?: Logger): void {
    for (const [key, values] of this.values) addAuditAnnotation(attrs, `${policyName}/${key}`, values.length === 1 ? values[0]! : values.join(', '), logger);
  }
}

/** ValidationFailureValue: one Audit-action failure, as the validation_failure annotation lists it (kube's field order). */
interface ValidationFailureValue {
  message: string;
  policy: string;
  binding: string;
  expressionIndex: number;
  validationActions: readonly ValidationAction[] | null;
}

/** At most this many failures go into the annotation ("the expected size of 50 validation failures is ~10KB"). */
export const maxValidationFailures = 50;

// publishValidationFailureAnnotations (kube since 1.37, "publish all VAP audit failures in a single annotation"):
// every Audit-action failure of the request, from every policy and binding, in one list published once at the end
// of the dispatch. Until 1.36 kube published each failure on its own and AddAnnotation refused every one after the
// first, so only the first was ever seen.
function publishValidationFailures(attrs: AdmissionAttributes, failures: ValidationFailureValue[], logger?: Logger): void {
  if (failures.length === 0) return;
  if (failures.length > maxValidationFailures) {
    const r = attrs.resource;
    logger?.info(`Validation failures count ${failures.length} for resource ${r.group}/${r.version}, Resource=${r.resource} exceeds limit of ${maxValidationFailures}; truncating audit annotation`);
    failures = failures.slice(0, maxValidationFailures);
  }
  addAuditAnnotation(attrs, validationFailureAnnotationKey, goJsonMarshal(failures), logger);
}

/**
 * The `request` variable of the request's evaluations: the same for every policy that matched the request as its own
 * resource and kind (nothing writes to it), built again only for one matched through an equivalent resource.
 */
class AdmissionRequests {
  private own: Record<string, unknown> | undefined;

  constructor(private readonly attrs: AdmissionAttributes) {}

  for(resource: GroupVersionResource, kind: GroupVersionKind): Record<string, unknown> {
    const a = this.attrs;
    const isOwn =
      resource.group === a.resource.group && resource.version === a.resource.version && resource.resource === a.resource.resource &&
      kind.group === a.kind.group && kind.version === a.kind.version && kind.kind === a.kind.kind;
    if (!isOwn) return admissionRequestFor(a, resource, kind);
    return (this.own ??= admissionRequestFor(a, resource, kind));
  }
}

// A parameter always carries its type meta, as kube's wrappedParam ensures for typed objects.
function withTypeMeta(param: KubeObject | null, policy: ValidatingAdmissionPolicy): KubeObject | null {
  if (!param || (param.apiVersion && param.kind)) return param;
  return { ...param, apiVersion: param.apiVersion || (policy.spec?.paramKind?.apiVersion ?? ''), kind: param.kind || (policy.spec?.paramKind?.kind ?? '') };
}

export async function dispatchValidatingPolicies(hooks: readonly ValidatingPolicyHook[], attrs: AdmissionAttributes, deps: ValidatingDispatchDeps): Promise<void> {
  const denied: DeniedDecision[] = [];
  const validationFailures: ValidationFailureValue[] = [];
  const observe = (action: EnforcementAction, policy: string, binding: string, d: Pick<PolicyDecision, 'evaluation' | 'message' | 'elapsedSeconds'>): void =>
    deps.metrics?.observe(action, policy, binding, errorTypeOf(d), d.elapsedSeconds);

  const addConfigError = (message: string, policy: ValidatingAdmissionPolicy, binding?: ValidatingAdmissionPolicyBinding): void => {
    const policyName = policy.metadata?.name ?? '';
    const fp = policy.spec?.failurePolicy ?? 'Fail';
    const bindingName = binding ? (binding.metadata?.name ?? '') : undefined;
    if (fp === 'Ignore') return;
    if (fp === 'Fail') denied.push({ policy: policyName, ...(bindingName !== undefined ? { binding: bindingName } : {}), message: `failed to configure ${binding ? 'binding' : 'policy'}: ${message}` });
    else denied.push({ policy: policyName, ...(bindingName !== undefined ? { binding: bindingName } : {}), message: `unrecognized failure policy: '${fp}'` });
  };

  const matchCtx: PolicyMatchContext = {
    namespaceLabels: () => deps.namespace.labels(),
    ...(deps.equivalentResources ? { equivalentResources: deps.equivalentResources } : {}),
  };

  const versions = new VersionedObjectsByKind(attrs, deps.convert);
  const requests = new AdmissionRequests(attrs);

  // most policies name other resources: they are skipped before their selectors are looked at
  for (const hook of policyCandidates(hooks, attrs, matchCtx)) {
    const policy = hook.policy.object;
    const policyName = policy.metadata?.name ?? '';
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

    const collector = new AuditAnnotationCollector();
    let policyOptions: ValidateOptions | undefined;
    const options = (): ValidateOptions =>
      (policyOptions ??= deps.matchConditionObserver ? { ...deps.validateOptions, matchConditionObserver: deps.matchConditionObserver(policyName) } : (deps.validateOptions ?? {}));
    for (const bindingItem of hook.bindings) {
      const binding = bindingItem.object;
      const bindingName = binding.metadata?.name ?? '';
      const bindingMatched = bindingMatches(binding.spec?.matchResources, attrs, matchCtx);
      const bm = bindingMatched instanceof Promise ? await bindingMatched : bindingMatched;
      if (bm.error) {
        addConfigError(bm.error.message, policy, binding);
        continue;
      }
      if (!bm.matches) continue;

      const collected = collectParams(policy.spec?.paramKind, hook.paramResource, binding.spec?.paramRef, attrs.namespace, deps.params);
      const params = collected instanceof Promise ? await collected : collected;
      if (!params.ok) {
        addConfigError(params.error, policy, binding);
        continue;
      }
      // kube converts once a binding with params needs the objects, in the kind the policy matched
      const converted = params.params.length > 0 ? versions.objectsFor(definition.kind) : undefined;
      const versioned = converted instanceof Promise ? await converted : converted;
      if (versioned && !versioned.ok) {
        addConfigError(`failed to convert object version: ${versioned.error}`, policy, binding);
        continue;
      }
      const objects = versioned?.objects;

      let namespace: KubeObject | undefined;
      const namespaceName = namespaceNameFor(attrs);
      if (namespaceName !== '') {
        const found = deps.namespace.get(namespaceName);
        namespace = found instanceof Promise ? await found : found;
        // kube returns the lookup's NotFound as the request's error
        if (!namespace) throw errors.notFound({ group: '', resource: 'namespaces' }, namespaceName);
      }

      const results: ValidateResult[] = [];
      for (const param of params.params) {
        // field by field: object spread takes V8's generic copy, once per policy, binding and param
        const input: ValidateInput = {
          object: objects?.object ?? null,
          oldObject: objects?.oldObject ?? null,
          request: requests.for(definition.resource, definition.kind),
          params: withTypeMeta(param, policy),
          namespace,
        };
        if (deps.authorizer) input.authorizer = deps.authorizer;
        results.push(validatePolicy(hook.evaluator, input, options()));
      }

      const actions: readonly ValidationAction[] = binding.spec?.validationActions ?? [];
      deps.coverage?.validatingPolicyEvaluated(hook.policy, bindingName, attrs, definition.resource, hook.evaluator, results, actions);
      for (const result of results) {
        result.decisions.forEach((decision, i) => {
          if (decision.action === 'admit') {
            // kube counts only the evaluation errors that failurePolicy Ignore let through
            if (decision.evaluation === 'error') observe('allow', policyName, bindingName, decision);
            return;
          }
          for (const action of actions) {
            switch (action) {
              case 'Deny':
                denied.push({ policy: policyName, binding: bindingName, message: decision.message, ...(decision.reason ? { reason: decision.reason } : {}) });
                observe('deny', policyName, bindingName, decision);
                break;
              case 'Audit':
                validationFailures.push({
                  message: decision.message,
                  policy: binding.spec?.policyName ?? '',
                  binding: bindingName,
                  expressionIndex: i,
                  validationActions: binding.spec?.validationActions ?? null,
                });
                observe('audit', policyName, bindingName, decision);
                break;
              case 'Warn':
                addWarnings(attrs, [`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${decision.message}`]);
                observe('warn', policyName, bindingName, decision);
                break;
            }
          }
        });
        for (const annotation of result.auditAnnotations) {
          switch (annotation.action) {
            case 'publish':
              collector.add(annotation.key, truncateBytes(annotation.value, maxAuditAnnotationValueLength));
              break;
            case 'error': {
              // under failurePolicy Fail an audit annotation error denies, whatever the validationActions
              const d = { evaluation: 'error' as const, message: annotation.error, elapsedSeconds: annotation.elapsedSeconds };
              denied.push({ policy: policyName, binding: bindingName, message: annotation.error });
              observe('deny', policyName, bindingName, d);
              break;
            }
            case 'exclude':
              break;
          }
        }
      }
    }
    collector.publish(policyName, attrs, deps.logger);
  }

  publishValidationFailures(attrs, validationFailures, deps.logger);
  if (denied.length > 0) throw denialError(attrs, denied[0]!);
}
