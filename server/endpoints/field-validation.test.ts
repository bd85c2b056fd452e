// Server-side field validation of built-in kinds at every depth: kube-apiserver's strict decoding errors, the
// 400/422 it answers under Strict and the warnings under Warn.
import { StatusError } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { builtinResources } from '../registry/catalogue/index.js';
import type { ResourceInfo } from '../registry/resource.js';
import { checkResourceFields, checkScaleFields, patchedFieldCheck, strictDecodingWarnings, type FieldValidation } from './field-validation.js';
import { JSONPatchType, MergePatchType, StrategicMergePatchType } from './patch/index.js';

const resource = (kind: string): ResourceInfo => {
  const info = builtinResources.find((r) => r.kind === kind);
  if (!info) throw new Error(`no built-in resource of kind ${kind}`);
  return info;
};

const json = (text: string) => ({ raw: Buffer.from(text), mediaType: 'application/json' });

/** The outcome of a create under the mode: the Status error, or the warnings. */
async function create(kind: string, body: string | KubeObject, mode: FieldValidation = 'Strict'): Promise<{ code?: number; message?: string; warnings: string[] }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const warnings: string[] = [];
  try {
    await checkResourceFields(resource(kind), JSON.parse(text) as KubeObject, mode, warnings, json(text));
    return { warnings };
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    return { code: err.code, message: err.message, warnings };
  }
}

const deployment = (podSpec: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web', 'app.kubernetes.io/name': 'web' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: podSpec }, ...spec },
});

describe('strict decoding of create and update bodies', () => {
  it('rejects an unknown field in a container of a Deployment with the message kubectl prints', async () => {
    const r = await create('Deployment', deployment({ containers: [{ name: 'web', imagee: 'nginx' }] }));
    expect(r).toMatchObject({
      code: 400,
      message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagee"',
    });
  });

  it('reports every unknown field in document order, nested ones where they occur', async () => {
    const body = deployment({ containers: [{ name: 'a', image: 'x' }, { name: 'b', imagee: 'x', ports: [{ containerPortZ: 80 }] }] }, { foo: 1 });
    body['bar'] = true;
    const r = await create('Deployment', body);
    expect(r.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ' +
        'unknown field "spec.template.spec.containers[1].imagee", unknown field "spec.template.spec.containers[1].ports[0].containerPortZ", unknown field "spec.foo", unknown field "bar"',
    );
  });

  it('reports duplicate fields with their path, also inside maps, and reports each problem once', async () => {
    const text =
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"a":"1","a":"2"}},' +
      '"spec":{"replicas":1,"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"containers":[{"name":"w","image":"x","imagee":1,"imagee":2}]}}}}';
    const r = await create('Deployment', text);
    expect(r.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ' +
        'duplicate field "metadata.labels.a", duplicate field "spec.replicas", unknown field "spec.template.spec.containers[0].imagee"',
    );
  });

  it.each<[string, KubeObject]>([
    ['map keys (labels, annotations, nodeSelector, resources) are never unknown', {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'p', labels: { 'x.y/z': 'a' }, annotations: { whatever: 'b' } },
      spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1', 'example.com/gpu': 2 }, requests: { memory: '1Gi' } } }] },
    }],
    ['int-or-string fields take numbers and strings', deployment({ containers: [{ name: 'c', image: 'x', livenessProbe: { httpGet: { port: 'http', path: '/' } }, readinessProbe: { tcpSocket: { port: 8080 } } }] }, {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    })],
    ['ConfigMap data and binaryData keys', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { 'config.yaml': 'a: b', anything: 'x' }, binaryData: { 'b.bin': 'AAE=' } }],
    ['Secret data, stringData and type', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { password: 'cGFzcw==' }, stringData: { user: 'me' } }],
    ['open values below managedFields.fieldsV1', {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'c', managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:anything': {} } } }] },
    }],
    ['CRD schemas: nested properties, open defaults and items', {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', default: { anything: 1 }, properties: { list: { type: 'array', items: { type: 'string', whatever: true } } }, 'x-kubernetes-validations': [{ rule: 'true' }] } },
      } } }] },
    }],
    ['fields kube 1.36 has and client-node 1.4 lacks', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: { schedulingGroup: { podGroupName: 'g' }, containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', projected: { sources: [{ podCertificate: { signerName: 'a/b', keyType: 'ED25519', userAnnotations: { 'a.example/k': 'v' } } }] } }] },
      status: { allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } },
    }],
  ])('accepts %s', async (_name, body) => {
    expect(await create(String(body.kind), body)).toEqual({ warnings: [] });
  });

  it.each<[string, string, Record<string, unknown>, string[]]>([
    ['a Service port', 'Service', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetport: 8080 }], selectorr: {} } }, ['spec.ports[0].targetport', 'spec.selectorr']],
    ['a Pod security context, probe and env source', 'Pod', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labelz: {} },
      spec: { securityContext: { runAsUsr: 1 }, containers: [{ name: 'c', image: 'x', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k', optionall: true } } }], livenessProbe: { exec: { cmd: ['x'] } } }] },
    }, ['metadata.labelz', 'spec.securityContext.runAsUsr', 'spec.containers[0].env[0].valueFrom.secretKeyRef.optionall', 'spec.containers[0].livenessProbe.exec.cmd']],
    ['a Secret', 'Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, strinData: { a: 'b' } }, ['strinData']],
    ['a ConfigMap', 'ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, Data: { a: 'b' } }, ['Data']],
    ['a ValidatingWebhookConfiguration', 'ValidatingWebhookConfiguration', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' },
      webhooks: [{ name: 'a.example.com', sideEffect: 'None', clientConfig: { url: 'https://x', caBundel: '' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scopee: '*' }] }],
    }, ['webhooks[0].sideEffect', 'webhooks[0].clientConfig.caBundel', 'webhooks[0].rules[0].scopee']],
    ['a MutatingWebhookConfiguration', 'MutatingWebhookConfiguration', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' },
      webhooks: [{ name: 'a.example.com', reinvocation: 'IfNeeded', objectSelector: { matchLabel: {} } }],
    }, ['webhooks[0].reinvocation', 'webhooks[0].objectSelector.matchLabel']],
    ['a CRD schema', 'CustomResourceDefinition', {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'w.example.com' },
      spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { properties: { spec: { typ: 'object' } } } } }] },
    }, ['spec.versions[0].schema.openAPIV3Schema.properties.spec.typ']],
  ])('rejects unknown fields of %s', async (_name, kind, body, paths) => {
    const r = await create(kind, body as KubeObject);
    expect(r.code).toBe(400);
    expect(r.message).toBe(`${kind} in version "v1" cannot be handled as a ${kind}: strict decoding error: ${paths.map((p) => `unknown field "${p}"`).join(', ')}`);
  });

  it('matches json tags case-sensitively', async () => {
    const r = await create('Pod', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { Containers: [] } });
    expect(r.message).toContain('unknown field "spec.Containers"');
  });

  it('sends each problem as a warning under Warn and accepts the body', async () => {
    const r = await create('Deployment', deployment({ containers: [{ name: 'web', imagee: 'nginx' }] }, { foo: 1 }), 'Warn');
    expect(r).toEqual({ warnings: ['unknown field "spec.template.spec.containers[0].imagee"', 'unknown field "spec.foo"'] });
  });

  it('checks nothing under Ignore', async () => {
    expect(await create('Deployment', deployment({ containers: [{ imagee: 'x' }] }, { foo: 1 }), 'Ignore')).toEqual({ warnings: [] });
  });

  it('keeps at most 100 errors, as the decoder does', async () => {
    const spec: Record<string, number> = {};
    for (let i = 0; i < 150; i++) spec[`f${i}`] = i;
    const r = await create('ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, ...spec });
    expect(r.message!.split(', ')).toHaveLength(100);
  });

  it('lists yaml duplicate keys first, as YAMLToJSONStrict reports them', async () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n  a: "2"\nfoo: 1\n';
    const warnings: string[] = [];
    await checkResourceFields(resource('ConfigMap'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '2' }, foo: 1 }, 'Warn', warnings, { raw: Buffer.from(text), mediaType: 'application/yaml' });
    // as warnings, parseYAMLWarnings splits the yaml error into its lines (handlers/rest.go)
    expect(warnings).toEqual(['line 7: key "a" already set in map', 'unknown field "foo"']);
  });

  it('checks a /scale body as an autoscaling/v1 Scale', async () => {
    const body = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 2, replica: 3 } };
    await expect(checkScaleFields(body, 'Strict', [], json(JSON.stringify(body)))).rejects.toMatchObject({
      code: 400,
      message: 'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.replica"',
    });
  });

  it('does not check protobuf bodies, which kube decodes without strictness', async () => {
    const warnings: string[] = [];
    await checkResourceFields(resource('ConfigMap'), { apiVersion: 'v1', kind: 'ConfigMap', foo: 1 }, 'Strict', warnings, { raw: Buffer.from([0x6b, 0x38, 0x73, 0]), mediaType: 'application/vnd.kubernetes.protobuf' });
    expect(warnings).toEqual([]);
  });
});

describe('strict decoding of patches', () => {
  const current = deployment({ containers: [{ name: 'web', image: 'nginx' }] });

  async function patch(type: string, body: string, patched: KubeObject, mode: FieldValidation = 'Strict') {
    const check = await patchedFieldCheck(resource('Deployment'), false, mode, type, Buffer.from(body));
    const warnings: string[] = [];
    try {
      check(patched, warnings);
      return { warnings };
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      return { code: err.code, reason: err.reason, message: err.message, causes: err.status.details?.causes, warnings };
    }
  }

  it('answers a merge patch that adds an unknown field with 422 on the field patch, the patched JSON as value', async () => {
    const patched = structuredClone(current);
    (patched['spec'] as Record<string, unknown>)['foo'] = 1;
    const r = await patch(MergePatchType, '{"spec":{"foo":1}}', patched);
    expect(r.code).toBe(422);
    expect(r.reason).toBe('Invalid');
    expect(r.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'patch', message: expect.stringMatching(/^Invalid value: "\{\\"apiVersion\\":\\"apps\/v1\\",.*": strict decoding error: unknown field "spec.foo"$/) }]);
    expect(r.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec.foo"$/);
  });

  it('lists a merge patch\'s duplicate fields before the unknown fields of the result', async () => {
    const patched = structuredClone(current);
    (patched['spec'] as Record<string, unknown>)['foo'] = 2;
    const r = await patch(MergePatchType, '{"spec":{"foo":1,"foo":2}}', patched, 'Warn');
    expect(r.warnings).toEqual(['duplicate field "spec.foo"', 'unknown field "spec.foo"']);
  });

  it('prefixes a JSON patch\'s own strict errors with "json patch"', async () => {
    const r = await patch(JSONPatchType, '[{"op":"replace","path":"/spec/replicas","value":2,"valuee":3}]', current, 'Warn');
    expect(r.warnings).toEqual(['json patch unknown field "[0].valuee"']);
  });

  it('answers a strategic merge patch with the patch map, as %+v prints it, for value', async () => {
    const patched = structuredClone(current);
    ((patched['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers[0]!)['imagee'] = 'x';
    const r = await patch(StrategicMergePatchType, '{"spec":{"template":{"spec":{"containers":[{"name":"web","imagee":"x"}]}}}}', patched);
    expect(r.message).toBe(' "" is invalid: patch: Invalid value: "map[spec:map[template:map[spec:map[containers:[map[imagee:x name:web]]]]]]": strict decoding error: unknown field "spec.template.spec.containers[0].imagee"');
  });

  // FromUnstructuredWithValidation sorts its unknown-field errors by their text (runtime/converter.go)
  it('reports a strategic merge patch\'s unknown fields sorted by their text', async () => {
    const patched = structuredClone(current) as Record<string, unknown>;
    patched['zzz'] = 1;
    (patched['spec'] as Record<string, unknown>)['aaa'] = 1;
    ((patched['spec'] as { template: { spec: Record<string, unknown> } }).template.spec)['bbb'] = 1;
    const r = await patch(StrategicMergePatchType, '{}', patched as KubeObject, 'Warn');
    expect(r.warnings).toEqual(['unknown field "spec.aaa"', 'unknown field "spec.template.spec.bbb"', 'unknown field "zzz"']);
  });

  it('checks nothing under Ignore', async () => {
    const r = await patch(MergePatchType, '{"spec":{"foo":1,"foo":2}}', { ...current, foo: 1 }, 'Ignore');
    expect(r).toEqual({ warnings: [] });
  });
});

// kube's TestParseYAMLWarnings (k8s.io/apiserver/pkg/endpoints/handlers/rest_test.go): each duplicate of a YAML body
// is its own warning under Warn, the "yaml: unmarshal errors:" prefix and indentation gone.
describe('YAML duplicate keys under Warn, as addStrictDecodingWarnings splits them', () => {
  const head = '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: no-errors\ndata:\n  field1: val1\n  field2: val2\n';
  const warnUnder = async (text: string, mode: FieldValidation) => {
    const warnings: string[] = [];
    await checkResourceFields(resource('ConfigMap'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-errors' } }, mode, warnings, { raw: Buffer.from(text), mediaType: 'application/yaml' });
    return warnings;
  };
  it.each([
    ['no errors', head, []],
    ['one error', `${head}  field2: val3\n`, ['line 9: key "field2" already set in map']],
    ['many errors', `${head}  field2: val3\n  field3: val1\n  field3: val2\n`, ['line 9: key "field2" already set in map', 'line 11: key "field3" already set in map']],
  ])('%s', async (_name, text, expected) => {
    expect(await warnUnder(text, 'Warn')).toEqual(expected);
  });

  it('keeps other strict errors whole', () => {
    expect(strictDecodingWarnings(['unknown field "spec.foo"', 'error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key "a" already set in map'])).toEqual([
      'unknown field "spec.foo"',
      'line 3: key "a" already set in map',
    ]);
  });
});
