// Static cost estimation over a checked program (cel-go checker/cost.go): the same per-node costs the runtime
// tracker charges, with the sizes of strings, bytes, lists and maps taken, in cel-go's order, from what the
// expression itself computes (literals, concatenations, comprehension results), from the embedder's size hook
// for values reached by a field path from a variable (kube's sizeEstimator over the OpenAPI schema:
// ['self', 'spec', 'items', '@items']), from the type (scalars have size 1), or else from `maxSize`.
import { ACCUMULATOR, type Expr } from './ast.js';
import type { CallEstimateInput, CostEstimate, SizeEstimate } from './functions.js';
import { COST, type Program } from './interpreter.js';
import type { CelType } from './types.js';

/** cel-go saturates costs and sizes at math.MaxUint64 */
export const MAX_COST = 18446744073709551615;

export interface CostEstimatorOptions {
  /**
   * Size of values the estimator cannot bound (cel-go: math.MaxUint64). Default: kube's 3 MiB request limit, the
   * bound kube-apiserver's admission estimators use for JSON-derived `dyn` values.
   */
  maxSize?: number;
  presenceTestHasCost?: boolean;
  /**
   * cel-go's CostEstimator.EstimateSize: the size of a value reached by a field path from a variable. The path
   * starts with the variable name; then field names (as written in the expression, i.e. escaped), '@items' (list
   * elements), '@keys' / '@values' (map keys and values) or '@indices' (list indices of two-variable
   * comprehensions). Undefined when the embedder has no estimate.
   */
  estimateSize?: (path: readonly string[]) => SizeEstimate | undefined;
}

type Call = Extract<Expr, { kind: 'call' }>;
type Comprehension = Extract<Expr, { kind: 'comprehension' }>;

/** cel-go's entrySizeEstimate: element sizes of list and map literals, tracked for iteration over them */
interface EntrySize {
  container: 'list' | 'map';
  key: SizeEstimate;
  val: SizeEstimate;
}

interface LocalVar {
  path: readonly string[] | undefined;
  size: SizeEstimate | undefined;
  entry: EntrySize | undefined;
}

const add = (a: number, b: number) => Math.min(MAX_COST, a + b);
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(MAX_COST, a * b));
const addC = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const fixed = (n: number): CostEstimate => ({ min: n, max: n });
const union = (a: SizeEstimate, b: SizeEstimate): SizeEstimate => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
/** multiplyByCostFactor: rounded up, saturating */
const byFactor = (s: SizeEstimate, f: number): CostEstimate => ({ min: Math.min(MAX_COST, Math.ceil(s.min * f)), max: Math.min(MAX_COST, Math.ceil(s.max * f)) });
const times = (s: SizeEstimate, c: CostEstimate): CostEstimate => ({ min: mul(s.min, c.min), max: mul(s.max, c.max) });

export function estimateCost(program: Program, opts: CostEstimatorOptions = {}): CostEstimate {
  return new Estimator(program, opts).cost(program.parsed.expr);
}

/** checker/cost.go isScalar: types whose values have a constant size, which cel-go sizes as 1 */
function isScalar(t: CelType | undefined): boolean {
  if (!t) return false;
  switch (t.kind) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && isScalar(t.params[0]);
    default:
      return false;
  }
}

class Estimator {
  private readonly unknown: SizeEstimate;
  private readonly presence: number;
  private readonly paths = new Map<number, readonly string[]>();
  private readonly sizes = new Map<number, SizeEstimate>();
  private readonly entrySizes = new Map<number, EntrySize>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(
    private readonly program: Program,
    private readonly opts: CostEstimatorOptions,
  ) {
    this.unknown = { min: 0, max: opts.maxSize ?? 3 * 1024 * 1024 };
    this.presence = opts.presenceTestHasCost === false ? 0 : COST.selectAndIdent;
  }

  // ---- local variables (comprehension and cel.bind scopes)

  private pushLocal(name: string, v: LocalVar): void {
    const stack = this.locals.get(name) ?? [];
    stack.push(v);
    this.locals.set(name, stack);
  }

  private popLocal(name: string): void {
    this.locals.get(name)?.pop();
  }

  private local(name: string): LocalVar | undefined {
    const stack = this.locals.get(name);
    return stack?.length ? stack[stack.length - 1] : undefined;
  }

  // ---- paths and sizes

  private path(e: Expr): readonly string[] | undefined {
    if (e.kind === 'ident') {
      const l = this.local(e.name);
      if (l) return l.path;
    }
    return this.paths.get(e.id);
  }

  private typeOf(e: Expr): CelType | undefined {
    return this.program.checked?.types.get(e.id);
  }

  /** checker/cost.go computeSize: undefined when nothing bounds the size */
  private computeSize(e: Expr): SizeEstimate | undefined {
    const known = this.sizes.get(e.id);
    if (known) return known;
    const lit = literalSize(e);
    if (lit) return lit;
    const path = this.path(e);
    // paths rooted at an accumulator are not reachable from a declared variable
    if (path?.length && path[0] !== ACCUMULATOR && this.opts.estimateSize) {
      const s = this.opts.estimateSize(path);
      if (s) {
        this.sizes.set(e.id, s);
        return s;
      }
    }
    if (isScalar(this.typeOf(e))) return fixed(1);
    if (e.kind === 'ident') return this.local(e.name)?.size;
    return undefined;
  }

  private sizeOrUnknown(e: Expr): SizeEstimate {
    return this.computeSize(e) ?? this.unknown;
  }

  private entrySize(e: Expr): EntrySize | undefined {
    const known = this.entrySizes.get(e.id);
    if (known) return known;
    if (e.kind === 'ident') return this.local(e.name)?.entry;
    return undefined;
  }

  private containerKind(range: Expr): 'list' | 'map' | undefined {
    const entry = this.entrySize(range);
    if (entry) return entry.container;
    const t = this.typeOf(range);
    return t?.kind === 'list' || t?.kind === 'map' ? t.kind : undefined;
  }

  // ---- costs

  cost(e: Expr): CostEstimate {
    switch (e.kind) {
      case 'const':
        return fixed(0);
      case 'ident': {
        const l = this.local(e.name);
        if (l) {
          if (l.path) this.paths.set(e.id, l.path);
        } else {
          this.paths.set(e.id, [this.program.checked?.varRefs.get(e.id) ?? e.name]);
        }
        return fixed(COST.selectAndIdent);
      }
      case 'select': {
        // a select chain that names a variable (`authorizer.requestResource`) or a type is one identifier
        const ref = this.program.checked?.varRefs.get(e.id);
        if (ref !== undefined) {
          this.paths.set(e.id, [ref]);
          return fixed(COST.selectAndIdent);
        }
        if (this.program.checked?.typeRefs.has(e.id)) return fixed(COST.selectAndIdent);
        const operand = this.cost(e.operand);
        if (e.testOnly) return addC(operand, fixed(this.presence));
        const p = this.path(e.operand);
        if (p) this.paths.set(e.id, [...p, e.field]);
        return addC(operand, fixed(COST.selectAndIdent));
      }
      case 'list': {
        let c = fixed(COST.listCreateBase);
        let val: SizeEstimate = e.elems.length ? { min: MAX_COST, max: 0 } : fixed(0);
        for (const x of e.elems) {
          c = addC(c, this.cost(x));
          val = union(val, this.sizeOrUnknown(x));
        }
        this.entrySizes.set(e.id, { container: 'list', key: fixed(1), val });
        return c;
      }
      case 'map': {
        let c = fixed(COST.mapCreateBase);
        let key: SizeEstimate = e.entries.length ? { min: MAX_COST, max: 0 } : fixed(0);
        let val: SizeEstimate = key;
        for (const x of e.entries) {
          c = addC(addC(c, this.cost(x.key)), this.cost(x.value));
          key = union(key, this.sizeOrUnknown(x.key));
          val = union(val, this.sizeOrUnknown(x.value));
        }
        this.entrySizes.set(e.id, { container: 'map', key, val });
        return c;
      }
      case 'struct': {
        let c = fixed(COST.structCreateBase);
        for (const f of e.fields) c = addC(c, this.cost(f.value));
        return c;
      }
      case 'comprehension':
        return isBind(e) ? this.bind(e) : this.comprehension(e);
      case 'call':
        return this.call(e);
    }
  }

  /** cel.bind: the bound value is computed once, lazily; the variable keeps the path and size of its value */
  private bind(e: Comprehension): CostEstimate {
    let c = addC(this.cost(e.iterRange), this.cost(e.accuInit));
    this.pushLocal(e.accuVar, { path: this.path(e.accuInit), size: this.computeSize(e.accuInit), entry: this.entrySize(e.accuInit) });
    c = addC(c, this.cost(e.result));
    this.popLocal(e.accuVar);
    this.copySizes(e, e.result);
    return c;
  }

  private comprehension(e: Comprehension): CostEstimate {
    let c = addC(this.cost(e.iterRange), this.cost(e.accuInit));
    this.pushLocal(e.accuVar, { path: this.path(e.accuInit), size: this.computeSize(e.accuInit), entry: this.entrySize(e.accuInit) });
    const rangePath = this.path(e.iterRange);
    const entry = this.entrySize(e.iterRange);
    const isList = this.containerKind(e.iterRange) === 'list';
    const sub = (p: string): readonly string[] | undefined => (rangePath ? [...rangePath, p] : undefined);
    if (e.iterVar2 !== undefined) {
      this.pushLocal(e.iterVar, { path: sub(isList ? '@indices' : '@keys'), size: entry?.key, entry: undefined });
      this.pushLocal(e.iterVar2, { path: sub(isList ? '@items' : '@values'), size: entry?.val, entry: undefined });
    } else {
      this.pushLocal(e.iterVar, { path: sub(isList ? '@items' : '@keys'), size: isList ? entry?.val : entry?.key, entry: undefined });
    }
    const loop = addC(this.cost(e.loopCondition), this.cost(e.loopStep));
    this.popLocal(e.iterVar);
    if (e.iterVar2 !== undefined) this.popLocal(e.iterVar2);
    c = addC(c, this.cost(e.result));
    this.popLocal(e.accuVar);
    const rangeCount = this.sizeOrUnknown(e.iterRange);
    c = addC(c, times(rangeCount, loop));
    // the result of all/exists is a literal-initialised scalar; map/filter build at most one entry per element
    if (e.accuInit.kind === 'const') {
      const s = this.computeSize(e.accuInit);
      if (s) this.sizes.set(e.id, s);
    } else if (e.accuInit.kind === 'list' || e.accuInit.kind === 'map') {
      this.sizes.set(e.id, rangeCount);
      const stepEntry = this.entrySize(e.loopStep);
      if (stepEntry) this.entrySizes.set(e.id, stepEntry);
    }
    return c;
  }

  private copySizes(dst: Expr, src: Expr): void {
    const s = this.computeSize(src);
    if (s) this.sizes.set(dst.id, s);
    const entry = this.entrySize(src);
    if (entry) this.entrySizes.set(dst.id, entry);
  }

  private call(e: Call): CostEstimate {
    const fn = e.fn;
    if (fn === '_&&_' || fn === '_||_') {
      const l = this.cost(e.args[0]!);
      const r = this.cost(e.args[1]!);
      // the right side may be short-circuited away
      return { min: l.min, max: add(l.max, r.max) };
    }
    if (fn === '_?_:_') {
      const [cond, t, f] = e.args as [Expr, Expr, Expr];
      const cc = this.cost(cond);
      const tc = this.cost(t);
      const fc = this.cost(f);
      this.sizes.set(e.id, union(this.sizeOrUnknown(t), this.sizeOrUnknown(f)));
      const te = this.entrySize(t);
      const fe = this.entrySize(f);
      if (te && fe) this.entrySizes.set(e.id, { container: te.container, key: union(te.key, fe.key), val: union(te.val, fe.val) });
      return addC(cc, { min: Math.min(tc.min, fc.min), max: Math.max(tc.max, fc.max) });
    }
    // dyn() only disables type checking
    if (fn === 'dyn' && !e.target && e.args.length === 1 && this.program.checked) {
      const c = this.cost(e.args[0]!);
      this.copySizes(e, e.args[0]!);
      return addC(fixed(1), c);
    }
    const fnName = this.program.checked?.fnNames.get(e.id);
    const target = fnName === undefined ? e.target : undefined;
    let argCost: CostEstimate = fixed(0);
    for (const a of e.args) argCost = addC(argCost, this.cost(a));
    if (target) argCost = addC(argCost, this.cost(target));
    const ids = this.program.checked?.overloads.get(e.id) ?? [];
    let fnCost: CostEstimate | undefined;
    let resultSize: SizeEstimate | undefined;
    for (const id of ids.length ? ids : ['']) {
      const est = this.callEstimate(e, fnName ?? fn, id, target);
      fnCost = fnCost ? { min: Math.min(fnCost.min, est.cost.min), max: Math.max(fnCost.max, est.cost.max) } : est.cost;
      if (est.size) resultSize = resultSize ? union(resultSize, est.size) : est.size;
      // indexing continues the field path of its operand
      if ((id === 'index_list' || id === 'index_map') && e.args.length) {
        const operand = e.args[0]!;
        const p = this.path(operand);
        if (p) this.paths.set(e.id, [...p, id === 'index_list' ? '@items' : '@values']);
        resultSize = this.entrySize(operand)?.val;
      }
      resultSize ??= this.computeSize(e);
    }
    if (resultSize) this.sizes.set(e.id, resultSize);
    return addC(argCost, fnCost!);
  }

  private callEstimate(e: Call, fn: string, id: string, target: Expr | undefined): { cost: CostEstimate; size?: SizeEstimate } {
    const args = e.args;
    const argLiterals = args.map((a) => (a.kind === 'const' ? a.value : undefined));
    const input: CallEstimateInput = target
      ? { receiver: this.sizeOrUnknown(target), args: args.map((a) => this.sizeOrUnknown(a)), argLiterals }
      : { args: args.map((a) => this.sizeOrUnknown(a)), argLiterals };
    for (const ce of this.program.registry.callEstimates) {
      const r = ce(fn, id, input);
      if (r) return r.resultSize ? { cost: r.cost, size: r.resultSize } : { cost: r.cost };
    }
    const decl = this.program.registry.overload(id);
    if (decl?.estimate) {
      const r = decl.estimate(input);
      return r.resultSize ? { cost: r.cost, size: r.resultSize } : { cost: r.cost };
    }
    const tf = COST.stringTraversalFactor;
    const size = (i: number): SizeEstimate => input.args[i]!;
    switch (id) {
      case 'starts_with_string':
      case 'ends_with_string':
        // cel-go sizes these by the prefix/suffix argument, not the receiver
        if (args.length === 1) return { cost: byFactor(size(0), tf) };
        break;
      case 'string_to_bytes':
        if (args.length === 1) return { cost: byFactor(size(0), tf), size: { min: size(0).min, max: mul(size(0).max, 4) } };
        break;
      case 'bytes_to_string':
        if (args.length === 1) return { cost: byFactor(size(0), tf), size: { min: Math.floor(size(0).min / 4), max: size(0).max } };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: byFactor(size(1), 1) };
        break;
      case 'matches_string':
        if (target && args.length === 1) {
          // one added to the string length so an empty string still pays for an expensive regex
          const str = byFactor({ min: add(input.receiver!.min, 1), max: add(input.receiver!.max, 1) }, tf);
          const re = byFactor(size(0), COST.regexStringLengthFactor);
          return { cost: { min: mul(str.min, re.min), max: mul(str.max, re.max) } };
        }
        break;
      case 'matches':
        // the global form matches(s, re), which cel-go does not special-case; estimated like the member form
        if (!target && args.length === 2) {
          const str = byFactor({ min: add(size(0).min, 1), max: add(size(0).max, 1) }, tf);
          const re = byFactor(size(1), COST.regexStringLengthFactor);
          return { cost: { min: mul(str.min, re.min), max: mul(str.max, re.max) } };
        }
        break;
      case 'contains_string':
        if (target && args.length === 1) {
          const a = byFactor(input.receiver!, tf);
          const b = byFactor(size(0), tf);
          return { cost: { min: mul(a.min, b.min), max: mul(a.max, b.max) } };
        }
        break;
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const sum = { min: add(size(0).min, size(1).min), max: add(size(0).max, size(1).max) };
          const l = this.entrySize(args[0]!);
          const r = this.entrySize(args[1]!);
          if (l && r) this.entrySizes.set(e.id, { container: l.container, key: union(l.key, r.key), val: union(l.val, r.val) });
          // list concatenation is O(1); strings and bytes are copied
          return id === 'add_list' ? { cost: fixed(1), size: sum } : { cost: byFactor(sum, tf), size: sum };
        }
        break;
      case 'less_string':
      case 'greater_string':
      case 'less_equals_string':
      case 'greater_equals_string':
      case 'less_bytes':
      case 'greater_bytes':
      case 'less_equals_bytes':
      case 'greater_equals_bytes':
      case 'equals':
      case 'not_equals': {
        // O(min(m, n)); comparing values of size 0 (kube's struct-typed objects, or empty literals) is free
        const smallestMax = Math.min(size(0).max, size(1).max);
        return { cost: byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, tf) };
      }
    }
    return { cost: fixed(1) };
  }
}

/** cel-go's cel.bind expansion: no iterations, and the accumulator is the bound variable */
function isBind(e: Comprehension): boolean {
  return (
    e.iterRange.kind === 'list' &&
    e.iterRange.elems.length === 0 &&
    e.loopCondition.kind === 'const' &&
    e.loopCondition.value === false &&
    e.accuVar !== ACCUMULATOR
  );
}

/** computeExprSize: exact sizes of literals */
function literalSize(e: Expr): SizeEstimate | undefined {
  switch (e.kind) {
    case 'const': {
      const v = e.value;
      if (typeof v === 'string') return fixed(Array.from(v).length);
      if (v instanceof Uint8Array) return fixed(v.length);
      return fixed(1);
    }
    case 'list':
      return fixed(e.elems.length);
    case 'map':
      return fixed(e.entries.length);
    default:
      return undefined;
  }
}
