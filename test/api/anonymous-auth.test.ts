// kube-apiserver turns anonymous authentication off when the authorizer is AlwaysAllow (our default), so an
// unauthenticated request is a 401, not an admin (pkg/kubeapiserver/options/authentication.go ApplyAuthorization).
import https from 'node:https';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';

const warning = 'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer';
// responsewriters' 401 for a request no authenticator accepted (NewUnauthorized("Unauthorized"))
const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

/** A request with no credentials at all (the server's CA is trusted, no client certificate, no token). */
function anonymous(server: ApiServerHandle, method: string, p: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(p, server.url), { method, ca: server.caPem, agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (d: Buffer) => (data += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data.startsWith('{') ? (JSON.parse(data) as Record<string, unknown>) : {} }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'anonymous-secret' }, stringData: { password: 'hunter2' } };
const secretsPath = '/api/v1/namespaces/default/secrets';

describe('default flags (AlwaysAllow): anonymous requests are refused', () => {
  let server: ApiServerHandle;
  beforeAll(async () => {
    server = await startApiServer({ storage: 'memory' });
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
  });

  it('answers an anonymous POST of a Secret with 401 and stores nothing', async () => {
    const r = await anonymous(server, 'POST', secretsPath, secret);
    expect(r).toEqual({ status: 401, json: unauthorized });
    // the admin (client certificate) sees that nothing was created
    expect((await server.request(`${secretsPath}/anonymous-secret`)).status).toBe(404);
  });

  it('answers anonymous reads, discovery and /readyz with 401 too', async () => {
    for (const p of [secretsPath, '/api/v1', '/apis', '/readyz', '/version']) {
      expect([p, await anonymous(server, 'GET', p)]).toEqual([p, { status: 401, json: unauthorized }]);
    }
  });

  it('logs kube-apiserver\'s warning at startup, and still serves the admin', async () => {
    expect(server.stderr()).toContain(`Warning: ${warning}`);
    expect((await server.request('/readyz')).status).toBe(200);
    const created = await server.request(secretsPath, { method: 'POST', body: { ...secret, metadata: { name: 'admin-secret' } }, headers: { 'Content-Type': 'application/json' } });
    expect(created.status).toBe(201);
  });
});

describe('anonymous requests with an authorizer other than AlwaysAllow', () => {
  let server: ApiServerHandle;
  beforeAll(async () => {
    server = await startApiServer({ storage: 'memory', flags: ['--anonymous-auth=true', '--authorization-mode=AlwaysDeny'] });
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
  });

  it('keeps anonymous on: system:anonymous is authenticated, then authorized (and denied) as itself', async () => {
    expect(server.stderr()).not.toContain(warning);
    const r = await anonymous(server, 'POST', secretsPath, secret);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ reason: 'Forbidden', message: expect.stringContaining('User "system:anonymous" cannot create resource "secrets"') });
    // the health endpoints stay open to everyone (kube's system:public-info-viewer)
    expect((await anonymous(server, 'GET', '/readyz')).status).toBe(200);
  });
});
