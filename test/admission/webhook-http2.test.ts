// Webhook calls over HTTP/2, as kube-apiserver's webhook client makes them (k8s.io/apiserver/pkg/util/webhook
// client.go, "Use http/2 for localhost webhook"): a URL webhook on the local host is offered h2 by ALPN and, when the
// server picks it, every call shares one multiplexed connection; a server that only speaks HTTP/1.1 gets HTTP/1.1
// keep-alive; a service reference is always HTTP/1.1 (kube's load-balancing workaround, issue 75791), even to a
// server that offers h2. The webhook servers here record the protocol each call arrived with and the connections
// they accepted.
import http2 from 'node:http2';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { issueTestServerCert } from '../../harness/https-test-server.js';
import { eventually } from '../support/eventually.js';
import { api, deleteValidating, freshNamespace, registerValidating } from './support.js';
import type { WebhookServer } from '../../harness/webhook-server.js';

interface Call {
  path: string;
  httpVersion: string;
  /** which accepted TLS connection carried the call (1, 2, …) */
  connection: number;
}

interface RecordingWebhook {
  port: number;
  caBundle: string;
  calls: Call[];
  /** TLS connections accepted */
  connections: number;
  /** Answers are held until this many calls are in flight (then all go out), to show that they run concurrently. */
  holdUntil: number;
  close(): Promise<void>;
}

/** An HTTPS admission webhook answering `allowed`, speaking h2 (and HTTP/1.1) or HTTP/1.1 only. */
async function startRecordingWebhook(protocols: 'h2' | 'http/1.1', hosts: string[] = []): Promise<RecordingWebhook> {
  const { ca, serving } = await issueTestServerCert({ hosts });
  const connectionIds = new WeakMap<object, number>();
  const sessionIds = new WeakMap<object, number>();
  let sessions = 0;
  const waiting: Array<() => void> = [];
  const webhook: RecordingWebhook = {
    port: 0,
    caBundle: Buffer.from(ca.cert).toString('base64'),
    calls: [],
    connections: 0,
    holdUntil: 1,
    close: async () => undefined,
  };
  const handler = (req: IncomingMessage | http2.Http2ServerRequest, res: ServerResponse | http2.Http2ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: { uid: string } };
      // an h2 call belongs to its session; an HTTP/1.1 call to its TLS socket
      const session = req.httpVersion === '2.0' ? (req as http2.Http2ServerRequest).stream.session : undefined;
      const connection = session ? sessionIds.get(session) : connectionIds.get(req.socket);
      webhook.calls.push({ path: req.url ?? '', httpVersion: req.httpVersion, connection: connection ?? 0 });
      const answer = (): void => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
      };
      waiting.push(answer);
      if (waiting.length >= webhook.holdUntil) for (const a of waiting.splice(0)) a();
    });
  };
  const server =
    protocols === 'h2'
      ? http2.createSecureServer({ key: serving.key, cert: serving.cert, allowHTTP1: true }, handler)
      : https.createServer({ key: serving.key, cert: serving.cert, ALPNProtocols: ['http/1.1'] }, handler);
  server.on('secureConnection', (socket: TLSSocket) => {
    connectionIds.set(socket, ++webhook.connections);
  });
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessionIds.set(session, 1000 + ++sessions);
  });
  const open = new Set<TLSSocket>();
  server.on('secureConnection', (socket: TLSSocket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  webhook.port = (server.address() as { port: number }).port;
  webhook.close = () =>
    new Promise<void>((resolve) => {
      for (const s of open) s.destroy();
      server.close(() => resolve());
    });
  return webhook;
}

let server: ApiServerHandle;
let h2Webhook: RecordingWebhook;
let h1Webhook: RecordingWebhook;

beforeAll(async () => {
  h2Webhook = await startRecordingWebhook('h2', ['h2svc.webhooks.svc']);
  h1Webhook = await startRecordingWebhook('http/1.1');
  server = await startApiServer({ storage: 'memory', flags: [`--webhook-service-resolver=webhooks/h2svc:443=127.0.0.1:${h2Webhook.port}`] });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await h2Webhook?.close();
  await h1Webhook?.close();
});

// registerValidating takes its URL and CA from a harness WebhookServer; these servers are described the same way
const asWebhookServer = (w: RecordingWebhook, host = '127.0.0.1'): WebhookServer => ({ url: (p = '/') => `https://${host}:${w.port}${p}`, caBundle: w.caBundle }) as unknown as WebhookServer;

let counter = 0;

/** Creates `n` ConfigMaps at once in a namespace only this webhook configuration selects. */
async function createConcurrently(n: number, register: (label: string) => Promise<unknown>, configName: string): Promise<void> {
  const label = `http2-${++counter}`;
  const ns = await freshNamespace(server, { [label]: 'true' });
  await register(label);
  try {
    const results = await Promise.all(Array.from({ length: n }, (_, i) => api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` } })));
    for (const r of results) expect(r.status).toBe(201);
  } finally {
    await deleteValidating(server, configName);
  }
}

describe('HTTP/2 to webhooks', () => {
  it('uses h2 with a localhost URL webhook that offers it, multiplexing concurrent calls over one connection', async () => {
    const calls = 6;
    h2Webhook.calls.length = 0;
    // the answers wait until all six calls are in flight: they can only arrive together over one connection if
    // the streams are multiplexed
    h2Webhook.holdUntil = calls;
    const before = h2Webhook.connections;
    await createConcurrently(
      calls,
      (label) => registerValidating(server, asWebhookServer(h2Webhook), 'h2-url', [{ name: 'h2.example.com', path: '/h2', namespaceSelector: { matchLabels: { [label]: 'true' } }, operations: ['CREATE'] }]),
      'h2-url',
    );
    const mine = h2Webhook.calls.filter((c) => c.path.startsWith('/h2?'));
    expect(mine).toHaveLength(calls);
    expect(new Set(mine.map((c) => c.httpVersion))).toEqual(new Set(['2.0']));
    expect(new Set(mine.map((c) => c.connection)).size).toBe(1);
    expect(h2Webhook.connections - before).toBe(1);
  }, 30_000);

  it('reaches a localhost URL by name with h2 too', async () => {
    h2Webhook.calls.length = 0;
    h2Webhook.holdUntil = 1;
    await createConcurrently(
      1,
      (label) => registerValidating(server, asWebhookServer(h2Webhook, 'localhost'), 'h2-localhost', [{ name: 'h2-localhost.example.com', path: '/by-name', namespaceSelector: { matchLabels: { [label]: 'true' } }, operations: ['CREATE'] }]),
      'h2-localhost',
    );
    expect(h2Webhook.calls.filter((c) => c.path.startsWith('/by-name?')).map((c) => c.httpVersion)).toEqual(['2.0']);
  }, 30_000);

  it('falls back to HTTP/1.1 keep-alive when the server does not offer h2', async () => {
    h1Webhook.calls.length = 0;
    h1Webhook.holdUntil = 1;
    const label = `http2-${++counter}`;
    const ns = await freshNamespace(server, { [label]: 'true' });
    await registerValidating(server, asWebhookServer(h1Webhook), 'h1-url', [{ name: 'h1.example.com', path: '/h1', namespaceSelector: { matchLabels: { [label]: 'true' } }, operations: ['CREATE'] }]);
    try {
      // one after the other: each call finds the previous one's connection idle in the pool
      for (let i = 0; i < 4; i++) expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` } })).status).toBe(201);
    } finally {
      await deleteValidating(server, 'h1-url');
    }
    const mine = h1Webhook.calls.filter((c) => c.path.startsWith('/h1?'));
    expect(mine.map((c) => c.httpVersion)).toEqual(['1.1', '1.1', '1.1', '1.1']);
    // the first call's ALPN dial learned the protocol; from then on one kept-alive connection serves the calls
    expect(new Set(mine.map((c) => c.connection)).size).toBe(1);
  }, 30_000);

  it('keeps a service-referenced webhook on HTTP/1.1 even when the server offers h2 (kube issue 75791)', async () => {
    h2Webhook.calls.length = 0;
    h2Webhook.holdUntil = 1;
    await createConcurrently(
      1,
      (label) =>
        registerValidating(server, asWebhookServer(h2Webhook), 'h2-service', [
          {
            name: 'h2-service.example.com',
            path: '/svc',
            clientConfig: { service: { namespace: 'webhooks', name: 'h2svc', path: '/svc' }, caBundle: h2Webhook.caBundle },
            namespaceSelector: { matchLabels: { [label]: 'true' } },
            operations: ['CREATE'],
          },
        ]),
      'h2-service',
    );
    await eventually(() => expect(h2Webhook.calls.filter((c) => c.path.startsWith('/svc?')).map((c) => c.httpVersion)).toEqual(['1.1']));
  }, 30_000);
});
