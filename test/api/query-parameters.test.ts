// Query parameters read as kube-apiserver's parameter codec reads them (k8s.io/apimachinery/pkg/runtime
// conversion.go, meta/v1 zz_generated.conversion.go), through the real server: booleans are true unless "false" or
// "0" (so the Python client's ?watch=True watches), int64s and durations fail with Go's texts, ListOptions and the
// other options are validated with kube's messages, a named GET ignores ?watch, and a field selector on
// metadata.name names a list (what authorization and audit see).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useApiServer } from '../../harness/jest.js';
import { eventually } from '../support/eventually.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kah-query-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = useApiServer({ storage: 'memory', flags: [`--audit-log-path=${path.join(dir, 'audit.log')}`] });
const cms = '/api/v1/namespaces/default/configmaps';

async function call(p: string, opts: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await env.server.request(p, { method: opts.method ?? 'GET', body: opts.body, headers: { 'Content-Type': 'application/json', ...opts.headers }, timeoutMs: 20_000 });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    /* a watch stream: several JSON lines */
  }
  return { status: res.status, json, body: res.body };
}

/** The watch events of a finished watch response (it ends at timeoutSeconds). */
function events(body: string): Array<{ type: string; object: { kind?: string; metadata?: { name?: string } } }> {
  return body
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string; object: { kind?: string; metadata?: { name?: string } } });
}

beforeAll(async () => {
  for (const name of ['q-1', 'allowed', 'other']) expect((await call(cms, { method: 'POST', body: { metadata: { name } } })).status).toBe(201);
});

describe('booleans: Convert_Slice_string_To_bool', () => {
  it.each([['watch=True'], ['watch=yes'], ['watch='], ['watch'], ['watch=1'], ['watch=true&watch=false']])('?%s watches', async (q) => {
    const r = await call(`${cms}?${q}&timeoutSeconds=1`);
    expect(r.status).toBe(200);
    const evs = events(r.body);
    expect(evs.length).toBeGreaterThanOrEqual(3);
    expect(evs.every((e) => e.type === 'ADDED' && e.object.kind === 'ConfigMap')).toBe(true);
  });

  it.each([['watch=false'], ['watch=0'], ['watch=FALSE'], ['watch=False&watch=true'], ['']])('?%s lists', async (q) => {
    const r = await call(`${cms}?${q}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'ConfigMapList' });
  });

  it('sendInitialEvents=False starts a watch at the most recent state, with no initial events', async () => {
    const r = await call(`${cms}?watch=1&sendInitialEvents=False&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    const withInitial = await call(`${cms}?watch=1&sendInitialEvents=yes&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
    expect(events(withInitial.body).length).toBeGreaterThanOrEqual(3);
  });

  it('a GET of one object is a get whatever ?watch says (requestinfo.go turns only collection GETs into watches)', async () => {
    const r = await call(`${cms}/q-1?watch=true`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'q-1' } });
  });

  it('force=True on a non-apply patch is a force (then forbidden, as ValidatePatchOptions says)', async () => {
    const r = await call(`${cms}/q-1?force=True`, { method: 'PATCH', body: { data: { a: 'b' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch' });
    const plain = await call(`${cms}/q-1?force=false`, { method: 'PATCH', body: { data: { a: 'b' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(plain.status).toBe(422);
  });
});

describe('integers and durations', () => {
  it.each([
    [`${cms}?limit=abc`, 'strconv.ParseInt: parsing "abc": invalid syntax'],
    [`${cms}?limit=`, 'strconv.ParseInt: parsing "": invalid syntax'],
    [`${cms}?watch=1&timeoutSeconds=1.5`, 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    [`${cms}?limit=99999999999999999999`, 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
  ])('%s is a 400 with the conversion error', async (p, message) => {
    const r = await call(p);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message });
  });

  it('a negative timeoutSeconds has already expired: the watch ends at once', async () => {
    const started = Date.now();
    const r = await call(`${cms}?watch=1&timeoutSeconds=-1&resourceVersion=999999`);
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('gracePeriodSeconds of a delete converts as an int64', async () => {
    const r = await call(`${cms}/q-1?gracePeriodSeconds=soon`, { method: 'DELETE' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: 'BadRequest', message: 'strconv.ParseInt: parsing "soon": invalid syntax' });
  });

  it.each([
    ['timeout=10x', 'invalid timeout specified in the request URL - time: unknown unit "x" in duration "10x"'],
    ['timeout=foo', 'invalid timeout specified in the request URL - time: invalid duration "foo"'],
    ['timeout=5', 'invalid timeout specified in the request URL - time: missing unit in duration "5"'],
  ])('?%s is refused by the request-deadline filter', async (q, message) => {
    const r = await call(`${cms}?${q}`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', message });
  });

  it('a valid timeout passes, and a watch (long-running) never reads it', async () => {
    expect((await call(`${cms}?timeout=10s`)).status).toBe(200);
    expect((await call(`${cms}?timeout=1m30.5s&limit=1`)).status).toBe(200);
    const w = await call(`${cms}?watch=1&timeout=10x&timeoutSeconds=1`);
    expect(w.status).toBe(200);
    expect(events(w.body).length).toBeGreaterThanOrEqual(3);
  });
});

describe('options validated as kube validates them', () => {
  it.each([
    [`${cms}?resourceVersionMatch=Exact`, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    [`${cms}?sendInitialEvents=true`, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    [`${cms}?watch=1&sendInitialEvents=`, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
  ])('%s is 422 Invalid', async (p, message) => {
    const r = await call(p);
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', message });
  });

  it('dryRun must be All on a create (ValidateCreateOptions)', async () => {
    const r = await call(`${cms}?dryRun=foo`, { method: 'POST', body: { metadata: { name: 'dry' } } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"foo"}: supported values: "All"' });
  });

  it('fieldValidation must be one of kube\'s directives (Validate{Create,Update,Patch}Options)', async () => {
    const create = await call(`${cms}?fieldValidation=strict`, { method: 'POST', body: { metadata: { name: 'fv' } } });
    expect(create.status).toBe(422);
    expect(create.json).toMatchObject({
      reason: 'Invalid',
      message: 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    });
    const patch = await call(`${cms}/q-1?fieldValidation=Bogus&fieldValidation=Strict`, { method: 'PATCH', body: { data: {} }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(422);
    expect(patch.json).toMatchObject({ message: 'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"' });
    // the first value decides
    expect((await call(`${cms}/q-1?fieldValidation=Strict&fieldValidation=Bogus`, { method: 'PATCH', body: { data: {} }, headers: { 'Content-Type': 'application/merge-patch+json' } })).status).toBe(200);
  });

  it('DeleteOptions from the query: orphanDependents conflicts with propagationPolicy, uid is a precondition', async () => {
    const both = await call(`${cms}/q-1?orphanDependents=True&propagationPolicy=Background`, { method: 'DELETE' });
    expect(both.status).toBe(422);
    expect(both.json).toMatchObject({
      reason: 'Invalid',
      message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    });
    const empty = await call(`${cms}/q-1?propagationPolicy=`, { method: 'DELETE' });
    expect(empty.status).toBe(422);
    expect(empty.json).toMatchObject({ message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "": supported values: "Foreground", "Background", "Orphan", "nil"' });
    const wrongUid = await call(`${cms}/q-1?uid=not-the-uid`, { method: 'DELETE' });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json).toMatchObject({ reason: 'Conflict', message: expect.stringContaining('Precondition failed: UID in precondition: not-the-uid') });
    expect((await call(`${cms}/q-1`)).status).toBe(200);
  });

  it('a delete with a body reads its options from the body alone', async () => {
    // the query's bad gracePeriodSeconds is never read: the DeleteOptions body wins, as in handlers/delete.go
    const r = await call(`${cms}/q-1?gracePeriodSeconds=soon`, { method: 'DELETE', body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } });
    expect(r.status).toBe(200);
    expect((await call(`${cms}/q-1`)).status).toBe(200);
  });

  it('includeObject of a Table must be Metadata, Object, None or empty', async () => {
    const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const bad = await call(`${cms}?includeObject=object`, { headers: accept });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      reason: 'BadRequest',
      message: `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`,
    });
    const none = await call(`${cms}?includeObject=None`, { headers: accept });
    expect(none.status).toBe(200);
    // kube's row.object is an empty RawExtension, which marshals as null
    expect((none.json['rows'] as Array<{ object?: unknown }>)[0]!.object).toBeNull();
  });

  it('ignores parameters it does not know', async () => {
    const r = await call(`${cms}?nonsense=1&pretty=maybe&a%5Bb%5D=c`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'ConfigMapList' });
  });
});

describe('the request info authorization and audit see (requestinfo.go)', () => {
  interface AuditEvent {
    verb: string;
    requestURI: string;
    objectRef?: { resource?: string; name?: string };
  }
  /** The audit event of the request to this URI (path and query as sent). */
  async function audited(uri: string): Promise<AuditEvent> {
    return eventually(() => {
      const lines = readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n');
      const ev = lines.map((l) => JSON.parse(l) as AuditEvent).find((e) => e.requestURI === uri);
      if (!ev) throw new Error(`no audit event for ${uri}`);
      return ev;
    });
  }

  it.each([
    [`${cms}?watch=True&timeoutSeconds=1`, 'watch', undefined],
    [`${cms}?watch=False`, 'list', undefined],
    [`${cms}/q-1?watch=true`, 'get', 'q-1'],
    // a field selector requiring metadata.name names the list or watch (RBAC's resourceNames then apply)
    [`${cms}?fieldSelector=metadata.name%3Dallowed`, 'list', 'allowed'],
    [`${cms}?watch=yes&fieldSelector=metadata.name%3D%3Dallowed&timeoutSeconds=1`, 'watch', 'allowed'],
    [`${cms}?fieldSelector=metadata.name!%3Dallowed`, 'list', undefined],
    // ListOptions that do not decode name nothing
    [`${cms}?fieldSelector=metadata.name%3Dallowed&limit=x`, 'list', undefined],
  ])('%s is verb %s, name %s', async (uri, verb, name) => {
    await call(uri);
    const ev = await audited(uri);
    expect(ev.verb).toBe(verb);
    expect(ev.objectRef?.name).toBe(name);
  });

  it('a list named by its field selector still lists only that object', async () => {
    const list = await call(`${cms}?fieldSelector=metadata.name%3Dallowed`);
    expect(list.status).toBe(200);
    expect((list.json['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['allowed']);
    const watch = await call(`${cms}?watch=True&fieldSelector=metadata.name%3Dallowed&timeoutSeconds=1`);
    expect(events(watch.body).map((e) => e.object.metadata?.name)).toEqual(['allowed']);
  });
});
