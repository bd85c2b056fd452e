import { parseJsonOrYamlDocument, type JsonNode } from './go-json-document.js';
import { interpretTypeMeta, RawJson, strictDecodingError, unmarshalStrict, type GoStruct } from './go-strict-decoder.js';

function node(text: string): JsonNode {
  const parsed = parseJsonOrYamlDocument(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.node;
}

const item: GoStruct = { kind: 'struct', name: 'Item', qualified: 'v1.Item', fields: { name: { kind: 'string' }, port: { kind: 'int', name: 'int32' } } };
const holder: GoStruct = {
  kind: 'struct',
  name: 'Holder',
  qualified: 'v1.Holder',
  fields: {
    items: { kind: 'slice', elem: item },
    labels: { kind: 'map', elem: { kind: 'string' } },
    unknown: { kind: 'raw', name: '*runtime.Unknown', keep: 'node' },
    extension: { kind: 'raw', name: 'runtime.RawExtension' },
  },
};

describe('unmarshalStrict', () => {
  it('collects unknown and duplicate fields with their JSON paths, each once, in input order', () => {
    const r = unmarshalStrict(node('{"items":[{"name":"a","x":1,"name":"b"}],"labels":{"k":"1","k":"2"},"y":0,"y":1}'), holder);
    expect(r.fatal).toBeUndefined();
    expect(r.strict).toEqual(['unknown field "items[0].x"', 'duplicate field "items[0].name"', 'duplicate field "labels.k"', 'unknown field "y"']);
    expect(r.object).toEqual({ items: [{ name: 'b' }], labels: { k: '2' } });
  });

  it('stops at the first type error, naming the Go struct field, and drops the strictness errors', () => {
    const r = unmarshalStrict(node('{"y":1,"items":[{"port":"80"},{"port":1.5}]}'), holder);
    expect(r.fatal).toBe('json: cannot unmarshal string into Go struct field Item.items.port of type int32');
    expect(r.strict).toEqual([]);
  });

  it('reports an out-of-range or fractional integer as a number with its source text', () => {
    expect(unmarshalStrict(node('{"items":[{"port":2147483648}]}'), holder).fatal).toBe('json: cannot unmarshal number 2147483648 into Go struct field Item.items.port of type int32');
  });

  it('keeps a *runtime.Unknown field as its JSON node and leaves it unset for null, while a RawExtension keeps null', () => {
    const kept = unmarshalStrict(node('{"unknown": {"b": 1,  "a": [2]}, "extension": {"z": true}}'), holder).object;
    expect(kept['unknown']).toBeInstanceOf(RawJson);
    expect((kept['unknown'] as RawJson).node.raw).toBe('{"b": 1,  "a": [2]}');
    expect(kept['extension']).toEqual({ z: true });
    expect(unmarshalStrict(node('{"unknown": null, "extension": null}'), holder).object).toEqual({ extension: null });
  });

  it('fills a null slice element with the zero value of its type', () => {
    expect(unmarshalStrict(node('{"items":[null,{"name":"a"}]}'), holder).object).toEqual({ items: [{}, { name: 'a' }] });
  });
});

describe('strictDecodingError', () => {
  it('puts the YAML duplicate keys before the field errors in one message', () => {
    expect(strictDecodingError('yaml: unmarshal errors: line 3: key "a" already set in map', ['unknown field "b"'])).toBe(
      'strict decoding error: yaml: unmarshal errors: line 3: key "a" already set in map, unknown field "b"',
    );
    expect(strictDecodingError(undefined, [])).toBeUndefined();
  });
});

describe('interpretTypeMeta', () => {
  it.each([
    ['apiVersion: g/v\nkind: K\n', { ok: true, group: 'g', version: 'v', kind: 'K' }],
    ['apiVersion: v1\n', { ok: true, group: '', version: 'v1', kind: '' }],
    ['apiVersion: a/b/c\nkind: K\n', { ok: false, error: 'unexpected GroupVersion string: a/b/c' }],
    ['kind: 3\n', { ok: false, error: "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string" }],
  ])('reads %j as meta.Interpret does', (text, expected) => {
    expect(interpretTypeMeta(node(text))).toEqual(expected);
  });
});
