// Requests the fuzz suite (test/fuzz) found answered wrongly, each sent again through the real HTTP API with kube's
// answer asserted: warnings above U+00FF, non-GET on /watch/, writes over etcd's size limits, unparsable
// resourceVersions, YAML merge keys, reasonless 500s, and Go's own 400 for a malformed request line.
import tls from 'node:tls';
import { useApiServer } from '../../harness/jest.js';
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import { adminTls, rawClient, type RawClient, type RawResponse } from '../support/raw-https.js';
import { eventually } from '../support/eventually.js';

const ns = 'fuzzreg';
const crGroup = 'fuzzreg.example.com';

/** The Warning headers as a client reading them as UTF-8 (kube sends UTF-8 bytes) sees them. */
function warningsOf(res: RawResponse): string[] {
  const raw = res.headers['warning'];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  // node's client hands header bytes over as latin1 characters and joins repeated headers with ", "
  return values.flatMap((v) => Buffer.from(v, 'latin1').toString('utf8').match(/299 - "(?:[^"\\]|\\.)*"/g) ?? [v]);
}

function json(res: RawResponse): Record<string, unknown> {
  return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
}

const jsonHeaders = { 'Content-Type': 'application/json', Accept: 'application/json' };

describe.each(['memory', 'etcd3'] as const)('requests the fuzz found, against %s storage', (storage) => {
  const env = useApiServer({ storage });
  let client: RawClient;
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = jsonHeaders): Promise<RawResponse> =>
    client.send({ method, path, headers, body: body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), timeoutMs: 10_000 });

  beforeAll(async () => {
    client = rawClient(env.server, 4);
    expect((await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  }, 30_000);
  afterAll(() => client?.close());

  describe('warnings with characters above U+00FF (they hung the request: node refused the header)', () => {
    it('answers a create with unknown fields "€" and "f\\uFFFD" and sends both warnings as UTF-8', async () => {
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warn-euro"},"€":1,"f\uFFFD":true}`;
      const res = await send('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
      expect(res.status).toBe(201);
      expect(warningsOf(res)).toEqual(['299 - "unknown field \\"€\\""', '299 - "unknown field \\"f\uFFFD\\""']);
    });

    it('answers a PUT of a namespace and a virtual review carrying such a field (the fuzz cases #993 and #465)', async () => {
      const put = await send('PUT', `/api/v1/namespaces/${ns}?labelSelector=%3D%3D%3D`, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}","f\uFFFD":true}}`, {
        ...jsonHeaders,
        'Content-Type': 'application/yaml',
      });
      expect(put.status).toBe(200);
      expect(warningsOf(put)).toEqual(['299 - "unknown field \\"metadata.f\uFFFD\\""']);
      const review = await send(
        'POST',
        `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`,
        `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"${ns}","f\uFFFD":1},"spec":{"user":"u","resourceAttributes":{"namespace":"${ns}","verb":"get","resource":"pods"}}}`,
      );
      expect(review.status).toBe(201);
      expect(warningsOf(review)).toEqual(['299 - "unknown field \\"metadata.f\uFFFD\\""']);
    });

    it("cuts warnings past 4096 runes in all to 256 runes each and drops the rest, as kube's warning recorder", async () => {
      // 20 unknown fields of 300 runes (multi-byte, so runes and bytes differ): each warning is 317 runes
      const names = Array.from({ length: 20 }, (_, i) => `${String.fromCharCode(0x4e00 + i)}${'€'.repeat(299)}`);
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warn-many"},${names.map((n) => `"${n}":1`).join(',')}}`;
      const res = await send('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, body);
      expect(res.status).toBe(201);
      const warnings = warningsOf(res);
      // 12 whole warnings fit (12 × 317 = 3804); the 13th passes 4096: all are cut to 256 runes and written again
      // (13 × 256 = 3328), then the 14th to 16th fit as cut (4096), and the rest are dropped.
      expect(warnings).toHaveLength(16);
      for (const [i, w] of warnings.entries()) {
        const text = `unknown field "${names[i]}"`;
        expect(w).toBe(`299 - "${[...text].slice(0, 256).join('').replace(/"/g, '\\"')}"`);
      }
    });
  });

  describe('non-GET methods on the deprecated /watch/ prefix', () => {
    it.each([
      ['DELETE', `/api/v1/watch/namespaces/${ns}/configmaps/y`],
      ['POST', `/api/v1/watch/namespaces/${ns}/configmaps`],
      ['PUT', `/api/v1/watch/namespaces/${ns}/configmaps/y`],
      ['PATCH', `/api/v1/watch/namespaces/${ns}/configmaps/y`],
      ['DELETE', `/api/v1/watch/namespaces/${ns}/configmaps`],
    ])('%s %s is a 405: kube registers /watch/ routes for GET only', async (method, path) => {
      const res = await send(method, path, method === 'GET' ? undefined : '{}', { ...jsonHeaders, ...(method === 'PATCH' ? { 'Content-Type': 'application/merge-patch+json' } : {}) });
      expect([res.status, json(res)['reason']]).toEqual([405, 'MethodNotAllowed']);
    });
  });

  describe('writes over etcd size limits', () => {
    beforeAll(async () => {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `blobs.${crGroup}` },
        spec: {
          group: crGroup,
          scope: 'Namespaced',
          names: { plural: 'blobs', singular: 'blob', kind: 'Blob', listKind: 'BlobList' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
        },
      };
      expect((await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
      await eventually(async () => expect((await send('GET', `/apis/${crGroup}/v1/namespaces/${ns}/blobs`)).status).toBe(200), 30_000);
    }, 60_000);

    const blob = (name: string, bytes: number) => ({ apiVersion: `${crGroup}/v1`, kind: 'Blob', metadata: { name }, spec: { data: 'a'.repeat(bytes) } });

    it('answers a create over 1.5 MiB with 500 "etcdserver: request is too large" and no reason, as kube passes etcd\'s error on', async () => {
      const res = await send('POST', `/apis/${crGroup}/v1/namespaces/${ns}/blobs`, blob('big', 1600 * 1024));
      expect(res.status).toBe(500);
      expect(json(res)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 });
      expect((await send('GET', `/apis/${crGroup}/v1/namespaces/${ns}/blobs/big`)).status).toBe(404);
    });

    it("answers an update over 1.5 MiB the same way and keeps the stored object", async () => {
      expect((await send('POST', `/apis/${crGroup}/v1/namespaces/${ns}/blobs`, blob('small', 10))).status).toBe(201);
      const res = await send('PUT', `/apis/${crGroup}/v1/namespaces/${ns}/blobs/small`, blob('small', 1600 * 1024));
      expect([res.status, json(res)['message'], 'reason' in json(res)]).toEqual([500, 'etcdserver: request is too large', false]);
      const got = json(await send('GET', `/apis/${crGroup}/v1/namespaces/${ns}/blobs/small`));
      expect((got['spec'] as { data: string }).data).toBe('a'.repeat(10));
    });

    it("answers a create over kube's etcd client send limit (2 MiB) with grpc-go's ResourceExhausted text", async () => {
      const res = await send('POST', `/apis/${crGroup}/v1/namespaces/${ns}/blobs`, blob('huge', 2500 * 1024));
      expect(res.status).toBe(500);
      expect(json(res)['message']).toMatch(/^rpc error: code = ResourceExhausted desc = trying to send message larger than max \(\d+ vs\. 2097152\)$/);
      expect('reason' in json(res)).toBe(false);
    });
  });

  describe('a resourceVersion that is not a number', () => {
    const invalid = (rv: string, why: string) => `resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${why}`;

    it.each([
      ['abc', 'invalid syntax'],
      ['-1', 'invalid syntax'],
      ['18446744073709551616', 'value out of range'],
    ])('a list at resourceVersion=%s is a 400 from ValidateListOptions', async (rv, why) => {
      for (const q of [`resourceVersionMatch=Exact&resourceVersion=${rv}`, `resourceVersion=${rv}`]) {
        const res = await send('GET', `/api/v1/namespaces/${ns}/pods?${q}`);
        expect([res.status, json(res)]).toEqual([
          400,
          { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `invalid resource version: ${invalid(rv, why)}`, reason: 'BadRequest', code: 400 },
        ]);
      }
    });

    it('a get or a watch is the watch cache\'s reasonless 500', async () => {
      for (const path of [`/api/v1/namespaces/${ns}/configmaps/warn-euro?resourceVersion=abc`, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=abc`, `/api/v1/watch/namespaces/${ns}/configmaps?resourceVersion=abc`]) {
        const res = await send('GET', path);
        expect([path, res.status, json(res)]).toEqual([path, 500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: invalid('abc', 'invalid syntax'), code: 500 }]);
      }
    });

    it('"0", "" and a number still serve a list, a get and a watch', async () => {
      expect((await send('GET', `/api/v1/namespaces/${ns}/pods?resourceVersion=0`)).status).toBe(200);
      expect((await send('GET', `/api/v1/namespaces/${ns}/configmaps/warn-euro?resourceVersion=`)).status).toBe(200);
      const watch = await client.send({ method: 'GET', path: `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=1`, headers: jsonHeaders, streamMs: 200 });
      expect(watch.status).toBe(200);
    });
  });

  describe('YAML merge keys, merged as yaml.v2 does', () => {
    const doc = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: NAME', '  labels: &base {a: "1", b: "2"}', 'data:', '  <<: *base', '  b: "3"', ''].join('\n');
    const yaml = { 'Content-Type': 'application/yaml', Accept: 'application/json' };

    it('merges them in a YAML create', async () => {
      const res = await send('POST', `/api/v1/namespaces/${ns}/configmaps`, doc.replace('NAME', 'merged'), yaml);
      expect([res.status, json(res)['data']]).toEqual([201, { a: '1', b: '3' }]);
    });

    it('merges them in a server-side apply', async () => {
      const res = await send('PATCH', `/api/v1/namespaces/${ns}/configmaps/merged-apply?fieldManager=t`, doc.replace('NAME', 'merged-apply'), {
        'Content-Type': 'application/apply-patch+yaml',
        Accept: 'application/json',
      });
      expect([res.status, json(res)['data']]).toEqual([201, { a: '1', b: '3' }]);
    });

    it('refuses a merge of a scalar with yaml.v2\'s error', async () => {
      const res = await send('POST', `/api/v1/namespaces/${ns}/configmaps`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata:\n  <<: 1\n', yaml);
      expect(res.status).toBe(400);
      expect(json(res)['message']).toContain('yaml: map merge requires map or sequence of maps as the value');
    });

    it('refuses an alias inside its own anchor with yaml.v2\'s error (it overflowed the stack: a 500)', async () => {
      for (const [method, path] of [
        ['POST', `/api/v1/namespaces/${ns}/services`],
        ['POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations'],
        ['PUT', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/x'],
      ] as const) {
        const res = await send(method, path, 'a: &a [*a]\n', yaml);
        expect([path, res.status, json(res)['reason']]).toEqual([path, 400, 'BadRequest']);
        expect(json(res)['message']).toContain("yaml: anchor 'a' value contains itself");
      }
      const apply = await send('PATCH', `/api/v1/namespaces/${ns}/configmaps/cyclic?fieldManager=t`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cyclic}\ndata: &d {x: *d}\n', {
        'Content-Type': 'application/apply-patch+yaml',
        Accept: 'application/json',
      });
      expect([apply.status, json(apply)['message']]).toEqual([400, "error decoding YAML: error converting YAML to JSON: yaml: anchor 'd' value contains itself"]);
    });
  });

  it("answers a path with a malformed percent-escape with Go's exact 400 bytes and closes the connection", async () => {
    for (const path of [`/api/v1/namespaces/%/configmaps`, `/api/v1/namespaces/${ns}/configmaps/%zz`]) {
      expect(await rawExchange(env.server, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request',
      );
    }
  });
});

/** Everything the server writes back on a fresh TLS connection for `request`, up to its close. */
function rawExchange(server: ApiServerHandle, request: string): Promise<string> {
  const { ca, cert, key } = adminTls(server);
  const url = new URL(server.kubeConfig().getCurrentCluster()!.server);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca, cert, key, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => socket.write(request, 'latin1'));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 10 s; got ${Buffer.concat(chunks).toString('latin1')}`));
    }, 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}
