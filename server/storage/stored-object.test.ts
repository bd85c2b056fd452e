import { inspect } from 'node:util';
import type { KubeObject } from '../api/types.js';
import { decodeObject, encodeObject, writtenObject } from './stored-object.js';

describe('decodeObject', () => {
  it('adds metadata.resourceVersion after the stored fields, as the stored form never holds it', () => {
    const obj = decodeObject('/registry/configmaps/default/a', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","uid":"u"},"data":{"k":"v"}}', 42);
    expect(JSON.stringify(obj)).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","uid":"u","resourceVersion":"42"},"data":{"k":"v"}}');
  });

  it('replaces a resourceVersion a stored value carries in its place, with the revision', () => {
    const obj = decodeObject('/k', '{"metadata":{"name":"a","resourceVersion":"7","uid":"u"}}', 9);
    expect(JSON.stringify(obj)).toBe('{"metadata":{"name":"a","resourceVersion":"9","uid":"u"}}');
  });

  it('gives an object without metadata (or with a non-object metadata) one holding only the resourceVersion', () => {
    expect(JSON.stringify(decodeObject('/k', '{"kind":"X"}', 3))).toBe('{"kind":"X","metadata":{"resourceVersion":"3"}}');
    expect(JSON.stringify(decodeObject('/k', '{"kind":"X","metadata":null}', 3))).toBe('{"kind":"X","metadata":{"resourceVersion":"3"}}');
    expect(JSON.stringify(decodeObject('/k', '{"kind":"X","metadata":"m"}', 3))).toBe('{"kind":"X","metadata":{"resourceVersion":"3"}}');
  });

  it('round-trips what encodeObject stored, resourceVersion now the revision', () => {
    const stored = encodeObject('/k', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '5', labels: { x: 'y' } } });
    expect(stored).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}}}');
    expect(decodeObject('/k', stored, 6)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 'y' }, resourceVersion: '6' } });
  });
});

describe('writtenObject: a write\'s answer copied from the written object, as decodeObject reads the stored text', () => {
  const key = '/registry/configmaps/default/a';
  const shown = (v: unknown): string => inspect(v, { depth: null, sorted: false });
  const asDecoded = (obj: KubeObject, revision: number): string => shown(decodeObject(key, encodeObject(key, obj), revision));

  const cases: Array<[string, KubeObject]> = [
    ['a ConfigMap with managedFields', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', uid: 'u', creationTimestamp: '2026-11-28T00:00:00Z', labels: { app: 'x' }, managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } } }] }, data: { k: 'v' } }],
    ['a resourceVersion in the middle of metadata (dropped, then set last)', { metadata: { name: 'a', resourceVersion: '7', uid: 'u' }, spec: { replicas: 1 } }],
    ['undefined fields, -0 and undefined array elements', { metadata: { name: 'a', generation: undefined }, spec: { x: -0, list: [undefined, 1] }, status: undefined }],
    ['metadata first and last', { metadata: { name: 'a' }, kind: 'K' }],
    ['integer-like keys', { kind: 'K', metadata: { name: 'a', annotations: { '10': 'x', '2': 'y' } }, data: { '1': 'a', b: 'c' } }],
  ];
  it.each(cases)('%s', (_name, obj) => {
    const before = shown(obj);
    expect(shown(writtenObject(key, obj, encodeObject(key, obj), 42))).toBe(asDecoded(obj, 42));
    // the written object is left as it was, and shares nothing with the answer
    expect(shown(obj)).toBe(before);
    const answer = writtenObject(key, obj, encodeObject(key, obj), 42);
    expect(answer).not.toBe(obj);
    expect(answer.metadata).not.toBe(obj.metadata);
  });

  it('reads the stored text where a plain copy would differ from it (a Date, no metadata object)', () => {
    for (const obj of [{ metadata: { name: 'a', creationTimestamp: new Date(0) } }, { kind: 'K' }, { kind: 'K', metadata: null }, { metadata: { name: 'a' }, spec: { n: Number.NaN } }] as unknown as KubeObject[]) {
      expect(shown(writtenObject(key, obj, encodeObject(key, obj), 5))).toBe(asDecoded(obj, 5));
    }
  });
});
