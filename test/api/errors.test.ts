// Bad input gets kube-apiserver's answer: the same status code, Status reason and details.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';

let server: ApiServerHandle;
const cmPath = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  server = await startApiServer({ storage: 'etcd3' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
});

async function call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await server.request(p, { method, body, headers: { 'Content-Type': 'application/json', ...headers } });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body);
  } catch {
    /* non-JSON bodies are asserted on res.body */
  }
  return { status: res.status, json, headers: res.headers, body: res.body };
}

describe('errors as kube-apiserver sends them', () => {
  it('400 BadRequest for a malformed JSON body', async () => {
    const r = await call('POST', cmPath, '{"metadata": {"name": "x"');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  it('400 BadRequest when the body kind does not match the URL', async () => {
    const r = await call('POST', cmPath, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: 'BadRequest', message: expect.stringContaining('must be of type ConfigMap') });
  });

  it('400 BadRequest when the body name does not match the URL', async () => {
    await call('POST', cmPath, { metadata: { name: 'named' } });
    const r = await call('PUT', `${cmPath}/named`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: 'BadRequest', message: 'the name of the object (other) does not match the name on the URL (named)' });
  });

  it('400 BadRequest when the body namespace does not match the URL', async () => {
    const r = await call('POST', cmPath, { metadata: { name: 'x', namespace: 'kube-system' } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' });
  });

  it('404 NotFound with details for a missing object', async () => {
    const r = await call('GET', `${cmPath}/missing`);
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ reason: 'NotFound', message: 'configmaps "missing" not found', details: { name: 'missing', kind: 'configmaps' }, code: 404 });
  });

  it('404 NotFound for a group-qualified missing object names the group', async () => {
    const r = await call('GET', '/apis/apps/v1/namespaces/default/deployments/missing');
    expect(r.json).toMatchObject({ reason: 'NotFound', message: 'deployments.apps "missing" not found', details: { group: 'apps', kind: 'deployments' } });
  });

  it('404 for an unknown resource', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/widgets');
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ reason: 'NotFound' });
  });

  it('409 AlreadyExists on a second create', async () => {
    await call('POST', cmPath, { metadata: { name: 'twice' } });
    const r = await call('POST', cmPath, { metadata: { name: 'twice' } });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "twice" already exists', details: { name: 'twice', kind: 'configmaps' } });
  });

  it('409 Conflict on an update with a stale resourceVersion', async () => {
    const created = await call('POST', cmPath, { metadata: { name: 'cas' } });
    const rv = (created.json['metadata'] as { resourceVersion: string }).resourceVersion;
    const ok = await call('PUT', `${cmPath}/cas`, { metadata: { name: 'cas', resourceVersion: rv }, data: { a: '1' } });
    expect(ok.status).toBe(200);
    const r = await call('PUT', `${cmPath}/cas`, { metadata: { name: 'cas', resourceVersion: rv }, data: { a: '2' } });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on configmaps "cas": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('413 RequestEntityTooLarge for a body over 3 MiB', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { blob: 'x'.repeat(3 * 1024 * 1024 + 10) } });
    const r = await call('POST', cmPath, big);
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
  });

  it('415 UnsupportedMediaType for a body type the server does not decode', async () => {
    const r = await call('POST', cmPath, 'name: x', { 'Content-Type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ reason: 'UnsupportedMediaType' });
  });

  it('415 for a CBOR server-side apply (only YAML apply is served), with a message that says so', async () => {
    const r = await call('PATCH', `${cmPath}/named?fieldManager=test`, '{"apiVersion":"v1","kind":"ConfigMap"}', { 'Content-Type': 'application/apply-patch+cbor' });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ reason: 'UnsupportedMediaType', message: expect.stringMatching(/apply/i) });
  });

  it('422 Invalid with a cause per field for a bad name', async () => {
    const r = await call('POST', cmPath, { metadata: { name: 'Bad_Name' } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      reason: 'Invalid',
      message: expect.stringMatching(/^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/),
      details: { name: 'Bad_Name', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }] },
    });
  });

  it('422 Invalid when name and generateName are both missing', async () => {
    const r = await call('POST', cmPath, { metadata: {} });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', details: { causes: [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }] } });
  });

  it('422 Invalid naming every missing required field of a Deployment', async () => {
    const r = await call('POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'd' }, spec: { template: { spec: {} } } });
    expect(r.status).toBe(422);
    const fields = ((r.json['details'] as { causes: Array<{ field: string; reason: string }> }).causes).map((c) => `${c.field}:${c.reason}`);
    expect(fields).toEqual(expect.arrayContaining(['spec.selector:FieldValueRequired', 'spec.template.spec.containers:FieldValueRequired']));
    expect(r.json).toMatchObject({ details: { group: 'apps', kind: 'Deployment' }, message: expect.stringMatching(/^Deployment.apps "d" is invalid: \[/) });
  });

  it('dryRun=All runs everything but storage', async () => {
    const r = await call('POST', `${cmPath}?dryRun=All`, { metadata: { generateName: 'dry-' } });
    expect(r.status).toBe(201);
    const name = (r.json['metadata'] as { name: string }).name;
    expect(name).toMatch(/^dry-[a-z0-9]{5}$/);
    expect((await call('GET', `${cmPath}/${name}`)).status).toBe(404);
    const invalid = await call('POST', `${cmPath}?dryRun=All`, { metadata: { name: 'NO' } });
    expect(invalid.status).toBe(422);
  });

  it('410 Expired for a watch or an exact list at a compacted resourceVersion', async () => {
    const first = await call('POST', cmPath, { metadata: { name: 'old-1' } });
    const oldRv = (first.json['metadata'] as { resourceVersion: string }).resourceVersion;
    await call('POST', cmPath, { metadata: { name: 'old-2' } });
    const latest = await call('POST', cmPath, { metadata: { name: 'old-3' } });
    const latestRv = Number((latest.json['metadata'] as { resourceVersion: string }).resourceVersion);
    const etcd = new Etcd3({ hosts: server.etcd!.endpoint });
    try {
      // Compact past the first two writes, as kube-apiserver's compactor would.
      await etcd.kv.compact({ revision: String(latestRv), physical: true });
    } finally {
      etcd.close();
    }
    const watch = await call('GET', `${cmPath}?watch=true&resourceVersion=${oldRv}&timeoutSeconds=5`);
    const event = JSON.parse(watch.body.trim().split('\n')[0]!);
    expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    const list = await call('GET', `${cmPath}?resourceVersion=${oldRv}&resourceVersionMatch=Exact`);
    expect(list.status).toBe(410);
    expect(list.json).toMatchObject({ reason: 'Expired' });
  });
});

describe('authentication and authorization errors', () => {
  let secured: ApiServerHandle;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kah-authz-'));
    writeFileSync(path.join(dir, 'tokens.csv'), 'bob-token,bob,1001,"devs"\nreader-token,reader,1002,\n');
    writeFileSync(
      path.join(dir, 'abac.jsonl'),
      [
        { apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'bob', namespace: 'default', resource: 'configmaps', apiGroup: '*' } },
        { apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'reader', namespace: '*', resource: '*', apiGroup: '*', readonly: true } },
      ].map((p) => JSON.stringify(p)).join('\n') + '\n',
    );
    secured = await startApiServer({
      storage: 'memory',
      flags: ['--anonymous-auth=false', `--token-auth-file=${path.join(dir, 'tokens.csv')}`, '--authorization-mode=ABAC', `--authorization-policy-file=${path.join(dir, 'abac.jsonl')}`],
    });
  }, 60_000);
  afterAll(async () => {
    await secured?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A request without the admin client certificate: only the headers given authenticate it. */
  async function as(token: string | undefined, method: string, p: string, body?: unknown) {
    const https = await import('node:https');
    return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
      const url = new URL(p, secured.url);
      const req = https.request(url, { method, ca: secured.caPem, headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) } }, (res) => {
        let data = '';
        res.on('data', (d: Buffer) => (data += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data.startsWith('{') ? JSON.parse(data) : {} }));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  it('401 Unauthorized without credentials when anonymous auth is off', async () => {
    const r = await as(undefined, 'GET', cmPath);
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('401 Unauthorized for an unknown bearer token', async () => {
    const r = await as('nope', 'GET', cmPath);
    expect(r.status).toBe(401);
  });

  it('allows what the ABAC policy allows', async () => {
    expect((await as('bob-token', 'POST', cmPath, { metadata: { name: 'bobs' } })).status).toBe(201);
    expect((await as('reader-token', 'GET', `${cmPath}/bobs`)).status).toBe(200);
  });

  it('403 Forbidden with kube-apiserver\'s message otherwise', async () => {
    const r = await as('bob-token', 'POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' } });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      reason: 'Forbidden',
      // kube appends the authorizer's reason; ABAC's is "No policy matched."
      message: 'pods is forbidden: User "bob" cannot create resource "pods" in API group "" in the namespace "default": No policy matched.',
      details: { kind: 'pods' },
    });
    const ro = await as('reader-token', 'DELETE', `${cmPath}/bobs`);
    expect(ro.status).toBe(403);
    expect(ro.json['message']).toBe('configmaps "bobs" is forbidden: User "reader" cannot delete resource "configmaps" in API group "" in the namespace "default": No policy matched.');
  });
});
