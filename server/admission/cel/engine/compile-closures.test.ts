// Differential test of the closure compiler against the interpreter (the reference): every expression of the
// engine and library tests (their string literals that compile) and of the cel-spec conformance data is evaluated
// both ways, with and without kube's presence-test cost, with no limit and with a limit one below the cost it
// takes, and the two must agree on the value (or error text), the cost and the cancellation.
import { readFileSync, readdirSync } from 'node:fs';
import { inspect } from 'node:util';
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import { compileClosures, evaluateClosures } from './compile-closures.js';
import { CelEngineEnv, type CompiledProgram } from './env.js';
import { evaluate, type Activation, type EvalOptions, type EvalOutcome } from './interpreter.js';
import { fromJSONLazy } from './json-values.js';
import { T, type CelType } from './types.js';
import { KUBERNETES_VALIDATORS } from './validators.js';
import { bindingsLibrary } from '../library/ext-bindings.js';
import { kubernetesLibraries } from '../library/index.js';
import { CelError, CelMap, CelOptional, fromJSON, type CelResult, type CelValue } from './values.js';

const plainEnv = new CelEngineEnv({ libraries: [bindingsLibrary] });
const kubeEnv = new CelEngineEnv({ libraries: kubernetesLibraries, validators: KUBERNETES_VALIDATORS });

/** the variables the engine and library tests use, declared dyn (or with their tests' types) */
const variables = new Map<string, CelType>([
  ['obj', T.dyn],
  ['s', T.string],
  ['l', T.dyn],
  ['x', T.dyn],
  ['object', T.dyn],
  ['oldObject', T.dyn],
  ['params', T.dyn],
  ['request', T.dyn],
]);

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web', team: 'payments' }, annotations: {} },
  spec: {
    containers: [
      { name: 'web', image: 'registry.example.com/web:1', ports: [{ containerPort: 8080 }] },
      { name: 'side', image: 'docker.io/envoy:1.30', ports: [] },
    ],
    replicas: 3,
  },
};

/** A new activation per evaluation, so a lazy JSON map's conversion state is never shared between the two runs. */
function activation(): Activation {
  const bindings = new Map<string, CelValue>([
    ['obj', fromJSON({ spec: { replicas: 3, ratio: 0.5, name: 'web', tags: ['a', 'b'] } })],
    ['s', 'x'.repeat(100)],
    ['l', fromJSON(Array.from({ length: 50 }, (_, i) => i))],
    ['x', fromJSON({ a: 1, b: [1, 2, 3], c: { d: 'e' } })],
    ['object', fromJSONLazy(pod)],
    ['oldObject', null],
    ['request', fromJSONLazy({ operation: 'CREATE', userInfo: { username: 'alice', groups: ['dev'] } })],
  ]);
  return { resolve: (n) => bindings.get(n) };
}

/** A value as text, including everything that distinguishes CEL values (type, map entries in order, optionals). */
function describeValue(v: CelResult): string {
  if (v instanceof CelError) return `error: ${v.message}`;
  if (v instanceof CelMap) return `map{${[...v.entries()].map(([k, x]) => `${describeValue(k)}: ${describeValue(x)}`).join(', ')}}`;
  if (Array.isArray(v)) return `list[${v.map((x: CelValue) => describeValue(x)).join(', ')}]`;
  if (v instanceof CelOptional) return v.hasValue() ? `optional(${describeValue(v.value)})` : 'optional.none';
  return inspect(v, { depth: Infinity });
}

function describeOutcome(o: EvalOutcome): string {
  return `${describeValue(o.value)} | cost ${o.cost}${o.cancelled ? ` | cancelled ${o.cancelled.kind}: ${o.cancelled.message}` : ''}`;
}

/** Both evaluations of one compiled program under the given options, as text. */
function bothWays(env: CelEngineEnv, compiled: CompiledProgram, opts: EvalOptions): { interpreted: string; closures: string } {
  const full = { ...opts, container: env.container };
  const interpreted = describeOutcome(evaluate(compiled.program, activation(), full));
  const closures = compileClosures(compiled.program, env.container);
  if (!closures) throw new Error('a checked program did not compile to closures');
  return { interpreted, closures: describeOutcome(evaluateClosures(closures, activation(), full)) };
}

/** Every option set an expression is compared under: kube's and cel-go's presence cost, with and without a limit. */
function compare(env: CelEngineEnv, compiled: CompiledProgram): string[] {
  const mismatches: string[] = [];
  for (const presenceTestHasCost of [false, true]) {
    const free = bothWays(env, compiled, { presenceTestHasCost });
    const runs = [free];
    const cost = Number(/\| cost (\d+)/.exec(free.interpreted)?.[1] ?? 0);
    if (cost > 0) runs.push(bothWays(env, compiled, { presenceTestHasCost, costLimit: cost - 1 }));
    for (const r of runs) if (r.interpreted !== r.closures) mismatches.push(`interpreter: ${r.interpreted}\n  closures: ${r.closures}`);
  }
  return mismatches;
}

/** JavaScript string literals of a test source, unescaped (the expressions the tests evaluate are among them). */
function stringLiterals(source: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.)*)`/g;
  for (const m of source.matchAll(re)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? '';
    out.push(
      raw.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, e: string) => {
        if (e.startsWith('u{')) return String.fromCodePoint(parseInt(e.slice(2, -1), 16));
        if ((e.startsWith('u') || e.startsWith('x')) && e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
        return ({ n: '\n', t: '\t', r: '\r', '0': '\0' } as Record<string, string>)[e] ?? e;
      }),
    );
  }
  return out;
}

function testSourceExpressions(): string[] {
  const dirs = [new URL('.', import.meta.url), new URL('../library/', import.meta.url)];
  const found = new Set<string>();
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.test.ts') || name === 'compile-closures.test.ts') continue;
      for (const s of stringLiterals(readFileSync(new URL(name, dir), 'utf8'))) if (s.trim() !== '') found.add(s);
    }
  }
  return [...found];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface ConformanceSuite {
  name: string;
  suites?: ConformanceSuite[];
  tests?: { original: { [k: string]: Json; expr: string } }[];
}

/** The conformance tests that need no bindings, type declarations or container (the expression alone). */
function conformanceExpressions(): string[] {
  const out: string[] = [];
  const walk = (s: ConformanceSuite): void => {
    for (const t of s.tests ?? []) {
      const o = t.original;
      if (o.bindings || o.typeEnv || o.container || o.disableCheck) continue;
      out.push(o.expr);
    }
    for (const c of s.suites ?? []) walk(c);
  };
  walk(conformance as unknown as ConformanceSuite);
  return out;
}

function compareAll(expressions: readonly string[]): { compared: number; mismatches: string[] } {
  let compared = 0;
  const mismatches: string[] = [];
  for (const expr of expressions) {
    for (const env of [plainEnv, kubeEnv]) {
      const c = env.compile(expr, { variables });
      if (!c.ok) continue;
      compared++;
      for (const m of compare(env, c.program)) mismatches.push(`${expr}\n  ${m}`);
    }
  }
  return { compared, mismatches };
}

describe('closures compiled from a checked expression', () => {
  it('agree with the interpreter on every expression of the engine and library tests', () => {
    const { compared, mismatches } = compareAll(testSourceExpressions());
    expect(mismatches).toEqual([]);
    // the literal scan finds the tests' expressions: far fewer compiled ones would mean it stopped finding them
    expect(compared).toBeGreaterThan(800);
  });

  it('agree with the interpreter on the cel-spec conformance expressions', () => {
    const { compared, mismatches } = compareAll(conformanceExpressions());
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });

  it.each([
    // comprehension scoping: an inner variable shadows an outer one, and the result sees only the accumulator
    '[1, 2].all(x, [3].exists(x, x == 3)) && [1].map(x, [x, x].filter(x, x > 0)) == [[1, 1]]',
    '[[1, 2], [3]].map(l, l.map(x, x * 2)).exists_one(l, l.size() == 1)',
    // two-variable comprehensions over a list and a map, and the error absorption of exists
    "[10, 20].all(i, v, v == (i + 1) * 10) && {'a': 1}.exists(k, v, k == 'a' && v == 1)",
    "[dyn(1), dyn('a')].exists(e, e == 1) && ![0, 1].all(e, 1 / e > 0)",
    // errors absorbed and not absorbed by && || ?:
    '(1 / 0 > 0 || true) && (false && 1 / 0 > 0) && (true ? 1 : 1 / 0) == 1',
    '1 / 0 > 0 || 2 / 0 > 0',
    // optionals and lazy JSON maps
    "object.metadata.labels.?team.orValue('') == 'payments' && !has(object.status) && object.?spec.?replicas == optional.of(3)",
    'object.spec.containers.all(c, c.image.startsWith("registry.example.com/"))',
    'object.spec.missing',
    'request.userInfo.groups.exists(g, g == "dev") && oldObject == null',
    // dynamic dispatch on dyn values, and its errors
    'x.a + 1 == 2 && x.c.d.size() == 1 && dyn(x.b) + [4] == [1, 2, 3, 4]',
    'dyn(1) + "a"',
    // runtime cost of string traversal and list membership
    's.startsWith("xx") && 99 in l && s.matches("^x+$")',
    // the Kubernetes libraries' equality costs (the closures ask only the hooks declared for == and !=)
    "ip('10.0.0.1') == ip('10.0.0.1') && cidr('10.0.0.0/8') != cidr('10.0.0.0/16') && quantity('1') != quantity('2')",
    "url('https://a.example/b') == url('https://a.example/b') && isSemver('1.0.0') && semver('1.0.0') != semver('1.0.1')",
    "format.dns1123Label() == format.dns1123Label() && ip('::1') != ip('::2')",
  ])('agree on %s', (expr) => {
    let compiled = 0;
    for (const env of [plainEnv, kubeEnv]) {
      const c = env.compile(expr, { variables });
      // the library expressions compile in the Kubernetes environment only
      if (!c.ok && env === plainEnv) continue;
      if (!c.ok) throw new Error(c.message);
      compiled++;
      expect(compare(env, c.program)).toEqual([]);
    }
    expect(compiled).toBeGreaterThan(0);
  });

  it('is what a checked program evaluates with: the program gives the closures\u2019 outcome', () => {
    const c = kubeEnv.compile('object.spec.containers.map(c, c.name)', { variables });
    if (!c.ok) throw new Error(c.message);
    const viaProgram = describeOutcome(c.program.evaluate(activation(), { costLimit: 1000 }));
    const { interpreted, closures } = bothWays(kubeEnv, c.program, { costLimit: 1000 });
    expect(viaProgram).toBe(closures);
    expect(viaProgram).toBe(interpreted);
    expect(viaProgram).toBe("list['web', 'side'] | cost 42");
  });
});
