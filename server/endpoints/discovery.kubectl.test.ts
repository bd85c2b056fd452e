// Real kubectl against the discovery and OpenAPI routers, with a throwaway configmaps stub standing in for the
// REST handlers. Proves kubectl runs its usual commands without discovery, OpenAPI or validation errors, and
// pins down the requests it makes (set KAH_TRACE_KUBECTL=1 to print them) so the real handlers can match them.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express, { type Request, type Response } from 'express';
import type { KubeObject } from '../api/types.js';
import { builtinResources } from '../registry/catalogue/index.js';
import { ResourceIndex } from '../registry/resource-index.js';
import { aggregatedContentType, discoveryRouter } from './discovery.js';
import { openapiRouter } from './openapi.js';

// kubectl is on every machine's PATH (the project's tests require it); a missing kubectl fails, it does not skip.
const kubectlPath = 'kubectl';

interface LoggedRequest {
  method: string;
  url: string;
  status: number;
  accept: string;
  contentType: string;
  body: string;
}

// --- the throwaway stub -----------------------------------------------------------------------------------

/** Reads the protobuf wire format: [field, value] pairs, length-delimited values as bytes. */
function protoFields(buf: Buffer): Array<[number, Buffer | number]> {
  const out: Array<[number, Buffer | number]> = [];
  let i = 0;
  const varint = (): number => {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = buf[i++]!;
      n += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return n;
    }
  };
  while (i < buf.length) {
    const key = varint();
    if ((key & 7) === 0) out.push([key >>> 3, varint()]);
    else if ((key & 7) === 2) {
      const len = varint();
      out.push([key >>> 3, buf.subarray(i, i + len)]);
      i += len;
    } else throw new Error(`unsupported wire type ${key & 7}`);
  }
  return out;
}

const protoMapEntry = (b: Buffer): [string, string] => {
  const f = new Map(protoFields(b).map(([k, v]) => [k, (v as Buffer).toString()]));
  return [f.get(1) ?? '', f.get(2) ?? ''];
};

/** A ConfigMap in kube's protobuf envelope ("k8s\0" + runtime.Unknown{typeMeta, raw}), as kubectl's typed client sends it. */
function decodeProtobufConfigMap(buf: Buffer): KubeObject {
  if (buf.subarray(0, 4).toString('latin1') !== 'k8s\0') throw new Error('not a kubernetes protobuf envelope');
  const unknown = protoFields(buf.subarray(4));
  const typeMeta = new Map(protoFields(unknown.find(([f]) => f === 1)![1] as Buffer).map(([k, v]) => [k, (v as Buffer).toString()]));
  const obj: KubeObject = { apiVersion: typeMeta.get(1), kind: typeMeta.get(2), metadata: {} };
  for (const [field, value] of protoFields(unknown.find(([f]) => f === 2)![1] as Buffer)) {
    if (field === 1) {
      for (const [mf, mv] of protoFields(value as Buffer)) {
        if (mf === 1 && (mv as Buffer).length) obj.metadata!.name = (mv as Buffer).toString();
        if (mf === 11) obj.metadata!.labels = { ...obj.metadata!.labels, ...Object.fromEntries([protoMapEntry(mv as Buffer)]) };
      }
    }
    if (field === 2) obj['data'] = { ...(obj['data'] as object), ...Object.fromEntries([protoMapEntry(value as Buffer)]) };
  }
  return obj;
}

function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k];
    else if (typeof v === 'object' && !Array.isArray(v) && typeof target[k] === 'object' && target[k] !== null) mergePatch(target[k] as Record<string, unknown>, v as Record<string, unknown>);
    else target[k] = v;
  }
}

function configMapStub(): express.Router {
  const objects = new Map<string, KubeObject>();
  let revision = 1;
  const router = express.Router();
  const status = (res: Response, code: number, reason: string, message: string): void => {
    res.status(code).json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details: {}, code });
  };
  const notFound = (res: Response, name: string): void => status(res, 404, 'NotFound', `configmaps "${name}" not found`);
  const stamp = (o: KubeObject): KubeObject => {
    o.metadata = { ...o.metadata, namespace: 'default', resourceVersion: String(++revision) };
    o.metadata.uid ??= `uid-${revision}`;
    o.metadata.creationTimestamp ??= new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    return o;
  };

  router.use(express.raw({ type: () => true }));
  router.get('/api/v1/namespaces/default/configmaps', (_req, res) => {
    res.json({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: String(revision) }, items: [...objects.values()] });
  });
  router.post('/api/v1/namespaces/default/configmaps', (req: Request, res) => {
    const body = req.body as Buffer;
    const obj = (req.headers['content-type'] ?? '').startsWith('application/vnd.kubernetes.protobuf') ? decodeProtobufConfigMap(body) : (JSON.parse(body.toString()) as KubeObject);
    const name = obj.metadata?.name ?? '';
    if (objects.has(name)) return status(res, 409, 'AlreadyExists', `configmaps "${name}" already exists`);
    objects.set(name, stamp(obj));
    res.status(201).json(obj);
  });
  router.get('/api/v1/namespaces/default/configmaps/:name', (req, res) => {
    const o = objects.get(req.params.name);
    if (!o) return notFound(res, req.params.name);
    res.json(o);
  });
  router.patch('/api/v1/namespaces/default/configmaps/:name', (req, res) => {
    const o = objects.get(req.params.name);
    if (!o) return notFound(res, req.params.name);
    // Strategic merge and JSON merge patch agree on a ConfigMap, which has no lists.
    mergePatch(o as Record<string, unknown>, JSON.parse((req.body as Buffer).toString()) as Record<string, unknown>);
    res.json(stamp(o));
  });
  router.delete('/api/v1/namespaces/default/configmaps/:name', (req, res) => {
    if (!objects.delete(req.params.name)) return notFound(res, req.params.name);
    res.json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: req.params.name, kind: 'configmaps' } });
  });
  router.use((_req, res) => status(res, 404, 'NotFound', 'the server could not find the requested resource'));
  return router;
}

// --- the test ---------------------------------------------------------------------------------------------

describe('kubectl against the discovery and OpenAPI endpoints', () => {
  const log: LoggedRequest[] = [];
  let server: http.Server;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    const app = express();
    app.use((req, res, next) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      res.on('finish', () =>
        log.push({ method: req.method, url: req.originalUrl, status: res.statusCode, accept: req.headers.accept ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('latin1') }),
      );
      next();
    });
    const index = new ResourceIndex(builtinResources);
    app.use(discoveryRouter(index, { gitVersion: 'v1.34.0-kah' }));
    app.use(openapiRouter(index));
    app.use(configMapStub());
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dir = await mkdtemp(path.join(tmpdir(), 'kah-kubectl-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    const { port } = server.address() as AddressInfo;
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: kah, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
        'users: [{name: kah, user: {token: test-token}}]',
        'contexts: [{name: kah, context: {cluster: kah, user: kah, namespace: default}}]',
        'current-context: kah',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    if (process.env['KAH_TRACE_KUBECTL']) {
      for (const r of log) process.stdout.write(`${r.method} ${r.url} -> ${r.status} | Accept: ${r.accept} | Content-Type: ${r.contentType}\n`);
    }
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs kubectl with its own kubeconfig, cache and HOME, and returns what it printed and which requests it made. */
  async function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; requests: LoggedRequest[] }> {
    const from = log.length;
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        kubectlPath,
        [...args, '--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache')],
        { env: { PATH: process.env['PATH'] ?? '', HOME: dir }, timeout: 30_000 },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
    return { ...result, requests: log.slice(from) };
  }

  const find = (requests: LoggedRequest[], method: string, pathPrefix: string): LoggedRequest | undefined =>
    requests.find((r) => r.method === method && r.url.split('?')[0]!.startsWith(pathPrefix));
  const query = (r: LoggedRequest | undefined): Record<string, string> => Object.fromEntries(new URL(r?.url ?? '/', 'http://x').searchParams);

  async function writeManifest(data: string): Promise<string> {
    const file = path.join(dir, 'configmap.yaml');
    await writeFile(file, ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: applied', '  labels: {app: demo}', 'data:', `  key: ${data}`].join('\n'));
    return file;
  }

  it('lists the served resources with api-resources from aggregated discovery alone', async () => {
    const r = await kubectl('api-resources');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    expect(r.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(r.stdout).toMatch(/^validatingadmissionpolicies\s+admissionregistration\.k8s\.io\/v1\s+false\s+ValidatingAdmissionPolicy$/m);
    for (const p of ['/api', '/apis']) {
      const req = r.requests.find((x) => x.url.split('?')[0] === p)!;
      expect(req.accept.split(',')[0]).toBe(aggregatedContentType('v2'));
      expect([200, 304]).toContain(req.status);
    }
    // aggregated discovery carries every resource, so no per-group-version documents are fetched
    expect(r.requests.filter((x) => /^\/apis?\/[^?]+/.test(x.url))).toEqual([]);
  });

  it('prints every served group version with api-versions', async () => {
    const r = await kubectl('api-versions');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['admissionregistration.k8s.io/v1', 'apiextensions.k8s.io/v1', 'apps/v1', 'authentication.k8s.io/v1', 'authorization.k8s.io/v1', 'policy/v1', 'v1']);
  });

  it('creates a configmap imperatively, which kubectl sends as protobuf with server-side field validation', async () => {
    const r = await kubectl('create', 'configmap', 'made', '--from-literal=x=y');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('configmap/made created');
    const post = find(r.requests, 'POST', '/api/v1/namespaces/default/configmaps')!;
    expect(post.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(post.accept).toBe('application/vnd.kubernetes.protobuf,application/json');
    expect(query(post)).toEqual({ fieldManager: 'kubectl-create', fieldValidation: 'Strict' });
  });

  it('lists configmaps asking for a server-side Table first', async () => {
    const r = await kubectl('get', 'configmaps');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^made\b/m);
    const list = find(r.requests, 'GET', '/api/v1/namespaces/default/configmaps')!;
    expect(list.accept).toBe('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json');
    expect(query(list)).toEqual({ limit: '500' });
  });

  it('applies a manifest: reads OpenAPI v3, then GET (404) and POST with fieldValidation=Strict', async () => {
    const r = await kubectl('apply', '-f', await writeManifest('one'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('configmap/applied created');
    // QueryParamVerifierV3 read the PATCH parameters of ConfigMap from the v3 document (fetched now or cached)
    expect(log.some((x) => x.url.startsWith('/openapi/v3/api/v1?hash=') && x.status === 200)).toBe(true);
    expect(find(r.requests, 'GET', '/openapi/v3')?.status).toEqual(expect.any(Number));
    expect(find(r.requests, 'GET', '/api/v1/namespaces/default/configmaps/applied')?.status).toBe(404);
    const post = find(r.requests, 'POST', '/api/v1/namespaces/default/configmaps')!;
    expect(post.contentType).toBe('application/json');
    expect(query(post)).toEqual({ fieldManager: 'kubectl-client-side-apply', fieldValidation: 'Strict' });
    expect(JSON.parse(post.body).metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"key":"one"');
  });

  it('re-applies a changed manifest as a strategic merge patch built from the v3 schema', async () => {
    const r = await kubectl('apply', '-f', await writeManifest('two'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('configmap/applied configured');
    // v3 advertises strategic merge patch and carries the patch tags, so kubectl never needs v2 (as against kube)
    expect(find(r.requests, 'GET', '/openapi/v2')).toBeUndefined();
    const patch = find(r.requests, 'PATCH', '/api/v1/namespaces/default/configmaps/applied')!;
    expect(patch.contentType).toBe('application/strategic-merge-patch+json');
    expect(query(patch)).toEqual({ fieldManager: 'kubectl-client-side-apply', fieldValidation: 'Strict' });
    expect(JSON.parse(patch.body).data).toEqual({ key: 'two' });
  });

  it('patches and labels with strategic merge and JSON merge patches', async () => {
    const p = await kubectl('patch', 'configmap', 'applied', '-p', '{"data":{"extra":"yes"}}');
    expect(p.stderr).toBe('');
    expect(p.code).toBe(0);
    const patch = find(p.requests, 'PATCH', '/api/v1/namespaces/default/configmaps/applied')!;
    expect(patch.contentType).toBe('application/strategic-merge-patch+json');
    expect(query(patch)).toEqual({ fieldManager: 'kubectl-patch' });

    const l = await kubectl('label', 'configmap', 'applied', 'team=blue');
    expect(l.stderr).toBe('');
    expect(l.code).toBe(0);
    const label = find(l.requests, 'PATCH', '/api/v1/namespaces/default/configmaps/applied')!;
    expect(label.contentType).toBe('application/merge-patch+json');
    expect(query(label)).toEqual({ fieldManager: 'kubectl-label' });
    expect(JSON.parse(label.body)).toEqual({ metadata: { labels: { team: 'blue' } } });

    const g = await kubectl('get', 'configmap', 'applied', '-o', 'json');
    expect(g.stderr).toBe('');
    const obj = JSON.parse(g.stdout) as KubeObject;
    expect(obj['data']).toEqual({ key: 'two', extra: 'yes' });
    expect(obj.metadata?.labels).toEqual({ app: 'demo', team: 'blue' });
  });

  it('explains a kind from the OpenAPI v3 document', async () => {
    const r = await kubectl('explain', 'configmaps');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^KIND:\s+ConfigMap$/m);
    expect(r.stdout).toMatch(/^\s+data\s+<map\[string\]string>$/m);
    expect(r.stdout).toMatch(/^\s+metadata\s+<ObjectMeta>$/m);
  });

  it('deletes with a Background propagation body, then polls until the object is gone', async () => {
    const r = await kubectl('delete', 'configmap', 'applied');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('configmap "applied" deleted');
    const del = find(r.requests, 'DELETE', '/api/v1/namespaces/default/configmaps/applied')!;
    expect(JSON.parse(del.body)).toEqual({ propagationPolicy: 'Background' });
    expect(r.requests.filter((x) => x.method === 'GET').map((x) => [x.url, x.status])).toContainEqual(['/api/v1/namespaces/default/configmaps/applied', 404]);
  });

  it('never got an error from discovery or OpenAPI, other than the 406 that retires OpenAPI v2', () => {
    const failures = log.filter((r) => r.status >= 400 && (r.url.startsWith('/api?') || r.url.startsWith('/apis?') || r.url.startsWith('/openapi') || r.url.startsWith('/version')));
    expect(failures.map((r) => `${r.method} ${r.url.split('?')[0]} ${r.status}`)).toEqual(failures.map(() => 'GET /openapi/v2 406'));
  });
});
