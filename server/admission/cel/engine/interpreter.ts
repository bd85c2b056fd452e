// Tree-walking evaluation with CEL's semantics (cel-spec langdef "Evaluation"; cel-go interpreter/): errors are
// values absorbed by `&&`, `||` and `?:`, overloads are dispatched on runtime types when the checker left more
// than one candidate (dyn), and runtime cost is counted as cel-go's interpreter/runtimecost.go counts it:
// identifiers and field/index qualifiers 1, constants 0, list/map/struct literals 10/30/40, calls by overload
// (string traversal ×0.1, regex ×0.25, default 1), `&&`/`||`/`?:`/comprehensions nothing of their own.
import type { Expr } from './ast.js';
import type { CheckedExpr } from './checker.js';
import { typeNameCandidates } from './checker.js';
import { valueHasType, type CallCostHook, type FunctionRegistry, type OverloadDecl } from './functions.js';
import type { CelType } from './types.js';
import { NON_STRICT_FUNCTIONS, codePointLength, formatDouble, noSuchOverload } from './stdlib.js';
import type { ParsedExpr } from './ast.js';
import {
  CelError,
  CelOpaque,
  CelUint,
  CelMap,
  CelOptional,
  CelTypeValue,
  ObjectValue,
  isValidMapKey,
  typeNameOf,
  type CelResult,
  type CelValue,
} from './values.js';

/** cel-go's common/cost.go constants */
export const COST = {
  selectAndIdent: 1,
  listCreateBase: 10,
  mapCreateBase: 30,
  structCreateBase: 40,
  stringTraversalFactor: 0.1,
  regexStringLengthFactor: 0.25,
} as const;

export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

/** Thrown through the evaluation when the running cost passes the limit; evaluate() turns it into a result. */
export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_MESSAGE);
  }
}

/** Raised by an activation whose lazy value could not be produced for a reason that must end the evaluation. */
export class EvaluationAborted extends Error {
  constructor(
    readonly kind: 'cost' | 'budget',
    message: string,
  ) {
    super(message);
  }
}

/** Supplies variable values by (qualified) name; undefined when the variable is not bound. */
export interface Activation {
  resolve(name: string): CelResult | undefined;
}

export interface EvalOptions {
  /** cancel with "operation cancelled: actual cost limit exceeded" once the cost passes this */
  costLimit?: number;
  /**
   * Whether `has(a.b)` pays for its select. cel-go's default is true; kube-apiserver turns it off
   * (PresenceTestHasCost(false)) for expressions it evaluates.
   */
  presenceTestHasCost?: boolean;
  container?: string;
}

export interface EvalOutcome {
  value: CelResult;
  cost: number;
  /** set when evaluation was cancelled */
  cancelled?: { kind: 'cost' | 'budget'; message: string };
}

export interface Program {
  readonly parsed: ParsedExpr;
  readonly checked?: CheckedExpr;
  readonly registry: FunctionRegistry;
}

export function evaluate(program: Program, activation: Activation, opts: EvalOptions = {}): EvalOutcome {
  const ev = new Evaluator(program, activation, opts);
  try {
    const value = ev.eval(program.parsed.expr);
    return { value, cost: ev.cost };
  } catch (e) {
    if (e instanceof CostLimitExceeded) return { value: new CelError(e.message), cost: ev.cost, cancelled: { kind: 'cost', message: e.message } };
    if (e instanceof EvaluationAborted) return { value: new CelError(e.message), cost: ev.cost, cancelled: { kind: e.kind, message: e.message } };
    if (e instanceof RangeError && /call stack/i.test(e.message)) return { value: new CelError('max recursion depth exceeded'), cost: ev.cost };
    throw e;
  }
}

/** CEL size of a value for cost purposes (cel-go actualSize: Sizer values, else 1). */
export function actualSize(v: CelValue): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  return 1;
}

/** cel-go's CostTracker.costCall for the standard overloads. */
export function standardCallCost(overloadId: string, args: readonly CelValue[]): number {
  return standardCallCostOf(overloadId)(args[0]!, args[1]!);
}

/** The runtime cost of one call of a standard overload, from its (at most two priced) arguments. */
export type StandardCallCost = (a0: CelValue, a1: CelValue) => number;

const tf = COST.stringTraversalFactor;
const costOne: StandardCallCost = () => 1;
const costTraverseFirst: StandardCallCost = (a0) => Math.ceil(actualSize(a0) * tf);
const costSizeOfSecond: StandardCallCost = (_a0, a1) => actualSize(a1);
const costTraverseSmaller: StandardCallCost = (a0, a1) => Math.ceil(Math.min(actualSize(a0), actualSize(a1)) * tf);
const costTraverseBoth: StandardCallCost = (a0, a1) => Math.ceil((actualSize(a0) + actualSize(a1)) * tf);
const costMatches: StandardCallCost = (a0, a1) => {
  const strCost = Math.ceil((1 + actualSize(a0)) * tf);
  const regexCost = Math.ceil(actualSize(a1) * COST.regexStringLengthFactor);
  return strCost * regexCost;
};
const costContains: StandardCallCost = (a0, a1) => Math.ceil(actualSize(a0) * tf) * Math.ceil(actualSize(a1) * tf);

/**
 * cel-go's CostTracker.costCall rule of one standard overload, chosen once (compiled programs choose it per call
 * node; the interpreter per call). Only the first two arguments are ever priced.
 */
export function standardCallCostOf(overloadId: string): StandardCallCost {
  switch (overloadId) {
    case 'starts_with_string':
    case 'ends_with_string':
    case 'string_to_bytes':
    case 'bytes_to_string':
      return costTraverseFirst;
    case 'in_list':
      return costSizeOfSecond;
    case 'less_string':
    case 'greater_string':
    case 'less_equals_string':
    case 'greater_equals_string':
    case 'less_bytes':
    case 'greater_bytes':
    case 'less_equals_bytes':
    case 'greater_equals_bytes':
    case 'equals':
    case 'not_equals':
      return costTraverseSmaller;
    case 'add_string':
    case 'add_bytes':
      return costTraverseBoth;
    case 'matches':
    case 'matches_string':
      return costMatches;
    case 'contains_string':
      return costContains;
    default:
      return costOne;
  }
}

export const TYPE_VALUE_NAMES = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'null_type',
  'list',
  'map',
  'type',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'optional_type',
]);

/** overload.impl(...args) without a spread for the usual arities (spread calls showed in evaluation profiles) */
export function callImpl(o: OverloadDecl, args: readonly CelValue[]): CelResult {
  switch (args.length) {
    case 0:
      return o.impl();
    case 1:
      return o.impl(args[0]!);
    case 2:
      return o.impl(args[0]!, args[1]!);
    case 3:
      return o.impl(args[0]!, args[1]!, args[2]!);
    default:
      return o.impl(...args);
  }
}

/** An overload with its receiver-first parameter list, built once rather than at every call. */
interface DispatchCandidate {
  readonly overload: OverloadDecl;
  readonly params: readonly CelType[];
}

/** overload candidates per call node (by node id, for the function name it resolved to), computed once per program */
const dispatchCache = new WeakMap<Program, Map<number, DispatchEntry>>();

interface DispatchEntry {
  readonly name: string;
  readonly candidates: readonly DispatchCandidate[];
}

class Evaluator {
  cost = 0;
  private readonly limit: number;
  private readonly presenceCost: number;
  private scopes: Map<string, CelResult>[] = [];
  /** this program's entry of dispatchCache, looked up once per evaluation rather than once per call */
  private dispatchByNode: Map<number, DispatchEntry> | undefined;

  constructor(
    private readonly program: Program,
    private readonly activation: Activation,
    private readonly opts: EvalOptions,
  ) {
    this.limit = opts.costLimit ?? Infinity;
    this.presenceCost = opts.presenceTestHasCost === false ? 0 : COST.selectAndIdent;
  }

  private charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CostLimitExceeded();
  }

  private local(name: string): CelResult | undefined {
    // one lookup per scope: scopes hold CelResults, never undefined, so a miss is undefined
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const v = this.scopes[i]!.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  private resolveName(name: string): CelResult | undefined {
    for (const cand of typeNameCandidates(name, this.opts.container)) {
      const v = this.activation.resolve(cand);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  private typeValue(name: string): CelTypeValue | undefined {
    for (const cand of typeNameCandidates(name, this.opts.container)) {
      if (TYPE_VALUE_NAMES.has(cand) || this.program.registry.opaqueTypes.has(cand) || this.program.registry.objectTypes.has(cand)) {
        return new CelTypeValue(cand);
      }
    }
    return undefined;
  }

  private qualifiedName(e: Expr): string | undefined {
    if (e.kind === 'ident') return e.name;
    if (e.kind === 'select' && !e.testOnly) {
      const p = this.qualifiedName(e.operand);
      return p === undefined ? undefined : `${p}.${e.field}`;
    }
    return undefined;
  }

  eval(e: Expr): CelResult {
    switch (e.kind) {
      case 'const':
        return e.value;
      case 'ident': {
        this.charge(COST.selectAndIdent);
        const l = this.local(e.name);
        if (l !== undefined) return l;
        const checked = this.program.checked;
        const ref = checked?.varRefs.get(e.id);
        if (ref !== undefined) {
          const v = this.activation.resolve(ref);
          return v !== undefined ? v : new CelError(`no such attribute: ${ref}`);
        }
        const tref = checked?.typeRefs.get(e.id);
        if (tref !== undefined) return new CelTypeValue(tref);
        const v = this.resolveName(e.name);
        if (v !== undefined) return v;
        const t = this.typeValue(e.name);
        if (t) return t;
        return new CelError(`undeclared reference to '${e.name}' (in container '${this.opts.container ?? ''}')`);
      }
      case 'select':
        return this.evalSelect(e);
      case 'call':
        return this.evalCall(e);
      case 'list': {
        const out: CelValue[] = [];
        for (let i = 0; i < e.elems.length; i++) {
          const v = this.eval(e.elems[i]!);
          if (v instanceof CelError) return v;
          if (e.optionalIndices.includes(i)) {
            if (!(v instanceof CelOptional)) return noSuchOverload('optional list element');
            if (v.hasValue()) out.push(v.value);
            continue;
          }
          out.push(v);
        }
        this.charge(COST.listCreateBase);
        return out;
      }
      case 'map': {
        const m = new CelMap();
        for (const ent of e.entries) {
          const k = this.eval(ent.key);
          if (k instanceof CelError) return k;
          const v = this.eval(ent.value);
          if (v instanceof CelError) return v;
          const failed = addMapEntry(m, k, v, ent.optional);
          if (failed) return failed;
        }
        this.charge(COST.mapCreateBase);
        return m;
      }
      case 'struct': {
        const name = this.program.checked?.fnNames.get(e.id) ?? this.structName(e.typeName);
        if (!name) return new CelError(`unknown type: ${e.typeName}`);
        const fields = new Map<string, CelValue>();
        for (const f of e.fields) {
          const v = this.eval(f.value);
          if (v instanceof CelError) return v;
          if (f.optional) {
            if (!(v instanceof CelOptional)) return noSuchOverload('optional field');
            if (v.hasValue()) fields.set(f.field, v.value);
            continue;
          }
          fields.set(f.field, v);
        }
        this.charge(COST.structCreateBase);
        return new ObjectValue(name, fields);
      }
      case 'comprehension':
        return this.evalComprehension(e);
    }
  }

  private structName(name: string): string | undefined {
    for (const cand of typeNameCandidates(name, this.opts.container)) if (this.program.registry.objectType(cand)) return cand;
    return undefined;
  }

  private evalSelect(e: Extract<Expr, { kind: 'select' }>): CelResult {
    const checked = this.program.checked;
    if (checked) {
      const ref = checked.varRefs.get(e.id);
      if (ref !== undefined) {
        this.charge(COST.selectAndIdent);
        {
          const v = this.activation.resolve(ref);
          return v !== undefined ? v : new CelError(`no such attribute: ${ref}`);
        }
      }
      const tref = checked.typeRefs.get(e.id);
      if (tref !== undefined) {
        this.charge(COST.selectAndIdent);
        return new CelTypeValue(tref);
      }
    } else if (!e.testOnly) {
      // unchecked: a.b.c may name a variable or a type
      const q = this.qualifiedName(e);
      if (q !== undefined && this.local(q.split('.')[0]!) === undefined) {
        const v = this.resolveName(q);
        if (v !== undefined) {
          this.charge(COST.selectAndIdent);
          return v;
        }
        const root = q.split('.')[0]!;
        if (this.resolveName(root) === undefined) {
          const t = this.typeValue(q);
          if (t) {
            this.charge(COST.selectAndIdent);
            return t;
          }
        }
      }
    }
    const operand = this.eval(e.operand);
    if (operand instanceof CelError) return operand;
    if (e.testOnly) {
      this.charge(this.presenceCost);
      return presence(operand, e.field);
    }
    this.charge(COST.selectAndIdent);
    return selectField(operand, e.field);
  }

  private evalCall(e: Extract<Expr, { kind: 'call' }>): CelResult {
    const fn = e.fn;
    if (NON_STRICT_FUNCTIONS.has(fn) && !e.target) {
      switch (fn) {
        case '_&&_':
        case '_||_': {
          const stop = fn === '_||_';
          const l = this.eval(e.args[0]!);
          if (l === stop) return stop;
          const r = this.eval(e.args[1]!);
          if (r === stop) return stop;
          if (typeof l === 'boolean' && typeof r === 'boolean') return !stop;
          if (l instanceof CelError) return l;
          if (r instanceof CelError) return r;
          return noSuchOverload(fn);
        }
        case '_?_:_': {
          const c = this.eval(e.args[0]!);
          if (c instanceof CelError) return c;
          if (typeof c !== 'boolean') return noSuchOverload(fn);
          return this.eval(e.args[c ? 1 : 2]!);
        }
        case '@not_strictly_false': {
          const v = this.eval(e.args[0]!);
          this.charge(1);
          return v !== false;
        }
        case '_?._': {
          const operand = this.eval(e.args[0]!);
          if (operand instanceof CelError) return operand;
          const f = e.args[1]!;
          this.charge(COST.selectAndIdent);
          if (f.kind !== 'const' || typeof f.value !== 'string') return noSuchOverload(fn);
          return optionalField(operand, f.value);
        }
      }
    }
    // a member-style call may name a qualified global function: optional.of(x)
    let name = this.program.checked?.fnNames.get(e.id);
    let target = e.target;
    if (name !== undefined) target = undefined;
    else if (target && !this.program.checked) {
      const q = this.qualifiedName(target);
      if (q !== undefined && this.local(q.split('.')[0]!) === undefined && this.resolveName(q.split('.')[0]!) === undefined) {
        for (const cand of typeNameCandidates(`${q}.${fn}`, this.opts.container)) {
          if (this.program.registry.hasFunction(cand)) {
            name = cand;
            target = undefined;
            break;
          }
        }
      }
    }
    if (name === undefined) name = fn;
    if (!target && !this.program.checked && !this.program.registry.hasFunction(name)) {
      for (const cand of typeNameCandidates(fn, this.opts.container)) {
        if (this.program.registry.hasFunction(cand)) {
          name = cand;
          break;
        }
      }
    }
    const args: CelValue[] = [];
    let firstError: CelError | undefined;
    // receiver first, then the arguments (without building a receiver-first expression list at every call)
    for (let i = target ? -1 : 0; i < e.args.length; i++) {
      const v = this.eval(i < 0 ? target! : e.args[i]!);
      if (v instanceof CelError) {
        firstError ??= v;
        continue;
      }
      args.push(v);
    }
    if (firstError) return firstError;
    const overload = this.dispatch(e.id, name, !!target, args);
    if (!overload) {
      // cel-go plans `_[_]` as an attribute qualifier (planCallIndex), so indexing a value that is neither a list
      // nor a map reads as refQualify's missing key, and an optional index as absent
      if ((name === '_[_]' || name === '_[?_]') && args.length === 2 && !Array.isArray(args[0]) && !(args[0] instanceof CelMap)) {
        if (!(args[0] instanceof CelOptional) && !(args[0] instanceof CelOpaque) && !(args[0] instanceof ObjectValue)) {
          return name === '_[_]' ? new CelError(`no such key: ${formatQualifier(args[1]!)}`) : CelOptional.none;
        }
      }
      if (!this.program.registry.hasFunction(name)) {
        return new CelError(`undeclared reference to '${name}' (in container '${this.opts.container ?? ''}')`);
      }
      return new CelError(`no such overload: ${name}(${args.map(typeNameOf).join(', ')})`);
    }
    const result = callImpl(overload, args);
    this.charge(callCost(this.program.registry.callCosts, name, overload, args, result));
    return result;
  }

  private dispatch(id: number, name: string, member: boolean, args: CelValue[]): OverloadDecl | undefined {
    let perNode = this.dispatchByNode;
    if (!perNode) {
      perNode = dispatchCache.get(this.program);
      if (!perNode) {
        perNode = new Map();
        dispatchCache.set(this.program, perNode);
      }
      this.dispatchByNode = perNode;
    }
    let entry = perNode.get(id);
    if (entry?.name !== name) {
      const ids = this.program.checked?.overloads.get(id);
      const all = this.program.registry.overloads(name);
      // checked candidates first; then the runtime-only overloads the checker cannot see
      const overloads = ids ? [...ids.map((i) => this.program.registry.overload(i)!), ...all.filter((o) => o.runtimeOnly)] : all;
      entry = { name, candidates: overloads.map((o) => ({ overload: o, params: o.receiver ? [o.receiver, ...o.args] : o.args })) };
      perNode.set(id, entry);
    }
    for (const { overload: o, params } of entry.candidates) {
      if (!!o.receiver !== member) continue;
      if (params.length !== args.length) continue;
      let matches = true;
      for (let i = 0; i < params.length && matches; i++) matches = valueHasType(args[i]!, params[i]!);
      if (matches) return o;
    }
    return undefined;
  }

  private evalComprehension(e: Extract<Expr, { kind: 'comprehension' }>): CelResult {
    const range = this.eval(e.iterRange);
    if (range instanceof CelError) return range;
    const isList = Array.isArray(range);
    if (!isList && !(range instanceof CelMap)) {
      return new CelError(`expression of type '${typeNameOf(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
    }
    const accu = this.eval(e.accuInit);
    const scope = new Map<string, CelResult>();
    // errors may be accumulated by non-strict steps (exists absorbs them); keep them as values in scope
    let acc: CelResult = accu;
    this.scopes.push(scope);
    try {
      // one step per element; false when the loop condition ends the loop
      const step = (index: number, key: CelValue, v: CelValue): boolean => {
        scope.set(e.accuVar, acc);
        if (e.iterVar2 !== undefined) {
          scope.set(e.iterVar, isList ? BigInt(index) : key);
          scope.set(e.iterVar2, v);
        } else {
          scope.set(e.iterVar, isList ? v : key);
        }
        const cond = this.eval(e.loopCondition);
        if (cond !== true) return false;
        acc = this.eval(e.loopStep);
        return true;
      };
      if (isList) {
        // lists iterate by position without building (index, value) pairs: the index is only made for two variables
        const list = range as readonly CelValue[];
        for (let i = 0; i < list.length; i++) if (!step(i, null, list[i]!)) break;
      } else {
        for (const [k, v] of (range as CelMap).entries()) if (!step(-1, k, v)) break;
      }
      scope.delete(e.iterVar);
      if (e.iterVar2 !== undefined) scope.delete(e.iterVar2);
      scope.set(e.accuVar, acc);
      return this.eval(e.result);
    } finally {
      this.scopes.pop();
    }
  }
}


/** types.IndexOrError for an index of a kind lists do not take. */
export const unsupportedListIndex = (type: string): CelError => new CelError(`unsupported index type '${type}' in list`);

/** Go's %v of a CEL key value, as resolutionError prints "no such key: %v". */
/**
 * One entry of a map literal (the interpreter's and the compiled closures'): the error that ends the literal, or
 * undefined once the entry is in (or, optional and absent, left out).
 */
export function addMapEntry(m: CelMap, k: CelValue, v: CelValue, optional: boolean): CelError | undefined {
  if (!isValidMapKey(k)) return new CelError(`unsupported key type: ${typeNameOf(k)}`);
  let val = v;
  if (optional) {
    if (!(v instanceof CelOptional)) return noSuchOverload('optional map entry');
    if (!v.hasValue()) return undefined;
    val = v.value;
  }
  if (m.has(k)) return new CelError(`Failed with repeated key`);
  m.set(k, val);
  return undefined;
}

export function formatQualifier(v: CelValue): string {
  if (v instanceof CelUint) return v.value.toString();
  if (typeof v === 'number') return formatDouble(v);
  if (v === null) return 'NULL_VALUE';
  return String(v);
}

/**
 * cel-go refQualify for a field selection outside a presence test: a list takes no string index; any other value
 * without fields (a null `params`, a number) reports the field as a missing key, as kube shows it.
 */
export function missingField(operand: CelValue, field: string): CelError {
  if (Array.isArray(operand)) return unsupportedListIndex('string');
  return new CelError(`no such key: ${field}`);
}

export function presence(operand: CelValue, field: string): CelResult {
  if (operand instanceof CelMap) return operand.has(field);
  if (operand instanceof ObjectValue) {
    if (operand.lazyField) return operand.lazyField(field) !== undefined;
    return operand.fields.has(field);
  }
  if (operand instanceof CelOptional) return operand.hasValue() ? presence(operand.value, field) : false;
  // cel-go refQualify under a presence test: a list cannot take a string index; any other value (null `params`
  // of a policy without a binding's paramRef, a number, a string) simply lacks the field
  if (Array.isArray(operand)) return unsupportedListIndex('string');
  return false;
}

export function selectField(operand: CelValue, field: string): CelResult {
  if (operand instanceof CelMap) {
    const v = operand.get(field);
    return v === undefined ? new CelError(`no such key: ${field}`) : v;
  }
  if (operand instanceof ObjectValue) {
    const v = operand.lazyField ? operand.lazyField(field) : operand.fields.get(field);
    return v === undefined ? new CelError(`no such key: ${field}`) : v;
  }
  if (operand instanceof CelOptional) {
    if (!operand.hasValue()) return CelOptional.none;
    // selecting on an optional's value is no presence test: a value without the field is an error
    const r = optionalField(operand.value, field, false);
    return r;
  }
  return missingField(operand, field);
}

export function optionalField(operand: CelValue, field: string, presenceTest = true): CelResult {
  if (operand instanceof CelOptional) return operand.hasValue() ? optionalField(operand.value, field, presenceTest) : CelOptional.none;
  if (operand instanceof CelMap) {
    const v = operand.get(field);
    return v === undefined ? CelOptional.none : CelOptional.of(v);
  }
  if (operand instanceof ObjectValue) {
    const v = operand.lazyField ? operand.lazyField(field) : operand.fields.get(field);
    if (v instanceof CelError) return v;
    return v === undefined ? CelOptional.none : CelOptional.of(v);
  }
  // `x.?f` is a presence test: only a list fails, with its index error
  if (!presenceTest || Array.isArray(operand)) return missingField(operand, field);
  return CelOptional.none;
}

/** the runtime cost of one call: a library's callCost hook, else the overload's own, else cel-go's standard costs */
export function callCost(hooks: readonly CallCostHook[], fn: string, o: OverloadDecl, args: readonly CelValue[], result: CelResult): number {
  for (const cc of hooks) {
    const c = cc(fn, o.id, args, result);
    if (c !== undefined) return c;
  }
  if (o.cost) return o.cost(args, result);
  return standardCallCost(o.id, args);
}
