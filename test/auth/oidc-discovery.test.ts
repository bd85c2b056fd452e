// Service account issuer discovery over the real HTTP API, as kube serves it (pkg/routes/openidmetadata.go,
// pkg/serviceaccount/openidmetadata.go; cases from openidmetadata_test.go TestServeConfiguration, TestServeKeys and
// TestURLBoundaries): the documents, their content types and cache header, every --service-account-key-file key
// with kube's key id, the one issued tokens name in their header — so a relying party verifies them from the JWKS.
import { createPublicKey, generateKeyPairSync, verify, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useApiServer } from '../../harness/jest.js';
import { keyIdOf } from '../../server/serviceaccount/jws.js';
import { bearerRequest } from './bearer-client.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kah-oidc-'));
const signing = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const previous = generateKeyPairSync('rsa', { modulusLength: 2048 });
writeFileSync(path.join(dir, 'signing.key'), signing.privateKey.export({ type: 'pkcs8', format: 'pem' }));
// a rotated-out key still verifying old tokens, and the signing key, in two key files
writeFileSync(path.join(dir, 'previous.pub'), previous.publicKey.export({ type: 'spki', format: 'pem' }));
const issuer = 'https://issuer.kah.test';

const env = useApiServer({
  storage: 'memory',
  flags: [
    `--service-account-issuer=${issuer}`,
    `--service-account-signing-key-file=${path.join(dir, 'signing.key')}`,
    `--service-account-key-file=${path.join(dir, 'previous.pub')}`,
    `--service-account-key-file=${path.join(dir, 'signing.key')}`,
  ],
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let token: string;
beforeAll(async () => {
  await env.server.request('/api/v1/namespaces/default/serviceaccounts', { method: 'POST', body: { metadata: { name: 'discoverer' } } });
  const tr = await env.server.request('/api/v1/namespaces/default/serviceaccounts/discoverer/token', { method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
  token = tr.json<{ status: { token: string } }>().status.token;
});

describe('service account issuer discovery', () => {
  it('serves /.well-known/openid-configuration as kube does (TestServeConfiguration)', async () => {
    const r = await bearerRequest(env.server, '/.well-known/openid-configuration', token);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['cache-control']).toBe('public, max-age=3600');
    // the default jwks_uri: the advertise (here bind) address and the secure port
    expect(r.body).toBe(
      `{"issuer":"${issuer}","jwks_uri":"https://127.0.0.1:${env.server.port}/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}`,
    );
  });

  it('serves every --service-account-key-file key at /openid/v1/jwks with kube key ids (TestServeKeys)', async () => {
    const r = await bearerRequest(env.server, '/openid/v1/jwks', token);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/jwk-set+json');
    expect(r.headers['cache-control']).toBe('public, max-age=3600');
    const keys = r.json<{ keys: Array<Record<string, string>> }>().keys;
    expect(keys.map((k) => Object.keys(k))).toEqual([
      ['use', 'kty', 'kid', 'alg', 'n', 'e'],
      ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y'],
    ]);
    expect(keys.map((k) => [k['kty'], k['alg'], k['kid'], k['use']])).toEqual([
      ['RSA', 'RS256', keyIdOf(previous.publicKey), 'sig'],
      ['EC', 'ES256', keyIdOf(signing.publicKey), 'sig'],
    ]);
  });

  it('lets a relying party verify an issued token with the JWKS key its kid names', async () => {
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { alg: string; kid: string };
    expect(header).toEqual({ alg: 'ES256', kid: keyIdOf(signing.publicKey) });
    const keys = (await bearerRequest(env.server, '/openid/v1/jwks', token)).json<{ keys: JsonWebKey[] }>().keys;
    const jwk = keys.find((k) => k['kid'] === header.kid)!;
    const [h, p, s] = token.split('.') as [string, string, string];
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))).toBe(true);
    expect(JSON.parse(Buffer.from(p, 'base64url').toString())).toMatchObject({ iss: issuer, aud: [issuer] });
  });

  it.each<[string, string, number]>([
    ['OIDC config path', '/.well-known/openid-configuration', 200],
    ['JWKS path', '/openid/v1/jwks', 200],
    ['well-known', '/.well-known', 404],
    ['subpath', '/openid/v1/jwks/foo', 404],
    ['query', '/openid/v1/jwks?format=yaml', 200],
  ])('URL boundaries (TestURLBoundaries): %s', async (_name, reqPath, status) => {
    expect((await bearerRequest(env.server, reqPath, token)).status).toBe(status);
  });

  it('asks for credentials: anonymous requests are off under AlwaysAllow (401)', async () => {
    expect((await bearerRequest(env.server, '/openid/v1/jwks', undefined)).status).toBe(401);
  });
});

describe('an issuer that is no https URL', () => {
  const plain = useApiServer({ storage: 'memory', flags: ['--service-account-issuer=kubernetes.default.svc'] });

  it('serves no discovery documents and logs why, as kube-apiserver does', async () => {
    expect((await plain.server.request('/.well-known/openid-configuration')).status).toBe(404);
    expect((await plain.server.request('/openid/v1/jwks')).status).toBe(404);
    await plain.server.waitForLog('issuer URL must use https scheme, got: kubernetes.default.svc', 5_000);
  });
});
