// The test webhook server, driven by direct HTTPS calls the way kube-apiserver's webhook client calls it
// (until admission lands, nothing else sends it AdmissionReviews).
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import type { AdmissionReview, AdmissionReviewApiVersion, AdmissionReviewRequest } from '../../server/api/admission.js';
import {
  allow,
  closeConnection,
  delay,
  deny,
  hang,
  httpError,
  nonJSON,
  patch,
  startWebhookServer,
  status,
  withWarnings,
  wrongApiVersion,
  wrongUid,
  type WebhookServer,
} from '../../harness/webhook-server.js';

interface Answer {
  status: number;
  contentType: string | undefined;
  body: string;
}

function review(apiVersion: AdmissionReviewApiVersion = 'admission.k8s.io/v1', labels: Record<string, string> = {}): AdmissionReviewRequest {
  return {
    apiVersion,
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'cm',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', labels } },
      dryRun: false,
    },
  };
}

function post(server: Pick<WebhookServer, 'url' | 'caPem'>, path: string, body: unknown, timeoutMs = 5000): Promise<Answer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      server.url(path),
      {
        method: 'POST',
        ca: server.caPem,
        agent: false,
        timeout: timeoutMs,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(text) },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: data }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(text);
  });
}

async function admit(server: WebhookServer, sent: AdmissionReviewRequest, path = '/validate'): Promise<AdmissionReview> {
  const answer = await post(server, path, sent);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as AdmissionReview;
}

describe('startWebhookServer', () => {
  let server: WebhookServer;

  beforeAll(async () => {
    server = await startWebhookServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('serves HTTPS with a cert for 127.0.0.1 from its CA and gives the CA as a base64 caBundle', () => {
    expect(server.url('/x')).toBe(`https://127.0.0.1:${server.port}/x`);
    expect(server.caPem).toContain('-----BEGIN CERTIFICATE-----');
    expect(Buffer.from(server.caBundle, 'base64').toString('utf8')).toBe(server.caPem);
  });

  it.each(['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const)('allows by default and echoes the %s apiVersion and the uid', async (apiVersion) => {
    const sent = review(apiVersion);
    const got = await admit(server, sent);
    expect(got).toEqual({ apiVersion, kind: 'AdmissionReview', response: { uid: sent.request.uid, allowed: true } });
  });

  it('records every review in order with its path and headers', async () => {
    const first = review();
    const second = review();
    await admit(server, first, '/one');
    await admit(server, second, '/two?timeout=10s');
    const reviews = await server.waitForReviews(2, 1000);
    expect(reviews.map((r) => [r.path, r.request.uid])).toEqual([
      ['/one', first.request.uid],
      ['/two', second.request.uid],
    ]);
    expect(reviews[1]!.query).toEqual({ timeout: '10s' });
    expect(reviews[0]!.headers['content-type']).toBe('application/json');
    expect(reviews[0]!.review).toEqual(first);
  });

  it('waitForReviews rejects with the count when too few arrive in time', async () => {
    await expect(server.waitForReviews(1, 50)).rejects.toThrow('expected 1 AdmissionReview(s) within 50 ms, got 0');
  });

  it('denies with the message and code of deny()', async () => {
    server.setHandler(({ request }) => (request.object?.metadata?.labels?.deny === 'true' ? deny('label deny=true is not allowed', 400) : allow()));
    const denied = review('admission.k8s.io/v1', { deny: 'true' });
    expect((await admit(server, denied)).response).toEqual({ uid: denied.request.uid, allowed: false, status: { code: 400, message: 'label deny=true is not allowed' } });
    const allowed = review('admission.k8s.io/v1', { deny: 'false' });
    expect((await admit(server, allowed)).response).toEqual({ uid: allowed.request.uid, allowed: true });
  });

  it('returns a base64 JSONPatch from patch() and warnings from withWarnings()', async () => {
    const ops = [{ op: 'add' as const, path: '/metadata/labels/patched', value: 'yes' }];
    server.setHandler(() => withWarnings(patch(ops), ['first warning', 'second warning']));
    const got = (await admit(server, review())).response!;
    expect(got.allowed).toBe(true);
    expect(got.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(got.patch!, 'base64').toString('utf8'))).toEqual(ops);
    expect(got.warnings).toEqual(['first warning', 'second warning']);
  });

  it('returns any Status from status()', async () => {
    server.setHandler(() => status({ code: 429, reason: 'TooManyRequests', message: 'slow down', details: { retryAfterSeconds: 3 } }));
    const got = (await admit(server, review())).response!;
    expect(got).toMatchObject({ allowed: false, status: { code: 429, reason: 'TooManyRequests', message: 'slow down', details: { retryAfterSeconds: 3 } } });
  });

  it('answers after the delay of delay()', async () => {
    server.setHandler(() => delay(300, deny('late')));
    const started = Date.now();
    const got = (await admit(server, review())).response!;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(got.status?.message).toBe('late');
  });

  it('never answers with hang(): the client times out, and the review was recorded', async () => {
    server.setHandler(() => hang());
    await expect(post(server, '/validate', review(), 300)).rejects.toThrow('client timeout');
    expect(server.reviews).toHaveLength(1);
  });

  it('drops the connection without a response with closeConnection()', async () => {
    server.setHandler(() => closeConnection());
    await expect(post(server, '/validate', review())).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it('answers 200 with a body that is not JSON with nonJSON()', async () => {
    server.setHandler(() => nonJSON('<html>oops</html>', 'text/html'));
    const answer = await post(server, '/validate', review());
    expect(answer).toMatchObject({ status: 200, contentType: 'text/html', body: '<html>oops</html>' });
    expect(() => JSON.parse(answer.body)).toThrow();
  });

  it('answers with another uid with wrongUid()', async () => {
    server.setHandler(() => wrongUid());
    const sent = review();
    const got = await admit(server, sent);
    expect(got.response!.uid).not.toBe(sent.request.uid);
    expect(got.response!.allowed).toBe(true);
  });

  it('answers with the other AdmissionReview version with wrongApiVersion()', async () => {
    server.setHandler(() => wrongApiVersion());
    expect((await admit(server, review('admission.k8s.io/v1'))).apiVersion).toBe('admission.k8s.io/v1beta1');
    expect((await admit(server, review('admission.k8s.io/v1beta1'))).apiVersion).toBe('admission.k8s.io/v1');
    server.setHandler(() => wrongApiVersion('admission.k8s.io/v2', deny('no')));
    expect(await admit(server, review())).toMatchObject({ apiVersion: 'admission.k8s.io/v2', response: { allowed: false } });
  });

  it('answers a non-200 status with httpError()', async () => {
    server.setHandler(() => httpError(503, 'overloaded'));
    expect(await post(server, '/validate', review())).toMatchObject({ status: 503, body: 'overloaded' });
  });

  it('answers 500 when the handler throws', async () => {
    server.setHandler(() => {
      throw new Error('handler bug');
    });
    const answer = await post(server, '/validate', review());
    expect(answer.status).toBe(500);
    expect(answer.body).toContain('handler bug');
  });

  it('answers 400 to a body that is not an AdmissionReview and records it apart', async () => {
    expect((await post(server, '/validate', '{"kind":"Pod"}')).status).toBe(400);
    expect((await post(server, '/validate', 'garbage')).status).toBe(400);
    expect(server.reviews).toHaveLength(0);
    expect(server.badRequests.map((b) => b.error)).toEqual([expect.stringContaining('kind is "Pod"'), expect.stringContaining('not JSON')]);
  });

  it('stops listening (dropping hung connections) and listens again on the same port', async () => {
    const port = server.port;
    server.setHandler(() => hang());
    const hung = post(server, '/validate', review(), 10_000);
    await server.waitForReviews(1, 5000);
    await server.stopListening();
    await expect(hung).rejects.toThrow(/socket hang up|ECONNRESET/);
    await expect(post(server, '/validate', review())).rejects.toThrow(/ECONNREFUSED/);
    await server.startListening();
    expect(server.port).toBe(port);
    server.setHandler(() => allow());
    expect((await admit(server, review())).response!.allowed).toBe(true);
  });
});

describe('startWebhookServer with a given CA', () => {
  it('issues its serving cert from that CA', async () => {
    const first = await startWebhookServer();
    const second = await startWebhookServer({ ca: first.ca, handler: () => deny('second') });
    try {
      expect(second.caPem).toBe(first.caPem);
      // Trusting first's CA is enough to talk to second.
      const answer = await post({ caPem: first.caPem, url: (p?: string) => second.url(p) }, '/', review());
      expect(JSON.parse(answer.body)).toMatchObject({ response: { allowed: false } });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
