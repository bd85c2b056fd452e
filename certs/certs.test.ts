import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generateCA, type CertKeyPair } from './ca.js';
import { certCoversHosts, certIssuedBy, inspectCert, keyMatchesCert } from './inspect.js';
import { issueClientCert, issueServingCert, splitHosts } from './issue.js';

interface Seen {
  authorized: boolean;
  error: string | null;
  subject: { CN?: string; O?: string | string[] } | null;
}

/** An HTTPS server that asks for client certificates and answers with what it saw. */
async function startEchoServer(ca: CertKeyPair, serving: CertKeyPair): Promise<{ port: number; close: () => Promise<void> }> {
  const server = https.createServer({ key: serving.key, cert: serving.cert, ca: ca.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    const seen: Seen = {
      authorized: socket.authorized,
      error: socket.authorizationError ? String(socket.authorizationError) : null,
      subject: peer && Object.keys(peer).length ? (peer.subject as Seen['subject']) : null,
    };
    res.end(JSON.stringify(seen));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function get(opts: https.RequestOptions): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = https.request({ ...opts, path: '/', method: 'GET', agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(JSON.parse(body) as Seen));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('certificates', () => {
  let ca: CertKeyPair;
  let serving: CertKeyPair;
  let client: CertKeyPair;
  let server: { port: number; close: () => Promise<void> };

  beforeAll(async () => {
    ca = await generateCA();
    serving = await issueServingCert(ca);
    client = await issueClientCert(ca, { user: 'alice', groups: ['system:masters', 'dev, ops'] });
    server = await startEchoServer(ca, serving);
  });
  afterAll(() => server.close());

  it('makes a CA certificate that signs the leaves', () => {
    expect(inspectCert(ca.cert)).toMatchObject({ isCA: true, commonName: 'kube-admission-harness-ca' });
    expect(certIssuedBy(serving.cert, ca.cert)).toBe(true);
    expect(certIssuedBy(client.cert, ca.cert)).toBe(true);
    expect(keyMatchesCert(serving.key, serving.cert)).toBe(true);
    expect(keyMatchesCert(client.key, serving.cert)).toBe(false);
  });

  it('uses EC P-256 keys', () => {
    expect(ca.key).toContain('BEGIN PRIVATE KEY');
    expect(inspectCert(serving.cert)).toMatchObject({ isCA: false, serverAuth: true, clientAuth: false });
    expect(inspectCert(client.cert)).toMatchObject({ isCA: false, serverAuth: false, clientAuth: true });
  });

  it('covers localhost, 127.0.0.1 and ::1 by default', () => {
    expect(certCoversHosts(serving.cert, ['localhost', '127.0.0.1', '::1', '[::1]'])).toBe(true);
    expect(certCoversHosts(serving.cert, ['example.com'])).toBe(false);
    expect(certCoversHosts(serving.cert, ['10.0.0.1'])).toBe(false);
  });

  it('puts the user in CN and the groups in O, commas included', () => {
    expect(inspectCert(client.cert)).toMatchObject({ commonName: 'alice', organizations: ['system:masters', 'dev, ops'] });
  });

  it('serves TLS that a client trusting the CA accepts, and reads the client certificate subject', async () => {
    const seen = await get({ host: '127.0.0.1', port: server.port, ca: ca.cert, key: client.key, cert: client.cert });
    expect(seen).toEqual({ authorized: true, error: null, subject: { CN: 'alice', O: ['system:masters', 'dev, ops'] } });
  });

  it('is valid for the localhost name too', async () => {
    const seen = await get({ host: 'localhost', servername: 'localhost', port: server.port, ca: ca.cert });
    expect(seen).toMatchObject({ authorized: false, subject: null });
  });

  it('rejects a serving certificate used as a client certificate (no clientAuth)', async () => {
    const seen = await get({ host: '127.0.0.1', port: server.port, ca: ca.cert, key: serving.key, cert: serving.cert });
    expect(seen).toMatchObject({ authorized: false, error: 'INVALID_PURPOSE' });
  });

  it('marks a client certificate from another CA as unverified', async () => {
    const other = await generateCA();
    const stranger = await issueClientCert(other, { user: 'mallory' });
    const seen = await get({ host: '127.0.0.1', port: server.port, ca: ca.cert, key: stranger.key, cert: stranger.cert });
    expect(seen.authorized).toBe(false);
    expect(seen.subject).toEqual({ CN: 'mallory' });
  });

  it('fails the handshake for a client that does not trust the CA', async () => {
    const other = await generateCA();
    await expect(get({ host: '127.0.0.1', port: server.port, ca: other.cert })).rejects.toThrow(/certificate signature failure|self.signed|unable to get local issuer/i);
  });

  it('issues serving certificates for the hosts asked, DNS and IPs told apart', async () => {
    expect(splitHosts(['a.example', '10.1.2.3', '[fd00::1]', 'a.example'])).toEqual({ dnsNames: ['a.example'], ips: ['10.1.2.3', 'fd00::1'] });
    const cert = await issueServingCert(ca, { hosts: ['webhook.default.svc', '10.1.2.3'] });
    expect(certCoversHosts(cert.cert, ['webhook.default.svc', '10.1.2.3'])).toBe(true);
    expect(certCoversHosts(cert.cert, ['localhost'])).toBe(false);
    expect(inspectCert(cert.cert)?.commonName).toBe('webhook.default.svc');
  });

  it('honours the validity window and backdates an hour', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const info = inspectCert((await issueClientCert(ca, { user: 'x', now, validityDays: 2 })).cert)!;
    expect(info.notBefore.toISOString()).toBe('2029-12-31T23:00:00.000Z');
    expect(info.notAfter.toISOString()).toBe('2030-01-03T00:00:00.000Z');
  });

  it.each<[string]>([['a+b'], ['"quoted"'], ['back\\slash'], [' leading and trailing '], ['#hash'], ['semi;colon'], ['<angle>'], ['tab\there'], ['ünïcødé'], ['x=y']])(
    'reads back the subject value %j exactly',
    async (value) => {
      const cert = await issueClientCert(ca, { user: value, groups: [value, 'plain'] });
      expect(inspectCert(cert.cert)).toMatchObject({ commonName: value, organizations: [value, 'plain'] });
    },
  );

  it('refuses a client certificate without a user', async () => {
    await expect(issueClientCert(ca, { user: '' })).rejects.toThrow(/needs a user/);
  });
});
