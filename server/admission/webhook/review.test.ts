import { maxNestingDepth } from '../../api/nesting-depth.js';
import { admissionReviewVersionFor, base64CorruptOffset, createAdmissionObjects, createAdmissionReview, decodeAdmissionReview, verifyAdmissionResponse } from './review.js';
import { configMap, configMapAttributes } from './test-fixtures.js';

const invocation = { resource: { group: '', version: 'v1', resource: 'configmaps' }, subresource: '', kind: { group: '', version: 'v1', kind: 'ConfigMap' } };
const body = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));

describe('createAdmissionReview', () => {
  it('sends every request field of a v1 review, in kube\'s order, with null object/oldObject/options when absent', () => {
    const attrs = configMapAttributes({ dryRun: true, options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', dryRun: ['All'], fieldManager: 'kubectl' } });
    const review = createAdmissionReview('v1', 'uid-1', attrs, invocation);
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(Object.keys(review)).toEqual(['kind', 'apiVersion', 'request']);
    expect(review.request).toEqual({
      uid: 'uid-1',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'cm',
      namespace: 'team-a',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
      object: configMap('cm'),
      oldObject: null,
      dryRun: true,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', dryRun: ['All'], fieldManager: 'kubectl' },
    });
    expect(Object.keys(review.request)).toEqual(['uid', 'kind', 'resource', 'requestKind', 'requestResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options']);
    expect(JSON.stringify(review)).toContain('"oldObject":null');
  });

  it('sends the same fields in a v1beta1 review', () => {
    const review = createAdmissionReview('v1beta1', 'uid-2', configMapAttributes(), invocation);
    expect(review.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(review.request.requestKind).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(review.request.options).toEqual({ apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' });
  });

  it('sends the matched resource as resource/kind and the requested one as requestResource/requestKind, with subresources', () => {
    const attrs = configMapAttributes({
      operation: 'UPDATE',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      resource: { group: 'apps', version: 'v1beta2', resource: 'deployments' },
      subresource: 'scale',
      object: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 3 } },
      oldObject: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 1 } },
      name: 'web',
    });
    const inv = { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subresource: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } };
    const r = createAdmissionReview('v1', 'u', attrs, inv).request;
    expect(r).toMatchObject({
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
      requestResource: { group: 'apps', version: 'v1beta2', resource: 'deployments' },
      requestSubResource: 'scale',
      oldObject: { spec: { replicas: 1 } },
    });
  });

  it('leaves out empty name, namespace and user fields, and sends null object and options for DELETE and CONNECT', () => {
    const del = createAdmissionReview('v1', 'u', configMapAttributes({ operation: 'DELETE', object: undefined, oldObject: configMap('cm'), name: '', namespace: '', userInfo: { username: 'bob' } }), invocation).request;
    expect(del).not.toHaveProperty('name');
    expect(del).not.toHaveProperty('namespace');
    expect(del.userInfo).toEqual({ username: 'bob' });
    expect(del.object).toBeNull();
    const connect = createAdmissionReview('v1', 'u', configMapAttributes({ operation: 'CONNECT' }), invocation).request;
    expect(connect.options).toBeNull();
  });

  it('fills in apiVersion and kind of objects that lack them', () => {
    const r = createAdmissionReview('v1', 'u', configMapAttributes({ object: { metadata: { name: 'x' } } }), invocation).request;
    expect(r.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  });
});

describe('createAdmissionObjects', () => {
  it.each([
    [['v1', 'v1beta1'], 'v1'],
    [['v1beta1', 'v1'], 'v1beta1'],
    [['v2', 'v1beta1'], 'v1beta1'],
    [['v2'], undefined],
    [[], undefined],
  ])('picks the first version we send from %j', (versions, want) => {
    expect(admissionReviewVersionFor(versions)).toBe(want);
  });

  it('fails with kube\'s message when no version is known, and makes a new uid per call', () => {
    expect(createAdmissionObjects(['v2'], configMapAttributes(), invocation)).toEqual({ ok: false, error: 'webhook does not accept known AdmissionReview versions (v1, v1beta1)' });
    const a = createAdmissionObjects(['v1'], configMapAttributes(), invocation);
    const b = createAdmissionObjects(['v1'], configMapAttributes(), invocation);
    expect(a.ok && b.ok && a.uid !== b.uid && a.review.request.uid === a.uid).toBe(true);
  });
});

describe('decodeAdmissionReview', () => {
  const ok = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u', allowed: true } };
  it.each<[string, string | object, string, string]>([
    ['an empty body', '', 'application/json', '0-length response with status code: 200 and content type: application/json'],
    ['text that is not JSON', 'this is not JSON', 'text/plain', `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`],
    ['broken JSON', '{"apiVersion": ', 'application/json', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
    ['the other admission version', { ...ok, apiVersion: 'admission.k8s.io/v1beta1' }, 'application/json', 'converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion'],
    ['an unknown kind', { ...ok, kind: 'Review' }, 'application/json', 'no kind "Review" is registered for version "admission.k8s.io/v1" in scheme "pkg/runtime/scheme.go:100"'],
    ['a non-boolean allowed', { ...ok, response: { uid: 'u', allowed: 'yes' } }, 'application/json', 'json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool'],
    ['a bad status code', { ...ok, response: { uid: 'u', allowed: false, status: { code: '403' } } }, 'application/json', 'json: cannot unmarshal string into Go struct field Status.response.status.code of type int32'],
    ['warnings that are not strings', { ...ok, response: { uid: 'u', allowed: true, warnings: [1] } }, 'application/json', 'json: cannot unmarshal number into Go struct field AdmissionResponse.response.warnings of type string'],
    ['a patch that is not base64', { ...ok, response: { uid: 'u', allowed: true, patch: 'W3s*' } }, 'application/json', 'illegal base64 data at input byte 3'],
  ])('reports %s as kube\'s decoder does', (_name, raw, contentType, error) => {
    expect(decodeAdmissionReview(body(raw), contentType, 200, 'v1')).toEqual({ ok: false, error });
  });

  it('decodes YAML answers and defaults a missing apiVersion/kind without recording them', () => {
    const r = decodeAdmissionReview(body('response:\n  uid: u\n  allowed: true\n'), 'application/yaml', 200, 'v1');
    expect(r).toEqual({ ok: true, review: { apiVersion: '', kind: '', response: { uid: 'u', allowed: true } } });
  });

  it.each([
    ['JSON nested past the limit', `{"response":{"uid":"u","allowed":true,"x":${'['.repeat(maxNestingDepth)}${']'.repeat(maxNestingDepth)}}}`, 'application/json', "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth"],
    // too deep and broken as well: Go's syntax error comes first, as encoding/json's scan reports it
    ['JSON nested past the limit and broken after it', `{"response":{"x":${'['.repeat(maxNestingDepth + 1)}}}`, 'application/json', "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value"],
    ['YAML nested past the limit', `response: ${'['.repeat(3000)}`, 'application/yaml', `error converting YAML to JSON: yaml: exceeded max depth of ${maxNestingDepth}`],
  ])('refuses an answer of %s before anything walks it', (_name, raw, contentType, error) => {
    expect(decodeAdmissionReview(body(raw), contentType, 200, 'v1')).toEqual({ ok: false, error });
  });

  it("refuses a billion-laughs YAML answer with yaml.v2's aliasing error, and expands ordinary aliases", () => {
    let laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    let prev = 'a';
    for (const n of 'bcdefghi') {
      laughs += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
      prev = n;
    }
    expect(decodeAdmissionReview(body(laughs), 'application/yaml', 200, 'v1')).toEqual({ ok: false, error: 'error converting YAML to JSON: yaml: document contains excessive aliasing' });
    const aliased = 'response:\n  uid: &u u\n  allowed: true\n  auditAnnotations:\n' + Array.from({ length: 120 }, (_, i) => `    k${i}: *u\n`).join('');
    const r = decodeAdmissionReview(body(aliased), 'application/yaml', 200, 'v1');
    expect(r.ok && r.review.response?.auditAnnotations?.['k119']).toBe('u');
  });

  it('decodes the patch from base64', () => {
    const patch = Buffer.from('[{"op":"add","path":"/x","value":1}]').toString('base64');
    const r = decodeAdmissionReview(body({ ...ok, response: { uid: 'u', allowed: true, patch, patchType: 'JSONPatch' } }), 'application/json', 200, 'v1');
    expect(r.ok && r.review.response?.patch?.toString()).toBe('[{"op":"add","path":"/x","value":1}]');
  });

  it.each([
    ['QUJD', undefined],
    ['QUI=', undefined],
    ['QQ==', undefined],
    ['QUJ', 0],
    ['QU!D', 2],
    ['Q===', 1],
  ])('finds the corrupt byte of %s as encoding/base64 does', (s, at) => {
    expect(base64CorruptOffset(s)).toBe(at);
  });
});

describe('verifyAdmissionResponse', () => {
  const review = (response: object | undefined, apiVersion = 'admission.k8s.io/v1', kind = 'AdmissionReview') => {
    const d = decodeAdmissionReview(body({ apiVersion, kind, ...(response ? { response } : {}) }), 'application/json', 200, apiVersion.endsWith('v1beta1') ? 'v1beta1' : 'v1');
    if (!d.ok) throw new Error(d.error);
    return d.review;
  };
  const patch = Buffer.from('[]').toString('base64');

  it.each<[string, object | undefined, boolean, string]>([
    ['no response', undefined, false, 'webhook response was absent'],
    ['another uid', { uid: 'other', allowed: true }, false, 'expected response.uid="u", got "other"'],
    ['a patch without patchType', { uid: 'u', allowed: true, patch }, true, 'webhook returned response.patch but not response.patchType'],
    ['a patchType without patch', { uid: 'u', allowed: true, patchType: 'JSONPatch' }, true, 'webhook returned response.patchType but not response.patch'],
    ['a patch from a validating webhook', { uid: 'u', allowed: true, patch, patchType: 'JSONPatch' }, false, 'validating webhook may not return response.patch'],
    ['a patchType from a validating webhook', { uid: 'u', allowed: true, patchType: 'JSONPatch' }, false, 'validating webhook may not return response.patchType'],
  ])('rejects a v1 response with %s', (_name, response, mutating, error) => {
    expect(verifyAdmissionResponse('u', mutating, 'v1', review(response))).toEqual({ ok: false, error });
  });

  it('rejects a v1 response without apiVersion and kind with kube\'s GVK message', () => {
    const d = decodeAdmissionReview(body({ response: { uid: 'u', allowed: true } }), 'application/json', 200, 'v1');
    expect(d.ok && verifyAdmissionResponse('u', false, 'v1', d.review)).toEqual({ ok: false, error: 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=' });
  });

  it('accepts a v1beta1 response with any uid, and pins its patch type to JSONPatch', () => {
    const r = verifyAdmissionResponse('u', true, 'v1beta1', review({ uid: 'whatever', allowed: true, patch }, 'admission.k8s.io/v1beta1'));
    expect(r).toMatchObject({ ok: true, response: { allowed: true, patchType: 'JSONPatch' } });
    const v = verifyAdmissionResponse('u', false, 'v1beta1', review({ uid: 'whatever', allowed: true, patch }, 'admission.k8s.io/v1beta1'));
    expect(v).toMatchObject({ ok: true, response: { patch: Buffer.alloc(0), patchType: '' } });
  });

  it('passes status, warnings and audit annotations on', () => {
    const r = verifyAdmissionResponse('u', false, 'v1', review({ uid: 'u', allowed: false, status: { code: 418, message: 'no' }, warnings: ['w'], auditAnnotations: { k: 'v' } }));
    expect(r).toEqual({ ok: true, response: { allowed: false, result: { code: 418, message: 'no' }, warnings: ['w'], auditAnnotations: { k: 'v' }, patch: Buffer.alloc(0), patchType: '' } });
  });
});
