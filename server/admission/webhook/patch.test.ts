import { maxNestingDepth } from '../../api/nesting-depth.js';
import { applyJsonPatch, decodeJsonPatch } from './patch.js';

const doc = { metadata: { name: 'cm', labels: { a: '1' } }, data: { k: 'v' }, list: ['x', 'y'] };

describe('decodeJsonPatch', () => {
  it.each([
    ['[{"op":"add","path":"/a","value":1}]', { ok: true, operations: [{ op: 'add', path: '/a', value: 1 }] }],
    ['null', { ok: true, operations: [] }],
    ['{"op":"add"}', { ok: false, error: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' }],
    ['["add"]', { ok: false, error: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation' }],
    ['[{"op":', { ok: false, error: 'unexpected end of JSON input' }],
  ])('decodes %s as jsonpatch.DecodePatch does', (text, want) => {
    expect(decodeJsonPatch(Buffer.from(text))).toEqual(want);
  });
});

describe('applyJsonPatch (evanphx/json-patch v4)', () => {
  it('applies add, replace, remove, move, copy and test without touching the input', () => {
    const input = structuredClone(doc);
    const r = applyJsonPatch(input, [
      { op: 'add', path: '/metadata/labels/b', value: '2' },
      { op: 'replace', path: '/data/k', value: 'w' },
      { op: 'remove', path: '/metadata/labels/a' },
      { op: 'add', path: '/list/-', value: 'z' },
      { op: 'add', path: '/list/0', value: 'w' },
      { op: 'move', from: '/data/k', path: '/data/moved' },
      { op: 'copy', from: '/metadata/name', path: '/data/name' },
      { op: 'test', path: '/data/name', value: 'cm' },
      { op: 'add', path: '/metadata/annotations' },
    ]);
    expect(r).toEqual({
      ok: true,
      document: { metadata: { name: 'cm', labels: { b: '2' }, annotations: null }, data: { moved: 'w', name: 'cm' }, list: ['w', 'x', 'y', 'z'] },
    });
    expect(input).toEqual(doc);
  });

  it('replaces a missing key of an object, as v4 does', () => {
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '/data/new', value: 'n' }])).toMatchObject({ ok: true, document: { data: { k: 'v', new: 'n' } } });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['add under a missing parent', { op: 'add', path: '/spec/replicas', value: 3 }, 'add operation does not apply: doc is missing path: "/spec/replicas": missing value'],
    ['add without path', { op: 'add', value: 3 }, 'add operation failed to decode path: missing value'],
    ['remove of a missing key', { op: 'remove', path: '/data/nope' }, "error in remove for path: '/data/nope': Unable to remove nonexistent key: nope: missing value"],
    ['remove under a missing parent', { op: 'remove', path: '/spec/x' }, 'remove operation does not apply: doc is missing path: "/spec/x": missing value'],
    ['replace of an index out of range', { op: 'replace', path: '/list/5', value: 1 }, 'replace operation does not apply: doc is missing key: /list/5: missing value'],
    ['add past the end of a list', { op: 'add', path: '/list/3', value: 1 }, "error in add for path: '/list/3': Unable to access invalid index: 3: invalid index referenced"],
    ['add at a non-numeric index', { op: 'add', path: '/list/x', value: 1 }, `error in add for path: '/list/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`],
    ['a failing test', { op: 'test', path: '/data/k', value: 'other' }, 'testing value /data/k failed: test failed'],
    ['an unknown op', { op: 'merge', path: '/data' }, 'Unexpected kind: merge'],
    ['a missing op', { path: '/data' }, 'Unexpected kind: unknown'],
    ['replacing the whole document', { op: 'replace', path: '', value: {} }, 'replace operation does not apply: doc is missing path: : missing value'],
  ])('fails %s with v4\'s message', (_name, op, error) => {
    expect(applyJsonPatch(doc, [op])).toEqual({ ok: false, error });
  });
});

describe('applyJsonPatch bounds what a patch can grow', () => {
  it("refuses copies past kube's JSONPatchMaxCopyBytes (3 MiB) with evanphx/json-patch's message", () => {
    const doc = { data: { big: 'x'.repeat(1024 * 1024) } };
    const ops = [0, 1, 2, 3].map((i) => ({ op: 'copy', from: '/data/big', path: `/data/c${i}` }));
    expect(applyJsonPatch(doc, ops.slice(0, 2))).toMatchObject({ ok: true });
    expect(applyJsonPatch(doc, ops)).toEqual({ ok: false, error: `Unable to complete the copy, the accumulated size increase of copy is ${3 * (1024 * 1024 + 2)}, exceeding the limit ${3 * 1024 * 1024}` });
  });

  it('refuses a result nested past the limit of every request body', () => {
    let deep: unknown = 1;
    for (let i = 0; i < maxNestingDepth; i++) deep = { a: deep };
    expect(applyJsonPatch({ metadata: {} }, [{ op: 'add', path: '/spec', value: deep }])).toEqual({ ok: false, error: `the patched object nests deeper than ${maxNestingDepth} levels` });
    expect(applyJsonPatch({ metadata: {} }, [{ op: 'add', path: '/spec', value: (deep as { a: unknown }).a }])).toMatchObject({ ok: true });
  });
});
