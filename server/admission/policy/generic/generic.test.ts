import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../api/admissionregistration.js';
import type { KubeObject } from '../../../api/types.js';
import { kubernetesCelEnvironment } from '../../cel/kubernetes.js';
import { staticSnapshotSource, type ConfigurationSource } from '../../sources/source.js';
import { bindingItemsOf, compositePolicySources, policyItemsOf } from '../sources.js';
import { configMapParam, deploymentAttributes, getNamespace, memoryParamLookup, namespaces, vap, vapb } from '../test-fixtures.js';
import { compileSlot, compileVariables, evaluatePass, outOfBudgetMessage, type Activation } from './expressions.js';
import { buildPolicyHooks, PolicyHookSource } from './hooks.js';
import { evaluateMatchConditions } from './match-conditions.js';
import { bindingMatches, definitionMatches, type PolicyMatchContext } from './matching.js';
import { collectParams, paramsNotFoundMessage } from './params.js';
import { admissionRequestFor, namespaceNameFor, namespaceObjectFor } from './request.js';
import { policyScopeOf, RequestNamespace, waitUntilSynced } from './scope.js';

const cel = kubernetesCelEnvironment();
const params = memoryParamLookup([
  configMapParam('limits', 'team-a', { max: '3' }, { tier: 'gold' }),
  configMapParam('other', 'team-a', { max: '5' }, { tier: 'silver' }),
  configMapParam('limits', 'team-b', { max: '7' }),
  { apiVersion: 'example.com/v1', kind: 'ClusterParam', metadata: { name: 'global' }, spec: { max: 9 } },
]);

const matchCtx = (labels: Record<string, string> = { env: 'prod' }): PolicyMatchContext => ({ namespaceLabels: async () => labels });
const missingNamespace: PolicyMatchContext = { namespaceLabels: async () => undefined };
const constraints = (over: Partial<MatchResources> = {}): MatchResources => ({
  matchPolicy: 'Equivalent',
  namespaceSelector: {},
  objectSelector: {},
  resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'], scope: '*' }],
  ...over,
});

describe('pairing policies with their bindings', () => {
  const items = (policies: ValidatingAdmissionPolicy[], source: 'api' | 'static' = 'api') => policies.flatMap((p) => policyItemsOf<ValidatingAdmissionPolicy>(p, source));
  const bitems = (bindings: ValidatingAdmissionPolicyBinding[], source: 'api' | 'static' = 'api') => bindings.flatMap((b) => bindingItemsOf<ValidatingAdmissionPolicyBinding>(b, source));
  const opts = { compile: (p: ValidatingAdmissionPolicy) => p.metadata?.name, paramKindOf: (p: ValidatingAdmissionPolicy) => p.spec?.paramKind, params };

  it('makes a hook of every policy with bindings; bindings of missing policies are skipped', () => {
    const hooks = buildPolicyHooks(items([vap('a'), vap('b'), vap('c')]), bitems([vapb('a1', 'a'), vapb('c1', 'c'), vapb('a2', 'a'), vapb('x1', 'x')]), opts);
    expect(hooks.map((h) => [h.policy.name, h.bindings.map((b) => b.name), h.evaluator])).toEqual([
      ['a', ['a1', 'a2'], 'a'],
      ['c', ['c1'], 'c'],
    ]);
  });

  it('pairs static and API configurations among themselves, static first', () => {
    const hooks = buildPolicyHooks(
      [...items([vap('p.static.k8s.io')], 'static'), ...items([vap('p.static.k8s.io'), vap('q')])],
      [...bitems([vapb('api-binding', 'p.static.k8s.io'), vapb('q1', 'q')]), ...bitems([vapb('static-binding', 'p.static.k8s.io')], 'static')],
      opts,
    );
    expect(hooks.map((h) => [h.policy.source, h.policy.name, h.bindings.map((b) => b.name)])).toEqual([
      ['static', 'p.static.k8s.io', ['static-binding']],
      ['api', 'p.static.k8s.io', ['api-binding']],
      ['api', 'q', ['q1']],
    ]);
  });

  it('carries kube\'s configuration error for a paramKind this server does not serve', () => {
    const [hook] = buildPolicyHooks(items([vap('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' } })]), bitems([vapb('b', 'p')]), opts);
    expect(hook!.configurationError).toBe("failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'");
    const [ok] = buildPolicyHooks(items([vap('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } })]), bitems([vapb('b', 'p')]), opts);
    expect(ok!.paramResource).toEqual({ resource: { group: '', version: 'v1', resource: 'configmaps' }, kind: { group: '', version: 'v1', kind: 'ConfigMap' }, namespaced: true });
  });

  it('compiles each policy version once and rebuilds hooks only when a source changed', () => {
    let compiled = 0;
    let snapshot = { generation: 1, items: items([vap('a')]) };
    const policies: ConfigurationSource<ReturnType<typeof items>[number]> = { snapshot: () => snapshot, hasSynced: () => true };
    const source = new PolicyHookSource({ policies, bindings: staticSnapshotSource(bitems([vapb('a1', 'a')])) }, { ...opts, compile: () => ++compiled });
    const first = source.hooks();
    expect(source.hooks()).toBe(first);
    // same spec, new snapshot (e.g. a label changed): no recompilation
    snapshot = { generation: 2, items: items([{ ...vap('a'), metadata: { name: 'a', labels: { x: 'y' } } }]) };
    expect(source.hooks()).not.toBe(first);
    expect(compiled).toBe(1);
    snapshot = { generation: 3, items: items([vap('a', { failurePolicy: 'Ignore' })]) };
    source.hooks();
    expect(compiled).toBe(2);
  });

  it('composes static sources before API sources', () => {
    const composite = compositePolicySources(
      { policies: staticSnapshotSource(items([vap('s.static.k8s.io')], 'static')), bindings: staticSnapshotSource(bitems([], 'static')) },
      { policies: staticSnapshotSource(items([vap('a')])), bindings: staticSnapshotSource(bitems([])) },
    );
    expect(composite.policies.snapshot().items.map((i) => i.name)).toEqual(['s.static.k8s.io', 'a']);
  });
});

describe('matching a request', () => {
  const attrs = deploymentAttributes();

  it.each<[string, Partial<MatchResources>, boolean]>([
    ['resourceRules select the request', {}, true],
    ['empty resourceRules select everything', { resourceRules: [] }, true],
    ['excludeResourceRules win', { excludeResourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['deployments'], operations: ['*'] }] }, false],
    ['resourceNames name the object', { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'], resourceNames: ['web'] }] }, true],
    ['other resourceNames do not', { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'], resourceNames: ['api'] }] }, false],
    ['the operation must match', { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['DELETE'] }] }, false],
    ['namespaceSelector on the namespace labels', { namespaceSelector: { matchLabels: { env: 'prod' } } }, true],
    ['namespaceSelector not matching', { namespaceSelector: { matchLabels: { env: 'dev' } } }, false],
    ['objectSelector on the object labels', { objectSelector: { matchLabels: { app: 'nginx' } } }, true],
    ['objectSelector not matching', { objectSelector: { matchLabels: { app: 'other' } } }, false],
  ])('%s', async (_name, over, expected) => {
    expect((await definitionMatches(constraints(over), attrs, matchCtx())).matches).toBe(expected);
  });

  it('matches an equivalent resource under Equivalent, and tells which', async () => {
    const rule = [{ apiGroups: ['extensions'], apiVersions: ['v1beta1'], resources: ['deployments'], operations: ['CREATE' as const] }];
    const m = await definitionMatches(constraints({ resourceRules: rule }), attrs, matchCtx());
    expect(m).toEqual({ matches: true, resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' }, kind: { group: 'extensions', version: 'v1beta1', kind: 'Deployment' } });
    expect((await definitionMatches(constraints({ resourceRules: rule, matchPolicy: 'Exact' }), attrs, matchCtx())).matches).toBe(false);
  });

  it('answers kube\'s errors for a missing namespace or constraints, only when the rules select the request', async () => {
    const selecting = constraints({ namespaceSelector: { matchLabels: { env: 'prod' } } });
    expect(await definitionMatches(selecting, attrs, missingNamespace)).toEqual({ matches: false, error: { code: 404, reason: 'NotFound', message: 'namespaces "team-a" not found' } });
    const other = { ...selecting, resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE' as const] }] };
    expect(await definitionMatches(other, attrs, missingNamespace)).toEqual({ matches: false });
    expect(await definitionMatches(undefined, attrs, matchCtx())).toMatchObject({ error: { message: 'policy contained no match constraints, a required field' } });
  });

  it('does not look the namespace up when no selector needs it', async () => {
    let lookups = 0;
    await definitionMatches(constraints(), attrs, { namespaceLabels: async () => (lookups++, {}) });
    expect(lookups).toBe(0);
  });

  it('lets a binding without matchResources match, and narrows with matchResources', async () => {
    expect(await bindingMatches(undefined, attrs, matchCtx())).toEqual({ matches: true });
    expect(await bindingMatches({ namespaceSelector: { matchLabels: { env: 'dev' } } }, attrs, matchCtx())).toEqual({ matches: false });
    expect(await bindingMatches({ namespaceSelector: { matchLabels: { env: 'prod' } } }, attrs, matchCtx())).toEqual({ matches: true });
  });
});

describe('collecting params', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap' };
  const cmResource = params.resolve({ group: '', version: 'v1', kind: 'ConfigMap' });
  const clusterResource = params.resolve({ group: 'example.com', version: 'v1', kind: 'ClusterParam' });
  const names = (r: Awaited<ReturnType<typeof collectParams>>) => (r.ok ? r.params.map((p) => p && `${p.metadata?.namespace ?? ''}/${p.metadata?.name}`) : r.error);

  it.each<[string, Parameters<typeof collectParams>[2], string, unknown]>([
    ['no paramRef: one evaluation with null params', undefined, 'team-a', [null]],
    ['by name, in the request\'s namespace', { name: 'limits', parameterNotFoundAction: 'Deny' }, 'team-a', ['team-a/limits']],
    ['by name, in paramRef.namespace', { name: 'limits', namespace: 'team-b', parameterNotFoundAction: 'Deny' }, 'team-a', ['team-b/limits']],
    ['by selector, each selected object', { selector: {}, parameterNotFoundAction: 'Deny' }, 'team-a', ['team-a/limits', 'team-a/other']],
    ['by selector with labels', { selector: { matchLabels: { tier: 'gold' } }, parameterNotFoundAction: 'Deny' }, 'team-a', ['team-a/limits']],
    ['not found, Allow: no evaluation', { name: 'missing', parameterNotFoundAction: 'Allow' }, 'team-a', []],
    ['not found, Deny: kube\'s error', { name: 'missing', parameterNotFoundAction: 'Deny' }, 'team-a', paramsNotFoundMessage],
    ['a namespaced paramKind on a cluster-scoped request', { name: 'limits', parameterNotFoundAction: 'Deny' }, '', 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources'],
  ])('%s', async (_name, ref, namespace, expected) => {
    expect(names(await collectParams(cm, cmResource, ref, namespace, params))).toEqual(expected);
  });

  it('refuses paramRef.namespace for a cluster-scoped paramKind and reads cluster-scoped params', async () => {
    const kind = { apiVersion: 'example.com/v1', kind: 'ClusterParam' };
    expect(names(await collectParams(kind, clusterResource, { name: 'global', namespace: 'x', parameterNotFoundAction: 'Deny' }, 'team-a', params))).toBe(
      'paramRef.namespace must not be provided for a cluster-scoped `paramKind`',
    );
    expect(names(await collectParams(kind, clusterResource, { name: 'global', parameterNotFoundAction: 'Deny' }, 'team-a', params))).toEqual(['/global']);
  });

  it('ignores paramRef when the policy has no paramKind', async () => {
    expect(names(await collectParams(undefined, undefined, { name: 'limits', parameterNotFoundAction: 'Deny' }, 'team-a', params))).toEqual([null]);
  });
});

describe('the request and namespace variables', () => {
  it('builds the AdmissionRequest with the matched and the requested resource', () => {
    const attrs = deploymentAttributes({ dryRun: true });
    expect(admissionRequestFor(attrs, { group: 'extensions', version: 'v1beta1', resource: 'deployments' }, { group: 'extensions', version: 'v1beta1', kind: 'Deployment' })).toEqual({
      uid: '',
      kind: { group: 'extensions', version: 'v1beta1', kind: 'Deployment' },
      resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' },
      requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
      name: 'web',
      namespace: 'team-a',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
      dryRun: true,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    });
  });

  it('trims the namespace object as CreateNamespaceObject does', () => {
    expect(namespaceObjectFor(namespaces['team-a'])).toEqual({
      metadata: { name: 'team-a', labels: { env: 'prod', 'kubernetes.io/metadata.name': 'team-a' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
    expect(namespaceObjectFor(undefined)).toBeNull();
  });

  it('derives the namespace object once per stored namespace, frozen, and again when the namespace changes', () => {
    const stored = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', resourceVersion: '5', labels: { a: '1' } }, spec: {}, status: {} };
    const first = namespaceObjectFor(stored);
    expect(namespaceObjectFor(stored)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first!['metadata'] as { labels: object }).labels)).toBe(true);
    // the stored object is left as it was (the derivation copies)
    expect(Object.isFrozen(stored.metadata.labels)).toBe(false);
    // the same object changed in place (a new resourceVersion) is derived again
    stored.metadata.resourceVersion = '6';
    stored.metadata.labels = { a: '2' };
    const second = namespaceObjectFor(stored);
    expect(second).not.toBe(first);
    expect(second).toEqual({ metadata: { name: 'n', resourceVersion: '6', labels: { a: '2' } }, spec: {}, status: {} });
  });

  it('has no namespace for Namespace objects and cluster-scoped requests', () => {
    expect(namespaceNameFor(deploymentAttributes())).toBe('team-a');
    expect(namespaceNameFor(deploymentAttributes({ kind: { group: '', version: 'v1', kind: 'Namespace' }, namespace: 'x' }))).toBe('');
  });
});

describe('which requests policies see', () => {
  it('never the virtual review resources; the policy resources only from static policies', () => {
    expect(policyScopeOf(deploymentAttributes())).toBe('all');
    expect(policyScopeOf(deploymentAttributes({ resource: { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' } }))).toBe('none');
    expect(policyScopeOf(deploymentAttributes({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' } }))).toBe('static');
    // webhook configurations are not among them: API policies do see those
    expect(policyScopeOf(deploymentAttributes({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' } }))).toBe('all');
  });

  it('refuses a request when the sources never load, as kube does', async () => {
    await expect(waitUntilSynced(() => false, deploymentAttributes(), 20)).rejects.toMatchObject({
      status: { code: 403, reason: 'Forbidden', message: 'deployments.apps "web" is forbidden: not yet ready to handle request' },
    });
  });

  it('looks the request\'s namespace up once', async () => {
    let lookups = 0;
    const ns = new RequestNamespace(deploymentAttributes(), async (n) => (lookups++, getNamespace(n)));
    expect(await ns.labels()).toEqual({ env: 'prod', 'kubernetes.io/metadata.name': 'team-a' });
    expect((await ns.get('team-a'))?.metadata?.name).toBe('team-a');
    expect(lookups).toBe(1);
  });
});

describe('evaluating expressions', () => {
  const base = { cel, hasParams: true };
  const activation: Activation = { object: { spec: { replicas: 3 } }, oldObject: null, request: {}, params: { data: { max: '2' } }, namespaceObject: null };

  it('evaluates variables lazily, once per pass, each seeing the earlier ones', () => {
    const variables = compileVariables(base, [
      { name: 'replicas', expression: 'object.spec.replicas' },
      { name: 'odd', expression: 'variables.replicas % 2 == 1' },
    ]);
    const slots = ['variables.replicas > 1', 'variables.odd', 'variables.replicas == 3'].map((e) => compileSlot(base, e, { kind: 'bool', hasAuthorizer: true, variableNames: ['replicas', 'odd'] }));
    const pass = evaluatePass(slots, variables, activation, 1_000_000, { authorizer: true });
    expect(pass.ok && pass.results.map((r) => r && r.ok && r.value)).toEqual([true, true, true]);
  });

  it('reports compile and runtime errors as kube words them', () => {
    const variables = compileVariables(base, [{ name: 'broken', expression: 'object.nope.x' }, { name: 'bad', expression: '1 +' }]);
    const names = ['broken', 'bad'];
    const slots = ['object.spec.replicas >', 'variables.broken == 1', 'variables.bad == 1', 'object.missing == 1'].map((e) => compileSlot(base, e, { kind: 'bool', hasAuthorizer: true, variableNames: names }));
    const pass = evaluatePass(slots, variables, activation, 1_000_000, { authorizer: true });
    if (!pass.ok) throw new Error(pass.error);
    const errors = pass.results.map((r) => (r && !r.ok ? r.error : ''));
    expect(errors[0]).toMatch(/^compilation error: compilation failed: ERROR: <input>:1:23: Syntax error/);
    expect(errors[1]).toBe("expression 'variables.broken == 1' resulted in error: composited variable \"broken\" fails to evaluate: no such key: nope");
    expect(errors[2]).toMatch(/^expression 'variables.bad == 1' resulted in error: composited variable "bad" fails to compile: compilation failed: ERROR: <input>:1:4/);
    expect(errors[3]).toBe("expression 'object.missing == 1' resulted in error: no such key: missing");
  });

  it('stops the pass when the budget runs out', () => {
    const slots = ['true', 'object.spec.replicas > 1'].map((e) => compileSlot(base, e, { kind: 'bool', hasAuthorizer: true, variableNames: [] }));
    expect(evaluatePass(slots, [], activation, 2, { authorizer: true })).toEqual({ ok: false, error: outOfBudgetMessage });
  });

  it('matchConditions: a false skips even with errors; errors fail closed under Fail, skip under Ignore', () => {
    const cond = (name: string, e: string) => ({ name, slot: compileSlot(base, e, { kind: 'bool', hasAuthorizer: true, variableNames: [] }) });
    const err = cond('err', 'object.missing == 1');
    expect(evaluateMatchConditions([err, cond('no', 'false')], [], activation, { failurePolicy: 'Fail' })).toEqual({ matches: false, failedCondition: 'no' });
    expect(evaluateMatchConditions([err, cond('yes', 'true')], [], activation, { failurePolicy: 'Fail' })).toEqual({ matches: false, error: "expression 'object.missing == 1' resulted in error: no such key: missing" });
    expect(evaluateMatchConditions([err, err], [], activation, { failurePolicy: 'Fail' })).toEqual({ matches: false, error: "expression 'object.missing == 1' resulted in error: no such key: missing" });
    expect(evaluateMatchConditions([err, cond('yes', 'true')], [], activation, { failurePolicy: 'Ignore' })).toEqual({ matches: false });
    expect(evaluateMatchConditions([cond('yes', 'true')], [], activation, { failurePolicy: 'Fail' })).toEqual({ matches: true });
  });

  it('gives matchConditions no namespaceObject', () => {
    const c = { name: 'ns', slot: compileSlot(base, 'namespaceObject == null', { kind: 'bool', hasAuthorizer: true, variableNames: [] }) };
    const withNs: Activation = { ...activation, namespaceObject: namespaceObjectFor(namespaces['team-a']) as KubeObject };
    expect(evaluateMatchConditions([c], [], withNs, { failurePolicy: 'Fail' })).toEqual({ matches: true });
  });
});

describe('the authorizer variable', () => {
  it('asks the server\'s authorizer as the requester (or the named service account), once per distinct check', async () => {
    const { requestAuthorizer } = await import('./authorizer.js');
    const asked: unknown[] = [];
    const authz = {
      authorize: (a: { user: { username: string }; verb: string; resource?: string; path?: string }) => {
        asked.push([a.user.username, a.verb, a.resource ?? a.path]);
        return { decision: a.verb === 'get' ? ('Allow' as const) : ('NoOpinion' as const), reason: 'because' };
      },
    };
    const a = requestAuthorizer(authz, deploymentAttributes());
    const check = { group: 'apps', version: '', resource: 'deployments', subresource: '', namespace: 'team-a', name: '', verb: 'get' };
    expect(a.check(check)).toEqual({ decision: 'allow', reason: 'because' });
    expect(a.check(check)).toEqual({ decision: 'allow', reason: 'because' });
    expect(a.check({ ...check, verb: 'delete' })).toEqual({ decision: 'noOpinion', reason: 'because' });
    expect(a.check({ ...check, path: '/healthz' })).toEqual({ decision: 'allow', reason: 'because' });
    expect(a.check({ ...check, user: { username: 'system:serviceaccount:ns:sa', groups: [] } } as typeof check)).toEqual({ decision: 'allow', reason: 'because' });
    expect(asked).toEqual([
      ['alice', 'get', 'deployments'],
      ['alice', 'delete', 'deployments'],
      ['alice', 'get', '/healthz'],
      ['system:serviceaccount:ns:sa', 'get', 'deployments'],
    ]);
    expect(a.requestResource).toEqual({ group: 'apps', version: 'v1', resource: 'deployments', subresource: '', namespace: 'team-a', name: 'web' });
  });
});
