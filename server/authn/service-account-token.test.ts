// Ported from kube's pkg/serviceaccount/claims_test.go (TestValidatePrivateClaims: every case and deletion time,
// with kube's error texts) and jwt_test.go (TestTokenGenerateAndValidate: RSA and ECDSA keys, rotation, lookups).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { keyIdOf, signCompact } from '../serviceaccount/jws.js';
import { staticPublicKeys, toServiceAccountKeys } from '../serviceaccount/public-keys.js';
import { ServiceAccountTokenAuthenticator, type ServiceAccountTokenGetter } from './service-account-token.js';

const nowUnix = 1514764800;
const now = () => new Date(nowUnix * 1000);
const iss = 'https://kubernetes.default.svc';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const ecdsa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;

function obj(name: string, uid: string, namespace?: string, deletionTimestamp?: number): KubeObject {
  return { metadata: { name, uid, ...(namespace ? { namespace } : {}), ...(deletionTimestamp !== undefined ? { deletionTimestamp: new Date(deletionTimestamp * 1000).toISOString().replace('.000Z', 'Z') } : {}) } };
}

interface Fake {
  serviceAccount?: KubeObject;
  secret?: KubeObject;
  pod?: KubeObject;
  node?: KubeObject;
}

/** claims_test.go fakeGetter: a missing object is a NotFound error. */
function fakeGetter(f: Fake): ServiceAccountTokenGetter {
  const found = (o: KubeObject | undefined, resource: string, name: string) => (o ? Promise.resolve(o) : Promise.reject(errors.notFound({ group: '', resource }, name)));
  return {
    getServiceAccount: (_ns, name) => found(f.serviceAccount, 'serviceaccounts', name),
    getSecret: (_ns, name) => found(f.secret, 'secrets', name),
    getPod: (_ns, name) => found(f.pod, 'pods', name),
    getNode: (name) => found(f.node, 'nodes', name),
  };
}

type Ref = { name: string; uid: string };
function token(key: KeyObject, k8s: { serviceaccount: Ref; secret?: Ref; pod?: Ref; node?: Ref }, times: { exp?: number; nbf?: number } = {}, extra: Record<string, unknown> = {}): string {
  return signCompact(key, keyIdOf(key), { aud: [iss], exp: times.exp ?? nowUnix, iat: nowUnix - 10, iss, 'kubernetes.io': { namespace: 'ns', ...k8s }, ...(times.nbf !== undefined ? { nbf: times.nbf } : {}), sub: `system:serviceaccount:ns:${k8s.serviceaccount.name}`, ...extra });
}

function authenticator(keys: KeyObject[], getter?: ServiceAccountTokenGetter): ServiceAccountTokenAuthenticator {
  return new ServiceAccountTokenAuthenticator({ issuers: [iss], keys: staticPublicKeys(() => toServiceAccountKeys(keys)), implicitAudiences: [iss], now, ...(getter ? { getter } : {}) });
}

describe('service account token validation (claims_test.go TestValidatePrivateClaims)', () => {
  const serviceAccount = obj('saname', 'sauid', 'ns');
  const secret = obj('secretname', 'secretuid', 'ns');
  const pod = obj('podname', 'poduid', 'ns');
  const node = obj('nodename', 'nodeuid');
  const sa = { name: 'saname', uid: 'sauid' };
  type Case = [string, Fake, { serviceaccount: Ref; secret?: Ref; pod?: Ref; node?: Ref }, { exp?: number; nbf?: number }, string];
  const cases: Case[] = [
    ['good', { serviceAccount }, { serviceaccount: sa }, {}, ''],
    ['expired', { serviceAccount }, { serviceaccount: sa }, { exp: nowUnix - 1000 * 3600 }, 'service account token has expired'],
    ['not yet valid', { serviceAccount }, { serviceaccount: sa }, { nbf: nowUnix + 1000 * 3600 }, 'service account token is not valid yet'],
    ['missing serviceaccount', {}, { serviceaccount: sa }, {}, 'serviceaccounts "saname" not found'],
    ['missing secret', { serviceAccount }, { serviceaccount: sa, secret: { name: 'secretname', uid: 'secretuid' } }, {}, 'service account token has been invalidated'],
    ['missing pod', { serviceAccount }, { serviceaccount: sa, pod: { name: 'podname', uid: 'poduid' } }, {}, 'service account token has been invalidated'],
    ['missing node', { serviceAccount }, { serviceaccount: sa, node: { name: 'nodename', uid: 'nodeuid' } }, {}, 'service account token has been invalidated'],
    ['different uid serviceaccount', { serviceAccount }, { serviceaccount: { name: 'saname', uid: 'sauidold' } }, {}, 'service account UID (sauid) does not match claim (sauidold)'],
    ['different uid secret', { serviceAccount, secret }, { serviceaccount: sa, secret: { name: 'secretname', uid: 'secretuidold' } }, {}, 'secret UID (secretuid) does not match service account secret ref claim (secretuidold)'],
    ['different uid pod', { serviceAccount, pod }, { serviceaccount: sa, pod: { name: 'podname', uid: 'poduidold' } }, {}, 'pod UID (poduid) does not match service account pod ref claim (poduidold)'],
  ];
  const deletions: Array<[string, number | undefined, boolean]> = [
    ['valid', undefined, false],
    ['deleted now', nowUnix, false],
    ['deleted near past', nowUnix - 1, false],
    ['deleted near future', nowUnix + 1, false],
    ['deleted now-leeway', nowUnix - 60, false],
    ['deleted now-leeway-1', nowUnix - 61, true],
  ];
  for (const [name, time, expectErr] of deletions) {
    const deleted = (o: KubeObject) => obj(String(o.metadata?.name), String(o.metadata?.uid), o.metadata?.namespace as string | undefined, time);
    cases.push(
      [`${name} serviceaccount`, { serviceAccount: deleted(serviceAccount) }, { serviceaccount: sa }, {}, expectErr ? 'service account ns/saname has been deleted' : ''],
      [`${name} secret`, { serviceAccount, secret: deleted(secret) }, { serviceaccount: sa, secret: { name: 'secretname', uid: 'secretuid' } }, {}, expectErr ? 'service account token has been invalidated' : ''],
      [`${name} pod`, { serviceAccount, pod: deleted(pod) }, { serviceaccount: sa, pod: { name: 'podname', uid: 'poduid' } }, {}, expectErr ? 'service account token has been invalidated' : ''],
      [`${name} node`, { serviceAccount, node: deleted(node) }, { serviceaccount: sa, node: { name: 'nodename', uid: 'nodeuid' } }, {}, expectErr ? 'service account token has been invalidated' : ''],
    );
  }

  it.each(cases)('%s', async (_name, fake, k8s, times, expectErr) => {
    const r = await authenticator([rsa], fakeGetter(fake)).authenticateToken(token(rsa, k8s, times));
    if (expectErr) expect(r).toEqual({ kind: 'error', error: expectErr });
    else expect(r.kind).toBe('authenticated');
  });

  it('reports a token issued in the future', async () => {
    const t = signCompact(rsa, keyIdOf(rsa), { aud: [iss], exp: nowUnix + 7200, iat: nowUnix + 3600, iss, 'kubernetes.io': { namespace: 'ns', serviceaccount: sa }, sub: 'system:serviceaccount:ns:saname' });
    expect(await authenticator([rsa], fakeGetter({ serviceAccount })).authenticateToken(t)).toEqual({ kind: 'error', error: 'service account token is issued in the future' });
  });
});

describe('service account token authentication (jwt_test.go TestTokenGenerateAndValidate)', () => {
  const serviceAccount = obj('my-service-account', '12345', 'test');
  const claims = (key: KeyObject) =>
    signCompact(key, keyIdOf(key), { aud: [iss], exp: nowUnix + 3600, iat: nowUnix, iss, jti: 'abc-123', 'kubernetes.io': { namespace: 'test', serviceaccount: { name: 'my-service-account', uid: '12345' } }, nbf: nowUnix, sub: 'system:serviceaccount:test:my-service-account' });
  const rsaToken = claims(rsa);
  const ecdsaToken = claims(ecdsa);
  const user = {
    username: 'system:serviceaccount:test:my-service-account',
    uid: '12345',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:test'],
    extra: { 'authentication.kubernetes.io/credential-id': ['JTI=abc-123'] },
  };
  it.each<[string, string, KeyObject[], Fake | undefined, 'ok' | string]>([
    ['no keys', rsaToken, [], undefined, 'invalid signature, no keys found'],
    ['invalid keys (rsa)', rsaToken, [other, ecdsa], undefined, '[go-jose/go-jose: error in cryptographic primitive, go-jose/go-jose: error in cryptographic primitive]'],
    ['invalid keys (ecdsa)', ecdsaToken, [other, rsa], undefined, '[go-jose/go-jose: error in cryptographic primitive, go-jose/go-jose: error in cryptographic primitive]'],
    ['valid key (rsa)', rsaToken, [rsa], undefined, 'ok'],
    ['valid key (ecdsa)', ecdsaToken, [ecdsa], undefined, 'ok'],
    ['rotated keys (rsa)', rsaToken, [other, ecdsa, rsa], undefined, 'ok'],
    ['rotated keys (ecdsa)', ecdsaToken, [other, rsa, ecdsa], undefined, 'ok'],
    ['valid lookup', rsaToken, [rsa], { serviceAccount }, 'ok'],
    ['invalid serviceaccount lookup', rsaToken, [rsa], {}, 'serviceaccounts "my-service-account" not found'],
  ])('%s', async (_name, tok, keys, fake, expected) => {
    // kube's keys getter picks keys by the token's kid; the rotation cases list keys without it, as kube's test does
    const a = new ServiceAccountTokenAuthenticator({
      issuers: [iss],
      keys: { publicKeys: () => toServiceAccountKeys(keys) },
      implicitAudiences: [iss],
      now,
      ...(fake ? { getter: fakeGetter(fake) } : {}),
    });
    // an invalid, non-JWT token is never this authenticator's
    expect(await a.authenticateToken('invalid token')).toEqual({ kind: 'unrecognized' });
    const r = await a.authenticateToken(tok);
    if (expected === 'ok') expect(r).toEqual({ kind: 'authenticated', user, audiences: [iss] });
    else expect(r).toEqual({ kind: 'error', error: expected });
  });

  it('leaves tokens of other issuers to other authenticators', async () => {
    const t = signCompact(rsa, keyIdOf(rsa), { iss: 'https://elsewhere', sub: 'x' });
    expect(await authenticator([rsa]).authenticateToken(t)).toEqual({ kind: 'unrecognized' });
  });

  it('refuses a token for other audiences with kube text', async () => {
    const t = signCompact(rsa, keyIdOf(rsa), { aud: ['vault'], exp: nowUnix + 60, iss, 'kubernetes.io': { namespace: 'test', serviceaccount: { name: 'my-service-account', uid: '12345' } }, sub: 'system:serviceaccount:test:my-service-account' });
    expect(await authenticator([rsa]).authenticateToken(t)).toEqual({ kind: 'error', error: `token audiences ["vault"] is invalid for the target audiences ["${iss}"]` });
    expect(await authenticator([rsa]).authenticateToken(t, ['vault'])).toMatchObject({ kind: 'authenticated', audiences: ['vault'] });
  });

  it('reports a pod-bound token with the pod and node in extra (ServiceAccountTokenPodNodeInfo)', async () => {
    const t = signCompact(rsa, keyIdOf(rsa), { aud: [iss], exp: nowUnix + 60, iss, 'kubernetes.io': { namespace: 'test', node: { name: 'n1', uid: 'nuid' }, pod: { name: 'p', uid: 'puid' }, serviceaccount: { name: 'my-service-account', uid: '12345' } }, sub: 'system:serviceaccount:test:my-service-account' });
    const r = await authenticator([rsa], fakeGetter({ serviceAccount, pod: obj('p', 'puid', 'test') })).authenticateToken(t);
    expect(r.kind === 'authenticated' && r.user.extra).toEqual({
      'authentication.kubernetes.io/node-name': ['n1'],
      'authentication.kubernetes.io/node-uid': ['nuid'],
      'authentication.kubernetes.io/pod-name': ['p'],
      'authentication.kubernetes.io/pod-uid': ['puid'],
    });
  });
});
