// Compiles and evaluates expressions with the Kubernetes libraries on the real engine, for the library tests:
// the tables of kube's own library tests run through the same checker and interpreter as policies do.
import { CelEngineEnv } from '../engine/env.js';
import { CelError, toJSON, type CelResult, type CelValue } from '../engine/values.js';
import type { CelType } from '../engine/types.js';
import { KUBERNETES_VALIDATORS } from '../engine/validators.js';
import { kubernetesLibraries } from './index.js';

// kube's library tests (cost_test.go testCost, …) build an environment of the libraries alone, without the base
// environment's AST validators; `evaluateInBaseEnvironment` adds those (environment.MustBaseEnvSet).
const env = new CelEngineEnv({ libraries: kubernetesLibraries });
const baseEnv = new CelEngineEnv({ libraries: kubernetesLibraries, validators: KUBERNETES_VALIDATORS });

export interface Evaluation {
  /** the compile error, as kube-apiserver prints it */
  compileError?: string;
  value?: CelResult;
  cost?: number;
  estimate?: { min: number; max: number };
}

/** Type-checks and evaluates `expr` with the given variables (declared dyn unless typed). */
export function evaluateExpression(
  expr: string,
  vars: Record<string, CelValue | { value: CelValue; type: CelType }> = {},
  engine: CelEngineEnv = env,
): Evaluation {
  const values = new Map<string, CelValue>();
  const types = new Map<string, CelType>();
  for (const [name, v] of Object.entries(vars)) {
    if (v !== null && typeof v === 'object' && 'type' in v && 'value' in v && !Array.isArray(v)) {
      values.set(name, v.value);
      types.set(name, v.type);
    } else {
      values.set(name, v as CelValue);
      types.set(name, { kind: 'dyn' });
    }
  }
  const c = engine.compile(expr, { variables: types });
  if (!c.ok) return { compileError: c.stage === 'program' ? `program instantiation failed: ${c.message}` : c.message };
  const out = c.program.evaluate({ resolve: (n) => values.get(n) }, { presenceTestHasCost: false });
  return { value: out.value, cost: out.cost, estimate: c.program.estimateCost() };
}

/** As evaluateExpression, in kube's base environment (with its homogeneous-literal, duration, timestamp and regex validators). */
export function evaluateInBaseEnvironment(expr: string, vars: Parameters<typeof evaluateExpression>[1] = {}): Evaluation {
  return evaluateExpression(expr, vars, baseEnv);
}

/** The value, or a thrown error carrying the CEL error/compile message, for concise assertions. */
export function evalValue(expr: string, vars?: Parameters<typeof evaluateExpression>[1]): CelResult {
  const r = evaluateExpression(expr, vars);
  if (r.compileError !== undefined) throw new Error(`compile error: ${r.compileError}`);
  return r.value!;
}

/** The runtime error message of an expression that must fail. */
export function evalError(expr: string, vars?: Parameters<typeof evaluateExpression>[1]): string {
  const r = evaluateExpression(expr, vars);
  if (r.compileError !== undefined) return `compile error: ${r.compileError}`;
  if (!(r.value instanceof CelError)) throw new Error(`expected an error from ${expr}, got ${JSON.stringify(toJSON(r.value as CelValue))}`);
  return r.value.message;
}
