// application/vnd.kubernetes.protobuf through the real server: kubectl's typed client (creates, auth can-i, auth
// whoami) sends and reads protobuf; raw requests check the envelope, Status errors, DeleteOptions bodies and watch
// framing by decoding the bytes by hand (not with the server's codec); custom resources negotiate as kube's CR handler.
import https from 'node:https';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { eventually } from '../support/eventually.js';
import { crontabCRD } from '../crd/fixtures.js';

const env = useApiServer({ storage: 'memory' });
const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);

const protobuf = 'application/vnd.kubernetes.protobuf';

// ---- an independent protobuf reader: wire format only, no schema ----

type Wire = Map<number, Array<Buffer | bigint>>;

function readWire(buf: Buffer): Wire {
  const out: Wire = new Map();
  let i = 0;
  const varint = (): bigint => {
    let n = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++]!;
      n |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const id = key >>> 3;
    let value: Buffer | bigint;
    switch (key & 7) {
      case 0:
        value = varint();
        break;
      case 2: {
        const len = Number(varint());
        value = buf.subarray(i, i + len);
        i += len;
        break;
      }
      case 1:
        value = buf.readBigUInt64LE(i);
        i += 8;
        break;
      default:
        throw new Error(`unexpected wire type ${key & 7}`);
    }
    out.set(id, [...(out.get(id) ?? []), value]);
  }
  return out;
}

const str = (w: Wire, id: number): string | undefined => (w.get(id)?.at(-1) as Buffer | undefined)?.toString('utf8');
const msg = (w: Wire, id: number): Wire => readWire((w.get(id)?.at(-1) as Buffer | undefined) ?? Buffer.alloc(0));
const num = (w: Wire, id: number): number | undefined => {
  const v = w.get(id)?.at(-1);
  return typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : undefined;
};

/** "k8s\0" + runtime.Unknown{typeMeta{apiVersion 1, kind 2} 1, raw 2, contentEncoding 3, contentType 4}. */
function unwrap(body: Buffer): { apiVersion?: string; kind?: string; raw: Wire; unknown: Wire } {
  expect([...body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
  const unknown = readWire(body.subarray(4));
  const typeMeta = msg(unknown, 1);
  return { apiVersion: str(typeMeta, 1), kind: str(typeMeta, 2), raw: msg(unknown, 2), unknown };
}

// ---- a writer for request bodies ----

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}
const field = (id: number, value: Buffer | string): Buffer => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint((id << 3) | 2), varint(bytes.length), bytes]);
};
const varintField = (id: number, n: number): Buffer => Buffer.concat([varint(id << 3), varint(n)]);
const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer =>
  Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), field(1, Buffer.concat([field(1, apiVersion), field(2, kind)])), field(2, raw)]);

// ---- raw HTTPS with the admin client certificate ----

interface Creds {
  url: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}
let creds: Creds | undefined;
function credentials(): Creds {
  if (creds) return creds;
  const kc = YAML.parse(readFileSync(env.server.kubeconfigPath, 'utf8')) as {
    clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
    users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
  };
  const b64 = (s: string) => Buffer.from(s, 'base64');
  creds = {
    url: kc.clusters[0]!.cluster.server,
    ca: b64(kc.clusters[0]!.cluster['certificate-authority-data']),
    cert: b64(kc.users[0]!.user['client-certificate-data']),
    key: b64(kc.users[0]!.user['client-key-data']),
  };
  return creds;
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function request(method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<Raw> {
  const c = credentials();
  // node frames no DELETE body by itself
  if (body !== undefined) headers = { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, c.url), { method, headers, ca: c.ca, cert: c.cert, key: c.key, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** meta.v1.Status{metadata 1, status 2, message 3, reason 4, details 5, code 6} read by hand. */
function status(raw: Wire) {
  return { status: str(raw, 2), message: str(raw, 3), reason: str(raw, 4), code: num(raw, 6) };
}

describe('kubectl through the real server, speaking protobuf', () => {
  it.each([
    [['create', 'namespace', 'proto-ns'], 'namespace/proto-ns created\n'],
    [['create', 'configmap', 'proto-cm', '--from-literal=a=b', '-n', 'default'], 'configmap/proto-cm created\n'],
    [['create', 'secret', 'generic', 'proto-secret', '--from-literal=k=v', '-n', 'default'], 'secret/proto-secret created\n'],
    [['create', 'deployment', 'proto-deploy', '--image=nginx', '--replicas=2', '--port=80', '-n', 'default'], 'deployment.apps/proto-deploy created\n'],
    [['create', 'serviceaccount', 'proto-sa', '-n', 'default'], 'serviceaccount/proto-sa created\n'],
    [['create', 'service', 'clusterip', 'proto-svc', '--tcp=80:8080', '-n', 'default'], 'service/proto-svc created\n'],
    [['auth', 'can-i', 'create', 'pods'], 'yes\n'],
    [['auth', 'can-i', 'list', 'secrets', '-n', 'default', '--as=alice'], 'yes\n'],
  ])('kubectl %j exits 0 with an empty stderr', async (args, stdout) => {
    const r = await k(args);
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ code: 0, stderr: '', stdout });
  });

  it('kubectl auth whoami reads the SelfSubjectReview it sent as protobuf', async () => {
    const r = await k(['auth', 'whoami', '-o', 'json']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const review = JSON.parse(r.stdout) as { kind: string; apiVersion: string; status: { userInfo: { username: string; groups: string[] } } };
    expect(review).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
    expect(review.status.userInfo.groups).toContain('system:masters');
    const table = await k(['auth', 'whoami']);
    expect({ code: table.code, stderr: table.stderr }).toEqual({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(new RegExp(`^ATTRIBUTE\\s+VALUE\\nUsername\\s+${review.status.userInfo.username}\\n`));
  });

  it('stores what kubectl sent: the deployment as kubectl rendered it, the secret data intact', async () => {
    const d = await k(['get', 'deployment', 'proto-deploy', '-n', 'default', '-o', 'json']);
    expect(d.stderr).toBe('');
    expect(JSON.parse(d.stdout)).toMatchObject({
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } } },
    });
    const s = await k(['get', 'secret', 'proto-secret', '-n', 'default', '-o', 'jsonpath={.data.k}']);
    expect(Buffer.from(s.stdout, 'base64').toString()).toBe('v');
  });

  // kubectl describe reads through the typed clientset: protobuf responses (objects, lists of events) decoded by Go
  it.each([
    ['namespace', 'proto-ns'],
    ['configmap', 'proto-cm'],
    ['secret', 'proto-secret'],
    ['deployment', 'proto-deploy'],
    ['serviceaccount', 'proto-sa'],
    ['service', 'proto-svc'],
  ])('kubectl describe %s reads protobuf answers', async (kind, name) => {
    const r = await k(['describe', kind, name, '-n', 'default']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(new RegExp(`^Name:\\s+${name}\n`));
  });

  it('kubectl delete and scale round-trip through protobuf', async () => {
    const scale = await k(['scale', 'deployment', 'proto-deploy', '-n', 'default', '--replicas=3']);
    expect({ code: scale.code, stderr: scale.stderr, stdout: scale.stdout }).toEqual({ code: 0, stderr: '', stdout: 'deployment.apps/proto-deploy scaled\n' });
    const del = await k(['delete', 'configmap', 'proto-cm', '-n', 'default']);
    expect({ code: del.code, stderr: del.stderr, stdout: del.stdout }).toEqual({ code: 0, stderr: '', stdout: 'configmap "proto-cm" deleted\n' });
  });
});

describe('protobuf request and response bodies', () => {
  const cmPath = '/api/v1/namespaces/default/configmaps';

  it('creates from a protobuf body and answers in protobuf, read back by hand', async () => {
    // ConfigMap{metadata{name 1, labels 11}, data 2 map<string,string>}
    const cm = Buffer.concat([field(1, Buffer.concat([field(1, 'raw-cm'), field(11, Buffer.concat([field(1, 'l'), field(2, 'v')]))])), field(2, Buffer.concat([field(1, 'key'), field(2, 'value')]))]);
    const created = await request('POST', cmPath, { 'Content-Type': protobuf, Accept: protobuf }, envelope('v1', 'ConfigMap', cm));
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe(protobuf);
    const got = unwrap(created.body);
    expect({ apiVersion: got.apiVersion, kind: got.kind }).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    // contentEncoding and contentType are written, empty, as gogo writes them
    expect(got.unknown.get(3)).toEqual([Buffer.alloc(0)]);
    expect(got.unknown.get(4)).toEqual([Buffer.alloc(0)]);
    const meta = msg(got.raw, 1);
    expect(str(meta, 1)).toBe('raw-cm');
    expect(str(meta, 3)).toBe('default');
    expect(str(meta, 5)).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(str(meta, 6))).toBeGreaterThan(0);
    // creationTimestamp: Time{seconds 1}
    expect(num(msg(meta, 8), 1)).toBeGreaterThan(1_600_000_000);
    const entry = readWire(got.raw.get(2)![0] as Buffer);
    expect([str(entry, 1), str(entry, 2)]).toEqual(['key', 'value']);

    const json = await request('GET', `${cmPath}/raw-cm`, { Accept: 'application/json' });
    expect(JSON.parse(json.body.toString())).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'raw-cm', labels: { l: 'v' } }, data: { key: 'value' } });
  });

  it('lists in protobuf: a ConfigMapList with ListMeta and items', async () => {
    const r = await request('GET', cmPath, { Accept: `${protobuf}, application/json` });
    expect(r.status).toBe(200);
    const list = unwrap(r.body);
    expect({ apiVersion: list.apiVersion, kind: list.kind }).toEqual({ apiVersion: 'v1', kind: 'ConfigMapList' });
    expect(Number(str(msg(list.raw, 1), 2))).toBeGreaterThan(0); // ListMeta.resourceVersion
    const names = (list.raw.get(2) ?? []).map((item) => str(msg(readWire(item as Buffer), 1), 1));
    expect(names).toContain('raw-cm');
  });

  it('serves discovery in protobuf to kubectl’s Accept, as kube’s discovery handlers negotiate it', async () => {
    // client-go's discovery asks for protobuf first; kube answers an APIResourceList{groupVersion 1, resources 2}
    const r = await request('GET', '/api/v1', { Accept: `${protobuf},application/json` });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(protobuf);
    const list = unwrap(r.body);
    expect({ apiVersion: list.apiVersion, kind: list.kind }).toEqual({ apiVersion: 'v1', kind: 'APIResourceList' });
    expect(str(list.raw, 1)).toBe('v1');
    // APIResource{name 1, namespaced 2, kind 3}
    const pods = (list.raw.get(2) ?? []).map((item) => readWire(item as Buffer)).find((res) => str(res, 1) === 'pods');
    expect(pods && [str(pods, 3), num(pods, 2)]).toEqual(['Pod', 1]);
    const groups = unwrap((await request('GET', '/apis', { Accept: protobuf })).body);
    expect({ apiVersion: groups.apiVersion, kind: groups.kind }).toEqual({ apiVersion: 'v1', kind: 'APIGroupList' });
    // APIGroupList{groups 1: APIGroup{name 1}}
    expect((groups.raw.get(1) ?? []).map((g) => str(readWire(g as Buffer), 1))).toContain('apps');
  });

  it('answers errors as a protobuf Status when the client accepts only protobuf', async () => {
    const r = await request('GET', `${cmPath}/missing`, { Accept: protobuf });
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe(protobuf);
    const s = unwrap(r.body);
    expect({ apiVersion: s.apiVersion, kind: s.kind }).toEqual({ apiVersion: 'v1', kind: 'Status' });
    expect(status(s.raw)).toEqual({ status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', code: 404 });
    // StatusDetails{name 1, kind 3}
    expect(str(msg(s.raw, 5), 1)).toBe('missing');
    expect(str(msg(s.raw, 5), 3)).toBe('configmaps');
  });

  it('answers 406 in JSON, as kube does, for an Accept it cannot serve, and JSON errors to a JSON client', async () => {
    const r = await request('GET', `${cmPath}/raw-cm`, { Accept: 'text/html' });
    expect(r.status).toBe(406);
    expect(JSON.parse(r.body.toString())).toMatchObject({
      kind: 'Status',
      code: 406,
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    const notFound = await request('GET', `${cmPath}/missing`, { Accept: 'text/html' });
    expect(notFound.status).toBe(404);
    expect(JSON.parse(notFound.body.toString())).toMatchObject({ reason: 'NotFound' });
  });

  it('decodes a protobuf DeleteOptions body', async () => {
    await request('POST', cmPath, { 'Content-Type': 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'del-cm' } }));
    // DeleteOptions{preconditions 2 {uid 1}}: a wrong uid must fail the delete with 409
    const opts = (uid: string) => envelope('meta.k8s.io/v1', 'DeleteOptions', field(2, field(1, uid)));
    const conflict = await request('DELETE', `${cmPath}/del-cm`, { 'Content-Type': protobuf, Accept: 'application/json' }, opts('wrong'));
    expect({ status: conflict.status, body: JSON.parse(conflict.body.toString()) as unknown }).toMatchObject({ status: 409, body: { reason: 'Conflict' } });
    const uid = (JSON.parse((await request('GET', `${cmPath}/del-cm`, { Accept: 'application/json' })).body.toString()) as { metadata: { uid: string } }).metadata.uid;
    const ok = await request('DELETE', `${cmPath}/del-cm`, { 'Content-Type': protobuf, Accept: protobuf }, opts(uid));
    expect(ok.status).toBe(200);
    const s = unwrap(ok.body);
    expect(s.kind).toBe('Status');
    expect(status(s.raw)).toMatchObject({ status: 'Success', code: 200 });
  });

  it('reads the /scale subresource as an autoscaling/v1 Scale in protobuf', async () => {
    const r = await request('GET', '/apis/apps/v1/namespaces/default/deployments/proto-deploy/scale', { Accept: protobuf });
    expect(r.status).toBe(200);
    const scale = unwrap(r.body);
    expect({ apiVersion: scale.apiVersion, kind: scale.kind }).toEqual({ apiVersion: 'autoscaling/v1', kind: 'Scale' });
    expect(num(msg(scale.raw, 2), 1)).toBe(3); // ScaleSpec.replicas
  });

  it('answers a protobuf SelfSubjectAccessReview', async () => {
    // SelfSubjectAccessReview{spec 2 {resourceAttributes 1 {namespace 1, verb 2, resource 5}}}
    const spec = field(2, field(1, Buffer.concat([field(1, 'default'), field(2, 'get'), field(5, 'pods')])));
    const r = await request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { 'Content-Type': protobuf, Accept: protobuf }, envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', spec));
    expect(r.status).toBe(201);
    const review = unwrap(r.body);
    expect(review.kind).toBe('SelfSubjectAccessReview');
    // status 3 {allowed 1}
    expect(num(msg(review.raw, 3), 1)).toBe(1);
  });

  it('refuses a protobuf body that is not an envelope, as kube does', async () => {
    const r = await request('POST', cmPath, { 'Content-Type': protobuf, Accept: 'application/json' }, '{"kind":"ConfigMap"}');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body.toString())).toMatchObject({ message: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]' });
  });
});

describe('watch in protobuf framing', () => {
  it('streams length-prefixed WatchEvents whose objects are enveloped, to a client that prefers protobuf', async () => {
    const c = credentials();
    const frames: Array<{ type?: string; kind?: string; name?: string }> = [];
    let contentType = '';
    const req = https.request(new URL('/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0', c.url), {
      headers: { Accept: `${protobuf}, application/json` },
      ca: c.ca,
      cert: c.cert,
      key: c.key,
      agent: false,
    });
    let pending = Buffer.alloc(0);
    const done = new Promise<void>((resolve, reject) => {
      req.on('response', (res) => {
        contentType = String(res.headers['content-type']);
        res.on('data', (d: Buffer) => {
          pending = Buffer.concat([pending, d]);
          // 4-byte big-endian length, then a meta.v1.WatchEvent{type 1, object 2 RawExtension{raw 1}} without envelope
          while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
            const event = readWire(pending.subarray(4, 4 + pending.readUInt32BE(0)));
            pending = pending.subarray(4 + pending.readUInt32BE(0));
            const object = unwrap(msg(event, 2).get(1)![0] as Buffer);
            frames.push({ type: str(event, 1), kind: object.kind, name: str(msg(object.raw, 1), 1) });
          }
        });
        res.on('error', reject);
        resolve();
      });
      req.on('error', reject);
    });
    req.end();
    await done;
    try {
      await request('POST', '/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } }));
      await eventually(() => expect(frames).toContainEqual({ type: 'ADDED', kind: 'ConfigMap', name: 'watched' }));
      expect(contentType).toBe(`${protobuf};stream=watch`);
      expect(frames.every((f) => f.kind === 'ConfigMap')).toBe(true);
    } finally {
      req.destroy();
    }
  });

  it('refuses a watch whose Accept names only YAML, as kube does (no YAML stream serializer)', async () => {
    const r = await request('GET', '/api/v1/namespaces/default/configmaps?watch=1', { Accept: 'application/yaml' });
    expect(r.status).toBe(406);
    expect(JSON.parse(r.body.toString())).toMatchObject({
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    });
  });
});

describe('custom resources negotiate as kube CR handler does', () => {
  const crPath = '/apis/stable.example.com/v1/namespaces/default/crontabs';

  beforeAll(async () => {
    const r = await k(['apply', '-f', '-'], crontabCRD);
    expect(r.code).toBe(0);
    await eventually(async () => expect((await request('GET', crPath, { Accept: 'application/json' })).status).toBe(200), 20_000);
    const created = await request('POST', crPath, { 'Content-Type': 'application/json', Accept: 'application/json' }, JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'ct1' }, spec: { cronSpec: '* * * * *' } }));
    expect(created.status).toBe(201);
  });

  it('answers 406 to a protobuf-only Accept, the Status itself in protobuf', async () => {
    const r = await request('GET', `${crPath}/ct1`, { Accept: protobuf });
    expect(r.status).toBe(406);
    expect(r.headers['content-type']).toBe(protobuf);
    expect(status(unwrap(r.body).raw)).toEqual({
      status: 'Failure',
      code: 406,
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });

  it('answers JSON to protobuf-then-JSON, on get, list and watch', async () => {
    const accept = `${protobuf}, application/json`;
    const get = await request('GET', `${crPath}/ct1`, { Accept: accept });
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(get.body.toString())).toMatchObject({ kind: 'CronTab', metadata: { name: 'ct1' } });
    const list = await request('GET', crPath, { Accept: accept });
    expect(JSON.parse(list.body.toString())).toMatchObject({ kind: 'CronTabList' });
    const watch = await request('GET', `${crPath}?watch=1&timeoutSeconds=1`, { Accept: accept });
    expect(watch.headers['content-type']).toBe('application/json');
    expect(JSON.parse(watch.body.toString().split('\n')[0]!)).toMatchObject({ type: 'ADDED', object: { kind: 'CronTab' } });
  });

  it('refuses a protobuf body with 415', async () => {
    const r = await request('POST', crPath, { 'Content-Type': protobuf, Accept: 'application/json' }, envelope('stable.example.com/v1', 'CronTab', field(1, field(1, 'ct2'))));
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body.toString())).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    });
  });
});

// keeps the varint writer honest for negative numbers (int32 fields are sign-extended to 10 bytes)
it('writes negative varints as 10 bytes', () => {
  expect(varintField(1, -1).length).toBe(11);
});
