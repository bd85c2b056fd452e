// Evaluation semantics and runtime cost, as cel-go's interpreter and interpreter/runtimecost.go produce them.
import { CelEngineEnv } from './env.js';
import { T, type CelType } from './types.js';
import { CelError, CelUint, fromJSON, toJSON, type CelValue } from './values.js';

const env = new CelEngineEnv();
const vars = new Map<string, CelType>([
  ['obj', T.dyn],
  ['s', T.string],
  ['l', T.dyn],
]);
const bindings = new Map<string, CelValue>([
  ['obj', fromJSON({ spec: { replicas: 3, ratio: 0.5, name: 'web', tags: ['a', 'b'] } })],
  ['s', 'x'.repeat(100)],
  ['l', fromJSON(Array.from({ length: 1000 }, (_, i) => i))],
]);

const run = (expr: string, costLimit?: number) => {
  const c = env.compile(expr, { variables: vars });
  if (!c.ok) throw new Error(c.message);
  return c.program.evaluate({ resolve: (n) => bindings.get(n) }, costLimit === undefined ? {} : { costLimit });
};
const value = (expr: string) => run(expr).value;
const errorOf = (expr: string) => {
  const v = value(expr);
  return v instanceof CelError ? v.message : `value ${String(v)}`;
};

describe('evaluation', () => {
  it.each<[string, CelValue]>([
    ['obj.spec.replicas + 1', 4n],
    ['obj.spec.ratio * 2.0', 1],
    // heterogeneous equality at runtime (the checker rejects `1 == 1.0` as cel-go's does)
    ['dyn(1) == 1.0', true],
    ['dyn(1u) == 1', true],
    ['[1, 2] == [1.0, 2u]', true],
    ["{'a': dyn(1)} == {'a': dyn(1.0)}", true],
    ["'b' in obj.spec.tags", true],
    ["has(obj.spec.name) && !has(obj.spec.missing)", true],
    ['obj.spec.missing == 1 || true', true],
    ['false && obj.spec.missing == 1', false],
    ['int(obj.spec.ratio * 10.0)', 5n],
    ["duration('1h30m') == duration('5400s')", true],
    ["timestamp('2024-01-01T10:00:00Z').getHours('Europe/Paris')", 11n],
    ["'abc'.matches('^a.c$')", true],
    ["obj.?spec.?missing.orValue('none')", 'none'],
    ["[?optional.none(), ?optional.of(1)]", [1n]],
    ['[1, 2, 3].exists_one(x, x > 2)', true],
    ['[1, 2].transformList(i, v, i + v)', [1n, 3n]],
    ['string(2.5)', '2.5'],
    ['string(1e21)', '1e+21'],
    ["string(timestamp('2009-02-13T23:31:30.100Z'))", '2009-02-13T23:31:30.1Z'],
    ["string(duration('1m30.5s'))", '90.5s'],
    ['uint(3)', new CelUint(3n)],
  ])('%s', (expr, want) => {
    const v = value(expr);
    if (v instanceof CelError) throw new Error(v.message);
    expect(toJSON(v)).toEqual(toJSON(want));
  });

  it.each([
    ['9223372036854775807 + 1', 'integer overflow'],
    ['-9223372036854775808 - 1', 'integer overflow'],
    ['0u - 1u', 'unsigned integer overflow'],
    ['1 / 0', 'division by zero'],
    ['1 % 0', 'modulus by zero'],
    ['obj.spec.missing', 'no such key: missing'],
    ["obj.spec.missing == 1 && true", 'no such key: missing'],
    ['obj.spec.missing == 1 ? 1 : 2', 'no such key: missing'],
    ['[1][2]', 'index out of bounds: 2'],
    ["dyn(1) + 'a'", 'no such overload: _+_(int, string)'],
  ])('%s fails with %j', (expr, want) => {
    expect(errorOf(expr)).toBe(want);
  });
});

describe('startsWith', () => {
  // the implementation searches with lastIndexOf from position 0, which must answer exactly as startsWith
  it.each<[string, boolean]>([
    ["'registry.example.com/web:1'.startsWith('registry.example.com/')", true],
    ["'abc'.startsWith('')", true],
    ["''.startsWith('')", true],
    ["''.startsWith('a')", false],
    ["'abc'.startsWith('abc')", true],
    ["'abc'.startsWith('abcd')", false],
    ["'abd'.startsWith('abc')", false],
    // a later occurrence is not a prefix
    ["'xab'.startsWith('ab')", false],
    ["'abab'.startsWith('ab')", true],
    ["'😀x'.startsWith('😀')", true],
    ["'😀x'.startsWith('x')", false],
  ])('%s is %s', (expr, want) => {
    expect(value(expr)).toBe(want);
  });
});

describe('runtime cost', () => {
  it.each<[string, number]>([
    ['1', 0],
    ['obj', 1],
    ['obj.spec.replicas', 3],
    ['obj.spec.replicas + 1', 4],
    ['[1, 2, 3]', 10],
    ["{'a': 1}", 30],
    ['has(obj.spec.name)', 3],
    ['true ? 1 : 2', 0],
    // startsWith: ceil(100 * 0.1)
    ["s.startsWith('x')", 11],
    // equals on strings: ceil(min(100, 1) * 0.1)
    ["s == 'x'", 2],
    // contains: ceil(100 * 0.1) * ceil(1 * 0.1)
    ["s.contains('x')", 11],
    // matches: ceil((1 + 100) * 0.1) * ceil(2 * 0.25)
    ["s.matches('x+')", 12],
    // list 10 + 3 iterations of (condition 2 + step 3) + result 1
    ['[1, 2, 3].all(x, x > 0)', 26],
  ])('charges %s %d', (expr, want) => {
    expect(run(expr).cost).toBe(want);
  });

  it('cancels with cel-go\'s message once the limit is passed', () => {
    const out = run('l.map(x, l.map(y, x + y))', 10_000);
    expect(out.cancelled).toEqual({ kind: 'cost', message: 'operation cancelled: actual cost limit exceeded' });
    expect(out.cost).toBeGreaterThan(10_000);
  });

  it('estimates costs statically from the same model', () => {
    // startsWith is sized by its prefix argument (checker/cost.go), not by the receiver
    const c = env.compile("obj.spec.name.startsWith('a')", { variables: vars });
    expect(c.ok && c.program.estimateCost({ maxSize: 1000 })).toEqual({ min: 4, max: 4 });
    const m = env.compile("obj.spec.name.matches('^a')", { variables: vars });
    expect(m.ok && m.program.estimateCost({ maxSize: 1000 })).toEqual({ min: 4, max: 3 + 101 });
    const d = env.compile('[1, 2, 3].all(x, x > 0)', { variables: vars });
    // `&&` may short-circuit, so its minimum is the left side's alone (checker/cost.go)
    expect(d.ok && d.program.estimateCost()).toEqual({ min: 20, max: 26 });
  });
});

// cel-go common/types: Timestamp.IsZeroValue is Go's time.Time.IsZero (0001-01-01T00:00:00Z, not the Unix epoch),
// Duration.IsZeroValue is a zero duration; optional.ofNonZeroValue (cel/library.go) keeps every other value.
describe('optional.ofNonZeroValue', () => {
  it.each<[string, boolean]>([
    ["optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00Z')).hasValue()", false],
    ['optional.ofNonZeroValue(timestamp(0)).hasValue()', true],
    ["optional.ofNonZeroValue(timestamp('1970-01-01T00:00:00Z')).hasValue()", true],
    ["optional.ofNonZeroValue(duration('0s')).hasValue()", false],
    ["optional.ofNonZeroValue(duration('-1ns')).hasValue()", true],
    ['optional.ofNonZeroValue(0u).hasValue()', false],
    ['optional.ofNonZeroValue(0.0).hasValue()', false],
    ["optional.ofNonZeroValue(b'').hasValue()", false],
    ['optional.ofNonZeroValue(null).hasValue()', false],
    ['optional.ofNonZeroValue(optional.none()).hasValue()', true],
    ['optional.ofNonZeroValue(int).hasValue()', true],
    ["optional.ofNonZeroValue(obj.spec.tags.filter(t, t == 'z')).hasValue()", false],
  ])('%s is %s', (expr, want) => {
    expect(value(expr)).toBe(want);
  });
});

// cel-go interpreter/attributes.go refQualify: field selection and indexing as attribute qualifiers. A list takes no
// string index (types.IndexOrError); a value that is neither map nor list has no such key, and a presence test or an
// optional selection of it is simply absent (kube does not enable EnableErrorOnBadPresenceTest).
describe('qualifying values without fields', () => {
  it.each<[string, CelValue | string]>([
    ['dyn(null).foo', 'no such key: foo'],
    ['dyn(1).foo', 'no such key: foo'],
    ["dyn('s').foo", 'no such key: foo'],
    ['dyn([1]).foo', "unsupported index type 'string' in list"],
    ['has(dyn([1]).foo)', "unsupported index type 'string' in list"],
    ['dyn(null)[0]', 'no such key: 0'],
    ["dyn(null)['foo']", 'no such key: foo'],
    ['dyn(true)[1.5]', 'no such key: 1.5'],
    ['has(dyn(null).foo)', false],
    ['has(dyn(1).foo)', false],
    ['dyn(null).?foo.hasValue()', false],
    ["dyn(null)[?'foo'].hasValue()", false],
    ['optional.of(dyn(null)).foo', 'no such key: foo'],
  ])('%s', (expr, want) => {
    const v = value(expr);
    if (typeof want === 'string') expect(v instanceof CelError ? v.message : v).toBe(want);
    else expect(v).toBe(want);
  });
});
