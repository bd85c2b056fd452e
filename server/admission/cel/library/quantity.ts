// kube's Quantity library (staging/src/k8s.io/apiserver/pkg/cel/library/quantity.go): quantity(), isQuantity(),
// sign(), isInteger, asInteger, asApproximateFloat, add, sub, compareTo, isGreaterThan, isLessThan, over
// resource.Quantity (./quantity-value.ts).
//
// `sign` is declared as a global overload in kube, so it is written `sign(quantity("1"))`; `quantity("1").sign()`
// does not compile there and does not here.
import { CelError, type CelValue } from '../engine/values.js';
import { T, type CallEstimateInput, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import { NOMINAL, STRING_TRAVERSAL_COST_FACTOR, byFactor, equalityCost, EQUALITY_COST_FUNCTIONS, sizeOf, stringTraversal } from './cost.js';
import { QUANTITY_TYPE, Quantity } from './quantity-value.js';

export { Quantity } from './quantity-value.js';

const Q = T.opaque(QUANTITY_TYPE);
const q = (v: CelValue): Quantity => v as Quantity;

/** quantity / isQuantity: parsing is a traversal of the string. */
const parseCost = {
  cost: (args: readonly CelValue[]) => stringTraversal(args[0]!),
  estimate: (i: CallEstimateInput) => ({ cost: byFactor(sizeOf(i.args[0]), STRING_TRAVERSAL_COST_FACTOR) }),
};

/** Arithmetic, comparison and accessors cost 1. */
const nominal = { cost: () => 1, estimate: () => NOMINAL };

const overloads: OverloadDecl[] = [
  {
    id: 'string_to_quantity',
    name: 'quantity',
    args: [T.string],
    result: Q,
    impl: (s) => {
      const r = Quantity.parse(s as string);
      return typeof r === 'string' ? new CelError(r) : r;
    },
    ...parseCost,
  },
  { id: 'is_quantity_string', name: 'isQuantity', args: [T.string], result: T.bool, impl: (s) => typeof Quantity.parse(s as string) !== 'string', ...parseCost },
  { id: 'quantity_sign', name: 'sign', args: [Q], result: T.int, impl: (a) => BigInt(q(a).sign()), ...nominal },
  { id: 'quantity_is_greater_than', name: 'isGreaterThan', receiver: Q, args: [Q], result: T.bool, impl: (a, b) => q(a).cmp(q(b)) === 1, ...nominal },
  { id: 'quantity_is_less_than', name: 'isLessThan', receiver: Q, args: [Q], result: T.bool, impl: (a, b) => q(a).cmp(q(b)) === -1, ...nominal },
  { id: 'quantity_compare_to', name: 'compareTo', receiver: Q, args: [Q], result: T.int, impl: (a, b) => BigInt(q(a).cmp(q(b))), ...nominal },
  { id: 'quantity_get_float', name: 'asApproximateFloat', receiver: Q, args: [], result: T.double, impl: (a) => q(a).asApproximateFloat64(), ...nominal },
  {
    id: 'quantity_get_int',
    name: 'asInteger',
    receiver: Q,
    args: [],
    result: T.int,
    impl: (a) => q(a).asInt64() ?? new CelError('cannot convert value to integer'),
    ...nominal,
  },
  { id: 'quantity_is_integer', name: 'isInteger', receiver: Q, args: [], result: T.bool, impl: (a) => q(a).asInt64() !== undefined, ...nominal },
  { id: 'quantity_add', name: 'add', receiver: Q, args: [Q], result: Q, impl: (a, b) => q(a).add(q(b)), ...nominal },
  { id: 'quantity_add_int', name: 'add', receiver: Q, args: [T.int], result: Q, impl: (a, b) => q(a).add(Quantity.fromInt64(b as bigint)), ...nominal },
  { id: 'quantity_sub', name: 'sub', receiver: Q, args: [Q], result: Q, impl: (a, b) => q(a).sub(q(b)), ...nominal },
  { id: 'quantity_sub_int', name: 'sub', receiver: Q, args: [T.int], result: Q, impl: (a, b) => q(a).sub(Quantity.fromInt64(b as bigint)), ...nominal },
];

export const quantityLibrary: LibraryRegistration = {
  name: 'kubernetes.quantity',
  types: [{ name: QUANTITY_TYPE }],
  functions: overloads,
  callCost: equalityCost((v) => v instanceof Quantity),
  callCostFunctions: EQUALITY_COST_FUNCTIONS,
  callCostOpaqueOnly: true,
};
