import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generateCA, issueClientCert, issueServingCert, type CertKeyPair } from '../../certs/index.js';
import { buildAuthenticator } from './authenticator.js';
import type { AuthenticationResult, ClientCertInfo } from './types.js';
import { clientCertFromSocket } from './x509.js';

function fakeSocket(peer: object, authorized: boolean, authorizationError?: string): TLSSocket {
  // A structural stand-in: only the two members clientCertFromSocket reads.
  return { getPeerCertificate: () => peer, authorized, authorizationError } as unknown as TLSSocket;
}

describe('clientCertFromSocket', () => {
  it.each<[string, TLSSocket, ClientCertInfo | undefined]>([
    ['no certificate', fakeSocket({}, false), undefined],
    ['one O as a string', fakeSocket({ subject: { CN: 'jane', O: 'dev' } }, true), { verified: true, commonName: 'jane', organizations: ['dev'] }],
    ['several O as an array', fakeSocket({ subject: { CN: 'jane', O: ['dev', 'ops'] } }, true), { verified: true, commonName: 'jane', organizations: ['dev', 'ops'] }],
    ['no O', fakeSocket({ subject: { CN: 'jane' } }, true), { verified: true, commonName: 'jane', organizations: [] }],
    ['several CN keep the last, as Go', fakeSocket({ subject: { CN: ['a', 'b'] } }, true), { verified: true, commonName: 'b', organizations: [] }],
    ['unverified', fakeSocket({ subject: { CN: 'x' } }, false, 'UNABLE_TO_GET_ISSUER_CERT'), { verified: false, commonName: 'x', organizations: [], verifyError: 'UNABLE_TO_GET_ISSUER_CERT' }],
    ['a plain TCP socket', {} as TLSSocket, undefined],
  ])('%s', (_name, socket, expected) => {
    expect(clientCertFromSocket(socket)).toEqual(expected);
  });
});

describe('x509 authentication over a real TLS connection', () => {
  let ca: CertKeyPair;
  let port: number;
  let server: https.Server;
  const authn = buildAuthenticator({ clientCertificates: true, anonymous: false });

  beforeAll(async () => {
    ca = await generateCA();
    const serving = await issueServingCert(ca);
    server = https.createServer({ key: serving.key, cert: serving.cert, ca: ca.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      void authn.authenticate({ headers: req.headers, clientCert: clientCertFromSocket(req.socket as TLSSocket) }).then((r) => res.end(JSON.stringify(r)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = (client?: CertKeyPair): Promise<AuthenticationResult> =>
    new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: '/', ca: ca.cert, agent: false, ...(client ? { key: client.key, cert: client.cert } : {}) }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(JSON.parse(body) as AuthenticationResult));
      });
      req.on('error', reject);
      req.end();
    });

  it('authenticates the admin certificate as kubernetes-admin in system:masters', async () => {
    const admin = await issueClientCert(ca, { user: 'kubernetes-admin', groups: ['system:masters'] });
    expect(await call(admin)).toMatchObject({ ok: true, method: 'x509', user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } });
  });

  it('rejects a certificate from another CA', async () => {
    const stranger = await issueClientCert(await generateCA(), { user: 'mallory' });
    expect(await call(stranger)).toMatchObject({ ok: false, reason: expect.stringMatching(/^verifying certificate CN=mallory failed: /) });
  });

  it('rejects a request without credentials when anonymous is off', async () => {
    expect(await call()).toMatchObject({ ok: false, status: { status: { code: 401 } } });
  });
});
