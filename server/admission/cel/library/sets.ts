// cel-go's sets extension (ext/sets.go), enabled by kube-apiserver since 1.29: sets.contains, sets.equivalent,
// sets.intersects over lists, with CEL's heterogeneous equality (1 == 1.0 == 1u). Its costs are cel-go's own
// per-overload trackers: 1 + |a| * |b| comparisons, twice that for equivalence.
import { celEquals, type CelValue } from '../engine/values.js';
import { T, type CallEstimate, type CallEstimateInput, type LibraryRegistration } from '../engine/functions.js';
import { actualSize, addCost, byFactor, fixedCost, multiplySize, sizeOf } from './cost.js';

const contains = (list: readonly CelValue[], v: CelValue): boolean => list.some((x) => celEquals(v, x));

export const setsContains = (list: readonly CelValue[], sub: readonly CelValue[]): boolean => sub.every((x) => contains(list, x));

export const setsEquivalent = (a: readonly CelValue[], b: readonly CelValue[]): boolean => setsContains(a, b) && setsContains(b, a);

export const setsIntersects = (a: readonly CelValue[], b: readonly CelValue[]): boolean => a.some((x) => contains(b, x));

function setsCost(factor: number) {
  return {
    cost: (args: readonly CelValue[]) => 1 + Math.trunc(actualSize(args[0]) * actualSize(args[1]) * factor),
    estimate: (i: CallEstimateInput): CallEstimate => ({
      cost: addCost(byFactor(multiplySize(sizeOf(i.args[0]), sizeOf(i.args[1])), factor), fixedCost(1)),
    }),
  };
}

const L = T.list(T.param('T'));
const list = (v: CelValue): readonly CelValue[] => v as readonly CelValue[];

export const setsLibrary: LibraryRegistration = {
  name: 'cel.lib.ext.sets',
  functions: [
    { id: 'list_sets_contains_list', name: 'sets.contains', args: [L, L], result: T.bool, impl: (a, b) => setsContains(list(a), list(b)), ...setsCost(1) },
    {
      id: 'list_sets_equivalent_list',
      name: 'sets.equivalent',
      args: [L, L],
      result: T.bool,
      impl: (a, b) => setsEquivalent(list(a), list(b)),
      ...setsCost(2),
    },
    {
      id: 'list_sets_intersects_list',
      name: 'sets.intersects',
      args: [L, L],
      result: T.bool,
      impl: (a, b) => setsIntersects(list(a), list(b)),
      ...setsCost(1),
    },
  ],
};
