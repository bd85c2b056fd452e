// Ported from kube's k8s.io/apiserver/pkg/endpoints/filters/impersonation/impersonation_test.go
// (TestImpersonationFilter, its impersonateAuthorizer and every table case), plus the texts kube builds.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { UserInfo } from '../api/types.js';
import { buildAuthorizer } from '../authz/authorizer.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../authz/types.js';
import {
  buildImpersonationRequests,
  impersonate,
  impersonationFilter,
  splitServiceAccountUsername,
  unescapeExtraKey,
  type DistinctHeaders,
} from './impersonation.js';

/** kube's impersonateAuthorizer, case for case. */
const impersonateAuthorizer: Authorizer = {
  authorize(a: AuthorizationAttributes): AuthorizationDecision {
    const name = a.user.username;
    const groups = a.user.groups ?? [];
    const allow: AuthorizationDecision = { decision: 'Allow', reason: '' };
    if (name === 'system:admin') return allow;
    if (name === 'tester') return { decision: 'NoOpinion', reason: '', evaluationError: 'works on my machine' };
    if (name === 'deny-me') return { decision: 'NoOpinion', reason: 'denied' };
    const imp = a.verb === 'impersonate';
    const g0 = groups[0];
    const g1 = groups[1];
    if (g0 === 'wheel' && imp && a.resource === 'users') return allow;
    if (g0 === 'sa-impersonater' && imp && a.resource === 'serviceaccounts') return allow;
    if (g0 === 'regular-impersonater' && imp && a.resource === 'users') return allow;
    if (g1 === 'group-impersonater' && imp && a.resource === 'groups') return allow;
    if (g1 === 'extra-setter-scopes' && imp && a.resource === 'userextras' && a.subresource === 'scopes') return allow;
    if (g1 === 'escaped-scopes' || g1 === 'almost-escaped-scopes') return allow;
    if (g1 === 'extra-setter-particular-scopes' && imp && a.resource === 'userextras' && a.subresource === 'scopes' && a.name === 'scope-a' && a.apiGroup === 'authentication.k8s.io') return allow;
    if (g1 === 'extra-setter-project' && imp && a.resource === 'userextras' && a.subresource === 'project' && a.apiGroup === 'authentication.k8s.io') return allow;
    if (g0 === 'everything-impersonater' && imp && a.resource === 'users' && a.apiGroup === '') return allow;
    if (g0 === 'everything-impersonater' && imp && a.resource === 'uids' && a.name === 'some-uid' && a.apiGroup === 'authentication.k8s.io') return allow;
    if (g0 === 'everything-impersonater' && imp && a.resource === 'groups' && a.apiGroup === '') return allow;
    if (g0 === 'everything-impersonater' && imp && a.resource === 'userextras' && a.subresource === 'scopes' && a.apiGroup === 'authentication.k8s.io') return allow;
    return { decision: 'NoOpinion', reason: 'deny by default' };
  },
};

interface Case {
  name: string;
  user: UserInfo;
  impersonationUser?: string;
  impersonationGroups?: string[];
  impersonationUserExtras?: Record<string, string[]>;
  impersonationUid?: string;
  expectedUser: UserInfo;
  expectedCode: number;
}

// kube's expected users have Extra: map{} and UID "" where nothing was asked: here those fields are absent.
const cases: Case[] = [
  { name: 'not-impersonating', user: { username: 'tester' }, expectedUser: { username: 'tester' }, expectedCode: 200 },
  { name: 'impersonating-error', user: { username: 'tester' }, impersonationUser: 'anyone', expectedUser: { username: 'tester' }, expectedCode: 403 },
  { name: 'impersonating-group-without-user', user: { username: 'tester' }, impersonationGroups: ['some-group'], expectedUser: { username: 'tester' }, expectedCode: 400 },
  { name: 'impersonating-extra-without-user', user: { username: 'tester' }, impersonationUserExtras: { scopes: ['scope-a'] }, expectedUser: { username: 'tester' }, expectedCode: 400 },
  { name: 'impersonating-uid-without-user', user: { username: 'tester' }, impersonationUid: 'some-uid', expectedUser: { username: 'tester' }, expectedCode: 400 },
  {
    name: 'disallowed-group',
    user: { username: 'dev', groups: ['wheel'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    expectedUser: { username: 'dev', groups: ['wheel'] },
    expectedCode: 403,
  },
  {
    name: 'allowed-group',
    user: { username: 'dev', groups: ['wheel', 'group-impersonater'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    expectedUser: { username: 'system:admin', groups: ['some-group', 'system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'disallowed-userextra-1',
    user: { username: 'dev', groups: ['wheel'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    impersonationUserExtras: { scopes: ['scope-a'] },
    expectedUser: { username: 'dev', groups: ['wheel'] },
    expectedCode: 403,
  },
  {
    name: 'disallowed-userextra-2',
    user: { username: 'dev', groups: ['wheel', 'extra-setter-project'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    impersonationUserExtras: { scopes: ['scope-a'] },
    expectedUser: { username: 'dev', groups: ['wheel', 'extra-setter-project'] },
    expectedCode: 403,
  },
  {
    name: 'disallowed-userextra-3',
    user: { username: 'dev', groups: ['wheel', 'extra-setter-particular-scopes'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    impersonationUserExtras: { scopes: ['scope-a', 'scope-b'] },
    expectedUser: { username: 'dev', groups: ['wheel', 'extra-setter-particular-scopes'] },
    expectedCode: 403,
  },
  {
    name: 'allowed-userextras',
    user: { username: 'dev', groups: ['wheel', 'extra-setter-scopes'] },
    impersonationUser: 'system:admin',
    impersonationUserExtras: { scopes: ['scope-a', 'scope-b'] },
    expectedUser: { username: 'system:admin', groups: ['system:authenticated'], extra: { scopes: ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
  {
    name: 'percent-escaped-userextras',
    user: { username: 'dev', groups: ['wheel', 'escaped-scopes'] },
    impersonationUser: 'system:admin',
    impersonationUserExtras: { 'example.com%2fescaped%e1%9b%84scopes': ['scope-a', 'scope-b'] },
    expectedUser: { username: 'system:admin', groups: ['system:authenticated'], extra: { 'example.com/escapedᛄscopes': ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
  {
    name: 'almost-percent-escaped-userextras',
    user: { username: 'dev', groups: ['wheel', 'almost-escaped-scopes'] },
    impersonationUser: 'system:admin',
    impersonationUserExtras: { 'almost%zzpercent%xxencoded': ['scope-a', 'scope-b'] },
    expectedUser: { username: 'system:admin', groups: ['system:authenticated'], extra: { 'almost%zzpercent%xxencoded': ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
  {
    name: 'allowed-users-impersonation',
    user: { username: 'dev', groups: ['regular-impersonater'] },
    impersonationUser: 'tester',
    expectedUser: { username: 'tester', groups: ['system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'disallowed-impersonating',
    user: { username: 'dev', groups: ['sa-impersonater'] },
    impersonationUser: 'tester',
    expectedUser: { username: 'dev', groups: ['sa-impersonater'] },
    expectedCode: 403,
  },
  {
    name: 'allowed-sa-impersonating',
    user: { username: 'dev', groups: ['sa-impersonater'], extra: {} },
    impersonationUser: 'system:serviceaccount:foo:default',
    expectedUser: { username: 'system:serviceaccount:foo:default', groups: ['system:serviceaccounts', 'system:serviceaccounts:foo', 'system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'anonymous-username-prevents-adding-authenticated-group',
    user: { username: 'system:admin' },
    impersonationUser: 'system:anonymous',
    expectedUser: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'unauthenticated-group-prevents-adding-authenticated-group',
    user: { username: 'system:admin' },
    impersonationUser: 'unknown',
    impersonationGroups: ['system:unauthenticated'],
    expectedUser: { username: 'unknown', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'unauthenticated-group-prevents-double-adding-authenticated-group',
    user: { username: 'system:admin' },
    impersonationUser: 'unknown',
    impersonationGroups: ['system:authenticated'],
    expectedUser: { username: 'unknown', groups: ['system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'specified-authenticated-group-prevents-double-adding-authenticated-group',
    user: { username: 'dev', groups: ['wheel', 'group-impersonater'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group', 'system:authenticated'],
    expectedUser: { username: 'system:admin', groups: ['some-group', 'system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'anonymous-user-should-include-unauthenticated-group',
    user: { username: 'system:admin' },
    impersonationUser: 'system:anonymous',
    expectedUser: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'anonymous-user-prevents-double-adding-unauthenticated-group',
    user: { username: 'system:admin' },
    impersonationUser: 'system:anonymous',
    impersonationGroups: ['system:unauthenticated'],
    expectedUser: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'allowed-user-impersonation-with-uid',
    user: { username: 'dev', groups: ['everything-impersonater'] },
    impersonationUser: 'tester',
    impersonationUid: 'some-uid',
    expectedUser: { username: 'tester', groups: ['system:authenticated'], uid: 'some-uid' },
    expectedCode: 200,
  },
  {
    name: 'disallowed-user-impersonation-with-uid',
    user: { username: 'dev', groups: ['everything-impersonater'] },
    impersonationUser: 'tester',
    impersonationUid: 'disallowed-uid',
    expectedUser: { username: 'dev', groups: ['everything-impersonater'] },
    expectedCode: 403,
  },
  {
    name: 'allowed-impersonation-with-all-headers',
    user: { username: 'dev', groups: ['everything-impersonater'] },
    impersonationUser: 'tester',
    impersonationUid: 'some-uid',
    impersonationGroups: ['system:authenticated'],
    impersonationUserExtras: { scopes: ['scope-a', 'scope-b'] },
    expectedUser: { username: 'tester', groups: ['system:authenticated'], uid: 'some-uid', extra: { scopes: ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
];

/** The request headers as kube's test sets them (http.Header.Add), as raw name/value pairs. */
function rawHeaders(tc: Case): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (tc.impersonationUser) out.push(['Impersonate-User', tc.impersonationUser]);
  for (const g of tc.impersonationGroups ?? []) out.push(['Impersonate-Group', g]);
  for (const [k, vs] of Object.entries(tc.impersonationUserExtras ?? {})) for (const v of vs) out.push([`Impersonate-Extra-${k}`, v]);
  if (tc.impersonationUid) out.push(['Impersonate-Uid', tc.impersonationUid]);
  return out;
}

/** The filter alone in an express app: a stand-in authentication sets the user; the handler reports what it sees. */
async function withFilterServer<T>(authz: Authorizer, fn: (send: (user: UserInfo, headers: Array<[string, string]>) => Promise<{ code: number; body: Record<string, unknown> }>) => Promise<T>): Promise<T> {
  let current: UserInfo = { username: '' };
  const app = express();
  app.use((_req, res, next) => {
    res.locals['user'] = current;
    next();
  });
  app.use(impersonationFilter(authz));
  app.use((req, res) => {
    const left = Object.keys(req.headers).filter((h) => h.startsWith('impersonate-'));
    const leftRaw = req.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase().startsWith('impersonate-'));
    res.json({ user: res.locals['user'] as UserInfo, impersonatedUser: res.locals['impersonatedUser'] ?? null, left, leftRaw, other: req.headers['x-other'] ?? null });
  });
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  try {
    return await fn(async (user, headers) => {
      current = user;
      // an array value is sent as repeated header lines, as http.Header.Add does
      const grouped: Record<string, string[]> = {};
      for (const [k, v] of headers) (grouped[k] ??= []).push(v);
      const r = await new Promise<{ code: number; body: Record<string, unknown> }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/pods', headers: grouped, agent: false }, (res) => {
          let data = '';
          res.on('data', (d: Buffer) => (data += d.toString()));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body: (data.startsWith('{') ? JSON.parse(data) : { raw: data }) as Record<string, unknown> }));
        });
        req.on('error', reject);
        req.end();
      });
      return r;
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('TestImpersonationFilter (kube impersonation_test.go)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, tc) => {
    await withFilterServer(impersonateAuthorizer, async (send) => {
      const r = await send(tc.user, rawHeaders(tc));
      expect(r.code).toBe(tc.expectedCode);
      if (r.code !== 200) return;
      expect(r.body['user']).toEqual(tc.expectedUser);
      // kube's doNothingHandler: no Impersonate-* header is left for what comes after the filter
      expect(r.body['left']).toEqual([]);
      expect(r.body['leftRaw']).toEqual([]);
      expect(r.body['impersonatedUser']).toEqual(rawHeaders(tc).length ? tc.expectedUser : null);
    });
  });
});

describe("kube's texts", () => {
  const headers = (pairs: Array<[string, string]>): DistinctHeaders => {
    const out: Record<string, string[]> = {};
    for (const [k, v] of pairs) (out[k.toLowerCase()] ??= []).push(v);
    return out;
  };

  it.each<[string, Array<[string, string]>, string]>([
    ['a group', [['Impersonate-Group', 'some-group']], 'requested [{Group  some-group    }] without impersonating a user'],
    ['an extra', [['Impersonate-Extra-Scopes', 'scope-a']], 'requested [{UserExtra  scope-a  authentication.k8s.io/v1  scopes}] without impersonating a user'],
    ['a uid', [['Impersonate-Uid', 'some-uid']], 'requested [{UID  some-uid  authentication.k8s.io/v1  }] without impersonating a user'],
    [
      'groups, an extra and a uid, with an empty user',
      [
        ['Impersonate-User', ''],
        ['Impersonate-Group', 'a'],
        ['Impersonate-Group', 'b'],
        ['Impersonate-Extra-Foo%2FBar', 'x'],
        ['Impersonate-Uid', 'u'],
      ],
      'requested [{Group  a    } {Group  b    } {UserExtra  x  authentication.k8s.io/v1  foo/bar} {UID  u  authentication.k8s.io/v1  }] without impersonating a user',
    ],
  ])('refuses %s without a user with a 400 BadRequest (%%v of the ObjectReferences)', (_name, pairs, message) => {
    const r = buildImpersonationRequests(headers(pairs));
    expect(!r.ok && r.error.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  });

  it('passes a request with only an empty Impersonate-User through (http.Header.Get is "")', () => {
    expect(buildImpersonationRequests(headers([['Impersonate-User', '']]))).toEqual({ ok: true, requests: [] });
  });

  it('uses the first Impersonate-User and Impersonate-Uid, as http.Header.Get', () => {
    const r = buildImpersonationRequests(headers([['Impersonate-User', 'a'], ['Impersonate-User', 'b'], ['Impersonate-Uid', '1'], ['Impersonate-Uid', '2']]));
    expect(r.ok && r.requests.map((q) => `${q.kind}:${q.name}`)).toEqual(['User:a', 'UID:1']);
  });

  it.each<[string, { namespace: string; name: string } | undefined]>([
    ['system:serviceaccount:foo:default', { namespace: 'foo', name: 'default' }],
    ['system:serviceaccount:foo:my.sa', { namespace: 'foo', name: 'my.sa' }],
    ['system:serviceaccount:foo', undefined],
    ['system:serviceaccount:foo:bar:baz', undefined],
    ['system:serviceaccount:Foo:bar', undefined],
    ['system:serviceaccount:foo.bar:x', undefined],
    ['system:serviceaccount::x', undefined],
    ['system:serviceaccount:foo:', undefined],
    ['system:serviceaccounts:foo:bar', undefined],
  ])('splits %s as serviceaccount.SplitUsername', (username, want) => {
    expect(splitServiceAccountUsername(username)).toEqual(want);
  });

  it.each<[string, string]>([
    ['scopes', 'scopes'],
    ['example.com%2fescaped%e1%9b%84scopes', 'example.com/escapedᛄscopes'],
    ['almost%zzpercent%xxencoded', 'almost%zzpercent%xxencoded'],
    ['trailing%2', 'trailing%2'],
    ['plus+stays', 'plus+stays'],
    ['bad-utf8%ff', 'bad-utf8\ufffd'],
  ])('unescapes the extra key %s as url.PathUnescape', (encoded, key) => {
    expect(unescapeExtraKey(encoded)).toBe(key);
  });

  const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
  const deny = buildAuthorizer({ modes: ['AlwaysDeny'] });
  it.each<[string, Array<[string, string]>, string, object]>([
    ['a user', [['Impersonate-User', 'alice']], 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.', { name: 'alice', kind: 'users' }],
    [
      'a service account, in its namespace',
      [['Impersonate-User', 'system:serviceaccount:ns1:builder']],
      'serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1": Everything is forbidden.',
      { name: 'builder', kind: 'serviceaccounts' },
    ],
    [
      'the user before its extras (requests are authorized in order)',
      [['Impersonate-User', 'alice'], ['Impersonate-Extra-Scopes', 'view']],
      'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.',
      { name: 'alice', kind: 'users' },
    ],
    ['a name Go quotes', [['Impersonate-User', 'a"b']], 'users "a\\"b" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.', { name: 'a"b', kind: 'users' }],
  ])('denies %s with the Forbidden Status of responsewriters.Forbidden', (_name, pairs, message, details) => {
    const built = buildImpersonationRequests(headers(pairs));
    if (!built.ok) throw new Error('unexpected 400');
    const r = impersonate(bob, built.requests, false, deny);
    expect(!r.ok && r.error.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
  });

  it('authorizes groups, extras and the uid with their own resources and names, first refusal answering', () => {
    const seen: AuthorizationAttributes[] = [];
    const only = (stopAt: string): Authorizer => ({
      authorize: (a) => {
        seen.push(a);
        return a.resource === stopAt ? { decision: 'NoOpinion', reason: 'No policy matched.' } : { decision: 'Allow', reason: '' };
      },
    });
    const built = buildImpersonationRequests(headers([['Impersonate-User', 'alice'], ['Impersonate-Group', 'dev'], ['Impersonate-Extra-Scopes', 'view'], ['Impersonate-Uid', '42']]));
    if (!built.ok) throw new Error('unexpected 400');
    const r = impersonate(bob, built.requests, true, only('uids'));
    expect(seen.map((a) => [a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource ?? '', a.namespace, a.name])).toEqual([
      ['impersonate', '', '', 'users', '', '', 'alice'],
      ['impersonate', '', '', 'groups', '', '', 'dev'],
      ['impersonate', 'authentication.k8s.io', 'v1', 'userextras', 'scopes', '', 'view'],
      ['impersonate', 'authentication.k8s.io', 'v1', 'uids', '', '', '42'],
    ]);
    expect(!r.ok && r.error.status.message).toBe('uids.authentication.k8s.io "42" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: No policy matched.');
    const r2 = impersonate(bob, built.requests, true, only('userextras'));
    expect(!r2.ok && r2.error.status).toMatchObject({
      message: 'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope: No policy matched.',
      details: { name: 'view', group: 'authentication.k8s.io', kind: 'userextras' },
    });
  });

  it('lets system:masters impersonate under AlwaysDeny, and keeps groups sent for a service account', () => {
    const built = buildImpersonationRequests(headers([['Impersonate-User', 'system:serviceaccount:ns1:builder'], ['Impersonate-Group', 'ci']]));
    if (!built.ok) throw new Error('unexpected 400');
    expect(impersonate({ username: 'admin', groups: ['system:masters'] }, built.requests, true, deny)).toEqual({
      ok: true,
      user: { username: 'system:serviceaccount:ns1:builder', groups: ['ci', 'system:authenticated'] },
    });
  });
});

describe('the filter on the wire', () => {
  const admin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
  it('keeps repeated Impersonate-Group values apart (Node would join them with ", "), reads UTF-8 names, and leaves other headers', async () => {
    await withFilterServer(buildAuthorizer({ modes: ['AlwaysDeny'] }), async (send) => {
      const r = await send(admin, [
        ['Impersonate-User', Buffer.from('jöhn', 'utf8').toString('latin1')],
        ['Impersonate-Group', 'a, b'],
        ['Impersonate-Group', 'c'],
        ['Impersonate-Extra-Example.com%2Fteam', 'x'],
        ['X-Other', 'kept'],
      ]);
      expect(r).toEqual({
        code: 200,
        body: {
          user: { username: 'jöhn', groups: ['a, b', 'c', 'system:authenticated'], extra: { 'example.com/team': ['x'] } },
          impersonatedUser: { username: 'jöhn', groups: ['a, b', 'c', 'system:authenticated'], extra: { 'example.com/team': ['x'] } },
          left: [],
          leftRaw: [],
          other: 'kept',
        },
      });
    });
  });

  it('answers a refused impersonation with the 403 Status and does not go on', async () => {
    await withFilterServer(buildAuthorizer({ modes: ['AlwaysDeny'] }), async (send) => {
      const r = await send({ username: 'bob', groups: ['system:authenticated'] }, [['Impersonate-User', 'alice']]);
      expect(r).toEqual({
        code: 403,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.',
          reason: 'Forbidden',
          details: { name: 'alice', kind: 'users' },
          code: 403,
        },
      });
    });
  });
});
