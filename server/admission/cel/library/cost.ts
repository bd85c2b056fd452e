// The cost rules of kube's library.CostEstimator (staging/src/k8s.io/apiserver/pkg/cel/library/cost.go) and the
// arithmetic of cel-go's checker.CostEstimate / SizeEstimate they are written in. Runtime costs (CallCost) use the
// actual argument sizes; static estimates (EstimateCallCost) use size ranges, saturating at uint64's maximum as
// cel-go's addUint64NoOverflow / multiplyUint64NoOverflow do.
import { CelMap, CelOpaque, type CelResult, type CelValue } from '../engine/values.js';
import type { CallEstimate, CostEstimate, SizeEstimate } from '../engine/functions.js';

/** cel-go common/cost.go */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
export const LIST_CREATE_BASE_COST = 10;
export const STRUCT_CREATE_BASE_COST = 40;

/** uint64's maximum as the estimates carry it (a double; only its "larger than any limit" meaning matters). */
export const U64_MAX = 18446744073709551615;

export const UNKNOWN_SIZE: SizeEstimate = Object.freeze({ min: 0, max: U64_MAX });
export const fixedCost = (n: number): CostEstimate => ({ min: n, max: n });
export const NOMINAL: CallEstimate = Object.freeze({ cost: fixedCost(1) });

const sat = (n: number): number => (n >= U64_MAX ? U64_MAX : n);

/** Go's uint64(math.Ceil(float64(n) * f)). */
export const ceilFactor = (n: number, f: number): number => sat(Math.ceil(n * f));

export function addCost(a: CostEstimate, b: CostEstimate): CostEstimate {
  return { min: sat(a.min + b.min), max: sat(a.max + b.max) };
}

export function multiplyCost(a: CostEstimate, b: CostEstimate): CostEstimate {
  return { min: sat(a.min * b.min), max: sat(a.max * b.max) };
}

/** SizeEstimate.MultiplyByCostFactor / CostEstimate.MultiplyByCostFactor */
export function byFactor(e: SizeEstimate | CostEstimate, f: number): CostEstimate {
  return { min: ceilFactor(e.min, f), max: ceilFactor(e.max, f) };
}

export function addSize(a: SizeEstimate, b: SizeEstimate): SizeEstimate {
  return { min: sat(a.min + b.min), max: sat(a.max + b.max) };
}

export function multiplySize(a: SizeEstimate, b: SizeEstimate): SizeEstimate {
  return { min: sat(a.min * b.min), max: sat(a.max * b.max) };
}

/** A value whose runtime cost size is not one of CEL's sized kinds (net.IP, net.CIDR implement traits.Sizer). */
export interface CostSized {
  costSize(): number;
}

const hasCostSize = (v: unknown): v is CostSized => v instanceof CelOpaque && typeof (v as Partial<CostSized>).costSize === 'function';

/** Code points, as cel-go's String.Size() counts them. */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** UTF-8 bytes, as Go's len(string) counts them. */
export const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/** cost.go actualSize: the traits.Sizer size of a value, 1 for values without one. */
export function actualSize(v: CelResult | undefined): number {
  if (typeof v === 'string') return runeCount(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  if (hasCostSize(v)) return v.costSize();
  return 1;
}

/**
 * cost.go traversalCost: the cost of walking a value as a data tree. Strings count their UTF-8 bytes (Go's len) and
 * truncate rather than round up, unlike actualSize-based costs.
 */
export function traversalCost(v: CelValue): number {
  if (typeof v === 'string') return Math.trunc(utf8Length(v) * STRING_TRAVERSAL_COST_FACTOR);
  if (v instanceof Uint8Array) return Math.trunc(v.length * STRING_TRAVERSAL_COST_FACTOR);
  if (Array.isArray(v)) {
    let c = 0;
    for (const x of v as readonly CelValue[]) c += traversalCost(x);
    return sat(c);
  }
  if (v instanceof CelMap) {
    let c = 0;
    for (const [k, x] of v.entries()) c += traversalCost(k) + traversalCost(x);
    return sat(c);
  }
  return 1;
}

/** The size of a static argument, unknown when the engine has none. */
export const sizeOf = (s: SizeEstimate | undefined): SizeEstimate => s ?? UNKNOWN_SIZE;

/** `ceil(size * 0.1)`: the cost of one string traversal, the most common rule of cost.go. */
export const stringTraversal = (v: CelValue): number => ceilFactor(actualSize(v), STRING_TRAVERSAL_COST_FACTOR);

/** The functions an equalityCost hook prices (its LibraryRegistration's callCostFunctions). */
export const EQUALITY_COST_FUNCTIONS: readonly string[] = ['_==_', '_!=_'];

/**
 * kube's CallCost for `_==_` on its own types is a flat 1 (cost.go); cel-go's default for `_!=_` is a traversal of
 * the smaller operand, which for net.IP and net.CIDR means their byte sizes. A library registers this for the types
 * it declares, since only it knows its values.
 */
export function equalityCost(isOwnValue: (v: CelValue) => boolean) {
  return (fn: string, _overloadId: string, args: readonly CelValue[]): number | undefined => {
    if (args.length !== 2 || !isOwnValue(args[0]!)) return undefined;
    if (fn === '_==_') return 1;
    if (fn === '_!=_') return ceilFactor(Math.min(actualSize(args[0]), actualSize(args[1])), STRING_TRAVERSAL_COST_FACTOR);
    return undefined;
  };
}
