// Static cost estimation over a checked program (cel-go checker/cost.go): the same per-node costs the runtime
// tracker charges, with sizes of unbounded inputs taken from an estimate. kube-apiserver derives those from the
// OpenAPI schema (maxLength/maxItems) or, without one, from MaxRequestSizeBytes; our variables are JSON-derived
// `dyn`, so every unknown size is bounded by `maxSize` (default: kube's 3 MiB request limit).
import type { Expr } from './ast.js';
import type { CallEstimateInput, CostEstimate, SizeEstimate } from './functions.js';
import { COST, type Program } from './interpreter.js';

/** cel-go saturates costs at math.MaxUint64 */
export const MAX_COST = 18446744073709551615;

export interface CostEstimatorOptions {
  /** bound for sizes CEL cannot know (strings, lists, maps from variables) */
  maxSize?: number;
  presenceTestHasCost?: boolean;
}

interface Estimate {
  cost: CostEstimate;
  size?: SizeEstimate;
}

const add = (a: number, b: number) => Math.min(MAX_COST, a + b);
const mul = (a: number, b: number) => Math.min(MAX_COST, a * b);
const addC = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const fixed = (n: number): CostEstimate => ({ min: n, max: n });

export function estimateCost(program: Program, opts: CostEstimatorOptions = {}): CostEstimate {
  return new Estimator(program, opts).estimate(program.parsed.expr).cost;
}

class Estimator {
  private readonly unknown: SizeEstimate;
  private readonly presence: number;
  private readonly localSizes: Map<string, SizeEstimate | undefined>[] = [];

  constructor(
    private readonly program: Program,
    opts: CostEstimatorOptions,
  ) {
    this.unknown = { min: 0, max: opts.maxSize ?? 3 * 1024 * 1024 };
    this.presence = opts.presenceTestHasCost === false ? 0 : COST.selectAndIdent;
  }

  private size(e: Estimate): SizeEstimate {
    return e.size ?? this.unknown;
  }

  estimate(e: Expr): Estimate {
    switch (e.kind) {
      case 'const': {
        const v = e.value;
        if (typeof v === 'string') return { cost: fixed(0), size: fixed(Array.from(v).length) };
        if (v instanceof Uint8Array) return { cost: fixed(0), size: fixed(v.length) };
        return { cost: fixed(0), size: fixed(1) };
      }
      case 'ident': {
        for (let i = this.localSizes.length - 1; i >= 0; i--) {
          const s = this.localSizes[i]!;
          if (s.has(e.name)) {
            const sz = s.get(e.name);
            return sz ? { cost: fixed(COST.selectAndIdent), size: sz } : { cost: fixed(COST.selectAndIdent) };
          }
        }
        return { cost: fixed(COST.selectAndIdent) };
      }
      case 'select': {
        if (this.program.checked?.varRefs.has(e.id) || this.program.checked?.typeRefs.has(e.id)) return { cost: fixed(COST.selectAndIdent) };
        const o = this.estimate(e.operand);
        return { cost: addC(o.cost, fixed(e.testOnly ? this.presence : COST.selectAndIdent)) };
      }
      case 'list': {
        let c = fixed(COST.listCreateBase);
        for (const x of e.elems) c = addC(c, this.estimate(x).cost);
        return { cost: c, size: fixed(e.elems.length) };
      }
      case 'map': {
        let c = fixed(COST.mapCreateBase);
        for (const x of e.entries) c = addC(addC(c, this.estimate(x.key).cost), this.estimate(x.value).cost);
        return { cost: c, size: fixed(e.entries.length) };
      }
      case 'struct': {
        let c = fixed(COST.structCreateBase);
        for (const f of e.fields) c = addC(c, this.estimate(f.value).cost);
        return { cost: c };
      }
      case 'comprehension': {
        const range = this.estimate(e.iterRange);
        const init = this.estimate(e.accuInit);
        const n = this.size(range);
        this.localSizes.push(new Map([[e.accuVar, init.size]]));
        this.localSizes.push(new Map([[e.iterVar, undefined], ...(e.iterVar2 ? [[e.iterVar2, undefined] as const] : [])]));
        const loop = addC(this.estimate(e.loopCondition).cost, this.estimate(e.loopStep).cost);
        this.localSizes.pop();
        const result = this.estimate(e.result);
        this.localSizes.pop();
        const cost = addC(addC(range.cost, init.cost), addC({ min: mul(loop.min, n.min), max: mul(loop.max, n.max) }, result.cost));
        return { cost, size: result.size ?? n };
      }
      case 'call':
        return this.call(e);
    }
  }

  private call(e: Extract<Expr, { kind: 'call' }>): Estimate {
    const fn = e.fn;
    if (fn === '_&&_' || fn === '_||_') {
      const l = this.estimate(e.args[0]!);
      const r = this.estimate(e.args[1]!);
      return { cost: { min: l.cost.min, max: add(l.cost.max, r.cost.max) } };
    }
    if (fn === '_?_:_') {
      const c = this.estimate(e.args[0]!);
      const t = this.estimate(e.args[1]!);
      const f = this.estimate(e.args[2]!);
      const size =
        t.size && f.size ? { min: Math.min(t.size.min, f.size.min), max: Math.max(t.size.max, f.size.max) } : undefined;
      const out: Estimate = { cost: addC(c.cost, { min: Math.min(t.cost.min, f.cost.min), max: Math.max(t.cost.max, f.cost.max) }) };
      if (size) out.size = size;
      return out;
    }
    const fnName = this.program.checked?.fnNames.get(e.id);
    const target = fnName === undefined ? e.target : undefined;
    const argEsts = [...(target ? [this.estimate(target)] : []), ...e.args.map((a) => this.estimate(a))];
    let argCost: CostEstimate = fixed(0);
    for (const a of argEsts) argCost = addC(argCost, a.cost);
    const sizes = argEsts.map((a) => this.size(a));
    const ids = this.program.checked?.overloads.get(e.id) ?? [];
    let best: Estimate | undefined;
    for (const id of ids.length ? ids : ['']) {
      const est = this.callEstimate(fnName ?? fn, id, target ? sizes[0] : undefined, target ? sizes.slice(1) : sizes);
      if (!best || est.cost.max > best.cost.max) best = est;
    }
    const out: Estimate = { cost: addC(argCost, best!.cost) };
    if (best!.size) out.size = best!.size;
    else if (fn === '_+_' && sizes.length === 2) out.size = { min: add(sizes[0]!.min, sizes[1]!.min), max: add(sizes[0]!.max, sizes[1]!.max) };
    return out;
  }

  private callEstimate(fn: string, id: string, receiver: SizeEstimate | undefined, args: SizeEstimate[]): Estimate {
    const input: CallEstimateInput = receiver ? { receiver, args } : { args };
    for (const ce of this.program.registry.callEstimates) {
      const r = ce(fn, id, input);
      if (r) return r.resultSize ? { cost: r.cost, size: r.resultSize } : { cost: r.cost };
    }
    const decl = this.program.registry.overload(id);
    if (decl?.estimate) {
      const r = decl.estimate(input);
      return r.resultSize ? { cost: r.cost, size: r.resultSize } : { cost: r.cost };
    }
    const all = receiver ? [receiver, ...args] : args;
    const tf = COST.stringTraversalFactor;
    const ceil = (s: SizeEstimate, f: number): CostEstimate => ({ min: Math.ceil(s.min * f), max: Math.ceil(s.max * f) });
    switch (id) {
      case 'starts_with_string':
      case 'ends_with_string':
      case 'string_to_bytes':
      case 'bytes_to_string':
        return { cost: ceil(all[0]!, tf) };
      case 'in_list':
        return { cost: { min: all[1]!.min, max: all[1]!.max } };
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
        const s = { min: Math.min(all[0]!.min, all[1]!.min), max: Math.min(all[0]!.max, all[1]!.max) };
        return { cost: { min: Math.max(1, Math.ceil(s.min * tf)), max: Math.max(1, Math.ceil(s.max * tf)) } };
      }
      case 'add_string':
      case 'add_bytes':
        return {
          cost: ceil({ min: all[0]!.min + all[1]!.min, max: all[0]!.max + all[1]!.max }, tf),
          size: { min: all[0]!.min + all[1]!.min, max: all[0]!.max + all[1]!.max },
        };
      case 'matches':
      case 'matches_string': {
        const str = ceil({ min: 1 + all[0]!.min, max: 1 + all[0]!.max }, tf);
        const re = ceil(all[1]!, COST.regexStringLengthFactor);
        return { cost: { min: mul(str.min, re.min), max: mul(str.max, re.max) } };
      }
      case 'contains_string': {
        const a = ceil(all[0]!, tf);
        const b = ceil(all[1]!, tf);
        return { cost: { min: mul(a.min, b.min), max: mul(a.max, b.max) } };
      }
      case 'add_list':
        return { cost: fixed(1), size: { min: all[0]!.min + all[1]!.min, max: add(all[0]!.max, all[1]!.max) } };
      default:
        return { cost: fixed(1) };
    }
  }
}
