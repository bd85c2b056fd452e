import { goJsonMarshal, parseJsonOrYamlDocument, type JsonNode } from './go-json-document.js';

function parsed(text: string): { node: JsonNode; yamlDuplicateKeys: string[] } {
  const r = parseJsonOrYamlDocument(text);
  if (!r.ok) throw new Error(r.error);
  return r;
}

describe('parseJsonOrYamlDocument over YAML', () => {
  it('builds Go-map members sorted by key, last duplicate winning, with each duplicate reported on its value line', () => {
    const { node, yamlDuplicateKeys } = parsed('b: 1\na:\n  k: 1\n  k: 2\nb: 3\n');
    expect(node.type).toBe('object');
    if (node.type !== 'object') return;
    expect(node.members.map((m) => m.key)).toEqual(['a', 'b']);
    expect(node.value).toEqual({ b: 3, a: { k: 2 } });
    expect(Object.keys(node.value)).toEqual(['b', 'a']);
    expect(yamlDuplicateKeys).toEqual(['line 4: key "k" already set in map', 'line 5: key "b" already set in map']);
  });

  it('keeps each value identical between the members and the parent value', () => {
    const { node } = parsed('a:\n  - x: 1\n');
    if (node.type !== 'object') throw new Error('object expected');
    expect(node.members[0]!.node.value).toBe(node.value['a']);
  });

  it('gives every node the JSON text Go would marshal, at every depth', () => {
    const { node } = parsed('z: "<&>"\na:\n  - {q: true, p: null}\n  - 1.5\n');
    expect(node.raw).toBe('{"a":[{"p":null,"q":true},1.5],"z":"\\u003c\\u0026\\u003e"}');
    if (node.type !== 'object') throw new Error('object expected');
    expect(node.members[0]!.node.raw).toBe('[{"p":null,"q":true},1.5]');
    expect(node).toEqual(expect.objectContaining({ raw: goJsonMarshal(node.value) }));
  });

  it('reads YAML 1.1 scalars and non-string keys as yaml.v2 does', () => {
    const { node } = parsed('on: yes\n1: 0777\nt: 2001-12-14\n');
    expect(node.value).toEqual({ true: true, '1': 511, t: '2001-12-14' });
  });

  it('resolves aliases and merge keys, and still reports duplicates, through the general path', () => {
    const { node, yamlDuplicateKeys } = parsed('base: &b {x: 1, k: 2}\nm:\n  <<: *b\n  k: 3\nd: 1\nd: 2\n');
    expect(node.value).toEqual({ base: { x: 1, k: 2 }, m: { x: 1, k: 3 }, d: 2 });
    expect(node.raw).toBe('{"base":{"k":2,"x":1},"d":2,"m":{"k":3,"x":1}}');
    expect(yamlDuplicateKeys).toEqual(['line 6: key "d" already set in map']);
  });

  it('reads a null key as the empty string, as toJS does', () => {
    expect(parsed('~: 1\n').node.value).toEqual({ '': 1 });
  });

  it('reads an empty document as null', () => {
    expect(parsed('# only a comment\n').node).toEqual({ type: 'null', value: null, raw: 'null' });
  });
});
