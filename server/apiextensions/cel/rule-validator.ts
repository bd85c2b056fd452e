// Runtime evaluation of x-kubernetes-validations (kube's cel.Validator.Validate, validation.go): walks the object
// along the rule tree, evaluates each node's rules with `self` (and `oldSelf` where an old value correlates),
// charges one cost budget per custom resource, and turns failures into field errors exactly as kube words them.
import { fieldErrors, FieldPath, formatFieldError, type FieldError } from '../../api/field.js';
import type { ValidationRule } from '../../api/apiextensions.js';
import { celLimits } from '../../admission/cel/environment.js';
import type { CompiledProgram } from '../../admission/cel/engine/env.js';
import type { Activation } from '../../admission/cel/engine/interpreter.js';
import { CelError, CelOptional, type CelResult } from '../../admission/cel/engine/values.js';
import { goQuote } from '../../options/go-strconv.js';
import type { CompiledRule } from './compiled-rules.js';
import { CorrelatedObject, oldListItemFinder, ratchetIndex, ratchetKey, shouldRatchet, type Ratcheting } from './correlation.js';
import type { RuleNode } from './rule-tree.js';
import { OLD_SELF, SELF } from './rule-environment.js';
import { schemaForNode, schemaValueToCel } from './schema-values.js';

export const BUDGET_EXCEEDED = 'validation failed due to running out of cost budget, no further validation rules will be run';
/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

export interface RuleValidationResult {
  errors: FieldError[];
  /** failures of non-transition rules on values unchanged by an update (CRDValidationRatcheting) */
  warnings: string[];
}

export interface CustomResourceRuleValidator {
  readonly hasRules: boolean;
  validate(obj: unknown, oldObj: unknown | undefined): RuleValidationResult;
}

interface Run {
  /** kube's remainingBudget; negative once validation stopped */
  budget: number;
  errors: FieldError[];
  warnings: string[];
}

export class RuleTreeValidator implements CustomResourceRuleValidator {
  constructor(
    private readonly root: RuleNode | undefined,
    private readonly costBudget: number = celLimits.runtimeCostBudget,
  ) {}

  get hasRules(): boolean {
    return this.root !== undefined;
  }

  validate(obj: unknown, oldObj: unknown | undefined): RuleValidationResult {
    const run: Run = { budget: this.costBudget, errors: [], warnings: [] };
    if (!this.root) return run;
    // ratcheting applies to updates only: the whole old object correlates with the new one
    const ratcheting: Ratcheting = oldObj === undefined ? {} : { current: new CorrelatedObject(obj, oldObj, this.root.schema) };
    validateNode(this.root, FieldPath.root(''), obj, oldObj ?? undefined, ratcheting, run);
    return { errors: run.errors, warnings: run.warnings };
  }
}

function validateNode(node: RuleNode, path: FieldPath, obj: unknown, oldObj: unknown, ratchet: Ratcheting, run: Run): void {
  // kube only validates non-null values: rules about null or absent fields belong on the parent
  if (obj === null || obj === undefined) return;
  validateExpressions(node, path, obj, oldObj === null ? undefined : oldObj, ratchet, run);
  if (run.budget < 0) return;
  for (const allOf of node.allOf) {
    // allOf errors are not ratcheted by their own correlation, as in kube
    validateNode(allOf, path, obj, oldObj, { nearestParent: ratchet.nearestParent }, run);
    if (run.budget < 0) return;
  }
  if (Array.isArray(obj)) {
    if (!node.items) return;
    // only list-type=map items have an old value to compare with
    const findOld = oldListItemFinder(node.schema, oldObj);
    for (let i = 0; i < obj.length; i++) {
      validateNode(node.items, path.index(i), obj[i], findOld(obj[i]), ratchetIndex(ratchet, i), run);
      if (run.budget < 0) return;
    }
  } else if (typeof obj === 'object') {
    const o = obj as Record<string, unknown>;
    const old = typeof oldObj === 'object' && oldObj !== null && !Array.isArray(oldObj) ? (oldObj as Record<string, unknown>) : undefined;
    if (node.additionalProperties) {
      for (const [k, v] of Object.entries(o)) {
        validateNode(node.additionalProperties, path.key(k), v, old?.[k], ratchetKey(ratchet, k), run);
        if (run.budget < 0) return;
      }
    }
    for (const [k, v] of Object.entries(o)) {
      const child = node.properties.get(k);
      if (!child) continue;
      validateNode(child, path.child(k), v, old?.[k], ratchetKey(ratchet, k), run);
      if (run.budget < 0) return;
    }
  }
}

function ruleErrorString(rule: ValidationRule): string {
  const message = (rule.message ?? '').trim();
  return message.length > 0 ? message : (rule.rule ?? '').trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

function activation(self: CelResult, oldSelf: CelResult | undefined): Activation {
  return { resolve: (name) => (name === SELF ? self : name === OLD_SELF ? oldSelf : undefined) };
}

function evaluate(program: CompiledProgram, act: Activation) {
  return program.evaluate(act, { costLimit: celLimits.perCallLimit, presenceTestHasCost: false });
}

function validateExpressions(node: RuleNode, path: FieldPath, obj: unknown, oldObj: unknown, ratchet: Ratcheting, run: Run): void {
  const sts = schemaForNode(node.schema, node.isResourceRoot);
  // kube prints the schema type, not the value, as the bad value of rule errors (1.32)
  const typeValue = sts.type ?? '';
  if (node.compilationError) {
    run.errors.push(fieldErrors.invalid(path, typeValue, `rule compiler initialization error: ${node.compilationError}`));
    return;
  }
  if (node.rules.length === 0) return;
  if (run.budget <= 0) {
    run.errors.push(fieldErrors.invalid(path, typeValue, BUDGET_EXCEEDED));
    run.budget = -1;
    return;
  }
  const self = schemaValueToCel(obj, sts);
  const oldSelf = oldObj === undefined ? undefined : schemaValueToCel(oldObj, sts);
  const plain = activation(self, oldSelf);
  const optional = activation(self, oldSelf === undefined ? CelOptional.none : oldSelf instanceof CelError ? oldSelf : CelOptional.of(oldSelf));

  for (const compiled of node.rules) {
    const rule = compiled.rule;
    if (compiled.error) {
      run.errors.push(fieldErrors.invalid(path, typeValue, `rule compile error: ${compiled.error}`));
      continue;
    }
    if (!compiled.program) continue;
    // transition rules run only where an old value correlates, unless oldSelf is optional
    if (compiled.usesOldSelf && oldObj === undefined && !compiled.optionalOldSelf) continue;
    const out = evaluate(compiled.program, compiled.optionalOldSelf ? optional : plain);
    if (out.cost > run.budget) {
      run.errors.push(fieldErrors.invalid(path, typeValue, BUDGET_EXCEEDED));
      run.budget = -1;
      return;
    }
    run.budget -= out.cost;
    if (out.cancelled || out.value instanceof CelError) {
      const message = out.value instanceof CelError ? out.value.message : out.cancelled!.message;
      if (out.cancelled || message.startsWith('operation cancelled: actual cost limit exceeded')) {
        run.errors.push(fieldErrors.invalid(path, typeValue, `'${message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`));
        run.budget = -1;
        return;
      }
      if (message.startsWith('no such overload')) {
        // int-or-string and other dyn values reach operators the checker could not resolve
        run.errors.push(
          fieldErrors.invalid(path, typeValue, `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`),
        );
      } else {
        run.errors.push(fieldErrors.invalid(path, typeValue, `${message} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (out.value === true) continue;

    const errPath = compiled.normalizedFieldPath ? path.child(compiled.normalizedFieldPath) : path;
    const addError = (e: FieldError): void => {
      if (!compiled.usesOldSelf && shouldRatchet(ratchet)) run.warnings.push(formatFieldError(e));
      else run.errors.push(e);
    };
    let detail = ruleMessageOrDefault(rule);
    if (compiled.messageProgram) {
      const msg = evaluateMessageExpression(compiled.messageProgram, rule.messageExpression ?? '', plain, run.budget);
      if (msg.kind === 'stop') {
        addError(fieldErrors.invalid(errPath, typeValue, msg.error));
        run.budget = -1;
        return;
      }
      run.budget = msg.budget;
      // an evaluation error, an empty or multi-line result falls back to the static message (kube logs it)
      if (msg.kind === 'ok') detail = msg.message;
    }
    addError(errorForReason(errPath, typeValue, detail, rule.reason));
  }
}

type MessageResult =
  | { kind: 'ok'; message: string; budget: number }
  | { kind: 'fallback'; reason: string; budget: number }
  | { kind: 'stop'; error: string };

function evaluateMessageExpression(program: CompiledProgram, source: string, act: Activation, budget: number): MessageResult {
  const out = evaluate(program, act);
  if (out.cost > budget) {
    return { kind: 'stop', error: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' };
  }
  const remaining = budget - out.cost;
  if (out.cancelled || out.value instanceof CelError) {
    const message = out.value instanceof CelError ? out.value.message : out.cancelled!.message;
    if (out.cancelled || message.startsWith('operation cancelled: actual cost limit exceeded')) {
      return { kind: 'stop', error: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(source)}` };
    }
    return { kind: 'fallback', reason: `messageExpression evaluation failed due to: ${message}`, budget: remaining };
  }
  if (typeof out.value !== 'string') return { kind: 'fallback', reason: 'messageExpression failed to convert to string', budget: remaining };
  const trimmed = out.value.trim();
  if (Buffer.byteLength(trimmed) > MAX_MESSAGE_EXPRESSION_BYTES) {
    return { kind: 'fallback', reason: `messageExpression beyond allowable length of ${MAX_MESSAGE_EXPRESSION_BYTES}`, budget: remaining };
  }
  if (/\n/.test(trimmed)) return { kind: 'fallback', reason: 'messageExpression should not contain line breaks', budget: remaining };
  if (trimmed.length === 0) return { kind: 'fallback', reason: 'messageExpression should evaluate to a non-empty string', budget: remaining };
  return { kind: 'ok', message: trimmed, budget: remaining };
}

/** kube's fieldErrorForReason. */
function errorForReason(path: FieldPath, value: string, detail: string, reason: ValidationRule['reason']): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(path, detail);
    case 'FieldValueRequired':
      return fieldErrors.required(path, detail);
    case 'FieldValueDuplicate':
      return fieldErrors.duplicate(path, value);
    default:
      return fieldErrors.invalid(path, value, detail);
  }
}

export type { CompiledRule };
