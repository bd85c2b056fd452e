// The lazily converted JSON object is the same CEL map as the eager conversion: same entries in the same order,
// same lookups by key of every type, same equality and results, and evaluation over either gives the same answers.
import { CelEngineEnv } from './env.js';
import { JsonObjectMap, fromJSONLazy } from './json-values.js';
import { T, type CelType } from './types.js';
import { CelError, CelMap, CelUint, celEquals, fromJSON, toJSON, type CelValue } from './values.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web', '10': 'numeric-looking key' }, annotations: {} },
  spec: {
    replicas: 3,
    ratio: 0.5,
    containers: [
      { name: 'a', image: 'registry.example.com/a:1', ports: [{ containerPort: 80 }] },
      { name: 'b', image: 'other.example.com/b:2', skipped: undefined },
    ],
    nothing: null,
    absent: undefined,
  },
};

describe('fromJSONLazy', () => {
  it('converts scalars and lists as fromJSON does, objects to a JsonObjectMap', () => {
    for (const v of [null, true, 'x', 3, 0.5, 2 ** 64]) expect(fromJSONLazy(v)).toEqual(fromJSON(v));
    expect(fromJSONLazy(pod)).toBeInstanceOf(JsonObjectMap);
    expect(Array.isArray(fromJSONLazy([{ a: 1 }]))).toBe(true);
  });

  it('has the entries of the eager map, in the same order, leaving out undefined properties', () => {
    const lazy = fromJSONLazy(pod.spec) as CelMap;
    const eager = fromJSON(pod.spec) as CelMap;
    expect(lazy.size).toBe(eager.size);
    expect([...lazy.keys()]).toEqual([...eager.keys()]);
    expect([...lazy.entries()].map(([k, v]) => [k, toJSON(v)])).toEqual([...eager.entries()].map(([k, v]) => [k, toJSON(v)]));
    expect(lazy.has('absent')).toBe(false);
    expect(lazy.get('absent')).toBeUndefined();
    expect(lazy.has('nothing')).toBe(true);
    expect(lazy.get('nothing')).toBeNull();
  });

  it('finds only string keys, as the eager map (whose keys are all strings) does', () => {
    const labels = fromJSONLazy(pod.metadata.labels) as CelMap;
    const eager = fromJSON(pod.metadata.labels) as CelMap;
    for (const k of ['app', '10', 10n, new CelUint(10n), 10, true, 'toString', '__proto__', 'constructor'] as CelValue[]) {
      expect([labels.has(k), labels.get(k)]).toEqual([eager.has(k), eager.get(k)]);
    }
  });

  it('is equal to the eager map in both directions, and converts a property once', () => {
    const lazy = fromJSONLazy(pod);
    const eager = fromJSON(pod);
    expect(celEquals(lazy, eager)).toBe(true);
    expect(celEquals(eager, lazy)).toBe(true);
    expect(celEquals(lazy, fromJSON({ ...pod, kind: 'Service' }))).toBe(false);
    const m = lazy as CelMap;
    expect(m.get('spec')).toBe(m.get('spec'));
  });

  it('converts each object property once however many are read, and scalars to the same values at each read', () => {
    // more object-valued properties than the small cache holds, so the cache moves to a Map midway
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, { i, list: [i] }]));
    const lazy = fromJSONLazy({ ...wide, n: 7, s: 'x' }) as CelMap;
    const first = Array.from({ length: 20 }, (_, i) => lazy.get(`p${i}`));
    for (let i = 0; i < 20; i++) expect(lazy.get(`p${i}`)).toBe(first[i]);
    expect([...lazy.entries()].map(([k, v]) => [k, v])).toEqual([...Array.from({ length: 20 }, (_, i) => [`p${i}`, first[i]]), ['n', 7n], ['s', 'x']]);
    expect(celEquals(lazy, fromJSON({ ...wide, n: 7, s: 'x' }))).toBe(true);
    expect([lazy.get('n'), lazy.get('n'), lazy.get('s')]).toEqual([7n, 7n, 'x']);
    // the last scalar read is kept: reads that alternate between scalars and objects still answer each property
    expect([lazy.get('n'), lazy.get('s'), lazy.get('n'), lazy.get('p3'), lazy.get('s'), lazy.get('absent'), lazy.get('s')]).toEqual([7n, 'x', 7n, first[3], 'x', undefined, 'x']);
  });

  it('a JSON object with an own __proto__ property keeps it as a key', () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as object;
    const lazy = fromJSONLazy(parsed) as CelMap;
    expect([...lazy.keys()]).toEqual([...(fromJSON(parsed) as CelMap).keys()]);
    expect(toJSON(lazy.get('__proto__')!)).toEqual({ x: 1 });
  });
});

describe('evaluation over a lazily converted object', () => {
  const env = new CelEngineEnv();
  const vars = new Map<string, CelType>([['object', T.dyn]]);
  const run = (expr: string, object: CelValue): unknown => {
    const c = env.compile(expr, { variables: vars });
    if (!c.ok) throw new Error(c.message);
    const v = c.program.evaluate({ resolve: (n) => (n === 'object' ? object : undefined) }).value;
    return v instanceof CelError ? `error: ${v.message}` : toJSON(v);
  };

  it.each([
    'object.spec.containers.all(c, c.image.startsWith("registry.example.com/"))',
    'object.spec.containers.exists(c, c.name == "b")',
    'object.spec.containers.map(c, c.ports.size())',
    'object.spec.replicas + 1',
    'object.spec.ratio * 2.0',
    'has(object.spec.absent)',
    'has(object.spec.nothing)',
    'object.spec.absent',
    'object.metadata.labels.?team.orValue("none")',
    'object.metadata.labels["10"]',
    'object.metadata.labels.size()',
    '"app" in object.metadata.labels',
    'object.metadata.labels.all(k, k != "")',
    'object.metadata.annotations == {}',
    'object == object',
    'object.spec',
    'object.spec.containers[1]',
    'object.spec.containers[2]',
    'object.spec.containers.all(c, c.skipped == null)',
  ])('%s', (expr) => {
    expect(run(expr, fromJSONLazy(pod))).toEqual(run(expr, fromJSON(pod)));
  });
});
