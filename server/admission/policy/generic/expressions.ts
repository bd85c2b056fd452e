// Compiling a policy's expressions and evaluating a list of them against one request, as kube's plugin/cel does:
// a compile error becomes the expression's evaluation error; `variables.<name>` are compiled in order (each sees
// the ones before it) and evaluated lazily, at most once per evaluation pass (kube's CompositionContext, created
// for each ForInput call); all expressions of a pass share one runtime cost budget, and running out of it aborts
// the pass.
import type { Variable } from '../../../api/admissionregistration.js';
import type { KubeObject } from '../../../api/types.js';
import type { CelAuthorizer, CelEnvironment, CompileOptions, CompileResult, CostBudget, EvalContext, EvalResult } from '../../cel/environment.js';
import { celLimits } from '../../cel/environment.js';

/** kube's RuntimeCELCostBudgetMatchConditions: matchConditions get their own, smaller budget. */
export const runtimeCostBudgetMatchConditions = 2_500_000;
/** kube's MaxEvaluatedMessageExpressionSizeBytes */
export const maxEvaluatedMessageExpressionSizeBytes = 5 * 1024;

/** ErrOutOfBudget's message as the activation reports it. */
export const outOfBudgetMessage = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** One expression and what compiling it gave. */
export interface CompiledSlot {
  /** the expression as written (kube's ExpressionAccessor.GetExpression()) */
  readonly expression: string;
  readonly compiled: CompileResult;
}

export interface CompiledVariable {
  readonly name: string;
  readonly slot: CompiledSlot;
}

/** What every expression of one policy is compiled with. */
export interface PolicyCompileBase {
  cel: CelEnvironment;
  hasParams: boolean;
}

export function compileSlot(base: PolicyCompileBase, expression: string, opts: Omit<CompileOptions, 'hasParams'>): CompiledSlot {
  return Object.freeze({ expression, compiled: base.cel.compile(expression, { ...opts, hasParams: base.hasParams }) });
}

/** CompileAndStoreVariables: in order, each with the names of the variables before it. */
export function compileVariables(base: PolicyCompileBase, variables: readonly Variable[]): CompiledVariable[] {
  const out: CompiledVariable[] = [];
  for (const v of variables) {
    const slot = compileSlot(base, v.expression ?? '', { kind: 'any', hasAuthorizer: true, variableNames: out.map((c) => c.name) });
    out.push(Object.freeze({ name: v.name ?? '', slot }));
  }
  return out;
}

/** The variables of one evaluation (kube's evaluationActivation). */
export interface Activation {
  object: KubeObject | null;
  oldObject: KubeObject | null;
  request: Record<string, unknown>;
  /** null when the policy has no paramKind or the binding no paramRef */
  params: unknown;
  namespaceObject: KubeObject | null;
  authorizer?: CelAuthorizer;
}

export type ExpressionEvaluation =
  | { ok: true; expression: string; value: unknown; elapsedSeconds: number }
  | { ok: false; expression: string; error: string; elapsedSeconds: number };

export type EvaluationPass =
  | { ok: true; results: Array<ExpressionEvaluation | undefined>; remainingBudget: number }
  /** the cost budget ran out: kube's ForInput error, no further expression was run */
  | { ok: false; error: string };

export interface PassOptions {
  /** whether `authorizer` is bound in this pass (validations and matchConditions, not messages nor audit annotations) */
  authorizer: boolean;
}

const now = (): bigint => process.hrtime.bigint();
const secondsSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e9;

/**
 * condition.ForInput: evaluates the slots in order against one activation and budget. Placeholders (undefined)
 * stay undefined, as kube skips expression accessors that are nil (validations without messageExpression).
 */
export function evaluatePass(
  slots: ReadonlyArray<CompiledSlot | undefined>,
  variables: readonly CompiledVariable[],
  activation: Activation,
  budgetLimit: number,
  opts: PassOptions,
): EvaluationPass {
  const results: Array<ExpressionEvaluation | undefined> = [];
  // nothing to evaluate (no expressions, or validations without messageExpressions): placeholders only
  if (slots.every((slot) => slot === undefined)) {
    for (let i = 0; i < slots.length; i++) results.push(undefined);
    return { ok: true, results, remainingBudget: budgetLimit };
  }
  const budget: CostBudget = { remaining: budgetLimit };
  // a later variable of the same name wins, as kube's map of compiled variables keeps the last one; both maps are
  // made when an expression first reads a variable
  let byName: Map<string, CompiledVariable> | undefined;
  let memo: Map<string, EvalResult> | undefined;
  let outOfBudget = false;

  const ctx: EvalContext = {
    object: activation.object,
    oldObject: activation.oldObject,
    request: activation.request,
    params: activation.params,
    namespaceObject: activation.namespaceObject,
    variable: (name: string): EvalResult => {
      memo ??= new Map();
      const cached = memo.get(name);
      if (cached) return cached;
      byName ??= new Map(variables.map((v) => [v.name, v] as const));
      const v = byName.get(name);
      let r: EvalResult;
      if (!v) r = { ok: false, kind: 'runtime', error: `no such key: ${name}` };
      else if (!v.slot.compiled.ok) r = { ok: false, kind: 'runtime', error: `composited variable ${JSON.stringify(name)} fails to compile: ${v.slot.compiled.error}` };
      else {
        const res = v.slot.compiled.program.evaluate(ctx, budget);
        if (res.ok) r = res;
        else if (res.kind === 'budget') {
          outOfBudget = true;
          r = res;
        } else r = { ok: false, kind: 'runtime', error: `composited variable ${JSON.stringify(name)} fails to evaluate: ${res.error}` };
      }
      memo.set(name, r);
      return r;
    },
  };
  if (opts.authorizer && activation.authorizer) ctx.authorizer = activation.authorizer;

  for (const slot of slots) {
    if (!slot) {
      results.push(undefined);
      continue;
    }
    if (!slot.compiled.ok) {
      results.push({ ok: false, expression: slot.expression, error: `compilation error: ${slot.compiled.error}`, elapsedSeconds: 0 });
      continue;
    }
    const t = now();
    const res = slot.compiled.program.evaluate(ctx, budget);
    const elapsedSeconds = secondsSince(t);
    if (outOfBudget || budget.remaining < 0 || (!res.ok && res.kind === 'budget')) return { ok: false, error: outOfBudgetMessage };
    if (res.ok) results.push({ ok: true, expression: slot.expression, value: res.value, elapsedSeconds });
    else results.push({ ok: false, expression: slot.expression, error: `expression '${slot.expression}' resulted in error: ${res.error}`, elapsedSeconds });
  }
  return { ok: true, results, remainingBudget: budget.remaining };
}

/** The runtime budget of each (policy, binding, param) evaluation. */
export const runtimeCostBudget = celLimits.runtimeCostBudget;

/** utilerrors.NewAggregate(...).Error(): duplicates dropped, one message bare, several in brackets. */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** The CEL type name of an evaluation result, for kube's "unsupported return type" messages. */
export function celTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null_type';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  return 'map';
}
