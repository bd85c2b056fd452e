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
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: text, json });
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

/** A ConfigMap whose unknown field zz holds `levels` nested maps: the object nests levels + 1 deep. */
function deepConfigMap(name: string, levels: number, leaf: unknown = 1): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, zz: v };
}

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
    const r = await raw('POST', cms, JSON.stringify(deepConfigMap('measure', 10)));
    expect(r.status).toBe(201);
    return checkJsonNesting(r.body).ok ? (checkJsonNesting(r.body) as { depth: number }).depth - 11 : NaN;
  }
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'deeps.deep.example.com' },
    spec: {
      group: 'deep.example.com',
      scope: 'Namespaced',
      names: { plural: 'deeps', singular: 'deep', kind: 'Deep', listKind: 'DeepList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { 'x-kubernetes-preserve-unknown-fields': true } } } } }],
    },
  };
  beforeAll(async () => {
    expect((await raw('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd))).status).toBe(201);
  });

  it('accepts a body of exactly maxNestingDepth levels and refuses one more; patches keep an object at the limit', async () => {
    expect((await raw('POST', cms, JSON.stringify(deepConfigMap('limit-body', maxNestingDepth - 1)))).status).toBe(201);
    expect((await raw('POST', cms, JSON.stringify(deepConfigMap('limit-body-plus-one', maxNestingDepth)))).status).toBe(400);
    // its managedFields nest 5 levels deeper, which a patch of it keeps
    const merge = JSON.stringify({ metadata: { labels: { patched: 'yes' } } });
    expect((await raw('PATCH', `${cms}/limit-body`, merge, 'application/merge-patch+json')).status).toBe(200);
    const leaf = '/zz' + '/a'.repeat(maxNestingDepth - 1);
    expect((await raw('PATCH', `${cms}/limit-body`, JSON.stringify([{ op: 'replace', path: leaf, value: 2 }]), 'application/json-patch+json')).status).toBe(200);
    // one level more in a patch is refused
    const deeper = JSON.stringify([{ op: 'replace', path: leaf, value: { b: 1 } }]);
    expect((await raw('PATCH', `${cms}/limit-body`, deeper, 'application/json-patch+json')).json).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('create, get, update, merge / strategic / JSON patch, server-side apply, YAML, strict validation', async () => {
    // an object whose stored form, managedFields included, nests exactly maxNestingDepth levels: the deepest that
    // survives a read-modify-write (as in kube, whose limit counts managedFields too)
    const levels = maxNestingDepth - 1 - (await managedFieldsExtraDepth());
    const created = await raw('POST', cms, JSON.stringify(deepConfigMap(name, levels)));
    expect(created.status).toBe(201);
    expect((await raw('GET', `${cms}/${name}`)).status).toBe(200);
    // an unconditional update with a new body
    expect((await raw('PUT', `${cms}/${name}`, JSON.stringify(deepConfigMap(name, levels, 2)))).status).toBe(200);
    const mergePatch = JSON.stringify({ zz: (deepConfigMap(name, levels - 1, 3) as { zz: unknown }).zz });
    expect((await raw('PATCH', `${cms}/${name}`, mergePatch, 'application/merge-patch+json')).status).toBe(200);
    expect((await raw('PATCH', `${cms}/${name}`, mergePatch, 'application/strategic-merge-patch+json')).status).toBe(200);
    const leaf = '/zz' + '/a'.repeat(levels - 1);
    const jsonPatch = JSON.stringify([{ op: 'replace', path: leaf, value: 4 }]);
    expect((await raw('PATCH', `${cms}/${name}`, jsonPatch, 'application/json-patch+json')).status).toBe(200);
    const labels = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: 'b' } } });
    expect((await raw('PATCH', `${cms}/${name}?fieldManager=applier`, labels, 'application/apply-patch+yaml')).status).toBe(200);
    const got = await raw('GET', `${cms}/${name}`);
    expect(checkJsonNesting(got.body)).toEqual({ ok: true, depth: maxNestingDepth });
    expect((await raw('PUT', `${cms}/${name}`, got.body)).status).toBe(200);
    let zz = got.json['zz'];
    for (let i = 0; i < levels - 1; i++) zz = (zz as { a: unknown }).a;
    expect(zz).toBe(4);

    const yamlName = 'at-limit-yaml';
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${yamlName}\nzz: ${'['.repeat(maxNestingDepth - 1)}1${']'.repeat(maxNestingDepth - 1)}\n`;
    expect((await raw('POST', cms, yaml, 'application/yaml')).status).toBe(201);
    // server-side apply of YAML at the limit, into a custom resource that keeps unknown fields
    await eventually(async () => expect((await raw('GET', '/apis/deep.example.com/v1/namespaces/default/deeps')).status).toBe(200), 30_000);
    const deepCr = `apiVersion: deep.example.com/v1\nkind: Deep\nmetadata:\n  name: applied\nspec: ${'['.repeat(maxNestingDepth - 1)}1${']'.repeat(maxNestingDepth - 1)}\n`;
    const applyPath = '/apis/deep.example.com/v1/namespaces/default/deeps/applied?fieldManager=m';
    expect((await raw('PATCH', applyPath, deepCr, 'application/apply-patch+yaml')).status).toBe(201);
    expect((await raw('PATCH', applyPath, deepCr.replace('1]', '2]'), 'application/apply-patch+yaml')).status).toBe(200);

    const strict = await raw('POST', `${cms}?fieldValidation=Strict`, JSON.stringify(deepConfigMap('at-limit-strict', levels)));
    expect(strict.json).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(strict.body).toContain('unknown field');
    await expectAlive();
  });

  it('passes admission at the limit: a ValidatingAdmissionPolicy compares the whole object in CEL', async () => {
    const vap = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'deep-equality' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "object.metadata.name != 'vap-probe'" }, { expression: 'object == object && (oldObject == null || has(oldObject.metadata))' }],
      },
    };
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'deep-equality' }, spec: { policyName: 'deep-equality', validationActions: ['Deny'] } };
    expect((await raw('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', JSON.stringify(vap))).status).toBe(201);
    expect((await raw('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', JSON.stringify(binding))).status).toBe(201);
    try {
      // in force once the probe is denied
      await eventually(async () => expect((await raw('POST', cms, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'vap-probe' } }))).status).toBe(422));
      expect((await raw('POST', cms, JSON.stringify(deepConfigMap('vap-deep', maxNestingDepth - 1)))).status).toBe(201);
      expect((await raw('PUT', `${cms}/vap-deep`, JSON.stringify(deepConfigMap('vap-deep', maxNestingDepth - 1, 2)))).status).toBe(200);
    } finally {
      await raw('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/deep-equality');
      await raw('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/deep-equality');
    }
    await expectAlive();
  });

  it('refuses a JSON patch whose result nests past the limit (422 on "patch", as the patched object fails to decode)', async () => {
    const half = Math.floor(maxNestingDepth / 2);
    expect((await raw('POST', cms, JSON.stringify(deepConfigMap('grows', half)))).status).toBe(201);
    const value = (deepConfigMap('x', half) as { zz: unknown }).zz;
    const ops = JSON.stringify([{ op: 'add', path: '/zz' + '/a'.repeat(half - 1) + '/b', value }]);
    const r = await raw('PATCH', `${cms}/grows`, ops, 'application/json-patch+json');
    expect(r.json).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [{ field: 'patch', reason: 'FieldValueInvalid' }] } });
    expect(String(r.json['message'])).toContain(`exceeded max depth of ${maxNestingDepth}`);
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
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
          objectSelector: { matchLabels: { hook: 'deep' } },
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    };
    expect((await raw('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', JSON.stringify(config))).status).toBe(201);
  });
  const hooked = (name: string, levels: number) => ({ ...deepConfigMap(name, levels), metadata: { name, labels: { hook: 'deep' } } });
  /** Creates hooked objects until the webhook has seen one (its configuration is in force); the last answer. */
  async function createHooked(name: string, levels: number): Promise<RawResponse> {
    let r: RawResponse | undefined;
    await eventually(async () => {
      const before = webhook.server.reviews.length;
      r = await raw('POST', cms, JSON.stringify(hooked(`${name}-${before}`, levels)));
      expect(webhook.server.reviews.length).toBeGreaterThan(before);
    }, 30_000);
    return r!;
  }

  it('sends an object at the limit in the AdmissionReview and applies the webhook\'s patch to it', async () => {
    webhook.server.setHandler(() => patch([{ op: 'add', path: '/data', value: { mutated: 'yes' } }]));
    const r = await createHooked('hooked', maxNestingDepth - 1);
    expect(r.json['message']).toBeUndefined();
    expect(r.status).toBe(201);
    expect(r.json['data']).toEqual({ mutated: 'yes' });
  });

  it('fails a webhook patch that nests the object past the limit as an internal error (kube: the patched object does not decode)', async () => {
    const value = (deepConfigMap('x', maxNestingDepth) as { zz: unknown }).zz;
    webhook.server.setHandler(() => patch([{ op: 'add', path: '/spec', value }]));
    const r = await createHooked('grown', 5);
    expect(r.json).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(String(r.json['message'])).toContain(`the patched object nests deeper than ${maxNestingDepth} levels`);
    await expectAlive();
  });

  it("fails a webhook's copy bomb with evanphx/json-patch's accumulated copy size error", async () => {
    const ops = [{ op: 'add', path: '/data', value: { v: 'x'.repeat(100_000) } }, ...Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data/v', path: `/data/c${i}` }))];
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

describe('work linear in the body: the deep unknown field that stalled the server for seconds', () => {
  // The cheapest of three create + update rounds: robust to a busy machine. Cubic managedFields took ~5 s at 800
  // levels; linear work makes the 500-level round cost about twice the 250-level one, plus fixed request overhead.
  async function round(levels: number, run: number): Promise<number> {
    const name = `cost-${levels}-${run}`;
    const start = performance.now();
    expect((await raw('POST', cms, JSON.stringify(deepConfigMap(name, levels)))).status).toBe(201);
    expect((await raw('PUT', `${cms}/${name}`, JSON.stringify(deepConfigMap(name, levels, 2)))).status).toBe(200);
    return performance.now() - start;
  }
  async function cost(levels: number): Promise<number> {
    let best = Infinity;
    for (let run = 0; run < 3; run++) best = Math.min(best, await round(levels, run));
    return best;
  }

  it('doubling the depth (250 → 499 levels) at most triples the time of create + update (linear 2, quadratic 4, cubic 8)', async () => {
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
