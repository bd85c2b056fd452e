// kube's Lists library (staging/src/k8s.io/apiserver/pkg/cel/library/lists.go) at the version kube-apiserver
// enables (version 0: no `includes`): isSorted, sum, min, max, indexOf, lastIndexOf.
//
// As in cel-go, isSorted/sum/min/max have one overload per element type; a list of dyn (JSON) reaches the overload
// of its first element's type, so the implementations below follow the elements and only fall back to the
// overload's own zero for an empty list.
import {
  CelDuration,
  CelError,
  CelTimestamp,
  CelUint,
  INT64_MAX,
  INT64_MIN,
  UINT64_MAX,
  celCompare,
  celEquals,
  type CelResult,
  type CelValue,
} from '../engine/values.js';
import { T, type CallEstimate, type CallEstimateInput, type CelType, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import { STRING_TRAVERSAL_COST_FACTOR, U64_MAX, addCost, byFactor, fixedCost, multiplyCost, sizeOf, traversalCost } from './cost.js';

const noSuchOverload = (): CelError => new CelError('no such overload');

/** traits.Comparer in cel-go: the values `<` is defined on (also what the lists extension's `sort` can order). */
export function isComparable(v: CelValue): boolean {
  return (
    typeof v === 'bigint' ||
    typeof v === 'number' ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    v instanceof CelUint ||
    v instanceof Uint8Array ||
    v instanceof CelTimestamp ||
    v instanceof CelDuration
  );
}

export function isSorted(list: readonly CelValue[]): CelResult {
  let prev: CelValue | undefined;
  for (const next of list) {
    if (!isComparable(next)) return noSuchOverload();
    // an error from Compare (mixed kinds, NaN) does not count as out of order, as in cel-go
    if (prev !== undefined && celCompare(prev, next) === 1) return false;
    prev = next;
  }
  return true;
}

/** min (prefer = 1: replace when the current result is greater) and max (prefer = -1). */
function extreme(list: readonly CelValue[], name: string, prefer: 1 | -1): CelResult {
  let result: CelValue | undefined;
  for (const next of list) {
    if (!isComparable(next)) return noSuchOverload();
    if (result === undefined || celCompare(result, next) === prefer) result = next;
  }
  if (result === undefined) return new CelError(`${name} called on empty list`);
  return result;
}

export const listMin = (list: readonly CelValue[]): CelResult => extreme(list, 'min', 1);
export const listMax = (list: readonly CelValue[]): CelResult => extreme(list, 'max', -1);

/** traits.Adder's Add for the summable kinds, with cel-go's overflow errors. */
function add(a: CelValue, b: CelValue): CelResult {
  if (typeof a === 'bigint') {
    if (typeof b !== 'bigint') return noSuchOverload();
    const r = a + b;
    return r > INT64_MAX || r < INT64_MIN ? new CelError('integer overflow') : r;
  }
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) return noSuchOverload();
    const r = a.value + b.value;
    return r > UINT64_MAX ? new CelError('unsigned integer overflow') : new CelUint(r);
  }
  if (typeof a === 'number') {
    if (typeof b !== 'number') return noSuchOverload();
    return a + b;
  }
  if (a instanceof CelDuration) {
    if (!(b instanceof CelDuration)) return noSuchOverload();
    const r = a.nanos + b.nanos;
    return r > INT64_MAX || r < INT64_MIN ? new CelError('integer overflow') : new CelDuration(r);
  }
  return noSuchOverload();
}

/** The zero of the overload the runtime would pick for this list (its first element's type, else the declared). */
function zeroFor(list: readonly CelValue[], declared: CelValue): CelValue | undefined {
  if (list.length === 0) return declared;
  const first = list[0]!;
  if (typeof first === 'bigint') return 0n;
  if (first instanceof CelUint) return new CelUint(0n);
  if (typeof first === 'number') return 0;
  if (first instanceof CelDuration) return new CelDuration(0n);
  return undefined;
}

export function sum(list: readonly CelValue[], declaredZero: CelValue): CelResult {
  let acc = zeroFor(list, declaredZero);
  if (acc === undefined) return noSuchOverload();
  for (const next of list) {
    const r = add(acc, next);
    if (r instanceof CelError) return r;
    acc = r;
  }
  return acc;
}

export function listIndexOf(list: readonly CelValue[], item: CelValue): bigint {
  for (let i = 0; i < list.length; i++) if (celEquals(list[i]!, item)) return BigInt(i);
  return -1n;
}

export function listLastIndexOf(list: readonly CelValue[], item: CelValue): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i]!, item)) return BigInt(i);
  return -1n;
}

/**
 * cost.go: a traversal of the list at runtime; statically, one comparison per element, plus a traversal of each
 * element for lists of strings or bytes (whose size kube only knows from a schema's maxLength — unknown here).
 */
function listCost(elem: CelType | undefined) {
  const stringish = elem !== undefined && (elem.kind === 'string' || elem.kind === 'bytes');
  return {
    cost: (args: readonly CelValue[]) => traversalCost(args[0]!),
    estimate: (i: CallEstimateInput): CallEstimate => {
      let elCost = fixedCost(1);
      if (stringish) elCost = addCost(elCost, byFactor({ min: 0, max: U64_MAX }, STRING_TRAVERSAL_COST_FACTOR));
      return { cost: multiplyCost(sizeOf(i.receiver), elCost) };
    },
  };
}

const comparableTypes: [string, CelType][] = [
  ['int', T.int],
  ['uint', T.uint],
  ['double', T.double],
  ['bool', T.bool],
  ['duration', T.duration],
  ['timestamp', T.timestamp],
  ['string', T.string],
  ['bytes', T.bytes],
];

const summableTypes: [string, CelType, CelValue][] = [
  ['int', T.int, 0n],
  ['uint', T.uint, new CelUint(0n)],
  ['double', T.double, 0],
  ['duration', T.duration, new CelDuration(0n)],
];

const A = T.param('A');
const list = (v: CelValue): readonly CelValue[] => v as readonly CelValue[];

const overloads: OverloadDecl[] = [
  ...comparableTypes.map(
    ([name, t]): OverloadDecl => ({
      id: `list_${name}_is_sorted_bool`,
      name: 'isSorted',
      receiver: T.list(t),
      args: [],
      result: T.bool,
      impl: (l) => isSorted(list(l)),
      ...listCost(t),
    }),
  ),
  ...summableTypes.map(
    ([name, t, zero]): OverloadDecl => ({
      id: `list_${name}_sum_${name}`,
      name: 'sum',
      receiver: T.list(t),
      args: [],
      result: t,
      impl: (l) => sum(list(l), zero),
      ...listCost(t),
    }),
  ),
  ...comparableTypes.map(
    ([name, t]): OverloadDecl => ({
      id: `list_${name}_max_${name}`,
      name: 'max',
      receiver: T.list(t),
      args: [],
      result: t,
      impl: (l) => listMax(list(l)),
      ...listCost(t),
    }),
  ),
  ...comparableTypes.map(
    ([name, t]): OverloadDecl => ({
      id: `list_${name}_min_${name}`,
      name: 'min',
      receiver: T.list(t),
      args: [],
      result: t,
      impl: (l) => listMin(list(l)),
      ...listCost(t),
    }),
  ),
  // the element type of list(A) is not known to the estimate; kube charges string elements more (see report)
  { id: 'list_a_index_of_int', name: 'indexOf', receiver: T.list(A), args: [A], result: T.int, impl: (l, x) => listIndexOf(list(l), x), ...listCost(undefined) },
  {
    id: 'list_a_last_index_of_int',
    name: 'lastIndexOf',
    receiver: T.list(A),
    args: [A],
    result: T.int,
    impl: (l, x) => listLastIndexOf(list(l), x),
    ...listCost(undefined),
  },
];

export const listsLibrary: LibraryRegistration = {
  name: 'kubernetes.lists',
  functions: overloads,
};
