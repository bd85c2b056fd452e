// Type-checker messages and result types, as cel-go reports them.
import { bindingsLibrary } from '../library/ext-bindings.js';
import { CelEngineEnv } from './env.js';
import { T, formatType, type CelType } from './types.js';

// cel-go's test environments include the bindings extension (cel.bind)
const env = new CelEngineEnv({ libraries: [bindingsLibrary] });
const vars = new Map<string, CelType>([
  ['obj', T.dyn],
  ['n', T.int],
  ['s', T.string],
  ['l', T.list(T.int)],
  ['m', T.map(T.string, T.int)],
]);

const typeOf = (expr: string): string => {
  const c = env.compile(expr, { variables: vars });
  if (!c.ok) throw new Error(c.message);
  return formatType(c.program.type);
};
const errorOf = (expr: string): string => {
  const c = env.compile(expr, { variables: vars });
  if (c.ok) throw new Error(`checked: ${expr}`);
  return c.message;
};

describe('checker', () => {
  it.each([
    ['foo', "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo\n | ^"],
    ["1 + 'a'", "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a'\n | ..^"],
    ['s.startsWith(1)', "ERROR: <input>:1:13: found no matching overload for 'startsWith' applied to 'string.(int)'\n | s.startsWith(1)\n | ............^"],
    ['n.foo', "ERROR: <input>:1:2: type 'int' does not support field selection\n | n.foo\n | .^"],
    ['size(n)', "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(n)\n | ....^"],
    ['undefinedFn(1)', "ERROR: <input>:1:12: undeclared reference to 'undefinedFn' (in container '')\n | undefinedFn(1)\n | ...........^"],
    ['n.all(x, x)', "ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)\n | n.all(x, x)\n | ^"],
  ])('reports %j', (expr, want) => {
    expect(errorOf(expr)).toBe(want);
  });

  it('reports every undeclared reference, in source order', () => {
    expect(errorOf('a || b')).toBe(
      "ERROR: <input>:1:1: undeclared reference to 'a' (in container '')\n | a || b\n | ^\nERROR: <input>:1:6: undeclared reference to 'b' (in container '')\n | a || b\n | .....^",
    );
  });

  it.each([
    ['obj.spec.replicas + 1', 'int'],
    ['obj.spec.name', 'dyn'],
    ['obj.spec.replicas > 1', 'bool'],
    ['l.map(x, x * 2)', 'list(int)'],
    ['l.filter(x, x > 1)', 'list(int)'],
    ["m.transformMap(k, v, k + 'x')", 'map(string, string)'],
    ['[1, 2].all(x, x > 0)', 'bool'],
    ["[1, 'a']", 'list(dyn)'],
    ['{}', 'map(dyn, dyn)'],
    ['m.?a', 'optional_type(int)'],
    ['optional.of(1).orValue(2)', 'int'],
    ['type(1)', 'type(int)'],
    ["timestamp('2020-01-01T00:00:00Z') - duration('1h')", 'google.protobuf.Timestamp'],
    ['cel.bind(x, n + 1, x * x)', 'int'],
    ['m.exists(k, v, v > 0)', 'bool'],
  ])('types %j as %s', (expr, want) => {
    expect(typeOf(expr)).toBe(want);
  });
});
