// The benchmark's create floor (bench/create-floor-child.ts) does the work it claims, and no less: the create rows'
// verdicts read the server against it, so a floor that skipped the TLS client check, the etcd transaction, its
// watch or the webhook call would make targets look out of reach that are not. Real etcd, a real webhook server,
// the floor as the benchmark forks it (from dist/, where `npm test` builds it).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Etcd3 } from 'etcd3';
import { adminCredentials } from '../../bench/context.js';
import type { CreateFloorChild } from '../../bench/create-floor-handle.js';
import { KeepAliveClient } from '../../bench/load.js';
import { ensureServingBundle } from '../../certs/index.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { allow, deny, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';

type Handle = typeof import('../../bench/create-floor-handle.js');

const prefix = '/floor-test/configmaps/';
let dir: string;
let etcd: EtcdProcess;
let webhook: WebhookServer;
let floor: CreateFloorChild;
let client: KeepAliveClient;
let kv: Etcd3;

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: 'b' } });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kah-floor-'));
  const bundle = await ensureServingBundle(dir);
  if (!bundle.ok) throw new Error(`certificates: ${JSON.stringify(bundle)}`);
  etcd = await startEtcd();
  webhook = await startWebhookServer({ handler: ({ request }) => (request.name?.startsWith('denied-') ? deny('names starting with denied- are refused') : allow()) });
  const { CreateFloorChild: Floor } = (await import(pathToFileURL(path.resolve('dist/bench/create-floor-handle.js')).href)) as Handle;
  floor = await Floor.start({ certDir: dir, etcdEndpoint: etcd.endpoint, prefix, webhook: { url: webhook.url('/validate'), caPem: webhook.caPem } });
  client = new KeepAliveClient(floor.origin, await adminCredentials(dir), 2);
  kv = new Etcd3({ hosts: etcd.endpoint });
}, 60_000);

afterAll(async () => {
  client?.close();
  kv?.close();
  await floor?.close();
  await webhook?.close();
  await etcd?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('a create is an etcd transaction under the prefix; the answer carries its revision, a uid and a creation time', async () => {
  const res = await client.request('POST', '/floor', configMap('first'));
  expect(res.status).toBe(201);
  const created = JSON.parse(res.body) as { metadata: { name: string; uid: string; creationTimestamp: string; resourceVersion: string } };
  expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const stored = await kv.get(`${prefix}default/first`).exec();
  expect(stored.kvs).toHaveLength(1);
  expect(String(stored.kvs[0]!.mod_revision)).toBe(String(created.metadata.resourceVersion));
  expect(JSON.parse(stored.kvs[0]!.value.toString('utf8')).metadata.uid).toBe(created.metadata.uid);
});

test('the transaction creates only an absent key: a second create of the name is 409 and leaves the first', async () => {
  expect((await client.request('POST', '/floor', configMap('twice'))).status).toBe(201);
  const before = await kv.get(`${prefix}default/twice`).exec();
  expect((await client.request('POST', '/floor', configMap('twice'))).status).toBe(409);
  const after = await kv.get(`${prefix}default/twice`).exec();
  expect(String(after.kvs[0]!.mod_revision)).toBe(String(before.kvs[0]!.mod_revision));
});

test('/floor-webhook sends the webhook a CREATE AdmissionReview of the object first and honours a denial', async () => {
  webhook.reset();
  expect((await client.request('POST', '/floor-webhook', configMap('reviewed'))).status).toBe(201);
  const denied = await client.request('POST', '/floor-webhook', configMap('denied-one'));
  expect(denied.status).toBe(403);
  expect(denied.body).toContain('names starting with denied- are refused');
  expect((await kv.get(`${prefix}default/denied-one`).exec()).kvs).toHaveLength(0);
  expect(webhook.badRequests).toEqual([]);
  expect(webhook.reviews.map((r) => [r.request.operation, r.request.resource.resource, r.request.name, (r.request.object as { metadata: { name: string } }).metadata.name])).toEqual([
    ['CREATE', 'configmaps', 'reviewed', 'reviewed'],
    ['CREATE', 'configmaps', 'denied-one', 'denied-one'],
  ]);
});

test('like the apiserver it asks for a client certificate of its CA: a client without one is refused', async () => {
  const { ca } = await adminCredentials(dir);
  const anonymous = new KeepAliveClient(floor.origin, { ca }, 1);
  try {
    await expect(anonymous.request('POST', '/floor', configMap('anonymous'))).rejects.toThrow();
  } finally {
    anonymous.close();
  }
  expect((await kv.get(`${prefix}default/anonymous`).exec()).kvs).toHaveLength(0);
});

test('anything but POST /floor or /floor-webhook is 404', async () => {
  expect((await client.request('GET', '/floor')).status).toBe(404);
  expect((await client.request('POST', '/api/v1/namespaces/default/configmaps', configMap('elsewhere'))).status).toBe(404);
});

test('it keeps one watch on etcd, as kube-apiserver keeps one per resource for its watch cache', async () => {
  const metrics = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  expect(metrics).toMatch(/^etcd_debugging_mvcc_watcher_total 1$/m);
});
