import type { UserInfo } from '../api/types.js';
import { parseAbacPolicyFile } from './abac.js';
import { buildAuthorizer, type AuthorizationModeName } from './authorizer.js';
import { forbiddenError, forbiddenMessage } from './forbidden.js';
import type { AuthorizationAttributes, AuthorizationDecision } from './types.js';

const policy = parseAbacPolicyFile(
  JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'alice', namespace: 'default', resource: 'pods' } }),
  '/p',
);
if (!policy.ok) throw new Error(policy.error);

const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const admin: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const createPods = (user: UserInfo): AuthorizationAttributes => ({ user, verb: 'create', namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: 'pods', resourceRequest: true });

describe('the authorizer built from --authorization-mode', () => {
  it.each<[string, AuthorizationModeName[], UserInfo, AuthorizationDecision]>([
    ['AlwaysAllow allows', ['AlwaysAllow'], bob, { decision: 'Allow', reason: '' }],
    ['AlwaysDeny has no opinion, with its reason', ['AlwaysDeny'], bob, { decision: 'NoOpinion', reason: 'Everything is forbidden.' }],
    ['system:masters is allowed even under AlwaysDeny', ['AlwaysDeny'], admin, { decision: 'Allow', reason: '' }],
    ['ABAC allows a matching policy', ['ABAC'], alice, { decision: 'Allow', reason: '' }],
    ['ABAC has no opinion otherwise', ['ABAC'], bob, { decision: 'NoOpinion', reason: 'No policy matched.' }],
    ['a later mode may allow after a NoOpinion', ['AlwaysDeny', 'AlwaysAllow'], bob, { decision: 'Allow', reason: '' }],
    ['NoOpinion reasons are joined', ['ABAC', 'AlwaysDeny'], bob, { decision: 'NoOpinion', reason: 'No policy matched.\nEverything is forbidden.' }],
    ['the first Allow wins', ['ABAC', 'AlwaysDeny'], alice, { decision: 'Allow', reason: '' }],
  ])('%s', (_name, modes, user, expected) => {
    expect(buildAuthorizer({ modes, abacPolicies: policy.policies }).authorize(createPods(user))).toEqual(expected);
  });

  it('needs the policies for ABAC', () => {
    expect(() => buildAuthorizer({ modes: ['ABAC'] })).toThrow(/policy file/);
  });

  it.each<[string, AuthorizationModeName[], UserInfo, number, number]>([
    ['AlwaysAllow lists *', ['AlwaysAllow'], bob, 1, 1],
    ['AlwaysDeny lists nothing', ['AlwaysDeny'], bob, 0, 0],
    ['ABAC lists its policies', ['ABAC'], alice, 1, 0],
    ['system:masters gets * whatever the modes', ['AlwaysDeny'], admin, 1, 1],
  ])('rules: %s', (_name, modes, user, resourceRules, nonResourceRules) => {
    const r = buildAuthorizer({ modes, abacPolicies: policy.policies }).rulesFor(user, 'default');
    expect([r.resourceRules.length, r.nonResourceRules.length, r.incomplete]).toEqual([resourceRules, nonResourceRules, false]);
  });
});

describe('forbiddenMessage, as responsewriters.forbiddenMessage', () => {
  const base = { user: bob, apiGroup: '', apiVersion: 'v1', resourceRequest: true } as const;
  it.each<[string, AuthorizationAttributes, string]>([
    ['namespaced', { ...base, verb: 'create', resource: 'pods', namespace: 'default' }, 'User "bob" cannot create resource "pods" in API group "" in the namespace "default"'],
    ['cluster-scoped', { ...base, verb: 'list', resource: 'nodes' }, 'User "bob" cannot list resource "nodes" in API group "" at the cluster scope'],
    ['a subresource', { ...base, verb: 'update', resource: 'pods', subresource: 'status', namespace: 'ns', name: 'web' }, 'User "bob" cannot update resource "pods/status" in API group "" in the namespace "ns"'],
    ['a group', { ...base, verb: 'get', resource: 'deployments', apiGroup: 'apps', namespace: 'ns', name: 'd' }, 'User "bob" cannot get resource "deployments" in API group "apps" in the namespace "ns"'],
    ['a path', { user: bob, verb: 'get', path: '/metrics', resourceRequest: false }, 'User "bob" cannot get path "/metrics"'],
    ['HTML is escaped, quotes too', { user: { username: '<b>"x"&' }, verb: 'get', path: '/a', resourceRequest: false }, 'User "&lt;b&gt;\\"x\\"&amp;" cannot get path "/a"'],
  ])('%s', (_name, attrs, expected) => {
    expect(forbiddenMessage(attrs)).toBe(expected);
  });

  it.each<[string, AuthorizationAttributes, string, object]>([
    [
      'a named resource with the reason',
      { ...base, verb: 'get', resource: 'pods', namespace: 'default', name: 'web' },
      'pods "web" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "default": Everything is forbidden.',
      { name: 'web', kind: 'pods' },
    ],
    [
      'a collection in a group',
      { ...base, verb: 'list', resource: 'deployments', apiGroup: 'apps', namespace: 'ns' },
      'deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" in the namespace "ns": Everything is forbidden.',
      { group: 'apps', kind: 'deployments' },
    ],
    [
      'a subresource keeps the resource in the details',
      { ...base, verb: 'patch', resource: 'pods', subresource: 'status', namespace: 'ns', name: 'web' },
      'pods "web" is forbidden: User "bob" cannot patch resource "pods/status" in API group "" in the namespace "ns": Everything is forbidden.',
      { name: 'web', kind: 'pods' },
    ],
    ['a path', { user: bob, verb: 'get', path: '/metrics', resourceRequest: false }, 'forbidden: User "bob" cannot get path "/metrics": Everything is forbidden.', {}],
  ])('the 403 Status for %s', (_name, attrs, message, details) => {
    expect(forbiddenError(attrs, 'Everything is forbidden.').status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Forbidden',
      details,
      code: 403,
    });
  });

  it('leaves the reason out when there is none', () => {
    expect(forbiddenError({ user: bob, verb: 'get', path: '/x', resourceRequest: false }, '').status.message).toBe('forbidden: User "bob" cannot get path "/x"');
  });
});
