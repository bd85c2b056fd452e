import { StatusError } from '../../api/errors.js';
import type { KubeObject, Status } from '../../api/types.js';
import { applyPatch, supportedPatchTypes, tryApplyPatch, type PatchOptions } from './index.js';

const configMap = { group: '', version: 'v1', kind: 'ConfigMap' };
const podKind = { group: '', version: 'v1', kind: 'Pod' };
const widget = { group: 'example.com', version: 'v1', kind: 'Widget' };

const cm = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', namespace: 'default', labels: { app: 'a' } },
  data: { a: '1', b: '2' },
});

function ok(type: string, original: KubeObject, body: string, schema = configMap, opts: PatchOptions = {}): KubeObject {
  const out = tryApplyPatch(type, original, body, schema, opts);
  if (!out.ok) throw new Error(`unexpected failure: ${out.error.message}`);
  return out.object;
}

function fail(type: string, original: KubeObject, body: string, schema = configMap, opts: PatchOptions = {}): Status {
  const out = tryApplyPatch(type, original, body, schema, opts);
  if (out.ok) throw new Error('expected the patch to fail');
  return out.error.status;
}

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const generic422 = { code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} };
const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

describe('application/json-patch+json', () => {
  it('applies add, replace, remove, move, copy and a passing test', () => {
    const body = JSON.stringify([
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'add', path: '/data/c', value: '3' },
      { op: 'replace', path: '/data/a', value: 'one' },
      { op: 'remove', path: '/data/b' },
      { op: 'copy', from: '/data/c', path: '/data/d' },
      { op: 'move', from: '/data/d', path: '/data/e' },
      { op: 'add', path: '/metadata/labels/tier', value: 'web' },
    ]);
    expect(ok(JSON_PATCH, cm(), body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'default', labels: { app: 'a', tier: 'web' } },
      data: { a: 'one', c: '3', e: '3' },
    });
  });

  it('never modifies the original', () => {
    const original = cm();
    ok(JSON_PATCH, original, '[{"op":"remove","path":"/data"}]');
    expect(original).toEqual(cm());
  });

  it('treats a null patch as no operations', () => {
    expect(ok(JSON_PATCH, cm(), 'null')).toEqual(cm());
  });

  it.each([
    ['a failing test', '[{"op":"test","path":"/data/a","value":"2"}]'],
    ['removing a missing path', '[{"op":"remove","path":"/data/zz"}]'],
    ['replacing a missing key', '[{"op":"replace","path":"/spec/x","value":1}]'],
    ['adding under a missing parent', '[{"op":"add","path":"/spec/x/y","value":1}]'],
    ['an unknown op', '[{"op":"frobnicate","path":"/data"}]'],
    ['an op without a path', '[{"op":"remove"}]'],
    ['a null op', '[null]'],
  ])('answers %s with kube’s generic 422', (_name, body) => {
    expect(fail(JSON_PATCH, cm(), body)).toMatchObject(generic422);
  });

  it.each<[string, string, string]>([
    ['malformed JSON', '[{"op":', 'error decoding patch: unexpected end of JSON input'],
    ['an object', '{"op":"add"}', 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['a non-object op', '["add"]', 'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp'],
    ['a non-string path', '[{"op":"add","path":5}]', 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string'],
  ])('answers %s with 400 (fieldValidation Warn, the default)', (_name, body, message) => {
    expect(fail(JSON_PATCH, cm(), body)).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });

  it.each<[string, string, string]>([
    ['malformed JSON', 'x', "invalid character 'x' looking for beginning of value"],
    ['an object', '{}', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['a non-object op', '[1]', 'json: cannot unmarshal number into Go value of type jsonpatch.Operation'],
  ])('answers %s with 400 from DecodePatch under fieldValidation=Ignore', (_name, body, message) => {
    expect(fail(JSON_PATCH, cm(), body, configMap, { fieldValidation: 'Ignore' })).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });

  it('limits a patch to 10000 operations with 413', () => {
    const ops = JSON.stringify(Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' })));
    expect(fail(JSON_PATCH, cm(), ops)).toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
  });

  it('rejects a result that is not an object as kube’s decoder does', () => {
    expect(fail(JSON_PATCH, cm(), '[{"op":"replace","path":"","value":[1]}]')).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: ` "" is invalid: patch: Invalid value: "[1]": couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${findKindType}`,
    });
  });
});

describe('application/merge-patch+json', () => {
  it('merges objects, deletes nulls and replaces lists', () => {
    const original = { ...cm(), spec: { list: [1, 2], nested: { a: 1, b: 2 } } };
    const out = ok(MERGE, original, '{"data":{"a":null,"c":"3"},"spec":{"list":[3],"nested":{"b":null,"c":{"d":null,"e":1}}}}');
    expect(out['data']).toEqual({ b: '2', c: '3' });
    expect(out['spec']).toEqual({ list: [3], nested: { a: 1, c: { e: 1 } } });
  });

  it('keeps nulls inside a replacing list, as evanphx/json-patch does, but prunes them inside its objects', () => {
    expect(ok(MERGE, cm(), '{"spec":{"items":[null,{"a":null,"b":1}]}}')['spec']).toEqual({ items: [null, { b: 1 }] });
  });

  it.each<[string, string, PatchOptions, number, string]>([
    ['malformed JSON', '{', {}, 400, 'error decoding patch: unexpected end of JSON input'],
    ['malformed JSON under Ignore', '{', { fieldValidation: 'Ignore' }, 400, 'Invalid JSON Patch'],
    ['null', 'null', {}, 400, 'Invalid JSON Patch'],
    ['a string', '"x"', {}, 400, 'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['a string under Ignore', '"x"', { fieldValidation: 'Ignore' }, 400, 'Invalid JSON Patch'],
    ['an array', '[1]', { fieldValidation: 'Strict' }, 400, 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    [
      'an array under Ignore',
      '[1]',
      { fieldValidation: 'Ignore' },
      422,
      ` "" is invalid: patch: Invalid value: "[1]": couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${findKindType}`,
    ],
  ])('answers %s', (_name, body, opts, code, message) => {
    expect(fail(MERGE, cm(), body, configMap, opts)).toMatchObject({ code, message });
  });
});

describe('application/strategic-merge-patch+json', () => {
  it('merges containers by name for a Pod', () => {
    const pod: KubeObject = { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } };
    expect(ok(SMP, pod, '{"spec":{"containers":[{"name":"b","image":"z"}]}}', podKind)['spec']).toEqual({
      containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'z' }],
    });
  });

  it('accepts a Content-Type with parameters', () => {
    expect(ok(`${SMP}; charset=utf-8`, cm(), '{"data":{"a":"x"}}')['data']).toEqual({ a: 'x', b: '2' });
  });

  it('accepts a Buffer body', () => {
    expect(applyPatch(SMP, cm(), Buffer.from('{"data":{"a":null}}'), configMap)['data']).toEqual({ b: '2' });
  });

  it('rejects a kind without patch metadata (a custom resource) with kube’s 415', () => {
    expect(fail(SMP, { kind: 'Widget', metadata: { name: 'w' } }, '{}', widget)).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
  });

  it.each<[string, string, Partial<Status>]>([
    ['malformed JSON', '{"data":', { code: 400, reason: 'BadRequest', message: 'unexpected end of JSON input' }],
    ['an array', '[]', { code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal array into Go value of type map[string]interface {}' }],
    ['a bad retainKeys', '{"data":{"$retainKeys":["a"],"b":"x"}}', { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' }],
  ])('answers %s', (_name, body, expected) => {
    expect(fail(SMP, cm(), body)).toMatchObject(expected);
  });

  it('maps a list-of-lists merge to kube’s generic 422', () => {
    const original: KubeObject = { ...cm(), metadata: { name: 'cfg', finalizers: [['a']] as unknown as string[] } };
    expect(fail(SMP, original, '{"metadata":{"finalizers":[["b"]]}}')).toMatchObject(generic422);
  });

  it('maps other merge failures to 500 with no reason, as kube does for errors that are not a Status', () => {
    const original: KubeObject = { ...cm(), metadata: { name: 'cfg', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: '1' }] } };
    const status = fail(SMP, original, '{"metadata":{"ownerReferences":[{"name":"y"}]}}');
    expect(status).toMatchObject({ code: 500, message: 'map: map[name:y] does not contain declared merge key: uid' });
    // metav1.Status.reason is omitempty
    expect(status).not.toHaveProperty('reason');
  });
});

describe('unsupported patch types', () => {
  it('rejects server-side apply with 415 and says so', () => {
    const status = fail('application/apply-patch+yaml', cm(), 'kind: ConfigMap');
    expect(status.code).toBe(415);
    expect(status.reason).toBe('UnsupportedMediaType');
    expect(status.message).toContain('server-side apply (application/apply-patch+yaml) is not supported by this server');
  });

  it('lists the accepted media types for anything else', () => {
    expect(fail('text/plain', cm(), 'x')).toMatchObject({
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    });
    expect(supportedPatchTypes(widget)).toEqual(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  });

  it('throws the Status error from applyPatch', () => {
    expect(() => applyPatch('text/plain', cm(), 'x', configMap)).toThrow(StatusError);
  });
});
