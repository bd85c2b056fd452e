import type { UserInfo } from '../api/types.js';
import { parseAbacPolicyFile } from './abac.js';
import { buildAuthorizer } from './authorizer.js';
import {
  answerLocalSubjectAccessReview,
  answerSelfSubjectAccessReview,
  answerSelfSubjectRulesReview,
  answerSubjectAccessReview,
} from './reviews.js';

const policy = parseAbacPolicyFile(
  [
    { user: 'alice', namespace: 'default', resource: 'pods' },
    { group: 'readers', namespace: '*', resource: '*', apiGroup: '*', readonly: true },
    // kube's RulesFor lists a non-resource policy only when its namespace is * (or the one asked about)
    { user: 'alice', namespace: '*', nonResourcePath: '/healthz/*', readonly: true },
  ]
    .map((spec) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec }))
    .join('\n'),
  '/p',
);
if (!policy.ok) throw new Error(policy.error);
const authorizer = buildAuthorizer({ modes: ['ABAC', 'AlwaysDeny'], abacPolicies: policy.policies });

const sar = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec, ...extra });
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

describe('SubjectAccessReview', () => {
  it.each<[string, Record<string, unknown>, object]>([
    ['allowed by a policy', { user: 'alice', resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } }, { allowed: true }],
    [
      'not allowed: the joined reasons',
      { user: 'alice', resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'other' } },
      { allowed: false, reason: 'No policy matched.\nEverything is forbidden.' },
    ],
    ['a group grants read access', { user: 'x', groups: ['readers'], resourceAttributes: { verb: 'list', group: 'apps', resource: 'deployments', namespace: 'a' } }, { allowed: true }],
    ['groups alone are a subject', { groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } }, { allowed: true }],
    ['a non-resource path', { user: 'alice', nonResourceAttributes: { verb: 'get', path: '/healthz/etcd' } }, { allowed: true }],
  ])('%s', (_name, spec, status) => {
    const r = answerSubjectAccessReview(sar(spec), { authorizer });
    expect(r.ok && r.review.status).toEqual(status);
    expect(r.ok && r.review.spec).toEqual(spec);
    expect(r.ok && r.review.kind).toBe('SubjectAccessReview');
  });

  it('drops metadata.namespace as the create handler does for a cluster-scoped resource', () => {
    const r = answerSubjectAccessReview(sar({ user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } }, { metadata: { namespace: 'x', creationTimestamp: null } }), { authorizer });
    expect(r.ok).toBe(true);
  });

  it.each<[string, unknown, string]>([
    [
      'an empty spec',
      sar({}),
      '.authorization.k8s.io "" is invalid: [spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    ],
    [
      'both kinds of attributes',
      sar({ user: 'a', resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/x', verb: 'get' } }),
      '.authorization.k8s.io "" is invalid: spec: Invalid value: {"path":"/x","verb":"get"}: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ],
    ['a named object', sar({ user: 'a', resourceAttributes: { verb: 'get' } }, { metadata: { name: 'x' } }), '.authorization.k8s.io "" is invalid: metadata: Invalid value: {"name":"x"}: must be empty'],
    [
      'a field selector with neither form',
      sar({ user: 'a', resourceAttributes: { verb: 'list', resource: 'pods', fieldSelector: {} } }),
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
    ],
    [
      'allowed and denied in the request status',
      sar({ user: 'a', resourceAttributes: { verb: 'get' } }, { status: { allowed: true, denied: true } }),
      '.authorization.k8s.io "" is invalid: status: Invalid value: {"allowed":true,"denied":true}: allowed and denied are mutually exclusive',
    ],
  ])('rejects %s with a 422', (_name, body, message) => {
    const r = answerSubjectAccessReview(body, { authorizer });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.status).toMatchObject({ code: 422, reason: 'Invalid', message, details: { group: 'authorization.k8s.io' } });
  });

  it('rejects a wrongly typed field with the decoder 400', () => {
    const r = answerSubjectAccessReview(sar({ user: 'a', resourceAttributes: { verb: 1 } }), { authorizer });
    expect(!r.ok && r.error.status).toMatchObject({
      code: 400,
      message: 'SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal number into Go struct field ResourceAttributes.spec.resourceAttributes.verb of type string',
    });
  });
});

describe('LocalSubjectAccessReview', () => {
  const lsar = (spec: Record<string, unknown>, metadata?: Record<string, unknown>) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'LocalSubjectAccessReview',
    ...(metadata ? { metadata } : {}),
    spec,
  });

  it('takes the namespace from the URL', () => {
    const r = answerLocalSubjectAccessReview(lsar({ user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } }), { authorizer, namespace: 'default' });
    expect(r.ok && r.review).toMatchObject({ kind: 'LocalSubjectAccessReview', metadata: { namespace: 'default' }, status: { allowed: true } });
  });

  it.each<[string, unknown, string, number, string]>([
    ['a metadata.namespace that differs from the URL', lsar({ user: 'a', resourceAttributes: { namespace: 'b' } }, { namespace: 'b' }), 'a', 400, 'the namespace of the provided object does not match the namespace sent on the request'],
    [
      'resourceAttributes.namespace that differs',
      lsar({ user: 'a', resourceAttributes: { verb: 'get', namespace: 'other' } }),
      'default',
      422,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
    ],
    [
      'non-resource attributes',
      lsar({ user: 'a', nonResourceAttributes: { verb: 'get', path: '/x' } }),
      'default',
      422,
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: {"path":"/x","verb":"get"}: disallowed on this kind of request',
    ],
    ['other metadata', lsar({ user: 'a', resourceAttributes: { namespace: 'default' } }, { labels: { a: 'b' } }), 'default', 422, '.authorization.k8s.io "" is invalid: metadata: Invalid value: {"labels":{"a":"b"},"namespace":"default"}: must be empty except for namespace'],
  ])('rejects %s', (_name, body, namespace, code, message) => {
    const r = answerLocalSubjectAccessReview(body, { authorizer, namespace });
    expect(!r.ok && r.error.status).toMatchObject({ code, message });
  });
});

describe('SelfSubjectAccessReview', () => {
  const ssar = (spec: Record<string, unknown>) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec });

  it.each<[string, UserInfo, Record<string, unknown>, object]>([
    ['asks about the requester', alice, { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } }, { allowed: true }],
    ['ignores a user in the spec', { username: 'bob' }, { user: 'alice', resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } }, { allowed: false, reason: 'No policy matched.\nEverything is forbidden.' }],
    ['system:masters may', { username: 'root', groups: ['system:masters'] }, { nonResourceAttributes: { verb: 'get', path: '/metrics' } }, { allowed: true }],
  ])('%s', (_name, user, spec, status) => {
    const r = answerSelfSubjectAccessReview(ssar(spec), { authorizer, user });
    expect(r.ok && r.review.status).toEqual(status);
  });

  it('does not need a user or groups in the spec, but one kind of attributes', () => {
    const r = answerSelfSubjectAccessReview(ssar({}), { authorizer, user: alice });
    expect(!r.ok && r.error.status.message).toBe('.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified');
  });
});

describe('SelfSubjectRulesReview', () => {
  const ssrr = (namespace?: string) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: namespace === undefined ? {} : { namespace } });

  it('lists the ABAC rules of the requester', () => {
    const r = answerSelfSubjectRulesReview(ssrr('default'), { resolver: authorizer, user: alice });
    expect(r.ok && r.review).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }],
        nonResourceRules: [{ verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/healthz/*'] }],
        incomplete: false,
      },
    });
  });

  it('lists * under AlwaysAllow', () => {
    const r = answerSelfSubjectRulesReview(ssrr('x'), { resolver: buildAuthorizer({ modes: ['AlwaysAllow'] }), user: { username: 'anyone' } });
    expect(r.ok && r.review.status).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });

  it('needs a namespace', () => {
    const r = answerSelfSubjectRulesReview(ssrr(), { resolver: authorizer, user: alice });
    expect(!r.ok && r.error.status).toMatchObject({ code: 400, message: 'no namespace on request' });
  });
});
