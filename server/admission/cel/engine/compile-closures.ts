// A checked expression compiled once into a tree of JavaScript closures (cel-go plans its AST into Interpretable
// nodes the same way, interpreter/planner.go): what the tree-walking interpreter decides at every evaluation —
// which node kind, which variable a name refers to, which overloads a call may dispatch to, which scope holds a
// comprehension variable — is decided here once per program. The semantics are the interpreter's, node for node
// (interpreter.ts stays the reference, and compile-closures.test.ts compares the two on results, errors and costs):
// the same error absorption, the same runtime cost at the same points, the same error texts. Unchecked programs
// are not compiled (they resolve names at run time); the caller evaluates them with the interpreter.
import type { Comprehension, Expr } from './ast.js';
import type { CheckedExpr } from './checker.js';
import { typeNameCandidates } from './checker.js';
import { valueHasType, type FunctionRegistry, type OverloadDecl } from './functions.js';
import { T, type CelType } from './types.js';
import { NON_STRICT_FUNCTIONS, noSuchOverload } from './stdlib.js';
import {
  COST,
  CostLimitExceeded,
  EvaluationAborted,
  TYPE_VALUE_NAMES,
  addMapEntry,
  callCost,
  callImpl,
  standardCallCostOf,
  formatQualifier,
  optionalField,
  presence,
  selectField,
  type Activation,
  type EvalOptions,
  type EvalOutcome,
  type Program,
} from './interpreter.js';
import { CelError, CelMap, CelOpaque, CelOptional, CelTypeValue, ObjectValue, typeNameOf, type CelResult, type CelValue } from './values.js';

/**
 * The state of one evaluation: the running cost, the activation, and one slot per comprehension variable. A
 * program keeps the frame of its last finished evaluation and reuses it (see ClosureProgram.spare).
 */
interface Frame {
  cost: number;
  limit: number;
  presenceCost: number;
  activation: Activation;
  readonly slots: CelResult[];
}

type Node = (f: Frame) => CelResult;

function charge(f: Frame, n: number): void {
  f.cost += n;
  if (f.cost > f.limit) throw new CostLimitExceeded();
}

/** A program compiled to closures, for one container (the names it resolves at run time depend on it). */
export interface ClosureProgram {
  readonly root: Node;
  readonly slotCount: number;
  /**
   * The frame of the last finished evaluation, taken by the next one (undefined while an evaluation holds it, so a
   * nested evaluation of the same program gets its own): a frame per evaluation was a third of what one allocated.
   */
  spare: Frame | undefined;
}

/** Compiles a checked program; undefined for an unchecked one (the interpreter evaluates those). */
export function compileClosures(program: Program, container: string | undefined): ClosureProgram | undefined {
  const checked = program.checked;
  if (!checked) return undefined;
  const c = new ClosureCompiler(program, checked, container);
  const root = c.compile(program.parsed.expr, undefined);
  return { root, slotCount: c.slotCount, spare: undefined };
}

/** what a frame at rest refers to instead of the last evaluation's activation (which it must not keep alive) */
const NO_ACTIVATION: Activation = { resolve: () => undefined };

/** Evaluates a compiled program exactly as interpreter.evaluate() evaluates its source program. */
export function evaluateClosures(compiled: ClosureProgram, activation: Activation, opts: EvalOptions): EvalOutcome {
  const limit = opts.costLimit ?? Infinity;
  const presenceCost = opts.presenceTestHasCost === false ? 0 : COST.selectAndIdent;
  let f = compiled.spare;
  if (f !== undefined) {
    compiled.spare = undefined;
    f.cost = 0;
    f.limit = limit;
    f.presenceCost = presenceCost;
    f.activation = activation;
  } else {
    const slots: CelResult[] = compiled.slotCount === 0 ? EMPTY_SLOTS : new Array<CelResult>(compiled.slotCount).fill(null);
    f = { cost: 0, limit, presenceCost, activation, slots };
  }
  try {
    const value = compiled.root(f);
    return { value, cost: f.cost };
  } catch (e) {
    if (e instanceof CostLimitExceeded) return { value: new CelError(e.message), cost: f.cost, cancelled: { kind: 'cost', message: e.message } };
    if (e instanceof EvaluationAborted) return { value: new CelError(e.message), cost: f.cost, cancelled: { kind: e.kind, message: e.message } };
    if (e instanceof RangeError && /call stack/i.test(e.message)) return { value: new CelError('max recursion depth exceeded'), cost: f.cost };
    throw e;
  } finally {
    // the frame at rest holds nothing of this evaluation
    f.activation = NO_ACTIVATION;
    const slots = f.slots;
    for (let i = 0; i < slots.length; i++) slots[i] = null;
    compiled.spare = f;
  }
}

const EMPTY_SLOTS: CelResult[] = [];

/** The comprehension variables visible at a point of the tree: name → slot, innermost scope first. */
interface Scope {
  readonly names: ReadonlyMap<string, number>;
  readonly parent: Scope | undefined;
}

function lookupSlot(scope: Scope | undefined, name: string): number | undefined {
  for (let s = scope; s; s = s.parent) {
    const slot = s.names.get(name);
    if (slot !== undefined) return slot;
  }
  return undefined;
}

interface Candidate {
  readonly overload: OverloadDecl;
  readonly params: readonly CelType[];
}

class ClosureCompiler {
  slotCount = 0;

  constructor(
    private readonly program: Program,
    private readonly checked: CheckedExpr,
    private readonly container: string | undefined,
  ) {}

  compile(e: Expr, scope: Scope | undefined): Node {
    switch (e.kind) {
      case 'const': {
        const value = e.value;
        return () => value;
      }
      case 'ident':
        return this.ident(e, scope);
      case 'select':
        return this.select(e, scope);
      case 'call':
        return this.call(e, scope);
      case 'list':
        return this.list(e, scope);
      case 'map':
        return this.map(e, scope);
      case 'struct':
        return this.struct(e, scope);
      case 'comprehension':
        return this.comprehension(e, scope);
    }
  }

  private ident(e: Extract<Expr, { kind: 'ident' }>, scope: Scope | undefined): Node {
    const slot = lookupSlot(scope, e.name);
    if (slot !== undefined) {
      // a comprehension variable is set before any expression of its scope runs
      return (f) => {
        charge(f, COST.selectAndIdent);
        return f.slots[slot]!;
      };
    }
    const ref = this.checked.varRefs.get(e.id);
    if (ref !== undefined) return this.variable(ref);
    const tref = this.checked.typeRefs.get(e.id);
    if (tref !== undefined) {
      return (f) => {
        charge(f, COST.selectAndIdent);
        return new CelTypeValue(tref);
      };
    }
    // names the checker left unresolved: the interpreter's run-time resolution, in its order
    const candidates = typeNameCandidates(e.name, this.container);
    const typeName = this.typeValueName(e.name);
    const undeclared = `undeclared reference to '${e.name}' (in container '${this.container ?? ''}')`;
    return (f) => {
      charge(f, COST.selectAndIdent);
      for (const cand of candidates) {
        const v = f.activation.resolve(cand);
        if (v !== undefined) return v;
      }
      if (typeName !== undefined) return new CelTypeValue(typeName);
      return new CelError(undeclared);
    };
  }

  /** a variable the checker resolved, read from the activation at each evaluation */
  private variable(ref: string): Node {
    const missing = `no such attribute: ${ref}`;
    return (f) => {
      charge(f, COST.selectAndIdent);
      const v = f.activation.resolve(ref);
      return v !== undefined ? v : new CelError(missing);
    };
  }

  private typeValueName(name: string): string | undefined {
    const registry = this.program.registry;
    for (const cand of typeNameCandidates(name, this.container)) {
      if (TYPE_VALUE_NAMES.has(cand) || registry.opaqueTypes.has(cand) || registry.objectTypes.has(cand)) return cand;
    }
    return undefined;
  }

  private select(e: Extract<Expr, { kind: 'select' }>, scope: Scope | undefined): Node {
    const ref = this.checked.varRefs.get(e.id);
    if (ref !== undefined) return this.variable(ref);
    const tref = this.checked.typeRefs.get(e.id);
    if (tref !== undefined) {
      return (f) => {
        charge(f, COST.selectAndIdent);
        return new CelTypeValue(tref);
      };
    }
    const operand = this.compile(e.operand, scope);
    const field = e.field;
    if (e.testOnly) {
      return (f) => {
        const v = operand(f);
        if (v instanceof CelError) return v;
        charge(f, f.presenceCost);
        return presence(v, field);
      };
    }
    return (f) => {
      const v = operand(f);
      if (v instanceof CelError) return v;
      charge(f, COST.selectAndIdent);
      // the common case inline: a field of a (lazy JSON) map
      if (v instanceof CelMap) {
        const r = v.get(field);
        return r === undefined ? new CelError(`no such key: ${field}`) : r;
      }
      return selectField(v, field);
    };
  }

  private call(e: Extract<Expr, { kind: 'call' }>, scope: Scope | undefined): Node {
    const fn = e.fn;
    if (NON_STRICT_FUNCTIONS.has(fn) && !e.target) {
      const special = this.nonStrict(e, scope);
      if (special) return special;
    }
    // a member-style call may name a qualified global function (optional.of(x)): the checker recorded the name
    let name = this.checked.fnNames.get(e.id);
    let target = e.target;
    if (name !== undefined) target = undefined;
    else name = fn;
    const fnName = name;
    const member = !!target;
    const argNodes = (target ? [target, ...e.args] : [...e.args]).map((a) => this.compile(a, scope));
    const arity = argNodes.length;
    const candidates = this.candidates(e.id, fnName).filter((c) => !!c.overload.receiver === member && c.params.length === arity);
    const registry = this.program.registry;
    // only the library cost hooks that can price this function (the interpreter asks all; the others answer nothing)
    const costHooks = registry.callCostsFor(fnName);
    const declared = registry.hasFunction(fnName);
    const undeclared = `undeclared reference to '${fnName}' (in container '${this.container ?? ''}')`;
    const isIndex = fnName === '_[_]' || fnName === '_[?_]';
    const noMatch = (args: readonly CelValue[]): CelResult => {
      // cel-go plans `_[_]` as an attribute qualifier (planCallIndex), so indexing a value that is neither a list
      // nor a map reads as refQualify's missing key, and an optional index as absent (as the interpreter)
      if (isIndex && args.length === 2 && !Array.isArray(args[0]) && !(args[0] instanceof CelMap)) {
        if (!(args[0] instanceof CelOptional) && !(args[0] instanceof CelOpaque) && !(args[0] instanceof ObjectValue)) {
          return fnName === '_[_]' ? new CelError(`no such key: ${formatQualifier(args[1]!)}`) : CelOptional.none;
        }
      }
      if (!declared) return new CelError(undeclared);
      return new CelError(`no such overload: ${fnName}(${args.map(typeNameOf).join(', ')})`);
    };
    // one and two arguments (nearly every call) are passed as they are, without an argument array
    if (arity === 1 || arity === 2) {
      const fixed = candidates.map((c) => fixedArityCandidate(c, arity, registry, fnName));
      const a0 = argNodes[0]!;
      const a1 = arity === 2 ? argNodes[1]! : undefined;
      return (f) => {
        // every argument is evaluated (and charged) even after an error; the first error is the result
        const v0 = a0(f);
        const v1 = a1 === undefined ? null : a1(f);
        if (v0 instanceof CelError) return v0;
        if (v1 instanceof CelError) return v1;
        for (let c = 0; c < fixed.length; c++) {
          const cand = fixed[c]!;
          if (!valueHasType(v0, cand.p0) || (a1 !== undefined && !valueHasType(v1, cand.p1))) continue;
          const result = a1 === undefined ? cand.impl(v0) : cand.impl(v0, v1);
          charge(f, cand.cost(v0, v1, result));
          return result;
        }
        return noMatch(a1 === undefined ? [v0] : [v0, v1]);
      };
    }
    const finish = (f: Frame, args: CelValue[]): CelResult => {
      let overload: OverloadDecl | undefined;
      for (let c = 0; c < candidates.length; c++) {
        const { overload: o, params } = candidates[c]!;
        let matches = true;
        for (let i = 0; i < params.length && matches; i++) matches = valueHasType(args[i]!, params[i]!);
        if (matches) {
          overload = o;
          break;
        }
      }
      if (!overload) return noMatch(args);
      const result = callImpl(overload, args);
      charge(f, callCost(costHooks, fnName, overload, args, result));
      return result;
    };
    return (f) => {
      const args: CelValue[] = [];
      let firstError: CelError | undefined;
      for (let i = 0; i < arity; i++) {
        const v = argNodes[i]!(f);
        if (v instanceof CelError) {
          firstError ??= v;
          continue;
        }
        args.push(v);
      }
      if (firstError) return firstError;
      return finish(f, args);
    };
  }

  /** The interpreter's candidate list for a call node: the checked overloads first, then the runtime-only ones. */
  private candidates(id: number, name: string): Candidate[] {
    const registry = this.program.registry;
    const ids = this.checked.overloads.get(id);
    const all = registry.overloads(name);
    const overloads = ids ? [...ids.map((i) => registry.overload(i)!), ...all.filter((o) => o.runtimeOnly)] : all;
    return overloads.map((o) => ({ overload: o, params: o.receiver ? [o.receiver, ...o.args] : o.args }));
  }

  private nonStrict(e: Extract<Expr, { kind: 'call' }>, scope: Scope | undefined): Node | undefined {
    const fn = e.fn;
    switch (fn) {
      case '_&&_':
      case '_||_': {
        const stop = fn === '_||_';
        const left = this.compile(e.args[0]!, scope);
        const right = this.compile(e.args[1]!, scope);
        return (f) => {
          const l = left(f);
          if (l === stop) return stop;
          const r = right(f);
          if (r === stop) return stop;
          if (typeof l === 'boolean' && typeof r === 'boolean') return !stop;
          if (l instanceof CelError) return l;
          if (r instanceof CelError) return r;
          return noSuchOverload(fn);
        };
      }
      case '_?_:_': {
        const cond = this.compile(e.args[0]!, scope);
        const yes = this.compile(e.args[1]!, scope);
        const no = this.compile(e.args[2]!, scope);
        return (f) => {
          const c = cond(f);
          if (c instanceof CelError) return c;
          if (typeof c !== 'boolean') return noSuchOverload(fn);
          return c ? yes(f) : no(f);
        };
      }
      case '@not_strictly_false': {
        const arg = this.compile(e.args[0]!, scope);
        return (f) => {
          const v = arg(f);
          charge(f, 1);
          return v !== false;
        };
      }
      case '_?._': {
        const operand = this.compile(e.args[0]!, scope);
        const fe = e.args[1]!;
        const field = fe.kind === 'const' && typeof fe.value === 'string' ? fe.value : undefined;
        return (f) => {
          const v = operand(f);
          if (v instanceof CelError) return v;
          charge(f, COST.selectAndIdent);
          if (field === undefined) return noSuchOverload(fn);
          return optionalField(v, field);
        };
      }
    }
    return undefined;
  }

  private list(e: Extract<Expr, { kind: 'list' }>, scope: Scope | undefined): Node {
    const elems = e.elems.map((x) => this.compile(x, scope));
    const optional = e.elems.map((_, i) => e.optionalIndices.includes(i));
    const anyOptional = optional.includes(true);
    return (f) => {
      const out: CelValue[] = [];
      for (let i = 0; i < elems.length; i++) {
        const v = elems[i]!(f);
        if (v instanceof CelError) return v;
        if (anyOptional && optional[i]) {
          if (!(v instanceof CelOptional)) return noSuchOverload('optional list element');
          if (v.hasValue()) out.push(v.value);
          continue;
        }
        out.push(v);
      }
      charge(f, COST.listCreateBase);
      return out;
    };
  }

  private map(e: Extract<Expr, { kind: 'map' }>, scope: Scope | undefined): Node {
    const entries = e.entries.map((ent) => ({ key: this.compile(ent.key, scope), value: this.compile(ent.value, scope), optional: ent.optional }));
    return (f) => {
      const m = new CelMap();
      for (const ent of entries) {
        const k = ent.key(f);
        if (k instanceof CelError) return k;
        const v = ent.value(f);
        if (v instanceof CelError) return v;
        const failed = addMapEntry(m, k, v, ent.optional);
        if (failed) return failed;
      }
      charge(f, COST.mapCreateBase);
      return m;
    };
  }

  private struct(e: Extract<Expr, { kind: 'struct' }>, scope: Scope | undefined): Node {
    const name = this.checked.fnNames.get(e.id) ?? this.structName(e.typeName);
    const fields = e.fields.map((fl) => ({ field: fl.field, value: this.compile(fl.value, scope), optional: fl.optional }));
    if (!name) {
      const unknown = `unknown type: ${e.typeName}`;
      return () => new CelError(unknown);
    }
    return (f) => {
      const out = new Map<string, CelValue>();
      for (const fl of fields) {
        const v = fl.value(f);
        if (v instanceof CelError) return v;
        if (fl.optional) {
          if (!(v instanceof CelOptional)) return noSuchOverload('optional field');
          if (v.hasValue()) out.set(fl.field, v.value);
          continue;
        }
        out.set(fl.field, v);
      }
      charge(f, COST.structCreateBase);
      return new ObjectValue(name, out);
    };
  }

  private structName(name: string): string | undefined {
    for (const cand of typeNameCandidates(name, this.container)) if (this.program.registry.objectType(cand)) return cand;
    return undefined;
  }

  private comprehension(e: Comprehension, scope: Scope | undefined): Node {
    const range = this.compile(e.iterRange, scope);
    const accuInit = this.compile(e.accuInit, scope);
    // the interpreter's one scope map per comprehension: the same name set twice is one variable
    const loopNames = new Map<string, number>();
    const slotOf = (name: string): number => {
      let s = loopNames.get(name);
      if (s === undefined) loopNames.set(name, (s = this.slotCount++));
      return s;
    };
    const accuSlot = slotOf(e.accuVar);
    const iterSlot = slotOf(e.iterVar);
    const iter2Slot = e.iterVar2 !== undefined ? slotOf(e.iterVar2) : -1;
    const loopScope: Scope = { names: loopNames, parent: scope };
    const cond = this.compile(e.loopCondition, loopScope);
    const step = this.compile(e.loopStep, loopScope);
    // the result sees the accumulator only: the iteration variables are gone (an outer one of the same name shows)
    const resultNames = new Map<string, number>();
    for (const [n, s] of loopNames) if (n === e.accuVar || (n !== e.iterVar && n !== e.iterVar2)) resultNames.set(n, s);
    const result = this.compile(e.result, { names: resultNames, parent: scope });
    const twoVars = e.iterVar2 !== undefined;
    return (f) => {
      const r = range(f);
      if (r instanceof CelError) return r;
      const isList = Array.isArray(r);
      if (!isList && !(r instanceof CelMap)) {
        return new CelError(`expression of type '${typeNameOf(r)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
      }
      const slots = f.slots;
      // a nested evaluation of the same node (none today: a node is not re-entered) would share these slots
      let acc: CelResult = accuInit(f);
      if (isList) {
        const list = r as readonly CelValue[];
        for (let i = 0; i < list.length; i++) {
          slots[accuSlot] = acc;
          if (twoVars) {
            slots[iterSlot] = BigInt(i);
            slots[iter2Slot] = list[i]!;
          } else slots[iterSlot] = list[i]!;
          if (cond(f) !== true) break;
          acc = step(f);
        }
      } else {
        for (const [k, v] of (r as CelMap).entries()) {
          slots[accuSlot] = acc;
          slots[iterSlot] = k;
          if (twoVars) slots[iter2Slot] = v;
          if (cond(f) !== true) break;
          acc = step(f);
        }
      }
      slots[accuSlot] = acc;
      return result(f);
    };
  }
}

/** An overload of a one- or two-argument call node: its parameter types, implementation and runtime cost. */
interface FixedArityCandidate {
  readonly p0: CelType;
  /** dyn for a one-argument call (never tested) */
  readonly p1: CelType;
  readonly impl: OverloadDecl['impl'];
  /** the call's runtime cost, as callCost() prices it */
  readonly cost: (v0: CelValue, v1: CelValue, result: CelResult) => number;
}

function fixedArityCandidate(c: Candidate, arity: 1 | 2, registry: FunctionRegistry, fnName: string): FixedArityCandidate {
  const o = c.overload;
  // callCost() without hooks or an overload cost is cel-go's standard rule for the overload, chosen here once
  const standard = o.cost === undefined ? standardCallCostOf(o.id) : undefined;
  const hooks = registry.callCostsFor(fnName);
  // hooks that price only library values (`==` on IPs, quantities, …) are skipped when the first argument is not one
  const hooksUnlessOpaque = registry.callCostsFor(fnName, 'other');
  let cost: FixedArityCandidate['cost'];
  if (standard !== undefined && hooks.length === 0) cost = standard;
  else {
    // hooks and overload costs take the argument list; one list per node, refilled per call (they do not keep it)
    const args: CelValue[] = arity === 1 ? [null] : [null, null];
    cost = (v0, v1, result) => {
      const asked = v0 instanceof CelOpaque ? hooks : hooksUnlessOpaque;
      if (standard !== undefined && asked.length === 0) return standard(v0, v1);
      args[0] = v0;
      if (arity === 2) args[1] = v1;
      const n = callCost(asked, fnName, o, args, result);
      args.fill(null);
      return n;
    };
  }
  return { p0: c.params[0]!, p1: arity === 2 ? c.params[1]! : T.dyn, impl: o.impl, cost };
}
