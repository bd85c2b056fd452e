import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { applySchemaDefaults, pruneUnknownFields } from './index.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        image: { type: 'string' },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'integer', default: 10 } } } },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' }, p: { type: 'integer', default: 5 } } } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
        },
        nullableWithDefault: { type: 'string', nullable: true, default: 'd' },
        nonNullable: { type: 'string' },
        nonNullableWithDefault: { type: 'string', default: 'd' },
        tags: { type: 'array', items: { type: 'string', default: 'untagged' } },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

describe('pruneUnknownFields', () => {
  const cases: Array<[string, Record<string, unknown>, boolean, Record<string, unknown>, string[]]> = [
    [
      'drops unknown fields and reports their paths; keeps apiVersion, kind and metadata at the root',
      { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a', whatever: 1 }, spec: { image: 'i', foo: 1 }, extra: true },
      true,
      { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a', whatever: 1 }, spec: { image: 'i' } },
      ['spec.foo', 'extra'],
    ],
    [
      'without isResourceRoot the root meta fields are pruned too',
      { apiVersion: 'x/v1', spec: {} },
      false,
      { spec: {} },
      ['apiVersion'],
    ],
    [
      'inside array items, with the index in the path',
      { spec: { items: [{ name: 'a' }, { name: 'b', bar: 2 }] } },
      true,
      { spec: { items: [{ name: 'a' }, { name: 'b' }] } },
      ['spec.items[1].bar'],
    ],
    [
      'inside additionalProperties values',
      { spec: { labels: { k: { v: 'x', junk: 1 } } } },
      true,
      { spec: { labels: { k: { v: 'x' } } } },
      ['spec.labels.k.junk'],
    ],
    [
      'x-kubernetes-preserve-unknown-fields keeps unknown fields but still prunes known nested ones',
      { spec: { config: { anything: { deep: 1 }, known: { a: 'x', b: 'y' } } } },
      true,
      { spec: { config: { anything: { deep: 1 }, known: { a: 'x' } } } },
      ['spec.config.known.b'],
    ],
    [
      'embedded resources keep apiVersion/kind/metadata and prune the rest of their content',
      { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { x: 'a', y: 'b' }, other: 1 } } },
      true,
      { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'a' } } } },
      ['spec.template.metadata.bogus', 'spec.template.spec.y', 'spec.template.other'],
    ],
  ];
  it.each(cases)('%s', (_name, obj, isResourceRoot, want, paths) => {
    expect(pruneUnknownFields(obj, schema, { isResourceRoot })).toEqual(paths);
    expect(obj).toEqual(want);
  });

  it('keeps everything below a root with x-kubernetes-preserve-unknown-fields', () => {
    const obj = { apiVersion: 'v1', spec: { a: 1 }, other: { b: 2 } };
    expect(pruneUnknownFields(obj, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { isResourceRoot: true })).toEqual([]);
    expect(obj).toEqual({ apiVersion: 'v1', spec: { a: 1 }, other: { b: 2 } });
  });
});

describe('applySchemaDefaults', () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['fills missing fields', { spec: {} }, { spec: { replicas: 1, nonNullableWithDefault: 'd', nullableWithDefault: 'd' } }],
    ['does not overwrite set fields', { spec: { replicas: 3, nonNullableWithDefault: 'x', nullableWithDefault: 'y' } }, { spec: { replicas: 3, nonNullableWithDefault: 'x', nullableWithDefault: 'y' } }],
    [
      'defaults inside array items and additionalProperties values',
      { spec: { replicas: 2, nonNullableWithDefault: 'x', nullableWithDefault: 'y', items: [{ name: 'a' }, { name: 'b', weight: 3 }], labels: { k: { v: 'x' } } } },
      { spec: { replicas: 2, nonNullableWithDefault: 'x', nullableWithDefault: 'y', items: [{ name: 'a', weight: 10 }, { name: 'b', weight: 3 }], labels: { k: { v: 'x', p: 5 } } } },
    ],
    [
      'a null in a non-nullable field without default is dropped; with a default it is defaulted; nullable keeps null',
      { spec: { replicas: null, nonNullable: null, nonNullableWithDefault: null, nullableWithDefault: null } },
      { spec: { replicas: 1, nonNullableWithDefault: 'd', nullableWithDefault: null } },
    ],
    [
      'null array items with an items default get the default',
      { spec: { replicas: 1, nonNullableWithDefault: 'd', nullableWithDefault: 'd', tags: ['a', null] } },
      { spec: { replicas: 1, nonNullableWithDefault: 'd', nullableWithDefault: 'd', tags: ['a', 'untagged'] } },
    ],
    ['does not create missing parents', { status: {} }, { status: {} }],
  ];
  it.each(cases)('%s', (_name, obj, want) => {
    applySchemaDefaults(obj, schema);
    expect(obj).toEqual(want);
  });

  it('deep-copies defaults so objects never share them', () => {
    const s: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { cfg: { type: 'object', default: { a: [1] }, properties: { a: { type: 'array', items: { type: 'integer' } } } } } } } };
    const x: { spec: { cfg?: { a: number[] } } } = { spec: {} };
    const y: { spec: { cfg?: { a: number[] } } } = { spec: {} };
    applySchemaDefaults(x, s);
    applySchemaDefaults(y, s);
    x.spec.cfg!.a.push(2);
    expect(y.spec.cfg).toEqual({ a: [1] });
    expect(s.properties!.spec!.properties!.cfg!.default).toEqual({ a: [1] });
  });

  it('on write prunes first, then defaults (a pruned unknown field is not resurrected, known ones are defaulted)', () => {
    const obj: Record<string, unknown> = { apiVersion: 'x/v1', kind: 'X', spec: { foo: 1 } };
    expect(pruneUnknownFields(obj, schema, { isResourceRoot: true })).toEqual(['spec.foo']);
    applySchemaDefaults(obj, schema);
    expect(obj).toEqual({ apiVersion: 'x/v1', kind: 'X', spec: { replicas: 1, nonNullableWithDefault: 'd', nullableWithDefault: 'd' } });
  });

  it('on read from storage defaults only (fields added to the schema later appear)', () => {
    const stored = { apiVersion: 'x/v1', kind: 'X', spec: { replicas: 4, nonNullableWithDefault: 'a', nullableWithDefault: 'b', items: [{ name: 'n' }] } };
    applySchemaDefaults(stored, schema);
    expect(stored.spec).toEqual({ replicas: 4, nonNullableWithDefault: 'a', nullableWithDefault: 'b', items: [{ name: 'n', weight: 10 }] });
  });
});
