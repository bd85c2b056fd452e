// The webhook client against real HTTPS servers: the harness's test webhook (faults included) and, where a test
// needs what it does not offer (a certificate for a service name, client certificates, connection counts), a
// plain node:https server started here.
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generateCA, issueClientCert, issueServingCert, type CertKeyPair } from '../../../certs/index.js';
import {
  allow,
  closeConnection,
  delay,
  hang,
  httpError,
  nonJSON,
  startWebhookServer,
  wrongApiVersion,
  type WebhookServer,
} from '../../../harness/webhook-server.js';
import type { AdmissionReviewRequest } from '../../api/admission.js';
import type { WebhookClientConfig } from '../../api/admissionregistration.js';
import { parseWebhookServiceMapping } from '../../options/server-options.js';
import { createWebhookClient, serviceResolverFor, verifyHostname, type WebhookClient } from './client.js';

/** --webhook-service-resolver entries, parsed as the flag parser does. */
function resolverOf(entries: string[]) {
  return serviceResolverFor(entries.map((e) => {
    const r = parseWebhookServiceMapping(e);
    if (!r.ok) throw new Error(r.error);
    return r.mapping;
  }));
}
import { createAdmissionReview } from './review.js';
import { configMapAttributes } from './test-fixtures.js';

const invocation = { resource: { group: '', version: 'v1', resource: 'configmaps' }, subresource: '', kind: { group: '', version: 'v1', kind: 'ConfigMap' } };
let uidCounter = 0;
const review = (version: 'v1' | 'v1beta1' = 'v1'): AdmissionReviewRequest => createAdmissionReview(version, `uid-${++uidCounter}`, configMapAttributes(), invocation);

interface SeenRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  remotePort: number;
  clientCN?: string;
}

interface TlsWebhook {
  port: number;
  caBundle: string;
  seen: SeenRequest[];
  connections: number;
  close(): Promise<void>;
}

/** A minimal HTTPS webhook allowing everything, with a cert for `hosts` and optionally requiring client certs. */
async function startTlsWebhook(ca: CertKeyPair, hosts: string[], clientCA?: string): Promise<TlsWebhook> {
  const serving = await issueServingCert(ca, { hosts });
  const seen: SeenRequest[] = [];
  const state = { connections: 0 };
  const server = https.createServer({ cert: serving.cert, key: serving.key, ...(clientCA ? { ca: clientCA, requestCert: true, rejectUnauthorized: true } : {}) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      const cn = peer && peer.subject ? (Array.isArray(peer.subject.CN) ? peer.subject.CN[0] : peer.subject.CN) : undefined;
      seen.push({ path: req.url ?? '', headers: req.headers, remotePort: req.socket.remotePort ?? 0, ...(cn ? { clientCN: cn } : {}) });
      const r = JSON.parse(Buffer.concat(chunks).toString()) as AdmissionReviewRequest;
      const body = JSON.stringify({ apiVersion: r.apiVersion, kind: 'AdmissionReview', response: { uid: r.request.uid, allowed: true } });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  server.on('secureConnection', () => state.connections++);
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.cert).toString('base64'),
    seen,
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let webhook: WebhookServer;
let client: WebhookClient;
const cc = (p: string, extra: Partial<WebhookClientConfig> = {}): WebhookClientConfig => ({ url: webhook.url(p), caBundle: webhook.caBundle, ...extra });

beforeAll(async () => {
  webhook = await startWebhookServer();
  client = createWebhookClient();
});
afterAll(async () => {
  client.close();
  await webhook.close();
});
beforeEach(() => webhook.reset());

describe('calling a URL webhook', () => {
  it('POSTs the review as JSON to the path with ?timeout=<timeoutSeconds>s, the way client-go sends it', async () => {
    const r = await client.call({ webhookName: 'w', clientConfig: cc('/validate/'), timeoutSeconds: 7, review: review() });
    expect(r).toMatchObject({ ok: true, review: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { allowed: true } } });
    const got = webhook.reviews[0]!;
    expect(got.path).toBe('/validate');
    expect(got.query).toEqual({ timeout: '7s' });
    expect(got.method).toBe('POST');
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json, */*',
      'user-agent': 'kube-apiserver-admission',
      host: `127.0.0.1:${webhook.port}`,
    });
    expect(got.review.apiVersion).toBe('admission.k8s.io/v1');
  });

  it('sends v1beta1 reviews and reads v1beta1 answers', async () => {
    const r = await client.call({ webhookName: 'w', clientConfig: cc('/'), timeoutSeconds: 5, review: review('v1beta1') });
    expect(r).toMatchObject({ ok: true, review: { apiVersion: 'admission.k8s.io/v1beta1' } });
    expect(webhook.reviews[0]!.review.apiVersion).toBe('admission.k8s.io/v1beta1');
  });

  it('fails verification without the caBundle, against the system roots', async () => {
    const r = await client.call({ webhookName: 'w', clientConfig: { url: webhook.url('/x') }, timeoutSeconds: 5, review: review() });
    expect(r).toEqual({ ok: false, stage: 'call', error: `Post "https://127.0.0.1:${webhook.port}/x?timeout=5s": tls: failed to verify certificate: x509: certificate signed by unknown authority` });
    expect(webhook.reviews).toHaveLength(0);
  });

  it('gives up at timeoutSeconds with "context deadline exceeded"', async () => {
    webhook.setHandler(() => hang());
    const start = Date.now();
    const r = await client.call({ webhookName: 'w', clientConfig: cc('/hang'), timeoutSeconds: 1, review: review() });
    const took = Date.now() - start;
    expect(r).toEqual({ ok: false, stage: 'call', error: `Post "https://127.0.0.1:${webhook.port}/hang?timeout=1s": context deadline exceeded` });
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(3000);
  });

  it.each([
    ['a closed connection', () => closeConnection(), (p: number) => `Post "https://127.0.0.1:${p}/f?timeout=5s": EOF`],
    ['a body that is not JSON', () => nonJSON(), () => `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`],
    ['the other AdmissionReview version', () => wrongApiVersion(), () => 'converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion'],
  ])('reports %s as kube does', async (_name, reply, message) => {
    webhook.setHandler(reply);
    const r = await client.call({ webhookName: 'w', clientConfig: cc('/f'), timeoutSeconds: 5, review: review() });
    expect(r).toEqual({ ok: false, stage: 'call', error: message(webhook.port) });
  });

  it('reports an HTTP error with client-go\'s generic message and keeps its code', async () => {
    webhook.setHandler(() => httpError(500, 'boom\n'));
    expect(await client.call({ webhookName: 'w', clientConfig: cc('/'), timeoutSeconds: 5, review: review() })).toEqual({
      ok: false,
      stage: 'call',
      error: 'an error on the server ("boom") has prevented the request from succeeding',
      status: { code: 500, reason: 'InternalError', message: 'an error on the server ("boom") has prevented the request from succeeding' },
    });
    webhook.setHandler(() => httpError(404));
    expect(await client.call({ webhookName: 'w', clientConfig: cc('/'), timeoutSeconds: 5, review: review() })).toMatchObject({
      status: { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' },
    });
  });

  it('reports a refused connection as Go\'s dialer does', async () => {
    const gone = await startWebhookServer({ ca: webhook.ca });
    const port = gone.port;
    await gone.close();
    const r = await client.call({ webhookName: 'w', clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: webhook.caBundle }, timeoutSeconds: 5, review: review() });
    expect(r).toEqual({ ok: false, stage: 'call', error: `Post "https://127.0.0.1:${port}/?timeout=5s": dial tcp 127.0.0.1:${port}: connect: connection refused` });
  });

  it('refuses a caBundle without certificates before calling', async () => {
    const r = await client.call({ webhookName: 'w', clientConfig: cc('/', { caBundle: Buffer.from('not a pem').toString('base64') }), timeoutSeconds: 5, review: review() });
    expect(r).toEqual({ ok: false, stage: 'client', error: 'unable to parse bytes as PEM block' });
  });
});

describe('connections', () => {
  let ca: CertKeyPair;
  beforeAll(async () => {
    ca = await generateCA();
  });

  it('reuses one keep-alive connection for calls through the same client config', async () => {
    const server = await startTlsWebhook(ca, ['127.0.0.1']);
    try {
      const config = { url: `https://127.0.0.1:${server.port}/v`, caBundle: server.caBundle };
      for (let i = 0; i < 3; i++) expect(await client.call({ webhookName: `w${i}`, clientConfig: config, timeoutSeconds: 5, review: review() })).toMatchObject({ ok: true });
      expect(server.connections).toBe(1);
      expect(new Set(server.seen.map((s) => s.remotePort)).size).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('calls the new URL when the same client config object is changed between calls', async () => {
    const first = await startTlsWebhook(ca, ['127.0.0.1']);
    const second = await startTlsWebhook(ca, ['127.0.0.1']);
    try {
      const config: WebhookClientConfig = { url: `https://127.0.0.1:${first.port}/v`, caBundle: first.caBundle };
      expect(await client.call({ webhookName: 'w', clientConfig: config, timeoutSeconds: 5, review: review() })).toMatchObject({ ok: true });
      config.url = `https://127.0.0.1:${second.port}/v`;
      expect(await client.call({ webhookName: 'w', clientConfig: config, timeoutSeconds: 5, review: review() })).toMatchObject({ ok: true });
      expect(first.seen).toHaveLength(1);
      expect(second.seen).toHaveLength(1);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('does not let a hanging webhook delay calls to another one', async () => {
    const slow = await startWebhookServer({ ca: webhook.ca, handler: () => hang() });
    try {
      const hung = Array.from({ length: 8 }, () => client.call({ webhookName: 'slow', clientConfig: { url: slow.url('/'), caBundle: slow.caBundle }, timeoutSeconds: 2, review: review() }));
      await slow.waitForReviews(8);
      const start = Date.now();
      expect(await client.call({ webhookName: 'fast', clientConfig: cc('/'), timeoutSeconds: 2, review: review() })).toMatchObject({ ok: true });
      expect(Date.now() - start).toBeLessThan(1000);
      const results = await Promise.all(hung);
      expect(results.every((r) => !r.ok && r.error.endsWith('context deadline exceeded'))).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('bounds the calls in flight to one endpoint; the others wait within their deadline', async () => {
    const bounded = createWebhookClient({ maxInFlightPerEndpoint: 1 });
    webhook.setHandler(() => delay(300, allow()));
    try {
      const results = await Promise.all([0, 1].map(() => bounded.call({ webhookName: 'w', clientConfig: cc('/'), timeoutSeconds: 5, review: review() })));
      expect(results.every((r) => r.ok)).toBe(true);
      const [a, b] = webhook.reviews;
      expect(b!.receivedAt.getTime() - a!.receivedAt.getTime()).toBeGreaterThanOrEqual(250);
    } finally {
      bounded.close();
    }
  });
});

describe('service references', () => {
  let ca: CertKeyPair;
  beforeAll(async () => {
    ca = await generateCA();
  });

  it('dials the resolved address and verifies the certificate for <name>.<namespace>.svc', async () => {
    const server = await startTlsWebhook(ca, ['webhook.hooks.svc']);
    const svcClient = createWebhookClient({ serviceResolver: resolverOf([`hooks/webhook:8443=127.0.0.1:${server.port}`]) });
    try {
      const r = await svcClient.call({
        webhookName: 'w',
        clientConfig: { service: { namespace: 'hooks', name: 'webhook', port: 8443, path: '/validate' }, caBundle: server.caBundle },
        timeoutSeconds: 4,
        review: review(),
      });
      expect(r).toMatchObject({ ok: true });
      expect(server.seen[0]).toMatchObject({ path: '/validate?timeout=4s', headers: { host: 'webhook.hooks.svc:8443' } });
    } finally {
      svcClient.close();
      await server.close();
    }
  });

  it('fails TLS verification when the certificate is not for the service name', async () => {
    const svcClient = createWebhookClient({ serviceResolver: resolverOf([`hooks/webhook=127.0.0.1:${webhook.port}`]) });
    try {
      const r = await svcClient.call({ webhookName: 'w', clientConfig: { service: { namespace: 'hooks', name: 'webhook' }, caBundle: webhook.caBundle }, timeoutSeconds: 4, review: review() });
      expect(r).toEqual({ ok: false, stage: 'call', error: 'Post "https://webhook.hooks.svc:443/?timeout=4s": tls: failed to verify certificate: x509: certificate is valid for localhost, not webhook.hooks.svc' });
      expect(webhook.reviews).toHaveLength(0);
    } finally {
      svcClient.close();
    }
  });

  it('fails a service the resolver does not know with kube\'s not-found message', async () => {
    const r = await client.call({ webhookName: 'w', clientConfig: { service: { namespace: 'hooks', name: 'missing', port: 443, path: '/v' } }, timeoutSeconds: 10, review: review() });
    expect(r).toEqual({ ok: false, stage: 'call', error: 'Post "https://missing.hooks.svc:443/v?timeout=10s": service "missing" not found' });
  });

  it('resolves mapped services by namespace, name and port (443 when the mapping names none)', () => {
    const resolve = resolverOf(['ns/a:8443=127.0.0.1:8443', 'ns/b=[::1]:9443']);
    expect(resolve('ns', 'a', 8443)).toBe('127.0.0.1:8443');
    expect(resolve('ns', 'a', 443)).toBeUndefined();
    expect(resolve('ns', 'b', 443)).toBe('[::1]:9443');
  });
});

describe('credentials from the kubeconfig', () => {
  let dir: string;
  let ca: CertKeyPair;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kah-wh-client-'));
    ca = await generateCA();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function kubeconfig(name: string, users: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, `apiVersion: v1\nkind: Config\nusers:\n${users}`);
    return file;
  }

  it('sends the bearer token of the user named after the webhook\'s host:port', async () => {
    const kc = kubeconfig('token.yaml', `- name: '127.0.0.1:${webhook.port}'\n  user: {token: exact-token}\n- name: '*'\n  user: {token: star-token}\n`);
    const c = createWebhookClient({ kubeconfigPath: kc });
    try {
      expect(await c.call({ webhookName: 'w', clientConfig: cc('/'), timeoutSeconds: 5, review: review() })).toMatchObject({ ok: true });
      expect(webhook.reviews[0]!.headers['authorization']).toBe('Bearer exact-token');
    } finally {
      c.close();
    }
  });

  it('falls back to the "*" user, here with basic auth', async () => {
    const kc = kubeconfig('basic.yaml', `- name: 'other:443'\n  user: {token: nope}\n- name: '*'\n  user: {username: admission, password: s3cret}\n`);
    const c = createWebhookClient({ kubeconfigPath: kc });
    try {
      expect(await c.call({ webhookName: 'w', clientConfig: cc('/'), timeoutSeconds: 5, review: review() })).toMatchObject({ ok: true });
      expect(webhook.reviews[0]!.headers['authorization']).toBe(`Basic ${Buffer.from('admission:s3cret').toString('base64')}`);
    } finally {
      c.close();
    }
  });

  it('presents the client certificate of the matching user, from files relative to the kubeconfig', async () => {
    const clientCA = await generateCA();
    const clientCert = await issueClientCert(clientCA, { user: 'kube-apiserver-admission' });
    writeFileSync(path.join(dir, 'client.crt'), clientCert.cert);
    writeFileSync(path.join(dir, 'client.key'), clientCert.key);
    const server = await startTlsWebhook(ca, ['webhook.hooks.svc'], clientCA.cert);
    const kc = kubeconfig('cert.yaml', `- name: 'webhook.hooks.svc:8443'\n  user: {client-certificate: client.crt, client-key: client.key}\n`);
    const c = createWebhookClient({ kubeconfigPath: kc, serviceResolver: resolverOf([`hooks/webhook:8443=127.0.0.1:${server.port}`]) });
    const noCert = createWebhookClient({ serviceResolver: resolverOf([`hooks/webhook:8443=127.0.0.1:${server.port}`]) });
    const config = { service: { namespace: 'hooks', name: 'webhook', port: 8443 }, caBundle: server.caBundle };
    try {
      expect(await c.call({ webhookName: 'w', clientConfig: config, timeoutSeconds: 5, review: review() })).toMatchObject({ ok: true });
      expect(server.seen[0]!.clientCN).toBe('kube-apiserver-admission');
      const refused = await noCert.call({ webhookName: 'w', clientConfig: config, timeoutSeconds: 5, review: review() });
      expect(refused).toEqual({ ok: false, stage: 'call', error: 'Post "https://webhook.hooks.svc:8443/?timeout=5s": remote error: tls: certificate required' });
    } finally {
      c.close();
      noCert.close();
      await server.close();
    }
  });

  it('fails the call, not the client, when a token file cannot be read', async () => {
    const kc = kubeconfig('tokenfile.yaml', `- name: '*'\n  user: {tokenFile: missing-token}\n`);
    const c = createWebhookClient({ kubeconfigPath: kc });
    try {
      expect(await c.call({ webhookName: 'w', clientConfig: cc('/'), timeoutSeconds: 5, review: review() })).toEqual({
        ok: false,
        stage: 'client',
        error: `open ${path.join(dir, 'missing-token')}: no such file or directory`,
      });
    } finally {
      c.close();
    }
  });
});

describe('verifyHostname', () => {
  it.each([
    ['webhook.ns.svc', { subjectaltname: 'DNS:webhook.ns.svc' }, undefined],
    ['a.example.com', { subjectaltname: 'DNS:*.example.com' }, undefined],
    ['a.b.example.com', { subjectaltname: 'DNS:*.example.com' }, 'x509: certificate is valid for *.example.com, not a.b.example.com'],
    ['::1', { subjectaltname: 'DNS:localhost, IP Address:0:0:0:0:0:0:0:1' }, undefined],
    ['10.0.0.1', { subjectaltname: 'DNS:localhost, IP Address:127.0.0.1' }, 'x509: certificate is valid for 127.0.0.1, not 10.0.0.1'],
    ['10.0.0.1', { subjectaltname: 'DNS:localhost' }, "x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs"],
    ['legacy.example.com', { subject: { CN: 'legacy.example.com' } }, 'x509: certificate relies on legacy Common Name field, use SANs instead'],
  ])('checks %s against %j as Go does', (host, cert, want) => {
    expect(verifyHostname(host, cert)).toBe(want);
  });
});
