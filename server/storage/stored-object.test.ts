import { decodeObject, encodeObject } from './stored-object.js';

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
