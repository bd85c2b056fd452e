// A webhook that answers with a body far bigger than any AdmissionReview or ConversionReview must not take the
// apiserver's memory with it: the body is read up to the bound, the socket is then destroyed, and the call fails as a
// failed body read does in client-go, so the webhook's failurePolicy decides (Fail → kube's InternalError, Ignore →
// allowed, with kube's failed-open audit annotation and apiserver_admission_webhook_fail_open_count).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { conversionFaults, startConversionWebhookServer, type ConversionWebhookServer } from '../../harness/conversion-webhook-server.js';
import { oversized, startWebhookServer, type PaddedBodyStats, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { defaultWebhookResponseMaxBytes } from '../../server/admission/webhook/response-limit.js';
import { cronConvert, convertedCronTabCRD } from '../crd/fixtures.js';
import { eventually } from '../support/eventually.js';
import { api, freshNamespace, registerMutating, registerValidating } from '../admission/support.js';

const mib = 1024 * 1024;
const bodyBytes = 64 * mib; // the size from the issue: read whole, it cost the apiserver ~290 MiB
const tooLarge = `unexpected error when reading response body. Please retry. Original error: http: response body too large (limit ${defaultWebhookResponseMaxBytes} bytes)`;

let server: ApiServerHandle;
let webhook: WebhookServer;
let conversion: ConversionWebhookServer;
let dir: string;
const stats = new Map<string, PaddedBodyStats>();

function statsFor(path: string): PaddedBodyStats {
  const s = { written: 0, complete: false };
  stats.set(path, s);
  return s;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-whlimit-'));
  webhook = await startWebhookServer({
    handler: (r): WebhookReply => {
      switch (r.path) {
        case '/chunked':
          return oversized(bodyBytes, { stats: statsFor(r.path) });
        case '/declared':
          return oversized(bodyBytes, { declareLength: true, stats: statsFor(r.path) });
        case '/gzip':
          return oversized(bodyBytes, { gzip: true, stats: statsFor(r.path) });
        case '/small':
          return oversized(1024); // padded, but within the bound: an ordinary answer
        default:
          return { allowed: true };
      }
    },
  });
  conversion = await startConversionWebhookServer({ convert: cronConvert });
  server = await startApiServer({ flags: [`--audit-log-path=${path.join(dir, 'audit.log')}`] });
}, 90_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
  await conversion?.close();
  rmSync(dir, { recursive: true, force: true });
});

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

describe('webhook response bodies over the bound', () => {
  it('fail a fail-closed webhook with kube\'s error, stop reading, and leave the apiserver up and its memory unmoved', async () => {
    const ns = await freshNamespace(server, { limit: 'fail' });
    await registerValidating(server, webhook, 'big-fail', [
      { name: 'chunked.example.com', path: '/chunked', failurePolicy: 'Fail', timeoutSeconds: 30, namespaceSelector: { matchLabels: { limit: 'fail' } } },
    ]);
    const rssBefore = rssBytes(server.pid!);

    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('x'));
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'InternalError',
      code: 500,
      message: `Internal error occurred: failed calling webhook "chunked.example.com": failed to call webhook: ${tooLarge}`,
    });
    // the apiserver stopped reading: the webhook never got the whole body out
    const sent = stats.get('/chunked')!;
    await eventually(() => expect(sent.written).toBeGreaterThan(0));
    expect(sent.complete).toBe(false);
    expect(sent.written).toBeLessThan(bodyBytes / 2);

    // generous: what the issue measured was +290 MiB for this body
    expect(rssBytes(server.pid!) - rssBefore).toBeLessThan(bodyBytes);
    expect((await server.request('/readyz')).status).toBe(200);
    expect((await api(server, 'POST', '/api/v1/namespaces/default/configmaps', cm('still-served'))).status).toBe(201);
  }, 120_000);

  it('fail a too-large declared Content-Length before reading any of it', async () => {
    const ns = await freshNamespace(server, { limit: 'declared' });
    await registerMutating(server, webhook, 'big-declared', [
      { name: 'declared.example.com', path: '/declared', failurePolicy: 'Fail', timeoutSeconds: 30, namespaceSelector: { matchLabels: { limit: 'declared' } } },
    ]);
    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('x'));
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ reason: 'InternalError', message: `Internal error occurred: failed calling webhook "declared.example.com": failed to call webhook: ${tooLarge}` });
    expect(stats.get('/declared')!.complete).toBe(false);
  }, 60_000);

  it('bound what a gzipped body inflates to', async () => {
    const ns = await freshNamespace(server, { limit: 'gzip' });
    await registerValidating(server, webhook, 'big-gzip', [
      { name: 'gzip.example.com', path: '/gzip', failurePolicy: 'Fail', timeoutSeconds: 30, namespaceSelector: { matchLabels: { limit: 'gzip' } } },
    ]);
    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('x'));
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ reason: 'InternalError', message: `Internal error occurred: failed calling webhook "gzip.example.com": failed to call webhook: ${tooLarge}` });
  }, 60_000);

  it('let an ignoring webhook fail open, with kube\'s audit annotation and fail-open metric', async () => {
    const ns = await freshNamespace(server, { limit: 'ignore' });
    await registerValidating(server, webhook, 'big-ignore', [
      { name: 'ignore.example.com', path: '/chunked', failurePolicy: 'Ignore', timeoutSeconds: 30, namespaceSelector: { matchLabels: { limit: 'ignore' } } },
    ]);
    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('allowed'));
    expect(r.status).toBe(201);
    const metrics = await server.request('/metrics');
    expect(metrics.body).toMatch(/^apiserver_admission_webhook_fail_open_count\{name="ignore\.example\.com",type="validating"\} 1$/m);
    await eventually(() => {
      const events = readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { verb: string; objectRef?: { namespace?: string }; stage: string; annotations?: Record<string, string> });
      const ev = events.find((e) => e.verb === 'create' && e.objectRef?.namespace === ns && e.stage === 'ResponseComplete');
      expect(ev?.annotations?.['failed-open.validating.webhook.admission.k8s.io/round_0_index_0']).toBe('ignore.example.com');
    });
  }, 60_000);

  it('still read an answer within the bound', async () => {
    const ns = await freshNamespace(server, { limit: 'small' });
    await registerValidating(server, webhook, 'small', [
      { name: 'small.example.com', path: '/small', failurePolicy: 'Fail', namespaceSelector: { matchLabels: { limit: 'small' } } },
    ]);
    expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('x'))).status).toBe(201);
  }, 60_000);

  it('fail a CRD conversion webhook the same way, with kube\'s conversion error', async () => {
    const group = 'limits.example.com';
    const base = (version: string) => `/apis/${group}/${version}/namespaces/default/crontabs`;
    const created = await server.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: convertedCronTabCRD(group, conversion) });
    expect(created.status).toBe(201);
    await eventually(async () => expect((await server.request(base('v2'))).status).toBe(200), 20_000);
    expect((await server.request(base('v1'), { method: 'POST', body: { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'one' }, spec: { cronSpec: '* * * * *' } } })).status).toBe(201);

    const sent = { written: 0, complete: false };
    conversion.setFault(conversionFaults.oversized(bodyBytes, { stats: sent }));
    const res = await server.request(`${base('v2')}/one`, { timeoutMs: 60_000 });
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message: `conversion webhook for ${group}/v1, Kind=CronTab failed: ${tooLarge}` });
    expect(sent.complete).toBe(false);
    expect(sent.written).toBeLessThan(bodyBytes / 2);
    expect((await server.request('/readyz')).status).toBe(200);
  }, 90_000);
});
