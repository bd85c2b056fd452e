// The admission coverage recorder: an observer the webhook and policy dispatchers call once per matched request
// (never for a request the rules or selectors did not match: that is not a call). Recording is a few map
// increments; everything costly (rule expansion, hits) happens when a report is asked for. Off by default: the
// dispatchers hold `undefined` and pay one optional-chaining check.
import type { ValidationAction, WebhookAccessor } from '../../api/admissionregistration.js';
import type { GroupVersionResource } from '../../api/types.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { WebhookInvocation } from '../matching/types.js';
import type { MatchConditionsResult as PolicyMatchConditionsResult } from '../policy/generic/match-conditions.js';
import type { PolicyItem } from '../policy/generic/types.js';
import type { ValidateResult } from '../policy/validating/validator.js';
import type { HookOutcome, MatchConditionsResult } from '../webhook/dispatch.js';
import { emptyDecisionCounts, type CoverageConfigurationKind, type DecisionCounts, type ErrorCount, type MatchedRequest, type MessageCount } from './report-schema.js';

/** What one matched request came to, for one configuration. */
export type CoverageEvent =
  | { decision: 'allowed' | 'patched' | 'skippedByMatchConditions' }
  | { decision: 'denied' | 'warned' | 'audited'; message: string }
  | { decision: 'errored'; message: string; failurePolicy: 'Fail' | 'Ignore'; outcome: 'failedOpen' | 'failedClosed' };

/** The hooks the admission chain calls. Implemented by CoverageRecorder; absent when coverage is off. */
export interface AdmissionCoverageObserver {
  /** a webhook was called (mutating: `patched` when its patch changed the object) */
  webhookCalled(accessor: WebhookAccessor, attrs: AdmissionAttributes, invocation: WebhookInvocation, outcome: HookOutcome, patched: boolean): void;
  /** a webhook's rules and selectors matched, its matchConditions were false or failed: not called */
  webhookNotCalled(accessor: WebhookAccessor, attrs: AdmissionAttributes, invocation: WebhookInvocation, result: MatchConditionsResult): void;
  /** one ValidatingAdmissionPolicy binding evaluated (one result per parameter object) */
  validatingPolicyEvaluated(
    policy: PolicyItem,
    binding: string,
    attrs: AdmissionAttributes,
    matched: GroupVersionResource,
    evaluator: ValidatingEvaluatorShape,
    results: readonly ValidateResult[],
    actions: readonly ValidationAction[],
  ): void;
  /** one MutatingAdmissionPolicy invocation (policy, binding, parameter) ran or was skipped by its matchConditions */
  mutatingPolicyInvoked(policy: PolicyItem, binding: string, attrs: AdmissionAttributes, matched: GroupVersionResource, event: CoverageEvent): void;
}

/** The parts of a compiled ValidatingAdmissionPolicy that tell a skip by matchConditions from an evaluation. */
export interface ValidatingEvaluatorShape {
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchConditions: readonly unknown[];
  readonly validations: readonly unknown[];
  readonly auditAnnotations: readonly unknown[];
}

// ---------------------------------------------------------------------------------------------------------------
// outcomes → events (pure)

/** webhookerrors.ToStatusErr's prefix, taken off again: the report lists what the webhook itself said. */
function webhookDenialMessage(webhookName: string, message: string): string {
  const prefix = `admission webhook "${webhookName}" denied the request`;
  if (message.startsWith(`${prefix}: `)) return message.slice(prefix.length + 2);
  if (message === `${prefix} without explanation`) return '(without explanation)';
  return message;
}

export function webhookCallEvent(accessor: WebhookAccessor, outcome: HookOutcome, patched: boolean): CoverageEvent {
  const failurePolicy = accessor.webhook.failurePolicy ?? 'Fail';
  switch (outcome.kind) {
    case 'allowed':
      return { decision: patched ? 'patched' : 'allowed' };
    case 'rejected':
      return { decision: 'denied', message: webhookDenialMessage(accessor.webhook.name, outcome.error.message) };
    case 'callError':
      return { decision: 'errored', message: outcome.message, failurePolicy, outcome: failurePolicy === 'Ignore' ? 'failedOpen' : 'failedClosed' };
    case 'error':
      // kube returns these errors (a patch that cannot be applied, dry-run unsupported) whatever the failurePolicy
      return { decision: 'errored', message: outcome.error.message, failurePolicy, outcome: 'failedClosed' };
  }
}

export function webhookMatchConditionsEvent(accessor: WebhookAccessor, result: MatchConditionsResult): CoverageEvent {
  if (!('error' in result)) return { decision: 'skippedByMatchConditions' };
  const failurePolicy = accessor.webhook.failurePolicy ?? 'Fail';
  return { decision: 'errored', message: result.error, failurePolicy, outcome: failurePolicy === 'Ignore' ? 'failedOpen' : 'failedClosed' };
}

/**
 * One evaluation of a ValidatingAdmissionPolicy binding: the first decision that is not an admit decides (a
 * failed validation goes where the binding's actions send it: Deny, else Warn, else Audit); an error that
 * failurePolicy Ignore let through is an error that failed open.
 */
export function validatingEvaluationEvent(e: ValidatingEvaluatorShape, result: ValidateResult, actions: readonly ValidationAction[]): CoverageEvent {
  // matchConditions false: validatePolicy returns no decisions at all (it returns one per validation otherwise)
  if (e.matchConditions.length > 0 && result.decisions.length === 0 && result.auditAnnotations.length === 0 && e.validations.length + e.auditAnnotations.length > 0) {
    return { decision: 'skippedByMatchConditions' };
  }
  for (const d of result.decisions) {
    if (d.evaluation === 'error') {
      return { decision: 'errored', message: d.message, failurePolicy: e.failurePolicy, outcome: d.action === 'admit' ? 'failedOpen' : 'failedClosed' };
    }
    if (d.evaluation === 'deny') {
      if (actions.includes('Deny')) return { decision: 'denied', message: d.message };
      if (actions.includes('Warn')) return { decision: 'warned', message: d.message };
      return { decision: 'audited', message: d.message };
    }
  }
  const annotationError = result.auditAnnotations.find((a) => a.action === 'error');
  if (annotationError) return { decision: 'errored', message: annotationError.error, failurePolicy: e.failurePolicy, outcome: 'failedClosed' };
  return { decision: 'allowed' };
}

/** A MutatingAdmissionPolicy invocation its matchConditions stopped (false, or an error). */
export function mutatingMatchConditionsEvent(m: PolicyMatchConditionsResult, failurePolicy: 'Fail' | 'Ignore'): CoverageEvent {
  if ('error' in m) return { decision: 'errored', message: m.error, failurePolicy, outcome: 'failedClosed' };
  if (m.matches || m.failedCondition !== undefined) return { decision: 'skippedByMatchConditions' };
  // under failurePolicy Ignore kube's matcher turns an evaluation error into "does not match", without its message
  return { decision: 'errored', message: 'matchConditions evaluation failed (failurePolicy Ignore: the policy was skipped)', failurePolicy, outcome: 'failedOpen' };
}

/** A MutatingAdmissionPolicy invocation that ran its mutations: the errors they added, and whether the object changed. */
export function mutatingInvocationEvent(errors: readonly { message: string }[], failurePolicy: 'Fail' | 'Ignore', changed: boolean): CoverageEvent {
  const first = errors[0];
  if (first) return { decision: 'errored', message: first.message, failurePolicy, outcome: failurePolicy === 'Ignore' ? 'failedOpen' : 'failedClosed' };
  return { decision: changed ? 'patched' : 'allowed' };
}

// ---------------------------------------------------------------------------------------------------------------
// the recorder

/** Distinct messages kept per configuration: a message that names each object must not grow without bound. */
export const maxDistinctMessages = 50;
export const otherMessages = '(other messages)';

/** The counts of one configuration (or one binding), as recorded. */
export class CoverageCounts {
  calls = 0;
  readonly decisions: DecisionCounts = emptyDecisionCounts();
  readonly denials = new Map<string, number>();
  readonly errors = new Map<string, ErrorCount>();
  readonly requests = new Map<string, MatchedRequest>();

  add(attrs: AdmissionAttributes, matched: GroupVersionResource, subresource: string, event: CoverageEvent): void {
    const key = `${attrs.operation} ${matched.group}/${matched.version}/${matched.resource}/${subresource} ${attrs.namespace !== ''}`;
    const req = this.requests.get(key);
    if (req) req.count++;
    else this.requests.set(key, { operation: attrs.operation, group: matched.group, version: matched.version, resource: matched.resource, subresource, namespaced: attrs.namespace !== '', count: 1 });
    this.decisions[event.decision]++;
    if (event.decision !== 'skippedByMatchConditions') this.calls++;
    if (event.decision === 'denied' || event.decision === 'warned' || event.decision === 'audited') {
      const message = this.denials.has(event.message) || this.denials.size < maxDistinctMessages ? event.message : otherMessages;
      this.denials.set(message, (this.denials.get(message) ?? 0) + 1);
    } else if (event.decision === 'errored') {
      const distinct = `${event.outcome}\u0000${event.message}`;
      const known = this.errors.get(distinct);
      if (known) known.count++;
      else if (this.errors.size < maxDistinctMessages) this.errors.set(distinct, { message: event.message, count: 1, failurePolicy: event.failurePolicy, outcome: event.outcome });
      else {
        const other = `${event.outcome}\u0000${otherMessages}`;
        const o = this.errors.get(other) ?? { message: otherMessages, count: 0, failurePolicy: event.failurePolicy, outcome: event.outcome };
        o.count++;
        this.errors.set(other, o);
      }
    }
  }

  denialList(): MessageCount[] {
    return [...this.denials].map(([message, count]) => ({ message, count }));
  }
}

/** What the recorder knows of one configuration besides its counts. */
export interface RecordedConfiguration {
  kind: CoverageConfigurationKind;
  source: 'api' | 'static';
  configuration: string;
  name: string;
  counts: CoverageCounts;
  /** policies: per binding name */
  bindings?: Map<string, CoverageCounts>;
}

export function webhookCoverageId(accessor: Pick<WebhookAccessor, 'kind' | 'source' | 'configurationName'> & { webhook: { name: string } }): string {
  return `${accessor.kind === 'mutating' ? 'MutatingWebhook' : 'ValidatingWebhook'}/${accessor.source}/${accessor.configurationName}/${accessor.webhook.name}`;
}

export function policyCoverageId(kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy', source: 'api' | 'static', name: string): string {
  return `${kind}/${source}/${name}`;
}

export class CoverageRecorder implements AdmissionCoverageObserver {
  readonly startedAt = new Date();
  private readonly recorded = new Map<string, RecordedConfiguration>();
  /** increases with every recorded event: a writer flushes only when it moved */
  generation = 0;

  configurations(): ReadonlyMap<string, RecordedConfiguration> {
    return this.recorded;
  }

  private webhook(accessor: WebhookAccessor): RecordedConfiguration {
    const id = webhookCoverageId(accessor);
    let r = this.recorded.get(id);
    if (!r) {
      r = { kind: accessor.kind === 'mutating' ? 'MutatingWebhook' : 'ValidatingWebhook', source: accessor.source, configuration: accessor.configurationName, name: accessor.webhook.name, counts: new CoverageCounts() };
      this.recorded.set(id, r);
    }
    return r;
  }

  private policy(kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy', policy: PolicyItem, binding: string): { all: CoverageCounts; binding: CoverageCounts } {
    const id = policyCoverageId(kind, policy.source, policy.name);
    let r = this.recorded.get(id);
    if (!r) {
      r = { kind, source: policy.source, configuration: policy.name, name: policy.name, counts: new CoverageCounts(), bindings: new Map() };
      this.recorded.set(id, r);
    }
    const bindings = r.bindings!;
    let b = bindings.get(binding);
    if (!b) {
      b = new CoverageCounts();
      bindings.set(binding, b);
    }
    return { all: r.counts, binding: b };
  }

  webhookCalled(accessor: WebhookAccessor, attrs: AdmissionAttributes, invocation: WebhookInvocation, outcome: HookOutcome, patched: boolean): void {
    this.generation++;
    this.webhook(accessor).counts.add(attrs, invocation.resource, invocation.subresource, webhookCallEvent(accessor, outcome, patched));
  }

  webhookNotCalled(accessor: WebhookAccessor, attrs: AdmissionAttributes, invocation: WebhookInvocation, result: MatchConditionsResult): void {
    this.generation++;
    this.webhook(accessor).counts.add(attrs, invocation.resource, invocation.subresource, webhookMatchConditionsEvent(accessor, result));
  }

  validatingPolicyEvaluated(
    policy: PolicyItem,
    binding: string,
    attrs: AdmissionAttributes,
    matched: GroupVersionResource,
    evaluator: ValidatingEvaluatorShape,
    results: readonly ValidateResult[],
    actions: readonly ValidationAction[],
  ): void {
    this.generation++;
    const counts = this.policy('ValidatingAdmissionPolicy', policy, binding);
    for (const result of results) {
      const event = validatingEvaluationEvent(evaluator, result, actions);
      counts.all.add(attrs, matched, attrs.subresource, event);
      counts.binding.add(attrs, matched, attrs.subresource, event);
    }
  }

  mutatingPolicyInvoked(policy: PolicyItem, binding: string, attrs: AdmissionAttributes, matched: GroupVersionResource, event: CoverageEvent): void {
    this.generation++;
    const counts = this.policy('MutatingAdmissionPolicy', policy, binding);
    counts.all.add(attrs, matched, attrs.subresource, event);
    counts.binding.add(attrs, matched, attrs.subresource, event);
  }
}
