// kube's validating.validator.Validate: one (policy, binding, param) evaluation turned into decisions. The
// matchConditions decide whether the policy applies; the validations are evaluated against one cost budget and
// their messageExpressions against what is left of it; the auditAnnotations against a budget of their own.
import type { FailurePolicyType, ValidationReason } from '../../../api/admissionregistration.js';
import {
  celTypeName,
  evaluatePass,
  maxEvaluatedMessageExpressionSizeBytes,
  runtimeCostBudget,
  type Activation,
  type CompiledSlot,
  type ExpressionEvaluation,
} from '../generic/expressions.js';
import { evaluateMatchConditions, type MatchConditionObserver } from '../generic/match-conditions.js';
import { namespaceObjectFor } from '../generic/request.js';
import type { KubeObject } from '../../../api/types.js';
import type { ValidatingPolicyEvaluator } from './compile.js';

export type PolicyDecisionAction = 'admit' | 'deny';
/** how the decision came about: kube's EvalAdmit, EvalDeny, EvalError */
export type PolicyDecisionEvaluation = 'admit' | 'deny' | 'error';

export interface PolicyDecision {
  action: PolicyDecisionAction;
  evaluation: PolicyDecisionEvaluation;
  message: string;
  /** set for evaluation 'deny': the validation's reason, Invalid by default */
  reason?: ValidationReason;
  elapsedSeconds: number;
}

export type AuditAnnotationAction = 'publish' | 'error' | 'exclude';

export interface PolicyAuditAnnotation {
  key: string;
  action: AuditAnnotationAction;
  value: string;
  error: string;
  elapsedSeconds: number;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: PolicyAuditAnnotation[];
}

export interface ValidateOptions {
  /** the budget of the validations (and their messages) and of the audit annotations; kube's RuntimeCELCostBudget */
  runtimeCostBudget?: number;
  matchConditionBudget?: number;
  matchConditionObserver?: MatchConditionObserver;
}

const actionForError = (f: FailurePolicyType): PolicyDecisionAction => (f === 'Ignore' ? 'admit' : 'deny');
const auditActionForError = (f: FailurePolicyType): AuditAnnotationAction => (f === 'Ignore' ? 'exclude' : 'error');

// Go's strings.TrimSpace
const trimSpace = (s: string): string => s.replace(/^[\s\u0085\u00a0]+|[\s\u0085\u00a0]+$/g, '');

/**
 * The message of a failed validation: the messageExpression's string (trimmed; not when it is too long or has a
 * line break), else the static message, else "failed expression: <expression>".
 */
function denialMessage(validation: { expression?: string; message?: string }, messageResult: ExpressionEvaluation | undefined): string {
  let message = '';
  if (messageResult?.ok && typeof messageResult.value === 'string') {
    message = trimSpace(messageResult.value);
    if (Buffer.byteLength(message, 'utf8') > maxEvaluatedMessageExpressionSizeBytes) message = '';
    if (message.includes('\n')) message = '';
  }
  if (message === '' && (validation.message ?? '').length > 0) message = trimSpace(validation.message ?? '');
  if (message === '') message = `failed expression: ${trimSpace(validation.expression ?? '')}`;
  return message;
}

/** The slots of an evaluator's validation and message passes, listed once per evaluator rather than per evaluation. */
interface PassSlots {
  validations: ReadonlyArray<CompiledSlot>;
  messages: ReadonlyArray<CompiledSlot | undefined>;
}

const passSlots = new WeakMap<ValidatingPolicyEvaluator, PassSlots>();

function passSlotsOf(e: ValidatingPolicyEvaluator): PassSlots {
  let slots = passSlots.get(e);
  if (!slots) {
    slots = { validations: e.validations.map((v) => v.slot), messages: e.validations.map((v) => v.message) };
    passSlots.set(e, slots);
  }
  return slots;
}

/** Everything an evaluation sees but `namespaceObject`, which is derived from the request's namespace. */
export type ValidateInput = Omit<Activation, 'namespaceObject'> & { namespace: KubeObject | undefined };

/**
 * Validate: `input` carries the authorizer; the passes that must not see it drop it. Validations and messages see
 * the namespace as CreateNamespaceObject trims it, audit annotations the namespace object as it is stored.
 */
export function validatePolicy(e: ValidatingPolicyEvaluator, input: ValidateInput, opts: ValidateOptions = {}): ValidateResult {
  const f = e.failurePolicy;
  const namespace = input.namespace;
  // field by field: object rest and spread take V8's generic copy, and this runs for every policy on every request
  const activation: Activation = { object: input.object, oldObject: input.oldObject, request: input.request, params: input.params, namespaceObject: namespaceObjectFor(namespace) };
  if (input.authorizer !== undefined) activation.authorizer = input.authorizer;
  const budget = opts.runtimeCostBudget ?? runtimeCostBudget;
  if (e.matchConditions.length > 0) {
    const m = evaluateMatchConditions(e.matchConditions, e.variables, activation, {
      failurePolicy: f,
      ...(opts.matchConditionBudget !== undefined ? { budget: opts.matchConditionBudget } : {}),
      ...(opts.matchConditionObserver ? { observer: opts.matchConditionObserver } : {}),
    });
    if ('error' in m) return { decisions: [{ action: actionForError(f), evaluation: 'error', message: m.error, elapsedSeconds: 0 }], auditAnnotations: [] };
    // the policy does not apply: no validations
    if (!m.matches) return { decisions: [], auditAnnotations: [] };
  }

  const slots = passSlotsOf(e);
  const validations = evaluatePass(slots.validations, e.variables, activation, budget, { authorizer: true });
  if (!validations.ok) return { decisions: [{ action: actionForError(f), evaluation: 'error', message: validations.error, elapsedSeconds: 0 }], auditAnnotations: [] };
  const messages = evaluatePass(slots.messages, e.variables, activation, validations.remainingBudget, { authorizer: false });

  const decisions: PolicyDecision[] = e.validations.map((v, i) => {
    const r = validations.results[i]!;
    const messageResult = messages.ok ? messages.results[i] : undefined;
    if (!r.ok) return { action: actionForError(f), evaluation: 'error', message: r.error, elapsedSeconds: r.elapsedSeconds };
    // kube fails every validation of the pass when the messages ran out of budget, whatever its own result
    if (!messages.ok) return { action: actionForError(f), evaluation: 'error', message: `failed messageExpression: ${messages.error}`, elapsedSeconds: r.elapsedSeconds };
    if (r.value !== true) {
      return { action: 'deny', evaluation: 'deny', reason: v.validation.reason ?? 'Invalid', message: denialMessage(v.validation, messageResult), elapsedSeconds: r.elapsedSeconds };
    }
    return { action: 'admit', evaluation: 'admit', message: '', elapsedSeconds: r.elapsedSeconds };
  });

  if (e.auditAnnotations.length === 0) return { decisions, auditAnnotations: [] };
  // audit annotations get a budget of their own, no authorizer, and the namespace as stored
  const { apiVersion: _a, kind: _k, ...storedNamespace } = namespace ?? {};
  const auditActivation: Activation = { ...activation, namespaceObject: namespace ? storedNamespace : null };
  const audit = evaluatePass(e.auditAnnotations.map((a) => a.slot), e.variables, auditActivation, budget, { authorizer: false });
  if (!audit.ok) return { decisions: [{ action: actionForError(f), evaluation: 'error', message: audit.error, elapsedSeconds: 0 }], auditAnnotations: [] };
  const auditAnnotations: PolicyAuditAnnotation[] = e.auditAnnotations.map((a, i) => {
    const r = audit.results[i]!;
    const out: PolicyAuditAnnotation = { key: a.key, action: 'exclude', value: '', error: '', elapsedSeconds: r.elapsedSeconds };
    if (!r.ok) return { ...out, action: auditActionForError(f), error: r.error };
    if (typeof r.value === 'string') {
      const value = trimSpace(r.value);
      return value.length === 0 ? out : { ...out, action: 'publish', value };
    }
    if (r.value === null || r.value === undefined) return out;
    return {
      ...out,
      action: 'error',
      error: `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${celTypeName(r.value)}. Return type must be either string or null.`,
    };
  });
  return { decisions, auditAnnotations };
}
