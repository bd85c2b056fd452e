// Bodies are decoded into the kinds' Go types, as kube-apiserver decodes them: a value of the wrong type is refused
// with kube's decode error (create/update: 400 from transformDecodeError; patches: 422 on the field `patch`) whatever
// fieldValidation says, and fields the Go struct does not have are never stored, under Ignore and Warn too.
import { useApiServer } from '../../harness/jest.js';

const env = useApiServer({ storage: 'memory' });

const cmPath = '/api/v1/namespaces/default/configmaps';
const deployPath = '/apis/apps/v1/namespaces/default/deployments';
const quantityRE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

async function call(method: string, p: string, body?: string, contentType = 'application/json') {
  const res = await env.server.request(p, { method, body, headers: { 'Content-Type': contentType } });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    /* asserted on the status */
  }
  return { status: res.status, json, headers: res.headers };
}

const badRequest = (message: string) => ({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message });

const configMap = (name: string, rest: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"${rest}}`;
const deployment = (name: string, spec: string) =>
  `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"${spec}}]}}}}`;

describe('create and update bodies of the wrong type', () => {
  it.each([
    ['metadata.finalizers a string', cmPath, configMap('f', ',"finalizers":"str"}'), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string'],
    ['metadata.labels an array', cmPath, configMap('l', ',"labels":[1]}'), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string'],
    ['metadata.ownerReferences a number', cmPath, configMap('o', ',"ownerReferences":123}'), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference'],
    ['ConfigMap data a number', cmPath, configMap('d', '},"data":123'), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string'],
    [
      'Deployment spec.replicas a string',
      deployPath,
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"r"},"spec":{"replicas":"x"}}',
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    ['Deployment spec.replicas a fraction', deployPath, '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"r"},"spec":{"replicas":1.5}}', 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['a container limit that is no quantity', deployPath, deployment('q', ',"resources":{"limits":{"cpu":"lots"}}'), `Deployment in version "v1" cannot be handled as a Deployment: ${quantityRE}`],
    ['a probe port that is a bool', deployPath, deployment('p', ',"readinessProbe":{"tcpSocket":{"port":true}}'), 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal bool into Go value of type int32'],
    ['a timestamp that is no RFC 3339 time', cmPath, configMap('t', ',"creationTimestamp":"yesterday"}'), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ['Secret data that is no base64', '/api/v1/namespaces/default/secrets', '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"abc!"}}', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'],
  ])('refuses %s with 400 and kube\'s decode error, under every fieldValidation', async (_, path, body, message) => {
    for (const fv of ['Ignore', 'Warn', 'Strict']) {
      const r = await call('POST', `${path}?fieldValidation=${fv}`, body);
      expect({ status: r.status, json: r.json }).toEqual({ status: 400, json: expect.objectContaining(badRequest(message)) });
    }
    const name = (JSON.parse(body) as { metadata: { name: string } }).metadata.name;
    expect((await call('GET', `${path}/${name}`)).status).toBe(404);
  });

  it('refuses a YAML body with the same text as JSON', async () => {
    const r = await call('POST', deployPath, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: from-yaml\nspec:\n  replicas: x\n', 'application/yaml');
    expect(r.json).toMatchObject(badRequest('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'));
  });

  it('refuses an update and a /status update of the wrong type, leaving the object as it was', async () => {
    expect((await call('POST', deployPath, deployment('u', ''))).status).toBe(201);
    const current = await call('GET', `${deployPath}/u`);
    const bad = structuredClone(current.json) as { spec: Record<string, unknown>; status?: Record<string, unknown> };
    bad.spec['replicas'] = 'x';
    const r = await call('PUT', `${deployPath}/u`, JSON.stringify(bad));
    expect(r.json).toMatchObject(badRequest('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'));
    const badStatus = structuredClone(current.json) as { status?: Record<string, unknown> };
    badStatus.status = { replicas: '3' };
    const s = await call('PUT', `${deployPath}/u/status`, JSON.stringify(badStatus));
    expect(s.json).toMatchObject(badRequest('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentStatus.status.replicas of type int32'));
    expect((await call('GET', `${deployPath}/u`)).json).toMatchObject({ spec: { replicas: 1 } });
  });

  it('refuses a /scale body of the wrong type as a Scale', async () => {
    expect((await call('POST', deployPath, deployment('sc', ''))).status).toBe(201);
    const r = await call('PUT', `${deployPath}/sc/scale`, '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"sc"},"spec":{"replicas":"x"}}');
    expect(r.json).toMatchObject(badRequest('Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32'));
  });
});

describe('patches whose result has the wrong type', () => {
  beforeAll(async () => {
    expect((await call('POST', cmPath, configMap('p', '},"data":{"a":"b"}'))).status).toBe(201);
  });

  const invalid = (value: string, detail: string) => ({
    kind: 'Status',
    status: 'Failure',
    reason: 'Invalid',
    code: 422,
    message: ` "" is invalid: patch: Invalid value: ${JSON.stringify(value)}: ${detail}`,
  });

  it('answers a merge patch with 422 on the field patch, the patched JSON as value and the decode error as detail', async () => {
    const r = await call('PATCH', `${cmPath}/p?fieldValidation=Ignore`, '{"metadata":{"finalizers":"str"}}', 'application/merge-patch+json');
    expect(r.status).toBe(422);
    const json = r.json as { message: string; details: { causes: Array<{ field: string; message: string }> } };
    expect(json).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(json.details.causes[0]).toMatchObject({ field: 'patch' });
    expect(json.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":\{\\"a\\":\\"b\\"\},\\"kind\\":\\"ConfigMap\\",\\"metadata\\":\{.*\\"finalizers\\":\\"str\\".*\}": json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type \[\]string$/);
  });

  it('answers a JSON patch the same way', async () => {
    const r = await call('PATCH', `${cmPath}/p`, '[{"op":"replace","path":"/data","value":123}]', 'application/json-patch+json');
    expect(r.status).toBe(422);
    expect((r.json as { message: string }).message).toMatch(/: json: cannot unmarshal number into Go struct field ConfigMap.data of type map\[string\]string$/);
  });

  it('answers a strategic merge patch with the converter\'s error and the patch map as value', async () => {
    const r = await call('PATCH', `${cmPath}/p`, '{"data":123}', 'application/strategic-merge-patch+json');
    expect(r.json).toMatchObject(invalid('map[data:123]', 'cannot restore map from int64'));
  });

  it('leaves the object as it was', async () => {
    const r = await call('GET', `${cmPath}/p`);
    expect(r.json).toMatchObject({ data: { a: 'b' } });
    expect((r.json['metadata'] as Record<string, unknown>)['finalizers']).toBeUndefined();
  });
});

describe('server-side apply configurations of the wrong type', () => {
  // kube lists the errors in Go's map order (random); here keys are walked sorted
  it.each(['Ignore', 'Strict'])('fails the conversion to a typed value with structured-merge-diff\'s text as a 500 (fieldValidation=%s)', async (fv) => {
    const r = await call('PATCH', `${cmPath}/applied?fieldManager=m&fieldValidation=${fv}`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  finalizers: str\ndata: 123\n', 'application/apply-patch+yaml');
    expect({ status: r.status, json: r.json }).toEqual({
      status: 500,
      json: expect.objectContaining({
        status: 'Failure',
        code: 500,
        message: 'failed to create typed patch object (default/applied; /v1, Kind=ConfigMap): errors:\n  .data: expected map, got &{123}\n  .metadata.finalizers: expected list, got &{str}',
      }),
    });
    // metav1.Status.reason is omitempty: kube's reasonless 500 has no reason field
    expect(r.json).not.toHaveProperty('reason');
    expect((await call('GET', `${cmPath}/applied`)).status).toBe(404);
  });

  it('fails a value the schema accepts and the Go type does not when converting the merged object back', async () => {
    const r = await call('PATCH', `${deployPath}/applied-float?fieldManager=m`, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: applied-float\nspec:\n  replicas: 1.5\n', 'application/apply-patch+yaml');
    expect(r.json).toMatchObject({
      code: 500,
      message: 'failed to convert new object (default/applied-float; apps/v1, Kind=Deployment) to proper version: unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to int32',
    });
    expect((await call('GET', `${deployPath}/applied-float`)).status).toBe(404);
  });

  it('fails a Deployment\'s replicas of the wrong type', async () => {
    const r = await call('PATCH', `${deployPath}/applied?fieldManager=m`, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: applied\nspec:\n  replicas: "x"\n', 'application/apply-patch+yaml');
    expect(r.json).toMatchObject({ code: 500, message: 'failed to create typed patch object (default/applied; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string' });
  });
});

describe('unknown fields of built-in kinds are dropped, as the Go struct drops them', () => {
  it.each(['Ignore', 'Warn'])('stores none of a create body\'s unknown fields under %s', async (fv) => {
    const name = `unknown-${fv.toLowerCase()}`;
    const r = await call('POST', `${cmPath}?fieldValidation=${fv}`, configMap(name, ',"bogus":1},"data":{"a":"b"},"extra":{"x":1}'));
    expect(r.status).toBe(201);
    expect(r.json['extra']).toBeUndefined();
    expect((r.json['metadata'] as Record<string, unknown>)['bogus']).toBeUndefined();
    const got = await call('GET', `${cmPath}/${name}`);
    expect(got.json['extra']).toBeUndefined();
    expect((got.json['metadata'] as Record<string, unknown>)['bogus']).toBeUndefined();
    expect(got.json['data']).toEqual({ a: 'b' });
  });

  it('drops unknown fields deep in a Deployment, and those a merge patch adds', async () => {
    const body = deployment('deep', ',"imagee":"typo"');
    expect((await call('POST', `${deployPath}?fieldValidation=Ignore`, body)).status).toBe(201);
    const patched = await call('PATCH', `${deployPath}/deep?fieldValidation=Ignore`, '{"spec":{"bogus":true,"template":{"spec":{"bogus":1}}}}', 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    const got = await call('GET', `${deployPath}/deep`);
    const spec = got.json['spec'] as { bogus?: unknown; template: { spec: { bogus?: unknown; containers: Array<Record<string, unknown>> } } };
    expect(spec.bogus).toBeUndefined();
    expect(spec.template.spec.bogus).toBeUndefined();
    expect(spec.template.spec.containers[0]!['imagee']).toBeUndefined();
    expect(spec.template.spec.containers[0]!['image']).toBe('i');
  });

  it('warns about and drops an update body\'s unknown fields under the default Warn', async () => {
    expect((await call('POST', cmPath, configMap('put-unknown', '},"data":{"a":"b"}'))).status).toBe(201);
    const current = (await call('GET', `${cmPath}/put-unknown`)).json;
    const res = await env.server.request(`${cmPath}/put-unknown`, { method: 'PUT', body: JSON.stringify({ ...current, extra: 1 }), headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(String(res.headers['warning'])).toContain('unknown field \\"extra\\"');
    expect((await call('GET', `${cmPath}/put-unknown`)).json['extra']).toBeUndefined();
  });

  it('drops unknown fields a strategic merge patch adds', async () => {
    expect((await call('POST', cmPath, configMap('smp', '}'))).status).toBe(201);
    const r = await call('PATCH', `${cmPath}/smp?fieldValidation=Ignore`, '{"data":{"a":"b"},"extra":1}', 'application/strategic-merge-patch+json');
    expect(r.status).toBe(200);
    expect(r.json['extra']).toBeUndefined();
    expect(r.json['data']).toEqual({ a: 'b' });
  });
});

describe('review bodies', () => {
  it('refuses a SubjectAccessReview of the wrong type with kube\'s decode error', async () => {
    const r = await call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"u","groups":"g","resourceAttributes":{"verb":"get","resource":"pods"}}}');
    expect(r.json).toMatchObject(badRequest('SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.groups of type []string'));
  });
});

describe('apiVersion and kind of the wrong type', () => {
  it('fails in meta.Interpret, before the kind is known, with the body summarized', async () => {
    const r = await call('POST', cmPath, '{"apiVersion":"v1","kind":1,"metadata":{"name":"k"}}');
    expect(r.json).toMatchObject(badRequest('the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"apiVersion":"v1","kind":1,"m ...)'));
  });
});
