// A two-version CRD with a conversion webhook, end to end through a real apiserver and etcd: objects are stored in
// the storage version, converted on read and write both ways, and a webhook outage is kube's 500.
import { Etcd3 } from 'etcd3';
import { conversionFaults, startConversionWebhookServer, type ConversionWebhookServer } from '../../harness/conversion-webhook-server.js';
import { useApiServer } from '../../harness/jest.js';
import type { KubeObject, Status } from '../../server/api/types.js';
import { eventually } from '../support/eventually.js';
import { convertedCronTabCRD, cronConvert } from './fixtures.js';

const group = 'stable.example.com';
const v1 = `${group}/v1`;
const v2 = `${group}/v2`;
const base = (version: string) => `/apis/${group}/${version}/namespaces/default/crontabs`;

const env = useApiServer();
let webhook: ConversionWebhookServer;
let etcd: Etcd3;

beforeAll(async () => {
  webhook = await startConversionWebhookServer({ convert: cronConvert });
  etcd = new Etcd3({ hosts: env.server.etcd!.endpoint });
  const created = await env.server.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: convertedCronTabCRD(group, webhook) });
  expect(created.status).toBe(201);
  await eventually(async () => expect((await env.server.request(base('v2'))).status).toBe(200), 20_000);
});

afterAll(async () => {
  etcd?.close();
  await webhook?.close();
});

beforeEach(() => webhook.reset());

async function stored(name: string): Promise<KubeObject> {
  const raw = await etcd.get(`/registry/${group}/crontabs/default/${name}`).string();
  if (raw === null) throw new Error(`${name} is not in etcd`);
  return JSON.parse(raw) as KubeObject;
}

it('stores an object created via v1 in v1 and serves it via v2 through the webhook', async () => {
  const created = await env.server.request(base('v1'), { method: 'POST', body: { apiVersion: v1, kind: 'CronTab', metadata: { name: 'one' }, spec: { cronSpec: '*/5 * * * *' } } });
  expect(created.status).toBe(201);
  expect(await stored('one')).toMatchObject({ apiVersion: v1, spec: { cronSpec: '*/5 * * * *' } });

  const asV2 = await env.server.request(`${base('v2')}/one`);
  expect(asV2.status).toBe(200);
  expect(asV2.json<KubeObject>()).toMatchObject({ apiVersion: v2, kind: 'CronTab', metadata: { name: 'one', namespace: 'default' }, spec: { schedule: '*/5 * * * *' } });
  expect(asV2.json<KubeObject>()['spec']).not.toHaveProperty('cronSpec');
  expect(webhook.reviews.some((r) => r.request.desiredAPIVersion === v2 && r.request.objects[0]?.apiVersion === v1)).toBe(true);

  const asV1 = await env.server.request(`${base('v1')}/one`);
  expect(asV1.json<KubeObject>()).toMatchObject({ apiVersion: v1, spec: { cronSpec: '*/5 * * * *' } });
});

it('converts writes via v2 to the storage version', async () => {
  const created = await env.server.request(base('v2'), { method: 'POST', body: { apiVersion: v2, kind: 'CronTab', metadata: { name: 'two' }, spec: { schedule: '0 * * * *' } } });
  expect(created.status).toBe(201);
  expect(created.json<KubeObject>()).toMatchObject({ apiVersion: v2, spec: { schedule: '0 * * * *' } });
  expect(await stored('two')).toMatchObject({ apiVersion: v1, spec: { cronSpec: '0 * * * *' } });

  const current = created.json<KubeObject>();
  const updated = await env.server.request(`${base('v2')}/two`, { method: 'PUT', body: { ...current, spec: { schedule: '30 * * * *' } } });
  expect(updated.status).toBe(200);
  expect(await stored('two')).toMatchObject({ apiVersion: v1, spec: { cronSpec: '30 * * * *' } });

  const list = await env.server.request(base('v2'));
  const items = list.json<{ items: KubeObject[] }>().items;
  expect(items.map((i) => i.apiVersion)).toEqual(items.map(() => v2));
  expect(items.find((i) => i.metadata?.name === 'two')?.['spec']).toEqual({ schedule: '30 * * * *' });
});

it('answers 500 with the webhook’s message when it refuses a conversion', async () => {
  await env.server.request(base('v1'), { method: 'POST', body: { apiVersion: v1, kind: 'CronTab', metadata: { name: 'three' }, spec: { cronSpec: '1 * * * *' } } });
  webhook.setFault(conversionFaults.failure('v2 is closed for maintenance'));
  const res = await env.server.request(`${base('v2')}/three`);
  expect(res.status).toBe(500);
  const status = res.json<Status>();
  expect(status).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message: `conversion webhook for ${v1}, Kind=CronTab failed: v2 is closed for maintenance` });
  expect(status.reason ?? '').toBe('');
});

it('answers 500 with Go’s dial error while the webhook is down, and serves the storage version meanwhile', async () => {
  await env.server.request(base('v1'), { method: 'POST', body: { apiVersion: v1, kind: 'CronTab', metadata: { name: 'four' }, spec: { cronSpec: '2 * * * *' } } });
  await webhook.stopListening();
  try {
    const res = await env.server.request(`${base('v2')}/four`);
    expect(res.status).toBe(500);
    expect(res.json<Status>().message).toBe(
      `conversion webhook for ${v1}, Kind=CronTab failed: Post "https://127.0.0.1:${webhook.port}/convert?timeout=30s": dial tcp 127.0.0.1:${webhook.port}: connect: connection refused`,
    );
    expect((await env.server.request(`${base('v1')}/four`)).status).toBe(200);
  } finally {
    await webhook.startListening();
  }
  expect((await env.server.request(`${base('v2')}/four`)).status).toBe(200);
});

it('records the storage version in status.storedVersions', async () => {
  const crd = await env.server.request(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.${group}`);
  expect(crd.json<{ status: { storedVersions: string[] } }>().status.storedVersions).toEqual(['v1']);
});
