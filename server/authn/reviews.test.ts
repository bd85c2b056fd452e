import { buildAuthenticator } from './authenticator.js';
import { answerSelfSubjectReview, answerTokenReview } from './reviews.js';
import { parseTokenFile } from './token-file.js';

const tokenFile = parseTokenFile('alice-token,alice,uid-1,"dev,ops"\n', '/t.csv');
if (!tokenFile.ok) throw new Error(tokenFile.error);
const authenticator = buildAuthenticator({ clientCertificates: true, tokens: tokenFile.authenticator, anonymous: true });

const review = (spec: unknown, extra: Record<string, unknown> = {}) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec, ...extra });

describe('TokenReview', () => {
  it('authenticates a known token with the groups requests get', async () => {
    const r = await answerTokenReview(review({ token: 'alice-token' }), { authenticator });
    expect(r).toEqual({
      ok: true,
      review: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        metadata: {},
        spec: { token: 'alice-token' },
        status: { authenticated: true, user: { username: 'alice', uid: 'uid-1', groups: ['dev', 'ops', 'system:authenticated'] } },
      },
    });
  });

  it('reports an unknown token with kube error text and an empty user', async () => {
    const r = await answerTokenReview(review({ token: 'nope' }), { authenticator });
    expect(r.ok && r.review.status).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  it('keeps the request version', async () => {
    const r = await answerTokenReview({ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', spec: { token: 'alice-token' } }, { authenticator });
    expect(r.ok && r.review.apiVersion).toBe('authentication.k8s.io/v1beta1');
  });

  it('rejects a token asked for audiences the token file cannot vouch for', async () => {
    const r = await answerTokenReview(review({ token: 'alice-token', audiences: ['vault'] }), { authenticator });
    expect(r.ok && r.review.status).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  it('answers with the matching API audiences', async () => {
    const withAuds = buildAuthenticator({ clientCertificates: false, tokens: tokenFile.authenticator, anonymous: false, apiAudiences: ['api', 'other'] });
    const r = await answerTokenReview(review({ token: 'alice-token', audiences: ['api'] }), { authenticator: withAuds, apiAudiences: ['api', 'other'] });
    expect(r.ok && r.review.status).toMatchObject({ authenticated: true, audiences: ['api'] });
  });

  it.each<[string, unknown, Record<string, unknown>, number, string]>([
    ['no token', review({}), {}, 400, 'token is required for TokenReview in authentication'],
    ['an empty token', review({ token: '' }), {}, 400, 'token is required for TokenReview in authentication'],
    ['a namespaced URL', review({ token: 'x' }), { namespace: 'default' }, 400, 'namespace is not allowed on this type: default'],
    ['a token that is not a string', review({ token: 5 }), {}, 400, 'TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal number into Go struct field TokenReviewSpec.spec.token of type string'],
    ['audiences that are not a list', review({ token: 'x', audiences: 'a' }), {}, 400, 'TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal string into Go struct field TokenReviewSpec.spec.audiences of type []string'],
    ['a spec that is not an object', review([1]), {}, 400, 'TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal array into Go struct field TokenReview.spec of type v1.TokenReviewSpec'],
  ])('rejects %s', async (_name, body, ctx, code, message) => {
    const r = await answerTokenReview(body, { authenticator, ...ctx });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.status).toMatchObject({ code, message, reason: 'BadRequest' });
  });
});

describe('SelfSubjectReview', () => {
  it('tells the requester who it is', () => {
    const r = answerSelfSubjectReview(
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      { user: { username: 'jane', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } }, now: new Date('2030-01-02T03:04:05.678Z') },
    );
    expect(r).toEqual({
      ok: true,
      review: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
        metadata: { creationTimestamp: '2030-01-02T03:04:05Z' },
        status: { userInfo: { username: 'jane', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } } },
      },
    });
  });

  it('answers anonymous requests too', () => {
    const r = answerSelfSubjectReview({}, { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
    expect(r.ok && r.review.status.userInfo).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect(r.ok && r.review.apiVersion).toBe('authentication.k8s.io/v1');
  });

  it('needs a user', () => {
    const r = answerSelfSubjectReview({}, { user: undefined });
    expect(!r.ok && r.error.status.message).toBe('no user present on request');
  });
});
