// Issue #13: small unauthenticated bodies must neither crash nor stall the server. Every body is bounded before it is
// parsed (nesting depth, YAML aliases, JSON patch copies), what passes costs time linear in its size, and malformed
// request paths get kube-apiserver's 4xx answers instead of internal errors. Raw requests (node https, the path sent
// as written) so that nothing normalises `..` or re-encodes escapes on the way.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { useApiServer, useWebhookServer } from '../../harness/jest.js';
import { allow, patch } from '../../harness/webhook-server.js';
import { checkJsonNesting, maxNestingDepth } from '../../server/api/nesting-depth.js';
import { eventually } from '../support/eventually.js';

const env = useApiServer({ storage: 'memory' });
const webhook = useWebhookServer({ resetBeforeEach: true });
const cms = '/api/v1/namespaces/default/configmaps';

interface RawResponse {
  status: number;
  contentType: string;
  body: string;
  json: Record<string, unknown>;
  /** the Warning header, as sent */
  warning: string;
}

/** One request with the path exactly as given, as the admin user. */
function raw(method: string, requestPath: string, body?: string, contentType = 'application/json'): Promise<RawResponse> {
  const server = env.server;
  const url = new URL(server.url);
  const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: requestPath,
        ca: server.caPem,
        cert: readFileSync(path.join(server.certDir, 'admin.crt')),
        key: readFileSync(path.join(server.certDir, 'admin.key')),
        agent: false,
        timeout: 60_000,
        headers: { Accept: 'application/json', ...(payload ? { 'Content-Type': contentType, 'Content-Length': String(payload.length) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // plain-text answers are asserted on body
          }
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: text, json, warning: String(res.headers['warning'] ?? '') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${requestPath} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

async function expectAlive(): Promise<void> {
  expect(env.server.running).toBe(true);
  const livez = await raw('GET', '/livez');
  expect(livez.status).toBe(200);
}

/** `levels` maps nested under key a, around `leaf`. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/**
 * A ConfigMap whose unknown field zz holds `levels` nested maps: the body nests levels + 1 deep. The issue's case:
 * the decoder reads it whole (bounded by the limit), the Go type has no zz, so it is dropped and never stored.
 */
function deepConfigMap(name: string, levels: number, leaf: unknown = 1): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, zz: nested(levels, leaf) };
}

/**
 * Deep free-form data that is stored: a custom resource whose spec keeps unknown fields
 * (x-kubernetes-preserve-unknown-fields), `levels` nested maps in spec, so the object nests levels + 1 deep.
 */
const deepsGroup = 'deep.example.com';
const deeps = `/apis/${deepsGroup}/v1/namespaces/default/deeps`;
function deepResource(name: string, levels: number, leaf: unknown = 1): Record<string, unknown> {
  return { apiVersion: `${deepsGroup}/v1`, kind: 'Deep', metadata: { name }, spec: nested(levels, leaf) };
}
const deepsCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `deeps.${deepsGroup}` },
  spec: {
    group: deepsGroup,
    scope: 'Namespaced',
    names: { plural: 'deeps', singular: 'deep', kind: 'Deep', listKind: 'DeepList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { 'x-kubernetes-preserve-unknown-fields': true } } } } }],
  },
};

/** The value `levels` maps down under `key` (spec, zz) of a read object. */
function leafOf(obj: Record<string, unknown>, key: string, levels: number): unknown {
  let v = obj[key];
  for (let i = 0; i < levels; i++) v = (v as { a: unknown } | undefined)?.a;
  return v;
}

beforeAll(async () => {
  expect((await raw('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(deepsCRD))).status).toBe(201);
  await eventually(async () => expect((await raw('GET', deeps)).status).toBe(200), 30_000);
});

const blockMaps = (n: number): string => {
  let s = '';
  for (let i = 0; i < n; i++) s += `${' '.repeat(i)}a:\n`;
  return `${s}${' '.repeat(n)}b: 1\n`;
};

describe('nesting beyond the limit is a 400 for every body, and the server lives on', () => {
  const deepBodies: Array<[string, string]> = [
    ['[ x3000', '['.repeat(3000) + ']'.repeat(3000)],
    ['{ x3000', '{'.repeat(3000) + '}'.repeat(3000)],
    ['[{ x3000', '[{'.repeat(3000) + '}]'.repeat(3000)],
    ['flow maps x3000', '{a: '.repeat(3000) + '1' + '}'.repeat(3000)],
    ['JSON maps x3000', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"zz":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`],
    ['block maps x2000', blockMaps(2000)],
    ['block sequences x5000', '- '.repeat(5000) + '1\n'],
    ['[ x300000 (unclosed)', '['.repeat(300_000)],
  ];
  const requests: Array<[string, string, string]> = [
    ['PATCH', `${cms}/x?fieldManager=m`, 'application/apply-patch+yaml'],
    ['POST', cms, 'application/yaml'],
    ['POST', cms, 'application/json'],
    ['PUT', `${cms}/x`, 'application/json'],
    ['PATCH', `${cms}/x`, 'application/merge-patch+json'],
    ['PATCH', `${cms}/x`, 'application/strategic-merge-patch+json'],
    ['PATCH', `${cms}/x`, 'application/json-patch+json'],
    ['DELETE', `${cms}/x`, 'application/json'],
  ];

  beforeAll(async () => {
    // patches reach their decoders only for an object that exists
    expect((await raw('POST', cms, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }))).status).toBe(201);
  });

  it.each(requests)('%s %s (%s)', async (method, p, type) => {
    for (const [what, body] of deepBodies) {
      const r = await raw(method, p, body, type);
      // JSON-syntax bodies sent as JSON are scanned as JSON; what is not JSON fails to parse as JSON (400 too)
      expect({ what, status: r.status, kind: r.json['kind'] }).toEqual({ what, status: 400, kind: 'Status' });
      expect(r.body).not.toContain('Maximum call stack');
    }
    await expectAlive();
  });

  it("words the refusal as kube's decoders do", async () => {
    const json = await raw('POST', cms, JSON.stringify(deepConfigMap('deep', maxNestingDepth)));
    expect(json.json).toMatchObject({ code: 400, reason: 'BadRequest', message: "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth" });
    const yaml = await raw('POST', cms, 'a: ' + '['.repeat(maxNestingDepth + 1), 'application/yaml');
    expect(yaml.json).toMatchObject({ code: 400, reason: 'BadRequest', message: `yaml: exceeded max depth of ${maxNestingDepth}` });
    const block = await raw('POST', cms, blockMaps(maxNestingDepth + 5), 'application/yaml');
    expect(block.json).toMatchObject({ code: 400, message: `yaml: line ${maxNestingDepth + 1}: exceeded max depth of ${maxNestingDepth}` });
    const apply = await raw('PATCH', `${cms}/x?fieldManager=m`, '['.repeat(3000) + ']'.repeat(3000), 'application/apply-patch+yaml');
    expect(apply.json).toMatchObject({ code: 400, message: `error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of ${maxNestingDepth}` });
    const patch = await raw('PATCH', `${cms}/x`, '['.repeat(3000), 'application/merge-patch+json');
    expect(patch.json).toMatchObject({ code: 400, message: "error decoding patch: invalid character '[' exceeded max depth" });
  });
});

describe('an object exactly at the nesting limit goes through every write path', () => {
  const name = 'at-limit';
  /** How much deeper than the object its stored managedFields nest (fieldsV1 mirrors the object under metadata). */
  async function managedFieldsExtraDepth(): Promise<number> {
    const r = await raw('POST', deeps, JSON.stringify(deepResource('measure', 10)));
    expect(r.status).toBe(201);
    const measured = checkJsonNesting(r.body);
    expect(measured.ok).toBe(true);
    // the spec is stored and tracked: fieldsV1 holds f:spec and one f:a per level, below metadata.managedFields[i]
    const extra = (measured as { depth: number }).depth - 11;
    expect(extra).toBeGreaterThan(0);
    return extra;
  }

  it('accepts a body of exactly maxNestingDepth levels and refuses one more; patches keep an object at the limit', async () => {
    expect((await raw('POST', deeps, JSON.stringify(deepResource('limit-body', maxNestingDepth - 1)))).status).toBe(201);
    expect((await raw('POST', deeps, JSON.stringify(deepResource('limit-body-plus-one', maxNestingDepth)))).status).toBe(400);
    // its managedFields nest 5 levels deeper, which a patch of it keeps
    const merge = JSON.stringify({ metadata: { labels: { patched: 'yes' } } });
    expect((await raw('PATCH', `${deeps}/limit-body`, merge, 'application/merge-patch+json')).status).toBe(200);
    const leaf = '/spec' + '/a'.repeat(maxNestingDepth - 1);
    expect((await raw('PATCH', `${deeps}/limit-body`, JSON.stringify([{ op: 'replace', path: leaf, value: 2 }]), 'application/json-patch+json')).status).toBe(200);
    const got = await raw('GET', `${deeps}/limit-body`);
    expect(leafOf(got.json, 'spec', maxNestingDepth - 1)).toBe(2);
    expect(got.json['metadata']).toMatchObject({ labels: { patched: 'yes' } });
    // one level more in a patch is refused, and the stored object is left as it was
    const deeper = JSON.stringify([{ op: 'replace', path: leaf, value: { b: 1 } }]);
    expect((await raw('PATCH', `${deeps}/limit-body`, deeper, 'application/json-patch+json')).json).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(leafOf((await raw('GET', `${deeps}/limit-body`)).json, 'spec', maxNestingDepth - 1)).toBe(2);
  });

  it('create, get, update, merge / JSON patch, server-side apply, YAML, strict validation of a custom resource', async () => {
    // an object whose stored form, managedFields included, nests exactly maxNestingDepth levels: the deepest that
    // survives a read-modify-write (as in kube, whose limit counts managedFields too)
    const levels = maxNestingDepth - 1 - (await managedFieldsExtraDepth());
    const created = await raw('POST', deeps, JSON.stringify(deepResource(name, levels)));
    expect(created.status).toBe(201);
    expect(checkJsonNesting(created.body)).toEqual({ ok: true, depth: maxNestingDepth });
    expect((await raw('GET', `${deeps}/${name}`)).status).toBe(200);
    // an unconditional update with a new body
    expect((await raw('PUT', `${deeps}/${name}`, JSON.stringify(deepResource(name, levels, 2)))).status).toBe(200);
    const mergePatch = JSON.stringify({ spec: nested(levels - 1, 3) });
    expect((await raw('PATCH', `${deeps}/${name}`, mergePatch, 'application/merge-patch+json')).status).toBe(200);
    expect(leafOf((await raw('GET', `${deeps}/${name}`)).json, 'spec', levels - 1)).toBe(3);
    // custom resources have no strategic merge patch (kube's 415, whatever the depth)
    expect((await raw('PATCH', `${deeps}/${name}`, mergePatch, 'application/strategic-merge-patch+json')).status).toBe(415);
    const leaf = '/spec' + '/a'.repeat(levels - 1);
    const jsonPatch = JSON.stringify([{ op: 'replace', path: leaf, value: 4 }]);
    expect((await raw('PATCH', `${deeps}/${name}`, jsonPatch, 'application/json-patch+json')).status).toBe(200);
    const labels = JSON.stringify({ apiVersion: `${deepsGroup}/v1`, kind: 'Deep', metadata: { name, labels: { a: 'b' } } });
    expect((await raw('PATCH', `${deeps}/${name}?fieldManager=applier`, labels, 'application/apply-patch+yaml')).status).toBe(200);
    const got = await raw('GET', `${deeps}/${name}`);
    expect(checkJsonNesting(got.body)).toEqual({ ok: true, depth: maxNestingDepth });
    expect((await raw('PUT', `${deeps}/${name}`, got.body)).status).toBe(200);
    expect(leafOf(got.json, 'spec', levels - 1)).toBe(4);
    expect(got.json['metadata']).toMatchObject({ labels: { a: 'b' } });

    // YAML create at the limit: flow sequences, stored as they came
    const yamlName = 'at-limit-yaml';
    const yaml = `apiVersion: ${deepsGroup}/v1\nkind: Deep\nmetadata:\n  name: ${yamlName}\nspec: ${'['.repeat(maxNestingDepth - 1)}1${']'.repeat(maxNestingDepth - 1)}\n`;
    expect((await raw('POST', deeps, yaml, 'application/yaml')).status).toBe(201);
    expect(checkJsonNesting((await raw('GET', `${deeps}/${yamlName}`)).body)).toEqual({ ok: true, depth: maxNestingDepth });
    // server-side apply of YAML at the limit
    const deepCr = yaml.replace(yamlName, 'applied');
    const applyPath = `${deeps}/applied?fieldManager=m`;
    expect((await raw('PATCH', applyPath, deepCr, 'application/apply-patch+yaml')).status).toBe(201);
    expect((await raw('PATCH', applyPath, deepCr.replace('1]', '2]'), 'application/apply-patch+yaml')).status).toBe(200);
    expect(String((await raw('GET', `${deeps}/applied`)).body)).toContain(`${'['.repeat(maxNestingDepth - 1)}2]`);

    // the spec keeps unknown fields, so Strict finds none at any depth
    const strict = await raw('POST', `${deeps}?fieldValidation=Strict`, JSON.stringify(deepResource('at-limit-strict', levels)));
    expect(strict.status).toBe(201);
    expect(strict.warning).toBe('');
    await expectAlive();
  });

  it('passes admission at the limit: a ValidatingAdmissionPolicy compares the whole (stored, deep) object in CEL', async () => {
    const vap = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'deep-equality' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [deepsGroup], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deeps'] }] },
        validations: [{ expression: "object.metadata.name != 'vap-probe'" }, { expression: 'object == object && (oldObject == null || has(oldObject.metadata))' }],
      },
    };
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'deep-equality' }, spec: { policyName: 'deep-equality', validationActions: ['Deny'] } };
    expect((await raw('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', JSON.stringify(vap))).status).toBe(201);
    expect((await raw('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', JSON.stringify(binding))).status).toBe(201);
    try {
      // in force once the probe is denied
      await eventually(async () => expect((await raw('POST', deeps, JSON.stringify(deepResource('vap-probe', 1)))).status).toBe(422));
      expect((await raw('POST', deeps, JSON.stringify(deepResource('vap-deep', maxNestingDepth - 1)))).status).toBe(201);
      // the update's oldObject is as deep
      expect((await raw('PUT', `${deeps}/vap-deep`, JSON.stringify(deepResource('vap-deep', maxNestingDepth - 1, 2)))).status).toBe(200);
    } finally {
      await raw('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/deep-equality');
      await raw('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/deep-equality');
    }
    await expectAlive();
  });

  it('refuses a JSON patch whose result nests past the limit (422 on "patch", as the patched object fails to decode)', async () => {
    const half = Math.floor(maxNestingDepth / 2);
    expect((await raw('POST', deeps, JSON.stringify(deepResource('grows', half)))).status).toBe(201);
    const ops = JSON.stringify([{ op: 'add', path: '/spec' + '/a'.repeat(half - 1) + '/b', value: nested(half) }]);
    const r = await raw('PATCH', `${deeps}/grows`, ops, 'application/json-patch+json');
    expect(r.json).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [{ field: 'patch', reason: 'FieldValueInvalid' }] } });
    expect(String(r.json['message'])).toContain(`exceeded max depth of ${maxNestingDepth}`);
    const kept = (await raw('GET', `${deeps}/grows`)).json;
    expect(leafOf(kept, 'spec', half)).toBe(1);
    await expectAlive();
  });

  it('refuses JSON patch copies past kube\'s JSONPatchMaxCopyBytes (3 MiB) with kube\'s generic 422', async () => {
    expect((await raw('POST', cms, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'copies' }, data: { big: 'x'.repeat(100_000) } }))).status).toBe(201);
    const ops = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data/big', path: `/data/c${i}` }));
    const r = await raw('PATCH', `${cms}/copies`, JSON.stringify(ops), 'application/json-patch+json');
    expect(r.json).toMatchObject({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
    const few = ops.slice(0, 3);
    expect((await raw('PATCH', `${cms}/copies`, JSON.stringify(few), 'application/json-patch+json')).status).toBe(200);
  });
});

describe('mutating webhooks: objects at the limit go through, patches cannot grow them past it', () => {
  const hookName = 'deep.example.com';
  beforeAll(async () => {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'deep-hook' },
      webhooks: [
        {
          name: hookName,
          clientConfig: { url: webhook.url('/mutate'), caBundle: webhook.caBundle },
          rules: [{ apiGroups: [deepsGroup], apiVersions: ['v1'], resources: ['deeps'], operations: ['CREATE'] }],
          objectSelector: { matchLabels: { hook: 'deep' } },
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    };
    expect((await raw('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', JSON.stringify(config))).status).toBe(201);
  });
  const hooked = (name: string, levels: number) => ({ ...deepResource(name, levels), metadata: { name, labels: { hook: 'deep' } } });
  /** Creates hooked objects until the webhook has seen one (its configuration is in force); the last answer. */
  async function createHooked(name: string, levels: number): Promise<RawResponse> {
    let r: RawResponse | undefined;
    await eventually(async () => {
      const before = webhook.server.reviews.length;
      r = await raw('POST', deeps, JSON.stringify(hooked(`${name}-${before}`, levels)));
      expect(webhook.server.reviews.length).toBeGreaterThan(before);
    }, 30_000);
    return r!;
  }

  it('sends an object at the limit in the AdmissionReview and applies the webhook\'s patch to it', async () => {
    webhook.server.setHandler(() => patch([{ op: 'add', path: '/spec/mutated', value: 'yes' }]));
    const r = await createHooked('hooked', maxNestingDepth - 1);
    expect(r.json['message']).toBeUndefined();
    expect(r.status).toBe(201);
    expect(r.json['spec']).toMatchObject({ mutated: 'yes' });
    expect(leafOf(r.json, 'spec', maxNestingDepth - 1)).toBe(1);
    // the review carried the whole object at the limit
    const sent = webhook.server.reviews.at(-1)?.request.object as Record<string, unknown> | undefined;
    expect(leafOf(sent ?? {}, 'spec', maxNestingDepth - 1)).toBe(1);
  });

  it('fails a webhook patch that nests the object past the limit as an internal error (kube: the patched object does not decode)', async () => {
    webhook.server.setHandler(() => patch([{ op: 'add', path: '/spec', value: nested(maxNestingDepth) }]));
    const r = await createHooked('grown', 5);
    expect(r.json).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(String(r.json['message'])).toContain(`the patched object nests deeper than ${maxNestingDepth} levels`);
    await expectAlive();
  });

  it("fails a webhook's copy bomb with evanphx/json-patch's accumulated copy size error", async () => {
    const ops = [{ op: 'add', path: '/spec', value: { v: 'x'.repeat(100_000) } }, ...Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/spec/v', path: `/spec/c${i}` }))];
    webhook.server.setHandler(() => patch(ops as Parameters<typeof patch>[0]));
    const r = await createHooked('copies', 1);
    expect(r.json).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(String(r.json['message'])).toContain('Unable to complete the copy, the accumulated size increase of copy is');
    webhook.server.setHandler(() => allow());
  });
});

describe('YAML aliases are bounded as yaml.v2 bounds them', () => {
  const laughs = (() => {
    let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    let prev = 'a';
    for (const n of 'bcdefghi') {
      text += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
      prev = n;
    }
    return text;
  })();
  const bomb = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: laughs\nzz:\n${laughs.replace(/^/gm, '  ')}`;

  it('answers a billion laughs with 400 "yaml: document contains excessive aliasing" on every YAML path', async () => {
    const create = await raw('POST', cms, bomb, 'application/yaml');
    expect(create.json).toMatchObject({ code: 400, reason: 'BadRequest', message: 'yaml: document contains excessive aliasing' });
    const apply = await raw('PATCH', `${cms}/laughs?fieldManager=m`, bomb, 'application/apply-patch+yaml');
    expect(apply.json).toMatchObject({ code: 400, message: 'error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing' });
    await expectAlive();
  });

  it('still expands ordinary aliases (more than the yaml package\'s own 100)', async () => {
    const items = Array.from({ length: 150 }, (_, i) => `  k${i}: *v`).join('\n');
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliased\n  labels: &l {app: web}\n  annotations: *l\nzz: &v x\ndata:\n${items}\n`;
    const r = await raw('POST', cms, yaml, 'application/yaml');
    expect(r.status).toBe(201);
    expect(r.json['metadata']).toMatchObject({ labels: { app: 'web' }, annotations: { app: 'web' } });
    expect((r.json['data'] as Record<string, string>)['k149']).toBe('x');
  });
});

describe("the issue's case: an unknown field nested deep in a ConfigMap is decoded, warned about and dropped", () => {
  const levels = maxNestingDepth - 1;
  const unknownZz = 'unknown field \\"zz\\"';

  it('creates it at the limit (201) under the default Warn, with the warning, storing no zz; one level more is a 400', async () => {
    const body = { ...deepConfigMap('issue-cm', levels), data: { kept: 'yes' } };
    const r = await raw('POST', cms, JSON.stringify(body));
    expect(r.status).toBe(201);
    // kube's Warning header: 299 - "unknown field \"zz\""
    expect(r.warning).toBe(`299 - "${unknownZz}"`);
    expect(r.json['zz']).toBeUndefined();
    const got = await raw('GET', `${cms}/issue-cm`);
    expect(got.json['zz']).toBeUndefined();
    expect(got.json['data']).toEqual({ kept: 'yes' });
    expect(got.body).not.toContain('f:zz');
    expect((await raw('POST', cms, JSON.stringify(deepConfigMap('issue-cm-plus-one', levels + 1)))).status).toBe(400);
  });

  it('Ignore drops it silently; Strict answers kube\'s 400 strict decoding error', async () => {
    const ignored = await raw('POST', `${cms}?fieldValidation=Ignore`, JSON.stringify(deepConfigMap('issue-cm-ignore', levels)));
    expect(ignored.status).toBe(201);
    expect(ignored.warning).toBe('');
    expect(ignored.json['zz']).toBeUndefined();
    const strict = await raw('POST', `${cms}?fieldValidation=Strict`, JSON.stringify(deepConfigMap('issue-cm-strict', levels)));
    expect(strict.json).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "zz"',
    });
    expect((await raw('GET', `${cms}/issue-cm-strict`)).status).toBe(404);
  });

  it('drops it from every later write: update, merge / strategic / JSON patch, apply, YAML', async () => {
    const name = 'issue-cm-writes';
    expect((await raw('POST', cms, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }))).status).toBe(201);
    const put = await raw('PUT', `${cms}/${name}`, JSON.stringify({ ...deepConfigMap(name, levels, 2), data: { v: 'put' } }));
    expect({ status: put.status, warning: put.warning }).toEqual({ status: 200, warning: `299 - "${unknownZz}"` });
    const mergePatch = JSON.stringify({ zz: nested(levels, 3), data: { v: 'merge' } });
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const r = await raw('PATCH', `${cms}/${name}`, mergePatch, type);
      expect({ type, status: r.status, warning: r.warning, zz: r.json['zz'] }).toEqual({ type, status: 200, warning: `299 - "${unknownZz}"`, zz: undefined });
    }
    // a JSON patch body nests 2 levels above its value
    const jsonPatch = JSON.stringify([{ op: 'add', path: '/zz', value: nested(levels - 2, 4) }, { op: 'add', path: '/data/v', value: 'json' }]);
    const jp = await raw('PATCH', `${cms}/${name}`, jsonPatch, 'application/json-patch+json');
    expect({ status: jp.status, warning: jp.warning, zz: jp.json['zz'] }).toEqual({ status: 200, warning: `299 - "${unknownZz}"`, zz: undefined });
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-yaml\nzz: ${'['.repeat(levels)}1${']'.repeat(levels)}\n`;
    const created = await raw('POST', cms, yaml, 'application/yaml');
    expect({ status: created.status, warning: created.warning, zz: created.json['zz'] }).toEqual({ status: 201, warning: `299 - "${unknownZz}"`, zz: undefined });
    // server-side apply: structured-merge-diff refuses an undeclared field in the configuration, as the plain error
    // (a 500) of kube's structuredmerge.go
    const apply = await raw('PATCH', `${cms}/${name}?fieldManager=applier`, JSON.stringify(deepConfigMap(name, levels)), 'application/apply-patch+yaml');
    expect(apply.json).toMatchObject({
      kind: 'Status',
      code: 500,
      message: `failed to create typed patch object (default/${name}; /v1, Kind=ConfigMap): .zz: field not declared in schema`,
    });
    const got = await raw('GET', `${cms}/${name}`);
    expect(got.json['zz']).toBeUndefined();
    expect(got.json['data']).toEqual({ v: 'json' });
    await expectAlive();
  });
});

describe('work linear in the body: the deep unknown field that stalled the server for seconds', () => {
  // The cheapest of three create + update rounds: robust to a busy machine. Cubic managedFields took ~5 s at 800
  // levels; linear work makes the 500-level round cost about twice the 250-level one, plus fixed request overhead.
  // The ConfigMap is the issue's body (its zz is decoded, then dropped); the custom resource stores the deep spec,
  // and its managedFields track every level.
  const kinds: Array<[string, string, (name: string, levels: number, leaf?: unknown) => Record<string, unknown>]> = [
    ['a ConfigMap with a deep unknown field', cms, deepConfigMap],
    ['a custom resource storing a deep spec', deeps, deepResource],
  ];

  it.each(kinds)('%s: doubling the depth (250 → 499 levels) at most triples the time of create + update (linear 2, quadratic 4, cubic 8)', async (_what, collection, make) => {
    async function round(levels: number, run: number): Promise<number> {
      const name = `cost-${levels}-${run}`;
      const start = performance.now();
      expect((await raw('POST', collection, JSON.stringify(make(name, levels)))).status).toBe(201);
      expect((await raw('PUT', `${collection}/${name}`, JSON.stringify(make(name, levels, 2)))).status).toBe(200);
      return performance.now() - start;
    }
    async function cost(levels: number): Promise<number> {
      let best = Infinity;
      for (let run = 0; run < 3; run++) best = Math.min(best, await round(levels, run));
      return best;
    }
    await round(maxNestingDepth - 1, 99); // warm up
    const shallow = await cost(250);
    const deep = await cost(maxNestingDepth - 1);
    expect(deep / shallow).toBeLessThan(3);
  });
});

describe('request paths: kube\'s 4xx answers, never an internal error', () => {
  it.each([
    ['GET', `${cms}/..`, 400, `Name parameter invalid: "..": may not be '..'`],
    ['GET', `${cms}/.`, 400, `Name parameter invalid: ".": may not be '.'`],
    ['GET', `${cms}/%2e%2e`, 400, `Name parameter invalid: "..": may not be '..'`],
    ['DELETE', `${cms}/a%25b`, 400, `Name parameter invalid: "a%b": may not contain '%'`],
    ['PUT', `${cms}/..`, 400, `Name parameter invalid: "..": may not be '..'`],
    ['GET', '/api/v1/namespaces/..', 400, `Name parameter invalid: "..": may not be '..'`],
    ['GET', '/api/v1/namespaces/../configmaps/x', 404, 'configmaps "x" not found'],
    ['POST', '/api/v1/namespaces/%2e%2e/configmaps', 404, 'namespaces ".." not found'],
    // %2F is a "/" once decoded: the rest of the path is a subresource configmaps do not have
    ['GET', `${cms}/a%2Fb`, 404, 'the server could not find the requested resource'],
    // an empty name: no PUT or PATCH route on a collection
    ['PUT', `${cms}/`, 405, 'the server does not allow this method on the requested resource'],
    ['PATCH', '/api/v1/namespaces//configmaps', 405, 'the server does not allow this method on the requested resource'],
  ])('%s %s: %d %s', async (method, p, code, message) => {
    const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    const r = await raw(method, p, body, method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
    expect(r.json).toMatchObject({ kind: 'Status', code, message });
  });

  it('lists a namespace whose escaped bytes are not UTF-8 (Go keeps the bytes): an empty list', async () => {
    const r = await raw('GET', '/api/v1/namespaces/%c0%ae/configmaps');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'ConfigMapList', items: [] });
  });

  it.each([[`${cms}/%`], [`${cms}/%zz`], ['/api/v1/namespaces/%c/configmaps'], ['/healthz%']])(
    '%s: 400 Bad Request in plain text, as Go\'s net/http answers a URL it cannot parse',
    async (p) => {
      const r = await raw('GET', p);
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: '400 Bad Request' });
      expect(r.contentType).toContain('text/plain');
    },
  );
});
