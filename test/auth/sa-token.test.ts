// Service-account tokens end to end over the real HTTP API: issued by TokenRequest (kubectl create token), accepted
// by the authenticator as system:serviceaccount:<ns>:<name>, and refused (401) once expired, for another audience,
// signed by another key, or when the service account or the bound object is gone or recreated. Cases follow kube's
// test/integration/auth/svcaccttoken_test.go (TestServiceAccountTokenCreate) and
// test/integration/serviceaccount/service_account_test.go (TestServiceAccountTokenAuthentication).
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useApiServer, useWebhookServer } from '../../harness/jest.js';
import { expectStartupFailure } from '../../harness/startup-failure.js';
import { keyIdOf, signCompact } from '../../server/serviceaccount/jws.js';
import { kubectl } from '../support/kubectl.js';
import { bearerRequest, writeTokenKubeconfig } from './bearer-client.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kah-sa-token-'));
const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const signingKeyFile = path.join(dir, 'sa.key');
writeFileSync(signingKeyFile, signingKey.export({ type: 'pkcs1', format: 'pem' }));
const issuer = 'https://kah.test';

const env = useApiServer({ storage: 'memory', flags: [`--service-account-issuer=${issuer}`, `--service-account-signing-key-file=${signingKeyFile}`] });
const webhook = useWebhookServer();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

async function admin(pathAndQuery: string, method = 'GET', body?: unknown): Promise<Record<string, unknown>> {
  const r = await env.server.request(pathAndQuery, { method, ...(body !== undefined ? { body } : {}) });
  if (r.status >= 300) throw new Error(`${method} ${pathAndQuery}: ${r.status} ${r.body}`);
  return r.json();
}

async function createServiceAccount(ns: string, name: string): Promise<string> {
  const sa = await admin(`/api/v1/namespaces/${ns}/serviceaccounts`, 'POST', { metadata: { name } });
  return (sa['metadata'] as { uid: string }).uid;
}

async function requestToken(ns: string, name: string, spec: Record<string, unknown> = {}): Promise<string> {
  const tr = await admin(`/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  return (tr['status'] as { token: string }).token;
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

async function tokenReview(token: string, audiences?: string[]): Promise<Record<string, unknown>> {
  const r = await admin('/apis/authentication.k8s.io/v1/tokenreviews', 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });
  return r['status'] as Record<string, unknown>;
}

async function namespace(): Promise<string> {
  const ns = `sa-${randomUUID().slice(0, 8)}`;
  await admin('/api/v1/namespaces', 'POST', { metadata: { name: ns } });
  return ns;
}

describe('service account tokens', () => {
  it('kubectl create token issues a token that kubectl auth whoami reports as the service account', async () => {
    const ns = await namespace();
    const uid = await createServiceAccount(ns, 'builder');
    const created = await kubectl(env.server.kubeconfigPath, ['create', 'token', 'builder', '-n', ns]);
    expect(created.stderr).toBe('');
    const token = created.stdout.trim();
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ aud: [issuer], iss: issuer, sub: `system:serviceaccount:${ns}:builder`, 'kubernetes.io': { namespace: ns, serviceaccount: { name: 'builder', uid } } });
    // the header's kid is kube's key id of the signing key
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'RS256', kid: keyIdOf(signingKey) });
    const kubeconfig = path.join(dir, `${ns}.kubeconfig`);
    await writeTokenKubeconfig(kubeconfig, env.server, token);
    const whoami = await kubectl(kubeconfig, ['auth', 'whoami', '-o', 'json']);
    expect(whoami.stderr).toBe('');
    expect(JSON.parse(whoami.stdout).status.userInfo).toEqual({
      username: `system:serviceaccount:${ns}:builder`,
      uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claims['jti'])}`] },
    });
  });

  it('acts as the service account on resource requests: admission webhooks see its user info', async () => {
    const ns = await namespace();
    const uid = await createServiceAccount(ns, 'writer');
    await admin('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', 'POST', {
      metadata: { name: `sa-identity-${ns}` },
      webhooks: [
        {
          name: 'identity.kah.test',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: { url: webhook.server.url('/identity'), caBundle: webhook.server.caBundle },
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
      ],
    });
    const token = await requestToken(ns, 'writer');
    const r = await bearerRequest(env.server, `/api/v1/namespaces/${ns}/configmaps`, token, 'POST', { metadata: { name: 'by-sa' } });
    expect(r.status).toBe(201);
    const seen = webhook.server.reviews.filter((x) => x.request.namespace === ns).map((x) => x.request.userInfo);
    expect(seen).toEqual([
      {
        username: `system:serviceaccount:${ns}:writer`,
        uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claimsOf(token)['jti'])}`] },
      },
    ]);
    expect(await tokenReview(token)).toMatchObject({ authenticated: true, audiences: [issuer], user: { username: `system:serviceaccount:${ns}:writer` } });
  });

  it("stops authenticating a deleted service account's tokens (401), and a recreated one's old tokens", async () => {
    const ns = await namespace();
    const oldUid = await createServiceAccount(ns, 'ephemeral');
    const token = await requestToken(ns, 'ephemeral');
    expect((await bearerRequest(env.server, `/api/v1/namespaces/${ns}/configmaps`, token)).status).toBe(200);
    await admin(`/api/v1/namespaces/${ns}/serviceaccounts/ephemeral`, 'DELETE');
    const gone = await bearerRequest(env.server, `/api/v1/namespaces/${ns}/configmaps`, token);
    expect(gone.status).toBe(401);
    expect(gone.json()).toEqual(unauthorized);
    expect(await tokenReview(token)).toEqual({ user: {}, error: 'serviceaccounts "ephemeral" not found' });
    const newUid = await createServiceAccount(ns, 'ephemeral');
    expect((await bearerRequest(env.server, `/api/v1/namespaces/${ns}/configmaps`, token)).status).toBe(401);
    expect(await tokenReview(token)).toEqual({ user: {}, error: `service account UID (${newUid}) does not match claim (${oldUid})` });
  });

  it('binds a token to a pod: pod name and uid in extra, invalid once the pod is deleted', async () => {
    const ns = await namespace();
    await createServiceAccount(ns, 'runner');
    const pod = await admin(`/api/v1/namespaces/${ns}/pods`, 'POST', { metadata: { name: 'p' }, spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'busybox' }] } });
    const podUid = (pod['metadata'] as { uid: string }).uid;
    const token = await requestToken(ns, 'runner', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: podUid } });
    expect(claimsOf(token)['kubernetes.io']).toMatchObject({ pod: { name: 'p', uid: podUid } });
    const review = await tokenReview(token);
    expect((review['user'] as { extra: Record<string, string[]> }).extra).toMatchObject({ 'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': [podUid] });
    await admin(`/api/v1/namespaces/${ns}/pods/p?gracePeriodSeconds=0`, 'DELETE');
    const r = await bearerRequest(env.server, `/api/v1/namespaces/${ns}/configmaps`, token);
    expect(r.status).toBe(401);
    expect(await tokenReview(token)).toEqual({ user: {}, error: 'service account token has been invalidated' });
  });

  it('binds a token to a secret: invalid once the secret is deleted', async () => {
    const ns = await namespace();
    await createServiceAccount(ns, 'reader');
    await admin(`/api/v1/namespaces/${ns}/secrets`, 'POST', { metadata: { name: 's' } });
    const token = await requestToken(ns, 'reader', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } });
    expect((await tokenReview(token))['authenticated']).toBe(true);
    await admin(`/api/v1/namespaces/${ns}/secrets/s`, 'DELETE');
    expect(await tokenReview(token)).toEqual({ user: {}, error: 'service account token has been invalidated' });
  });

  it('refuses a token for another audience on the API, while TokenReview for that audience accepts it', async () => {
    const ns = await namespace();
    await createServiceAccount(ns, 'vaulted');
    const token = await requestToken(ns, 'vaulted', { audiences: ['vault'] });
    expect((await bearerRequest(env.server, '/api/v1/namespaces', token)).status).toBe(401);
    expect(await tokenReview(token)).toEqual({ user: {}, error: `token audiences ["vault"] is invalid for the target audiences ["${issuer}"]` });
    expect(await tokenReview(token, ['vault'])).toMatchObject({ authenticated: true, audiences: ['vault'], user: { username: `system:serviceaccount:${ns}:vaulted` } });
  });

  it('refuses an expired token (beyond the one-minute leeway) and one signed by another key', async () => {
    const ns = await namespace();
    const uid = await createServiceAccount(ns, 'old');
    const now = Math.floor(Date.now() / 1000);
    const claims = (exp: number) => ({ aud: [issuer], exp, iat: exp - 3600, iss: issuer, 'kubernetes.io': { namespace: ns, serviceaccount: { name: 'old', uid } }, nbf: exp - 3600, sub: `system:serviceaccount:${ns}:old` });
    const expired = signCompact(signingKey, keyIdOf(signingKey), claims(now - 120));
    expect((await bearerRequest(env.server, '/api/v1/namespaces', expired)).status).toBe(401);
    expect(await tokenReview(expired)).toEqual({ user: {}, error: 'service account token has expired' });
    expect((await tokenReview(signCompact(signingKey, keyIdOf(signingKey), claims(now + 600))))['authenticated']).toBe(true);
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const forged = signCompact(otherKey, keyIdOf(signingKey), claims(now + 600));
    expect((await bearerRequest(env.server, '/api/v1/namespaces', forged)).status).toBe(401);
    expect(await tokenReview(forged)).toEqual({ user: {}, error: 'go-jose/go-jose: error in cryptographic primitive' });
    // a key id no configured key has
    expect(await tokenReview(signCompact(otherKey, keyIdOf(otherKey), claims(now + 600)))).toEqual({ user: {}, error: 'invalid signature, no keys found' });
  });

  it('leaves a JWT of another issuer to the other authenticators: invalid bearer token', async () => {
    const t = signCompact(signingKey, keyIdOf(signingKey), { iss: 'https://elsewhere.test', sub: 'x' });
    expect(await tokenReview(t)).toEqual({ user: {}, error: 'invalid bearer token' });
  });
});

describe('--service-account-key-file at startup', () => {
  it('stops the start with keyutil\'s texts for a file without keys and for a missing file', async () => {
    const noKeys = path.join(dir, 'no-keys.pem');
    writeFileSync(noKeys, 'not a key\n');
    const missing = path.join(dir, 'missing.pem');
    const failed = await expectStartupFailure({ storage: 'memory', flags: [`--service-account-key-file=${noKeys}`, `--service-account-key-file=${missing}`] });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain(`Error: error reading public key file ${noKeys}: data does not contain any valid RSA or ECDSA public keys\n`);
    expect(failed.stderr).toContain(`Error: open ${missing}: no such file or directory\n`);
  });
});
