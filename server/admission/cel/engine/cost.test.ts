// The static estimator's size sources, in cel-go's order (checker/cost.go): sizes the expression computes, the
// embedder's per-path hook (kube sizes `self.spec.items` from the schema), scalar types, and the unknown bound.
import { bindingsLibrary } from '../library/ext-bindings.js';
import { MAX_COST, type CostEstimatorOptions } from './cost.js';
import { CelEngineEnv } from './env.js';
import type { SizeEstimate } from './functions.js';
import { T, type CelType } from './types.js';

// cel-go's test environments include the bindings extension (cel.bind)
const env = new CelEngineEnv({ libraries: [bindingsLibrary] });
const vars = new Map<string, CelType>([
  ['self', T.map(T.string, T.list(T.string))],
  ['names', T.list(T.string)],
  ['n', T.int],
  ['d', T.dyn],
]);

/** Estimates `expr`, answering the size hook from `sizes` and recording every path it was asked about. */
function estimate(expr: string, sizes: Record<string, number> = {}, opts: CostEstimatorOptions = {}) {
  const asked: string[] = [];
  const c = env.compile(expr, { variables: vars });
  if (!c.ok) throw new Error(c.message);
  const estimateSize = (path: readonly string[]): SizeEstimate | undefined => {
    const key = path.join('.');
    asked.push(key);
    return key in sizes ? { min: 0, max: sizes[key]! } : undefined;
  };
  return { cost: c.program.estimateCost({ maxSize: MAX_COST, ...opts, estimateSize }), asked };
}

describe('static cost estimate: per-path sizes', () => {
  it('asks for the path of a variable, its fields, list items and map keys and values', () => {
    expect(estimate("self.all(k, self[k].all(v, v.contains('x')))").asked).toEqual(
      expect.arrayContaining(['self', 'self.@keys', 'self.@values', 'self.@values.@items']),
    );
    expect(estimate("names.exists(x, x == 'a')").asked).toEqual(expect.arrayContaining(['names', 'names.@items']));
    expect(estimate("self['a'][0] == 'x'").asked).toEqual(expect.arrayContaining(['self', 'self.@values', 'self.@values.@items']));
    expect(estimate("d.spec.name == 'x'").asked).toEqual(['d.spec.name']);
  });

  it('uses the hook for iteration counts and string sizes (kube: maxItems and maxLength)', () => {
    // 1 + 10 × (2 + 1 + 1 + ceil(40 × 0.1) × ceil(1 × 0.1)) + 1
    expect(estimate("names.all(x, x.contains('a'))", { names: 10, 'names.@items': 40 }).cost).toEqual({ min: 2, max: 2 + 10 * 8 });
    // nested iteration over unbounded lists saturates at MaxUint64
    expect(estimate("self.all(k, self[k].all(v, v.startsWith('a')))").cost.max).toBe(MAX_COST);
    expect(estimate("self.all(k, self[k].all(v, v.startsWith('a')))", { self: 5, 'self.@values': 4 }).cost.max).toBe(2 + 5 * (2 + 1 + (3 + 4 * 5 + 1)));
  });

  it('sizes scalars as 1 and compares values of size 0 for free', () => {
    // ident 1 + `==` on ints ceil(1 × 0.1)
    expect(estimate('n == 3').cost).toEqual({ min: 2, max: 2 });
    // kube sizes objects with properties as 0: comparing them is free
    expect(estimate('d == d', { d: 0 }).cost).toEqual({ min: 2, max: 2 });
    expect(estimate('d == d', { d: 30 }).cost).toEqual({ min: 3, max: 5 });
  });

  it('keeps the bound variable\'s path through cel.bind', () => {
    // the empty iteration range 10 + names 1 + (xs 1 + 3 × (2 + 1 + 1 + 1) + 1)
    expect(estimate("cel.bind(xs, names, xs.all(x, x == 'a'))", { names: 3 }).cost.max).toBe(10 + 1 + 1 + 3 * 5 + 1);
  });

  it('sizes elements of literal lists from the literal', () => {
    // 10 (list) + 2 × (2 + 1 + 1 + ceil(5 × 0.1) × ceil(1 × 0.1)) + 1
    expect(estimate("['abcde', 'ab'].all(x, x.contains('a'))").cost.max).toBe(10 + 2 * 5 + 1);
  });

  it('bounds what nothing sizes by maxSize', () => {
    // exists: the condition is @not_strictly_false(!@result), 3; the step @result || x == 'a', 3
    expect(estimate("names.exists(x, x == 'a')", {}, { maxSize: 100 }).cost.max).toBe(1 + 100 * (3 + 3) + 1);
  });
});
