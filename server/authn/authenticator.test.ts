import type { UserInfo } from '../api/types.js';
import { buildAuthenticator, type AuthenticatorConfig } from './authenticator.js';
import { invalidTokenWithSpaceWarning } from './bearer-token.js';
import { parseTokenFile } from './token-file.js';
import type { AuthenticationRequest, ClientCertInfo } from './types.js';

const tokenFile = parseTokenFile(['alice-token,alice,uid-1,"dev,ops"', 'bob-token,bob,uid-2', 'root-token,root,,system:masters'].join('\n'), '/etc/tokens.csv');
if (!tokenFile.ok) throw new Error(tokenFile.error);
const tokens = tokenFile.authenticator;

const verifiedCert = (cn: string, o: string[] = []): ClientCertInfo => ({ verified: true, commonName: cn, organizations: o });

type Expect = { user: UserInfo; method: string } | { status: 401; reason: string };

describe('the authenticator chain', () => {
  it.each<[string, Partial<AuthenticatorConfig>, AuthenticationRequest, Expect]>([
    [
      'a verified client certificate is CN user with O groups, plus system:authenticated',
      {},
      { headers: {}, clientCert: verifiedCert('jane', ['team-a', 'team-b']) },
      { user: { username: 'jane', groups: ['team-a', 'team-b', 'system:authenticated'] }, method: 'x509' },
    ],
    [
      'system:masters from the certificate is kept',
      {},
      { headers: {}, clientCert: verifiedCert('kubernetes-admin', ['system:masters']) },
      { user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] }, method: 'x509' },
    ],
    [
      'an unverified client certificate is a 401 even with anonymous on',
      {},
      { headers: {}, clientCert: { verified: false, commonName: 'mallory', organizations: [], verifyError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' } },
      { status: 401, reason: 'verifying certificate CN=mallory failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
    ],
    [
      'an unverified certificate with a good token authenticates by token',
      {},
      { headers: { authorization: 'Bearer bob-token' }, clientCert: { verified: false, commonName: 'mallory', organizations: [] } },
      { user: { username: 'bob', uid: 'uid-2', groups: ['system:authenticated'] }, method: 'token' },
    ],
    [
      'a certificate without CN falls through to anonymous',
      {},
      { headers: {}, clientCert: verifiedCert('') },
      { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, method: 'anonymous' },
    ],
    [
      'client certificates are ignored without a client CA',
      { clientCertificates: false },
      { headers: {}, clientCert: verifiedCert('jane') },
      { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, method: 'anonymous' },
    ],
    ['the certificate wins over a token', {}, { headers: { authorization: 'Bearer bob-token' }, clientCert: verifiedCert('jane') }, { user: { username: 'jane', groups: ['system:authenticated'] }, method: 'x509' }],
    [
      'a token from the file with groups',
      {},
      { headers: { authorization: 'Bearer alice-token' } },
      { user: { username: 'alice', uid: 'uid-1', groups: ['dev', 'ops', 'system:authenticated'] }, method: 'token' },
    ],
    ['the scheme is case-insensitive and the header name too', {}, { headers: { Authorization: 'bearer root-token' } }, { user: { username: 'root', groups: ['system:masters', 'system:authenticated'] }, method: 'token' }],
    ['an unknown token is a 401 even with anonymous on', {}, { headers: { authorization: 'Bearer nope' } }, { status: 401, reason: 'invalid bearer token' }],
    ['any bearer token is a 401 without a token file', { tokens: undefined }, { headers: { authorization: 'Bearer alice-token' } }, { status: 401, reason: 'invalid bearer token' }],
    ['a non-bearer Authorization header is ignored', {}, { headers: { authorization: 'Basic YWxpY2U6cHc=' } }, { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, method: 'anonymous' }],
    ['an empty bearer token is ignored', {}, { headers: { authorization: 'Bearer ' } }, { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, method: 'anonymous' }],
    ['no credentials with anonymous off is a 401', { anonymous: false }, { headers: {} }, { status: 401, reason: 'no credentials, and anonymous requests are disabled' }],
    ['no credentials with anonymous on is system:anonymous', {}, { headers: {} }, { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, method: 'anonymous' }],
    [
      'both a bad certificate and a bad token are listed',
      {},
      { headers: { authorization: 'Bearer nope' }, clientCert: { verified: false, commonName: 'x', organizations: [], verifyError: 'E' } },
      { status: 401, reason: '[verifying certificate CN=x failed: E, invalid bearer token]' },
    ],
  ])('%s', async (_name, cfg, req, expected) => {
    const authn = buildAuthenticator({ clientCertificates: true, tokens, anonymous: true, ...cfg });
    const r = await authn.authenticate(req);
    if ('status' in expected) {
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.status.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      expect(r.reason).toBe(expected.reason);
    } else {
      expect(r).toMatchObject({ ok: true, user: expected.user, method: expected.method });
      if (r.ok) expect(r.user).toEqual(expected.user);
    }
  });

  it('warns about a space before the token, as kube does, and ignores the header', async () => {
    const r = await buildAuthenticator({ clientCertificates: false, tokens, anonymous: true }).authenticate({ headers: { authorization: 'Bearer  alice-token' } });
    expect(r).toMatchObject({ ok: true, method: 'anonymous', warnings: [invalidTokenWithSpaceWarning] });
  });

  it('does not add system:authenticated twice', async () => {
    const r = await buildAuthenticator({ clientCertificates: true, anonymous: false }).authenticate({ headers: {}, clientCert: verifiedCert('x', ['system:authenticated']) });
    expect(r.ok && r.user.groups).toEqual(['system:authenticated']);
  });

  it('does not hand out the token file user object to be mutated', async () => {
    const authn = buildAuthenticator({ clientCertificates: false, tokens, anonymous: false });
    const first = await authn.authenticate({ headers: { authorization: 'Bearer alice-token' } });
    if (first.ok) first.user.groups!.push('hacked');
    const second = await authn.authenticate({ headers: { authorization: 'Bearer alice-token' } });
    expect(second.ok && second.user.groups).toEqual(['dev', 'ops', 'system:authenticated']);
  });

  describe('with API audiences', () => {
    const authn = buildAuthenticator({ clientCertificates: false, tokens, anonymous: true, apiAudiences: ['https://kubernetes.default.svc'] });

    it('marks token users with the API audiences', async () => {
      expect(await authn.authenticate({ headers: { authorization: 'Bearer alice-token' } })).toMatchObject({ ok: true, audiences: ['https://kubernetes.default.svc'] });
    });

    it('rejects a token asked for another audience', async () => {
      expect(await authn.authenticate({ headers: { authorization: 'Bearer alice-token' }, audiences: ['vault'] })).toMatchObject({ ok: false, reason: 'invalid bearer token' });
    });
  });
});
