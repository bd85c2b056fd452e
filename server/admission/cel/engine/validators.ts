// cel-go's AST validators (cel/validator.go), run over a type-checked expression after the checker succeeded, as
// cel.Env.Check does. Kubernetes enables HomogeneousAggregateLiterals since its CEL epoch and, since 1.29, the
// duration, timestamp and regex literal validators (staging/src/k8s.io/apiserver/pkg/cel/environment/base.go).
import { RE2JS } from 're2js';
import type { Expr, Issue } from './ast.js';
import type { CheckedExpr } from './checker.js';
import { formatType, isOptionalType, typeEquals, type CelType } from './types.js';
import { CelError, type CelValue } from './values.js';
import { checkedDuration, checkedTimestamp, parseDuration, parseTimestamp } from './time.js';

export type AstValidatorName = 'homogeneous_literals' | 'duration' | 'timestamp' | 'matches';

/** The validators kube-apiserver's base environment installs, in the order it installs them. */
export const KUBERNETES_VALIDATORS: readonly AstValidatorName[] = Object.freeze(['homogeneous_literals', 'duration', 'timestamp', 'matches']);

/**
 * Every node, parents before children (ast.MatchDescendants visits in pre-order), appended to `into`. A plain
 * recursion: the nested generators this was (`yield*` per level) cost ≈ 13 of the ≈ 50 ms that compiling 100 static
 * policies' expressions takes at startup, each element passing through every enclosing generator.
 */
function collectDescendants(e: Expr, into: Expr[]): Expr[] {
  into.push(e);
  switch (e.kind) {
    case 'select':
      collectDescendants(e.operand, into);
      break;
    case 'call':
      if (e.target) collectDescendants(e.target, into);
      for (const a of e.args) collectDescendants(a, into);
      break;
    case 'list':
      for (const x of e.elems) collectDescendants(x, into);
      break;
    case 'map':
      for (const x of e.entries) {
        collectDescendants(x.key, into);
        collectDescendants(x.value, into);
      }
      break;
    case 'struct':
      for (const f of e.fields) collectDescendants(f.value, into);
      break;
    case 'comprehension':
      collectDescendants(e.iterRange, into);
      collectDescendants(e.accuInit, into);
      collectDescendants(e.loopCondition, into);
      collectDescendants(e.loopStep, into);
      collectDescendants(e.result, into);
      break;
  }
  return into;
}

/** checker.FormatCELType: timestamps and durations by their short names, null as `null`. */
function formatCELType(t: CelType): string {
  switch (t.kind) {
    case 'timestamp':
      return 'timestamp';
    case 'duration':
      return 'duration';
    case 'list':
      return `list(${formatCELType(t.elem)})`;
    case 'map':
      return `map(${formatCELType(t.key)}, ${formatCELType(t.value)})`;
    case 'opaque':
      return t.params.length ? `${t.name}(${t.params.map(formatCELType).join(', ')})` : t.name;
    case 'type':
      return t.param ? `type(${formatCELType(t.param)})` : 'type';
    default:
      return formatType(t);
  }
}

/** homogeneousAggregateLiteralValidator: list elements, map keys and map values of one literal share one type. */
function homogeneousLiterals(checked: CheckedExpr, nodes: readonly Expr[], report: (id: number, message: string) => void): void {
  const typeOf = (e: Expr): CelType => checked.types.get(e.id) ?? { kind: 'dyn' };
  const mismatch = (id: number, expected: CelType, actual: CelType) =>
    report(id, `expected type '${formatCELType(expected)}' but found '${formatCELType(actual)}'`);
  const unwrap = (t: CelType): CelType => (isOptionalType(t) ? t.params[0]! : t);
  for (const e of nodes) {
    if (e.kind !== 'list') continue;
    let elemType: CelType | undefined;
    for (let i = 0; i < e.elems.length; i++) {
      const x = e.elems[i]!;
      let t = typeOf(x);
      if (e.optionalIndices.includes(i)) t = unwrap(t);
      if (!elemType) {
        elemType = t;
        continue;
      }
      if (!typeEquals(elemType, t)) {
        mismatch(x.id, elemType, t);
        break;
      }
    }
  }
  for (const e of nodes) {
    if (e.kind !== 'map') continue;
    let keyType: CelType | undefined;
    let valType: CelType | undefined;
    for (const ent of e.entries) {
      const kt = typeOf(ent.key);
      let vt = typeOf(ent.value);
      if (ent.optional) vt = unwrap(vt);
      if (!keyType || !valType) {
        keyType = kt;
        valType = vt;
        continue;
      }
      if (!typeEquals(keyType, kt)) mismatch(ent.key.id, keyType, kt);
      if (!typeEquals(valType, vt)) mismatch(ent.value.id, valType, vt);
    }
  }
}

/**
 * formatValidator: a literal first argument of `duration`, `timestamp` or `matches` (the receiver is not an
 * argument, so for `s.matches(re)` it is the pattern) must evaluate / compile, else "invalid <fn> argument".
 */
function literalArguments(name: 'duration' | 'timestamp' | 'matches', nodes: readonly Expr[], report: (id: number, message: string) => void): void {
  for (const e of nodes) {
    if (e.kind !== 'call' || e.fn !== name || e.args.length === 0) continue;
    const arg = e.args[0]!;
    if (arg.kind !== 'const') continue;
    let ok: boolean;
    if (name === 'matches') ok = typeof arg.value === 'string' && compiles(arg.value);
    else if (e.target || e.args.length !== 1) ok = false;
    else ok = !(evaluateConversion(name, arg.value) instanceof CelError);
    if (!ok) report(arg.id, `invalid ${name} argument`);
  }
}

/** evalCall: the conversion the call performs on its literal (string or int seconds / nanoseconds). */
function evaluateConversion(name: 'duration' | 'timestamp', v: CelValue): unknown {
  if (typeof v === 'string') return name === 'duration' ? parseDuration(v) : parseTimestamp(v);
  if (typeof v === 'bigint') return name === 'duration' ? checkedDuration(v) : checkedTimestamp(v * 1_000_000_000n);
  // a literal of another kind has no overload: the evaluation fails
  return new CelError('no such overload');
}

/** Go's regexp.Compile (RE2 syntax). */
export function compiles(pattern: string): boolean {
  try {
    RE2JS.compile(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Runs the validators over a checked expression; the issues carry source offsets like the checker's. */
export function validateAst(checked: CheckedExpr, validators: readonly AstValidatorName[]): Issue[] {
  if (validators.length === 0) return [];
  const issues: Issue[] = [];
  const nodes = collectDescendants(checked.parsed.expr, []);
  const report = (id: number, message: string) => issues.push({ offset: checked.parsed.positions.get(id) ?? -1, message });
  for (const v of validators) {
    if (v === 'homogeneous_literals') homogeneousLiterals(checked, nodes, report);
    else literalArguments(v, nodes, report);
  }
  return issues;
}
