// deepCopyJSON replaced structuredClone on the request path: for the values objects are made of (what JSON, YAML
// and protobuf decoding give), it must copy exactly what structuredClone copied, and share nothing with its input.
import { inspect } from 'node:util';
import { deepCopyJSON, jsonRoundTrip, jsonRoundTripObject, notPlainJSON } from './deep-copy.js';

// structuredClone's objects come from node's realm, not jest's: compared by their full rendering (key order and
// undefined values shown), which is what matters here
const shown = (v: unknown): string => inspect(v, { depth: null, sorted: false });

/** A deterministic pseudo-random JSON value (mulberry32), with the shapes decoded objects have. */
function randomValue(seed: number): unknown {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 4 || r < 0.35) {
      const k = Math.floor(next() * 6);
      return [null, true, false, Math.floor(next() * 1e6) - 5e5, next() * 10, `s${Math.floor(next() * 100)}`][k];
    }
    if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 5); i > 0; i--) o[`k${Math.floor(next() * 20)}`] = value(depth + 1);
    return o;
  };
  return value(0);
}

/** Every object and array reachable from v. */
function containers(v: unknown, out = new Set<object>()): Set<object> {
  if (v !== null && typeof v === 'object') {
    out.add(v);
    for (const x of Object.values(v)) containers(x, out);
  }
  return out;
}

test('copies decoded values as structuredClone does, key order included, sharing no object or array', () => {
  for (let seed = 1; seed <= 500; seed++) {
    const v = randomValue(seed);
    const copy = deepCopyJSON(v);
    expect(shown(copy)).toBe(shown(structuredClone(v)));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(v));
    const theirs = containers(v);
    for (const c of containers(copy)) expect(theirs.has(c)).toBe(false);
  }
});

test('keeps keys whose value is undefined, as structuredClone does (JSON.stringify drops them later)', () => {
  const v = { metadata: { name: 'a', resourceVersion: undefined }, list: [1, undefined, 3] };
  const copy = deepCopyJSON(v);
  expect(Object.keys(copy.metadata)).toEqual(['name', 'resourceVersion']);
  expect(shown(copy)).toBe(shown(structuredClone(v)));
});

test('scalars and null come back as they are', () => {
  for (const x of [null, undefined, 0, -1.5, 'text', true, false, 12345678901234567890n]) expect(deepCopyJSON(x)).toBe(x);
});

test('a change to the copy does not reach the original', () => {
  const original = { metadata: { labels: { a: 'b' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] } };
  const copy = deepCopyJSON(original);
  copy.metadata.labels.a = 'changed';
  copy.metadata.managedFields[0]!.fieldsV1['f:data'] = { changed: true };
  copy.metadata.managedFields.push({ manager: 'n', fieldsV1: { 'f:data': {} } });
  expect(original).toEqual({ metadata: { labels: { a: 'b' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] } });
});

// kube's TestDeepCopyJSON (apimachinery pkg/runtime/converter_test.go), with its source map; Go's int64 and
// json.Number are a JSON number here (the bigint case covers int64 values beyond 2^53).
test("kube's TestDeepCopyJSON: the copy equals the source", () => {
  const src = { a: null, b: 123, c: { a: 'b' }, d: [1, 2], e: 'estr', f: true, g: 123, h: 2n ** 63n - 1n };
  const copy = deepCopyJSON(src);
  expect(copy).toEqual(src);
  expect(copy).not.toBe(src);
  expect(copy.c).not.toBe(src.c);
  expect(copy.d).not.toBe(src.d);
});

describe('jsonRoundTrip: JSON.parse(JSON.stringify(v)) without the text', () => {
  // what the parse of the text gives, rendered with key order and undefined values shown
  const viaText = (v: unknown): string => shown(JSON.parse(JSON.stringify(v)));

  test('equals the parse of the text on generated values, key order included, sharing no object or array', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const v = randomValue(seed);
      const copy = jsonRoundTrip(v);
      expect(copy).not.toBe(notPlainJSON);
      expect(shown(copy)).toBe(viaText(v));
      const theirs = containers(v);
      for (const c of containers(copy)) expect(theirs.has(c)).toBe(false);
    }
  });

  test('drops what JSON drops: undefined properties left out, undefined and missing array elements null, -0 as 0', () => {
    const sparse: unknown[] = [1];
    sparse[2] = 3;
    const v = { a: undefined, b: [undefined, 1], c: { d: undefined, e: -0 }, f: sparse, 10: 'x', 2: 'y' };
    expect(shown(jsonRoundTrip(v))).toBe(viaText(v));
    expect(Object.is((jsonRoundTrip({ z: -0 }) as { z: number }).z, 0)).toBe(true);
    expect(Object.keys(jsonRoundTrip(v) as object)).toEqual(['2', '10', 'b', 'c', 'f']);
  });

  test('answers notPlainJSON for what JSON transforms in another way, so that the caller parses the text', () => {
    const protoKey = JSON.parse('{"__proto__": {"a": 1}}') as object;
    for (const v of [
      { t: new Date(0) },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { f: () => 1 },
      { s: Symbol('s') },
      { b: 1n },
      { m: new Map([[1, 2]]) },
      { j: { toJSON: () => 'x' } },
      [() => 1],
      protoKey,
      undefined,
    ]) {
      expect(jsonRoundTrip(v)).toBe(notPlainJSON);
    }
  });

  test('jsonRoundTripObject leaves one property out or puts a given value in its place', () => {
    const v = { a: 1, metadata: { name: 'n', resourceVersion: '5' }, z: 2 };
    expect(jsonRoundTripObject(v.metadata, { without: 'resourceVersion' })).toEqual({ name: 'n' });
    const replaced = jsonRoundTripObject(v, { replace: { key: 'metadata', value: { x: true } } });
    expect(Object.keys(replaced as object)).toEqual(['a', 'metadata', 'z']);
    expect(replaced).toEqual({ a: 1, metadata: { x: true }, z: 2 });
  });
});
