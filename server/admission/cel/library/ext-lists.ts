// cel-go's lists extension (ext/lists.go) at the version kube-apiserver enables: ext.Lists(ext.ListsVersion(3))
// since 1.34 (staging/src/k8s.io/apiserver/pkg/cel/environment/base.go). Version 0: slice; 1: flatten; 2: sort,
// the sortBy macro (through @sortByAssociatedKeys), lists.range, reverse, distinct; 3: their cost estimates and
// trackers, which are cel-go's own per-overload rules (kube's library.CostEstimator has no case for these names).
import { CelDuration, CelError, CelTimestamp, CelUint, celCompare, celEquals, typeNameOf, type CelResult, type CelValue } from '../engine/values.js';
import { T, type CallEstimate, type CallEstimateInput, type CelType, type LibraryRegistration, type OverloadDecl, type SizeEstimate } from '../engine/functions.js';
import { isComparable } from './lists.js';
import { LIST_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR, U64_MAX, actualSize, addCost, byFactor, fixedCost, multiplySize, sizeOf } from './cost.js';

const list = (v: CelValue): readonly CelValue[] => v as readonly CelValue[];

export function listSlice(l: readonly CelValue[], start: bigint, end: bigint): CelResult {
  if (start < 0n || end < 0n) return new CelError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) return new CelError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(l.length) < end) return new CelError(`cannot slice(${start}, ${end}), list is length ${l.length}`);
  return l.slice(Number(start), Number(end));
}

export function listFlatten(l: readonly CelValue[], depth: bigint): CelResult {
  if (depth < 0n) return new CelError('level must be non-negative');
  const out: CelValue[] = [];
  for (const v of l) {
    if (!Array.isArray(v) || depth === 0n) out.push(v);
    else out.push(...(listFlatten(v as readonly CelValue[], depth - 1n) as CelValue[]));
  }
  return out;
}

export function listsRange(n: bigint): CelResult {
  const out: bigint[] = [];
  for (let i = 0n; i < n; i++) out.push(i);
  return out;
}

export const listReverse = (l: readonly CelValue[]): CelResult => [...l].reverse();

/** distinctList: the first of every group of equal elements (CEL equality, so 1 and 1.0 are one element). */
export function listDistinct(l: readonly CelValue[]): CelResult {
  const unique: CelValue[] = [];
  for (const v of l) if (!unique.some((u) => celEquals(v, u))) unique.push(v);
  return unique;
}

/**
 * sortListByAssociatedKeys: orders `l` by the keys at the same positions. Every key must have the first key's
 * type. Go's sort.Slice is not stable; for the lists policies sort (up to 12 elements it runs an insertion sort,
 * which is) the order of equal keys is the same as this stable sort's.
 */
export function sortByAssociatedKeys(l: readonly CelValue[], keys: readonly CelValue[]): CelResult {
  if (l.length !== keys.length) {
    return new CelError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${l.length} and ${keys.length} elements respectively`,
    );
  }
  if (l.length === 0) return l;
  const first = keys[0]!;
  if (!isComparable(first)) return new CelError('list elements must be comparable');
  const type = typeNameOf(first);
  if (keys.length > 1 && keys.some((k) => typeNameOf(k) !== type)) return new CelError('list elements must have the same type');
  const order = keys.map((_, i) => i);
  order.sort((i, j) => celCompare(keys[i]!, keys[j]!) ?? 0);
  return order.map((i) => l[i]!);
}

/** trackAllocatingListCall: uint64(size * factor) + the call (1) + the list allocation (10). */
const trackAllocating = (factor: number, size: number): number => Math.min(U64_MAX, Math.trunc(size * factor) + 1 + LIST_CREATE_BASE_COST);

/** trackListSelfCompare: a worst-case n² comparison, a tenth more for strings and bytes. */
function trackSelfCompare(l: readonly CelValue[]): number {
  const n = l.length;
  if (n === 0) return trackAllocating(2, 0);
  const first = l[0]!;
  const factor = typeof first === 'string' || first instanceof Uint8Array ? 2 + STRING_TRAVERSAL_COST_FACTOR : 2;
  return trackAllocating(factor, n * n);
}

/** estimateAllocatingListCall: size × factor + 1 + 10, the result as large as `size`. */
function estimateAllocating(factor: number, size: SizeEstimate): CallEstimate {
  return { cost: addCost(byFactor(size, factor), fixedCost(1 + LIST_CREATE_BASE_COST)), resultSize: size };
}

/** nodeAsIntValue: an int literal argument (negative as 0), else the default. */
function literalInt(i: CallEstimateInput, index: number, dflt: number): number {
  const v = i.argLiterals?.[index];
  if (typeof v !== 'bigint') return dflt;
  return v < 0n ? 0 : Number(v);
}

/** estimateListSortCost: n² comparisons (the result size is cel-go's n² as well). */
function estimateSort(size: SizeEstimate, elem: CelType): CallEstimate {
  const factor = elem.kind === 'string' || elem.kind === 'bytes' ? 2 + STRING_TRAVERSAL_COST_FACTOR : 2;
  return estimateAllocating(factor, multiplySize(size, size));
}

const TP = T.param('T');
const LT = T.list(TP);

/** cel-go's comparableTypes, in its order; overload ids use the type's TypeName(). */
const COMPARABLE: readonly [string, CelType][] = [
  ['int', T.int],
  ['uint', T.uint],
  ['double', T.double],
  ['bool', T.bool],
  ['google.protobuf.Duration', T.duration],
  ['google.protobuf.Timestamp', T.timestamp],
  ['string', T.string],
  ['bytes', T.bytes],
];

const sortOverloads: OverloadDecl[] = COMPARABLE.flatMap(([name, t]): OverloadDecl[] => [
  {
    id: `list_${name}_sort`,
    name: 'sort',
    receiver: T.list(t),
    args: [],
    result: T.list(t),
    impl: (l) => sortByAssociatedKeys(list(l), list(l)),
    cost: (args) => trackSelfCompare(list(args[0]!)),
    estimate: (i) => estimateSort(sizeOf(i.receiver), t),
  },
  {
    id: `list_${name}_sortByAssociatedKeys`,
    name: '@sortByAssociatedKeys',
    receiver: LT,
    args: [T.list(t)],
    result: LT,
    impl: (l, keys) => sortByAssociatedKeys(list(l), list(keys)),
    cost: (args) => trackSelfCompare(list(args[1]!)),
    estimate: (i) => estimateSort(sizeOf(i.args[0]), t),
  },
]);

export const extListsLibrary: LibraryRegistration = {
  name: 'cel.lib.ext.lists',
  macros: ['sortBy'],
  functions: [
    {
      id: 'list_slice',
      name: 'slice',
      receiver: LT,
      args: [T.int, T.int],
      result: LT,
      impl: (l, s, e) => listSlice(list(l), s as bigint, e as bigint),
      cost: (_args, result) => trackAllocating(1, actualSize(result instanceof CelError ? undefined : result)),
      estimate: (i) => {
        const sz = sizeOf(i.receiver);
        const start = literalInt(i, 0, 0);
        const end = literalInt(i, 1, sz.max);
        // uint64 subtraction: wraps when a literal end lies before the start
        const n = end >= start ? end - start : U64_MAX;
        return estimateAllocating(1, { min: n, max: n });
      },
    },
    {
      id: 'list_flatten',
      name: 'flatten',
      receiver: T.list(LT),
      args: [],
      result: LT,
      impl: (l) => listFlatten(list(l), 1n),
      cost: (args) => trackAllocating(1, actualSize(args[0])),
      estimate: (i) => estimateAllocating(1, sizeOf(i.receiver)),
    },
    {
      id: 'list_flatten_int',
      name: 'flatten',
      receiver: T.list(T.dyn),
      args: [T.int],
      result: T.list(T.dyn),
      impl: (l, d) => listFlatten(list(l), d as bigint),
      cost: (args) => trackAllocating(Number(args[1] as bigint), actualSize(args[0])),
      estimate: (i) => estimateAllocating(literalInt(i, 0, U64_MAX), sizeOf(i.receiver)),
    },
    ...sortOverloads,
    {
      id: 'lists_range',
      name: 'lists.range',
      args: [T.int],
      result: T.list(T.int),
      impl: (n) => listsRange(n as bigint),
      cost: (_args, result) => trackAllocating(1, actualSize(result instanceof CelError ? undefined : result)),
      estimate: (i) => {
        const n = literalInt(i, 0, U64_MAX);
        return estimateAllocating(1, { min: n, max: n });
      },
    },
    {
      id: 'list_reverse',
      name: 'reverse',
      receiver: LT,
      args: [],
      result: LT,
      impl: (l) => listReverse(list(l)),
      cost: (_args, result) => trackAllocating(1, actualSize(result instanceof CelError ? undefined : result)),
      estimate: (i) => estimateAllocating(1, sizeOf(i.receiver)),
    },
    {
      id: 'list_distinct',
      name: 'distinct',
      receiver: LT,
      args: [],
      result: LT,
      impl: (l) => listDistinct(list(l)),
      cost: (args) => trackSelfCompare(list(args[0]!)),
      estimate: (i) => {
        const sz = sizeOf(i.receiver);
        return estimateAllocating(2, multiplySize(sz, sz));
      },
    },
  ],
};
