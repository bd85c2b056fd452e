import { CelEngineEnv } from './env.js';
import { T } from './types.js';
import { KUBERNETES_VALIDATORS } from './validators.js';

// kube's base environment: its validators over the standard library (environment/base.go)
const env = new CelEngineEnv({ validators: KUBERNETES_VALIDATORS });
const variables = new Map([
  ['x', T.string],
  ['name', T.string],
]);
const compileError = (expr: string): string | undefined => {
  const r = env.compile(expr, { variables });
  return r.ok ? undefined : r.message;
};

// cel-go cel/validator_test.go (v0.26.0): TestValidateDurationLiterals, TestValidateTimestampLiterals,
// TestValidateRegexLiterals, TestValidateHomogeneousAggregateLiterals, with cel-go's exact issue texts
describe('AST validators of the Kubernetes base environment', () => {
  it.each([
    ["duration('1')", "ERROR: <input>:1:10: invalid duration argument\n | duration('1')\n | .........^"],
    ["duration('1d')", "ERROR: <input>:1:10: invalid duration argument\n | duration('1d')\n | .........^"],
    ["duration('1us')\n < duration('1nns')", "ERROR: <input>:2:13: invalid duration argument\n |  < duration('1nns')\n | ............^"],
    ["duration('2h3m4s5us')", undefined],
    ["timestamp('1000-00-00T00:00:00Z')", "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('1000-00-00T00:00:00Z')\n | ..........^"],
    ["timestamp('1000-01-01T00:00:00ZZ')", "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('1000-01-01T00:00:00ZZ')\n | ..........^"],
    ["timestamp('1000-01-01T00:00:00Z')", undefined],
    ['timestamp(-6213559680)', undefined],
    ['timestamp(-62135596801)', 'ERROR: <input>:1:11: invalid timestamp argument\n | timestamp(-62135596801)\n | ..........^'],
    ['timestamp(x)', undefined],
    ["'hello'.matches('el*')", undefined],
    ["'hello'.matches('x++')", "ERROR: <input>:1:17: invalid matches argument\n | 'hello'.matches('x++')\n | ................^"],
    ["'hello'.matches('(?<name%>el*)')", "ERROR: <input>:1:17: invalid matches argument\n | 'hello'.matches('(?<name%>el*)')\n | ................^"],
    ["'hello'.matches('??el*')", "ERROR: <input>:1:17: invalid matches argument\n | 'hello'.matches('??el*')\n | ................^"],
    ["'hello'.matches(x)", undefined],
    ["name in ['hello', 0]", "ERROR: <input>:1:19: expected type 'string' but found 'int'\n | name in ['hello', 0]\n | ..................^"],
    ["{'hello':'world', 1:'!'}", "ERROR: <input>:1:19: expected type 'string' but found 'int'\n | {'hello':'world', 1:'!'}\n | ..................^"],
    [
      "name in {'hello':'world', 'goodbye':true}",
      "ERROR: <input>:1:37: expected type 'string' but found 'bool'\n | name in {'hello':'world', 'goodbye':true}\n | ....................................^",
    ],
    ["name in ['hello', 'world']", undefined],
    ["name in ['hello', ?optional.ofNonZeroValue('')]", undefined],
    ["name in [?optional.ofNonZeroValue(''), 'hello', ?optional.of('')]", undefined],
    ["name in {'hello': false, 'world': true}", undefined],
    ["{'hello': false, ?'world': optional.ofNonZeroValue(true)}", undefined],
    ["{?'hello': optional.ofNonZeroValue(false), 'world': true}", undefined],
  ])('%s', (expr, issue) => {
    expect(compileError(expr)).toBe(issue);
  });

  it('compares element types exactly: dyn and int differ, as IsEquivalentType says', () => {
    expect(compileError('[dyn(1), 2]')).toBe("ERROR: <input>:1:10: expected type 'dyn' but found 'int'\n | [dyn(1), 2]\n | .........^");
    expect(compileError('[[1], [2, 3]]')).toBeUndefined();
    expect(compileError("[[1], ['a']]")).toBe("ERROR: <input>:1:7: expected type 'list(int)' but found 'list(string)'\n | [[1], ['a']]\n | ......^");
    expect(compileError("[timestamp('2020-01-01T00:00:00Z'), duration('1s')]")).toContain("expected type 'timestamp' but found 'duration'");
  });

  it('reports only the first mismatch of a list, every mismatch of a map', () => {
    expect(compileError("[1, 'a', true]")?.split('\n')[0]).toBe("ERROR: <input>:1:5: expected type 'int' but found 'string'");
    expect(compileError("{1: 'a', 'b': 2}")?.split('\n').filter((l) => l.startsWith('ERROR'))).toEqual([
      "ERROR: <input>:1:10: expected type 'int' but found 'string'",
      "ERROR: <input>:1:15: expected type 'string' but found 'int'",
    ]);
  });

  it('fails building the program for an invalid constant pattern of the global matches', () => {
    expect(env.compile("matches('hello', 'x++')", { variables })).toEqual({
      ok: false,
      issues: [],
      message: 'error parsing regexp: invalid nested repetition operator: `++`',
      stage: 'program',
    });
  });

  it('leaves an environment without validators alone (the cel-spec conformance environment)', () => {
    const plain = new CelEngineEnv();
    expect(plain.compile("[1, 'a'].size() == 2", { variables }).ok).toBe(true);
    expect(plain.compile("duration('1d')", { variables }).ok).toBe(true);
  });
});
