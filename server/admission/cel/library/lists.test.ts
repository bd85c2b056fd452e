import { CelDuration, CelMap, CelTimestamp, fromJSON, type CelValue } from '../engine/values.js';
import { T, type CelType } from '../engine/types.js';
import { evalError, evalValue, evaluateExpression } from './library-test-env.js';

const dur = (s: number): CelDuration => new CelDuration(BigInt(s) * 1_000_000_000n);
const date = (s: string): CelTimestamp => new CelTimestamp(BigInt(Date.parse(s)) * 1_000_000n);

// the object of kube's "stdlib list functions" test, with the schema types the test declares
const fields: Record<string, [CelValue, CelType]> = {
  ints: [[1n, 2n, 2n, 3n], T.list(T.int)],
  unsortedInts: [[2n, 1n], T.list(T.int)],
  emptyInts: [[], T.list(T.int)],
  doubles: [[1, 2, 2, 3], T.list(T.double)],
  unsortedDoubles: [[2, 1], T.list(T.double)],
  emptyDoubles: [[], T.list(T.double)],
  durations: [[dur(1), dur(60), dur(60), dur(3600)], T.list(T.duration)],
  unsortedDurations: [[dur(60), dur(1)], T.list(T.duration)],
  emptyDurations: [[], T.list(T.duration)],
  strings: [['a', 'b', 'b', 'c'], T.list(T.string)],
  unsortedStrings: [['b', 'a'], T.list(T.string)],
  emptyStrings: [[], T.list(T.string)],
  dates: [[date('2000-01-01'), date('2000-02-01'), date('2000-02-01'), date('2010-01-01')], T.list(T.timestamp)],
  unsortedDates: [[date('2000-02-01'), date('2000-01-01')], T.list(T.timestamp)],
  emptyDates: [[], T.list(T.timestamp)],
  objs: [fromJSON([{ f1: 'a', f2: 'a' }, { f1: 'a', f2: 'b' }, { f1: 'a', f2: 'b' }, { f1: 'a', f2: 'c' }]), T.list(T.map(T.string, T.string))],
};
const vars = Object.fromEntries(Object.entries(fields).map(([k, [value, type]]) => [k, { value, type }]));
const self = (expr: string): string => expr.replace(/self\./g, '');

describe('lists library', () => {
  // kube's TestValidationExpressions "stdlib list functions"; `self.x` is bound as the variable `x`
  it.each([
    'self.ints.sum() == 8',
    'self.ints.min() == 1',
    'self.ints.max() == 3',
    'self.emptyInts.sum() == 0',
    'self.ints.isSorted()',
    'self.emptyInts.isSorted()',
    'self.unsortedInts.isSorted() == false',
    'self.ints.indexOf(2) == 1',
    'self.ints.lastIndexOf(2) == 2',
    'self.ints.indexOf(10) == -1',
    'self.ints.lastIndexOf(10) == -1',
    'self.doubles.sum() == 8.0',
    'self.doubles.min() == 1.0',
    'self.doubles.max() == 3.0',
    'self.emptyDoubles.sum() == 0.0',
    'self.doubles.isSorted()',
    'self.emptyDoubles.isSorted()',
    'self.unsortedDoubles.isSorted() == false',
    'self.doubles.indexOf(2.0) == 1',
    'self.doubles.lastIndexOf(2.0) == 2',
    'self.doubles.indexOf(10.0) == -1',
    'self.doubles.lastIndexOf(10.0) == -1',
    "self.durations.sum() == duration('1h2m1s')",
    "self.durations.min() == duration('1s')",
    "self.durations.max() == duration('1h')",
    "self.emptyDurations.sum() == duration('0')",
    'self.durations.isSorted()',
    'self.emptyDurations.isSorted()',
    'self.unsortedDurations.isSorted() == false',
    "self.durations.indexOf(duration('1m')) == 1",
    "self.durations.lastIndexOf(duration('1m')) == 2",
    "self.durations.indexOf(duration('2m')) == -1",
    "self.strings.min() == 'a'",
    "self.strings.max() == 'c'",
    'self.strings.isSorted()',
    'self.emptyStrings.isSorted()',
    'self.unsortedStrings.isSorted() == false',
    "self.strings.indexOf('b') == 1",
    "self.strings.lastIndexOf('b') == 2",
    "self.strings.indexOf('x') == -1",
    "self.dates.min() == timestamp('2000-01-01T00:00:00.000Z')",
    "self.dates.max() == timestamp('2010-01-01T00:00:00.000Z')",
    'self.dates.isSorted()',
    'self.emptyDates.isSorted()',
    'self.unsortedDates.isSorted() == false',
    "self.dates.indexOf(timestamp('2000-02-01T00:00:00.000Z')) == 1",
    "self.dates.lastIndexOf(timestamp('2000-02-01T00:00:00.000Z')) == 2",
    "self.dates.indexOf(timestamp('2005-02-01T00:00:00.000Z')) == -1",
    '[[1], [2]].indexOf([1]) == 0',
    "[{'a': 1}, {'b': 2}].lastIndexOf({'b': 2}) == 1",
    'self.objs.indexOf(self.objs[1]) == 1',
    'self.objs.lastIndexOf(self.objs[1]) == 2',
    '([0] + self.emptyInts).min() == 0',
    'dyn([]).sum() == 0',
    'dyn([1, 2]).sum() == 3',
    'dyn([1.0, 2.0]).sum() == 3.0',
    '[].sum() == 0',
    // lists.go doc examples
    "['a', 'b', 'b', 'c'].isSorted()",
    '[2.0, 1.0].isSorted() == false',
    "[].indexOf('string') == -1",
    '[1.0].indexOf(1.1) == -1',
  ])('%s', (expr) => {
    expect(evalValue(self(expr), vars)).toBe(true);
  });

  it.each([
    ['self.emptyInts.min() == 1', 'min called on empty list'],
    ['self.emptyInts.max() == 3', 'max called on empty list'],
    ['self.emptyDoubles.min() == 1.0', 'min called on empty list'],
    ['self.emptyStrings.max() == "c"', 'max called on empty list'],
    ['[9223372036854775807, 1].sum()', 'integer overflow'],
    ['dyn([1, 2.5]).sum()', 'no such overload'],
  ])('%s fails with %j', (expr, msg) => {
    expect(evalError(self(expr), vars)).toBe(msg);
  });

  it.each([
    ["['a', 'b'].sum() == 'c'", "found no matching overload for 'sum' applied to 'list(string).()'"],
    ['[[1], [2]].min() == [1]', "found no matching overload for 'min' applied to 'list(list(int)).()'"],
    ["[{'a': 1}, {'b': 2}].max() == {'b': 2}", "found no matching overload for 'max' applied to 'list(map(string, int)).()'"],
  ])('%s does not compile', (expr, msg) => {
    expect(evaluateExpression(expr).compileError).toContain(msg);
  });

  it('sums a dyn list of JSON numbers by its first element', () => {
    expect(evalValue('object.spec.list.sum()', { object: fromJSON({ spec: { list: [1, 2, 3] } }) })).toBe(6n);
    expect(evalValue('object.spec.list.max()', { object: new CelMap([['spec', fromJSON({ list: [1.5, 0.5] })]]) })).toBe(1.5);
  });
});
