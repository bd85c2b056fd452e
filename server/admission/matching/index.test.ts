import type { MatchPolicyType, RuleWithOperations, ValidatingWebhook, WebhookAccessor } from '../../api/admissionregistration.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../../api/types.js';
import { newReinvocationContext, type AdmissionAttributes } from '../attributes.js';
import { newEquivalentResourceMapper } from './equivalence.js';
import { createWebhookMatcher, evaluateWebhookMatch, matchWebhook } from './index.js';
import type { MatchContext } from './types.js';

function accessor(hook: Partial<ValidatingWebhook>, source: 'api' | 'static' = 'api'): WebhookAccessor {
  const webhook: ValidatingWebhook = {
    name: 'check.example.com',
    clientConfig: { url: 'https://127.0.0.1/check' },
    rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    ...hook,
  };
  return { uid: `cfg/${webhook.name}/0`, kind: 'validating', source, configurationName: 'cfg', webhook };
}

interface Req {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  subresource?: string;
  operation?: AdmissionAttributes['operation'];
  namespace?: string;
  name?: string;
  object?: KubeObject;
  oldObject?: KubeObject;
}

function attrs(r: Req): AdmissionAttributes {
  return {
    operation: r.operation ?? 'CREATE',
    kind: r.kind,
    resource: r.resource,
    subresource: r.subresource ?? '',
    name: r.name ?? 'obj',
    namespace: r.namespace ?? '',
    object: 'object' in r ? r.object : { metadata: { name: r.name ?? 'obj', labels: {} } },
    oldObject: r.oldObject,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    dryRun: false,
    userInfo: { username: 'alice' },
    annotations: {},
    warnings: [],
    reinvocation: newReinvocationContext(),
  };
}

const gvr = (group: string, version: string, resource: string): GroupVersionResource => ({ group, version, resource });
const gvk = (group: string, version: string, kind: string): GroupVersionKind => ({ group, version, kind });

const pod = (over: Partial<Req> = {}): AdmissionAttributes => attrs({ resource: gvr('', 'v1', 'pods'), kind: gvk('', 'v1', 'Pod'), namespace: 'team-a', ...over });
const deployment = (over: Partial<Req> = {}): AdmissionAttributes =>
  attrs({ resource: gvr('apps', 'v1', 'deployments'), kind: gvk('apps', 'v1', 'Deployment'), namespace: 'team-a', ...over });
const ctx = (over: Partial<MatchContext> = {}): MatchContext => ({ namespaceLabels: { 'kubernetes.io/metadata.name': 'team-a' }, excludeVirtualResources: true, ...over });
const rule = (apiGroups: string[], apiVersions: string[], resources: string[], operations: RuleWithOperations['operations'] = ['*']): RuleWithOperations => ({
  operations,
  apiGroups,
  apiVersions,
  resources,
  scope: '*',
});

describe('matchWebhook: requests webhooks never see', () => {
  const configKinds: Array<[string, string]> = [
    ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'],
    ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'],
    ['validatingadmissionpolicies', 'ValidatingAdmissionPolicy'],
    ['validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding'],
    ['mutatingadmissionpolicies', 'MutatingAdmissionPolicy'],
    ['mutatingadmissionpolicybindings', 'MutatingAdmissionPolicyBinding'],
  ];

  it.each(configKinds)('does not call REST-registered webhooks for %s', (resource, kind) => {
    const a = attrs({ resource: gvr('admissionregistration.k8s.io', 'v1', resource), kind: gvk('admissionregistration.k8s.io', 'v1', kind) });
    expect(matchWebhook(accessor({}), a, ctx())).toEqual({ matches: false });
  });

  it.each(configKinds)('calls static webhooks for %s', (resource, kind) => {
    const a = attrs({ resource: gvr('admissionregistration.k8s.io', 'v1', resource), kind: gvk('admissionregistration.k8s.io', 'v1', kind) });
    expect(matchWebhook(accessor({}, 'static'), a, ctx())).toMatchObject({ matches: true });
  });

  it('exempts the status subresource of a policy too (kube decides by kind)', () => {
    const a = attrs({ resource: gvr('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies'), subresource: 'status', kind: gvk('admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy'), operation: 'UPDATE' });
    expect(matchWebhook(accessor({}), a, ctx())).toEqual({ matches: false });
  });

  const virtual: Array<[string, string, string, string]> = [
    ['authentication.k8s.io', 'tokenreviews', 'TokenReview', ''],
    ['authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview', ''],
    ['authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview', ''],
    ['authorization.k8s.io', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', 'team-a'],
    ['authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', ''],
    ['authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', ''],
  ];

  it.each(virtual)('skips %s %s for every webhook when ExcludeAdmissionWebhookVirtualResources is on', (group, resource, kind, namespace) => {
    const a = attrs({ resource: gvr(group, 'v1', resource), kind: gvk(group, 'v1', kind), namespace });
    expect(matchWebhook(accessor({}), a, ctx())).toEqual({ matches: false });
    expect(matchWebhook(accessor({}, 'static'), a, ctx())).toEqual({ matches: false });
  });

  it.each(virtual)('calls webhooks for %s %s when the gate is off', (group, resource, kind, namespace) => {
    const a = attrs({ resource: gvr(group, 'v1', resource), kind: gvk(group, 'v1', kind), namespace });
    expect(matchWebhook(accessor({}), a, ctx({ excludeVirtualResources: false }))).toMatchObject({ matches: true });
  });

  it('excludes the resources it is told to', () => {
    const matcher = createWebhookMatcher({ excludedResources: [{ group: '', resource: 'pods' }] });
    expect(matcher(accessor({}), pod(), ctx())).toEqual({ matches: false });
    expect(matcher(accessor({}), pod({ subresource: 'status', operation: 'UPDATE' }), ctx())).toEqual({ matches: false });
  });
});

describe('matchWebhook: rules, selectors and their errors', () => {
  it('calls a matching webhook with the request\'s own resource and kind', () => {
    const r = matchWebhook(accessor({ rules: [rule([''], ['v1'], ['pods'], ['CREATE'])] }), pod(), ctx());
    expect(r).toEqual({ matches: true, invocation: { resource: gvr('', 'v1', 'pods'), subresource: '', kind: gvk('', 'v1', 'Pod') } });
  });

  it.each([
    ['another operation', rule([''], ['v1'], ['pods'], ['UPDATE'])],
    ['another resource', rule([''], ['v1'], ['configmaps'])],
    ['the subresource only', rule([''], ['v1'], ['pods/status'])],
    ['another version, with no equivalent', rule([''], ['v2'], ['pods'])],
  ])('skips a webhook whose rules select %s', (_name, r) => {
    expect(matchWebhook(accessor({ rules: [r] }), pod(), ctx())).toEqual({ matches: false });
  });

  it('skips a webhook without rules', () => {
    expect(matchWebhook(accessor({ rules: [] }), pod(), ctx())).toEqual({ matches: false });
  });

  it('skips a webhook whose namespaceSelector does not match', () => {
    const hook = accessor({ namespaceSelector: { matchLabels: { env: 'prod' } } });
    expect(matchWebhook(hook, pod(), ctx({ namespaceLabels: { env: 'dev' } }))).toEqual({ matches: false });
    expect(matchWebhook(hook, pod(), ctx({ namespaceLabels: { env: 'prod' } }))).toMatchObject({ matches: true });
  });

  it('applies namespaceSelector to a Namespace object through its own labels', () => {
    const hook = accessor({ namespaceSelector: { matchExpressions: [{ key: 'skip-webhook-admission', operator: 'NotIn', values: ['yes'] }] } });
    const ns = (labels: Record<string, string>) => attrs({ resource: gvr('', 'v1', 'namespaces'), kind: gvk('', 'v1', 'Namespace'), name: 'team-b', object: { metadata: { name: 'team-b', labels } } });
    expect(matchWebhook(hook, ns({ 'skip-webhook-admission': 'yes' }), ctx({ namespaceLabels: undefined }))).toEqual({ matches: false });
    expect(matchWebhook(hook, ns({}), ctx({ namespaceLabels: undefined }))).toMatchObject({ matches: true });
  });

  it('ignores namespaceSelector for cluster-scoped resources', () => {
    const hook = accessor({ namespaceSelector: { matchLabels: { env: 'prod' } } });
    const a = attrs({ resource: gvr('rbac.authorization.k8s.io', 'v1', 'clusterroles'), kind: gvk('rbac.authorization.k8s.io', 'v1', 'ClusterRole') });
    expect(matchWebhook(hook, a, ctx({ namespaceLabels: undefined }))).toMatchObject({ matches: true });
  });

  it('skips a webhook whose objectSelector matches neither object', () => {
    const hook = accessor({ objectSelector: { matchLabels: { check: 'yes' } } });
    expect(matchWebhook(hook, pod(), ctx())).toEqual({ matches: false });
    expect(matchWebhook(hook, pod({ operation: 'UPDATE', oldObject: { metadata: { labels: { check: 'yes' } } } }), ctx())).toMatchObject({ matches: true });
  });

  it('fails with 404 when the namespace is missing and the rules select the request', () => {
    const hook = accessor({ namespaceSelector: { matchLabels: { env: 'prod' } } });
    expect(evaluateWebhookMatch(hook, pod(), ctx({ namespaceLabels: undefined }))).toEqual({
      matches: false,
      error: { code: 404, reason: 'NotFound', message: 'namespaces "team-a" not found' },
    });
    expect(matchWebhook(hook, pod(), ctx({ namespaceLabels: undefined }))).toEqual({ matches: false, error: 'namespaces "team-a" not found' });
  });

  it('does not fail requests the webhook does not apply to, whatever its selectors', () => {
    const hook = accessor({ rules: [rule([''], ['v1'], ['configmaps'])], namespaceSelector: { matchLabels: { env: 'prod' } }, objectSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } });
    expect(matchWebhook(hook, pod(), ctx({ namespaceLabels: undefined }))).toEqual({ matches: false });
  });

  it('fails with 500 for an objectSelector that does not convert', () => {
    const hook = accessor({ objectSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } });
    expect(evaluateWebhookMatch(hook, pod(), ctx())).toEqual({
      matches: false,
      error: { code: 500, reason: 'InternalError', message: 'Internal error occurred: "Bad" is not a valid label selector operator' },
    });
  });

  it('reports the namespace error before the object selector error, as kube does', () => {
    const hook = accessor({ namespaceSelector: { matchLabels: { env: 'prod' } }, objectSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } });
    expect(evaluateWebhookMatch(hook, pod(), ctx({ namespaceLabels: undefined }))).toMatchObject({ error: { code: 404 } });
  });

  it('never evaluates a selector error for a namespace selector that simply does not match', () => {
    const hook = accessor({ namespaceSelector: { matchLabels: { env: 'prod' } }, objectSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } });
    expect(evaluateWebhookMatch(hook, pod(), ctx({ namespaceLabels: { env: 'dev' } }))).toEqual({ matches: false });
  });
});

describe('matchWebhook: matchPolicy', () => {
  const v1beta1Deployments = rule(['apps'], ['v1beta1'], ['deployments']);

  it('with Equivalent, calls a webhook registered for another version of the resource, as that version', () => {
    const r = matchWebhook(accessor({ rules: [v1beta1Deployments] }), deployment(), ctx());
    expect(r).toEqual({ matches: true, invocation: { resource: gvr('apps', 'v1beta1', 'deployments'), subresource: '', kind: gvk('apps', 'v1beta1', 'Deployment') } });
  });

  it('with Exact, does not', () => {
    expect(matchWebhook(accessor({ rules: [v1beta1Deployments], matchPolicy: 'Exact' }), deployment(), ctx())).toEqual({ matches: false });
  });

  it('takes an absent matchPolicy as the v1 default, Equivalent', () => {
    const hook = accessor({ rules: [v1beta1Deployments] });
    delete (hook.webhook as { matchPolicy?: MatchPolicyType }).matchPolicy;
    expect(matchWebhook(hook, deployment(), ctx())).toMatchObject({ matches: true });
  });

  it('matches subresources through the equivalent subresource, with its kind', () => {
    const r = matchWebhook(accessor({ rules: [rule(['extensions'], ['v1beta1'], ['deployments/scale'])] }), deployment({ subresource: 'scale', operation: 'UPDATE', kind: gvk('autoscaling', 'v1', 'Scale') }), ctx());
    expect(r).toEqual({ matches: true, invocation: { resource: gvr('extensions', 'v1beta1', 'deployments'), subresource: 'scale', kind: gvk('extensions', 'v1beta1', 'Scale') } });
  });

  it('prefers a direct match in a later rule over an equivalent match in an earlier one', () => {
    const r = matchWebhook(accessor({ rules: [v1beta1Deployments, rule(['apps'], ['v1'], ['deployments'])] }), deployment(), ctx());
    expect(r).toMatchObject({ invocation: { resource: gvr('apps', 'v1', 'deployments') } });
  });

  it('honours earlier rules first among equivalents', () => {
    const r = matchWebhook(accessor({ rules: [rule(['apps'], ['v1beta2'], ['deployments']), rule(['extensions'], ['v1beta1'], ['deployments'])] }), deployment(), ctx());
    expect(r).toMatchObject({ invocation: { resource: gvr('apps', 'v1beta2', 'deployments') } });
  });

  it('within one rule, takes the equivalents in registration order', () => {
    const r = matchWebhook(accessor({ rules: [rule(['apps', 'extensions'], ['v1beta1'], ['deployments'])] }), deployment(), ctx());
    expect(r).toMatchObject({ invocation: { resource: gvr('extensions', 'v1beta1', 'deployments'), kind: gvk('extensions', 'v1beta1', 'Deployment') } });
  });

  it('does not match resources with no equivalents', () => {
    expect(matchWebhook(accessor({ rules: [rule([''], ['v1beta1'], ['pods'])] }), pod(), ctx())).toEqual({ matches: false });
  });

  it('fails with 500 when an equivalent resource has no kind', () => {
    const mapper = newEquivalentResourceMapper([
      [
        { resource: gvr('apps', 'v1', 'deployments'), subresource: '', kind: gvk('apps', 'v1', 'Deployment') },
        { resource: gvr('apps', 'v1beta1', 'deployments'), subresource: '', kind: gvk('apps', 'v1beta1', 'Deployment') },
      ],
    ]);
    const broken = { equivalentResourcesFor: mapper.equivalentResourcesFor, kindFor: () => undefined };
    expect(evaluateWebhookMatch(accessor({ rules: [v1beta1Deployments] }), deployment(), ctx(), { equivalentResources: broken })).toEqual({
      matches: false,
      error: { code: 500, reason: 'InternalError', message: 'Internal error occurred: unable to convert to apps/v1beta1, Resource=deployments: unknown kind' },
    });
  });

  it('uses the scope of the equivalent resource and the request\'s namespace', () => {
    const hook = accessor({ rules: [{ ...v1beta1Deployments, scope: 'Cluster' }] });
    expect(matchWebhook(hook, deployment(), ctx())).toEqual({ matches: false });
  });
});
