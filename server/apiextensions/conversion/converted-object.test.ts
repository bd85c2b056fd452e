// The checks kube's webhook converter makes on each converted object, with Go's texts for values of the wrong type.
import type { KubeObject } from '../../api/types.js';
import { rawExtensionObject, restoreObjectMeta } from './converted-object.js';

describe('rawExtensionObject', () => {
  it.each<[unknown, string]>([
    [null, 'unexpected end of JSON input'],
    [[], 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['x', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    [1, 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
    [true, 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
    [{ apiVersion: 'v1' }, `Object 'Kind' is missing in '{"apiVersion":"v1"}'`],
  ])('refuses %j: %s', (value, error) => {
    expect(rawExtensionObject(value)).toEqual({ ok: false, error });
  });

  it('accepts an object with a kind', () => {
    const obj = { apiVersion: 'v1', kind: 'A' };
    expect(rawExtensionObject(obj)).toEqual({ ok: true, object: obj });
  });
});

describe('restoreObjectMeta', () => {
  const original: KubeObject = { apiVersion: 'x/v1', kind: 'A', metadata: { name: 'a', labels: { app: 'a' } } };

  it.each<[unknown, string]>([
    [null, 'invalid metadata of type <nil> in converted object'],
    [[], 'invalid metadata of type []interface {} in converted object'],
    ['m', 'invalid metadata of type string in converted object'],
  ])('prints Go %%T of metadata %j', (metadata, error) => {
    expect(restoreObjectMeta(original, { kind: 'A', metadata })).toEqual({ ok: false, error });
  });

  it.each<[unknown, string]>([
    [1.5, 'metadata.labels[app] must be a string, but is float64 in converted object'],
    [2, 'metadata.labels[app] must be a string, but is int64 in converted object'],
    [false, 'metadata.labels[app] must be a string, but is bool in converted object'],
  ])('prints Go %%T of a label value %j', (value, error) => {
    expect(restoreObjectMeta(original, { kind: 'A', metadata: { labels: { app: value } } })).toEqual({ ok: false, error });
  });

  it('keeps the original metadata but for labels and annotations', () => {
    const r = restoreObjectMeta(original, { kind: 'A', metadata: { name: 'changed', labels: { app: 'b' } } });
    expect(r).toEqual({ ok: true, object: { kind: 'A', metadata: { name: 'a', labels: { app: 'b' } } } });
  });
});
