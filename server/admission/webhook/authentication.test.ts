import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { credentialsFromAuthInfo, loadKubeconfig, newAuthenticationInfoResolver, parseKubeconfig } from './authentication.js';

const kubeconfig = `
apiVersion: v1
kind: Config
users:
- name: webhook1.ns1.svc
  user: { token: svc-default-port }
- name: webhook1.ns1.svc:8443
  user: { token: svc-8443 }
- name: '*.webhook-company.org'
  user: { username: user, password: pass }
- name: www.example.com:8443
  user: { token: exact-8443 }
- name: '127.0.0.1:9443'
  user: { token: ip-port }
- name: '*'
  user: { token: star }
`;

const token = (r: ReturnType<ReturnType<typeof newAuthenticationInfoResolver>['clientConfigFor']>) => (r.ok ? (r.credentials.bearerToken ?? r.credentials.username) : r.error);

describe('AuthenticationInfoResolver', () => {
  const resolver = newAuthenticationInfoResolver(parseKubeconfig(kubeconfig, '/etc/kah/webhook-kubeconfig'));

  it.each([
    ['www.example.com:8443', 'exact-8443'],
    ['127.0.0.1:9443', 'ip-port'],
    ['api.webhook-company.org:443', 'user'],
    ['deep.api.webhook-company.org:443', 'user'],
    // off port 443 the name must carry the port, wildcards included
    ['api.webhook-company.org:8443', 'star'],
    ['www.example.com:443', 'star'],
    ['other.example.com:9443', 'star'],
  ])('picks the user for URL host %s', (hostPort, want) => {
    expect(token(resolver.clientConfigFor(hostPort))).toBe(want);
  });

  it.each([
    [443, 'svc-default-port'],
    [8443, 'svc-8443'],
    [9443, 'star'],
  ])('picks the user for service webhook1.ns1 on port %d', (port, want) => {
    expect(token(resolver.clientConfigForService('webhook1', 'ns1', port))).toBe(want);
  });

  it('falls back to the current context\'s user, then to no credentials', () => {
    const withContext = newAuthenticationInfoResolver(
      parseKubeconfig('users: [{name: admin, user: {token: ctx}}]\ncontexts: [{name: c, context: {user: admin}}]\ncurrent-context: c\n', '/x/kc'),
    );
    expect(token(withContext.clientConfigFor('a.b:443'))).toBe('ctx');
    expect(newAuthenticationInfoResolver(parseKubeconfig('users: []\n', '/x/kc')).clientConfigFor('a.b:443')).toEqual({ ok: true, credentials: {} });
    expect(newAuthenticationInfoResolver().clientConfigFor('a.b:443')).toEqual({ ok: true, credentials: {} });
  });
});

describe('credentialsFromAuthInfo', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kah-auth-'));
    writeFileSync(path.join(dir, 'token'), 'from-file\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prefers token over tokenFile and reads a tokenFile relative to the kubeconfig', () => {
    expect(credentialsFromAuthInfo({ token: 't', tokenFile: 'token' }, dir)).toEqual({ ok: true, credentials: { bearerToken: 't', bearerTokenFile: path.join(dir, 'token') } });
    expect(credentialsFromAuthInfo({ tokenFile: 'token' }, dir)).toEqual({ ok: true, credentials: { bearerToken: 'from-file\n', bearerTokenFile: path.join(dir, 'token') } });
    expect(credentialsFromAuthInfo({ tokenFile: 'missing' }, dir)).toEqual({ ok: false, error: `open ${path.join(dir, 'missing')}: no such file or directory` });
  });

  it('takes client certificates as data or files, and refuses auth providers as kube does', () => {
    const r = credentialsFromAuthInfo({ 'client-certificate': 'c.pem', 'client-key-data': Buffer.from('KEY').toString('base64') }, dir);
    expect(r).toEqual({ ok: true, credentials: { certFile: path.join(dir, 'c.pem'), keyData: Buffer.from('KEY') } });
    expect(credentialsFromAuthInfo({ 'auth-provider': { name: 'gcp' } }, dir)).toEqual({ ok: false, error: 'auth provider not supported' });
  });

  it('fails to load a missing kubeconfig with Go\'s stat error', () => {
    expect(() => loadKubeconfig(path.join(dir, 'nope'))).toThrow(`stat ${path.join(dir, 'nope')}: no such file or directory`);
  });
});
