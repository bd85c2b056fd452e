import { Registry } from 'prom-client';
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from '../../../api/admissionregistration.js';
import { StatusError } from '../../../api/errors.js';
import type { KubeObject } from '../../../api/types.js';
import { newAdmissionMetrics } from '../../../metrics/admission.js';
import type { AdmissionAttributes } from '../../attributes.js';
import { kubernetesCelEnvironment } from '../../cel/kubernetes.js';
import type { AdmissionPlugin } from '../../chain.js';
import { OrderedAdmissionChain } from '../../ordered-chain.js';
import { staticSnapshotSource } from '../../sources/source.js';
import { bindingItemsOf, compositePolicySources, policyItemsOf } from '../sources.js';
import { configMapParam, deployment, deploymentAttributes, getNamespace, memoryParamLookup } from '../test-fixtures.js';
import { PolicyReinvokeContext } from './reinvocation.js';
import { newMutatingAdmissionPolicyMetrics } from './metrics.js';
import { MutatingAdmissionPolicyPlugin, type MutatingAdmissionPolicyPluginOptions } from './plugin.js';
import { applyConfiguration, jsonPatch, map, mapb, mutatingApiSources } from './test-fixtures.js';

const cel = kubernetesCelEnvironment();
const params = memoryParamLookup([
  configMapParam('annotations', 'team-a', { key: 'myFooKey', value: 'myFooValue' }),
  configMapParam('param-1', 'team-a', { firstApplied: 'true' }, { 'multi-param': 'true' }),
  configMapParam('param-2', 'team-a', { secondApplied: 'true' }, { 'multi-param': 'true' }),
  configMapParam('param-3', 'team-a', { thirdApplied: 'true' }),
]);

interface Setup {
  plugin: MutatingAdmissionPolicyPlugin;
  registry: Registry;
  defaulted: KubeObject[];
}

function setup(policies: MutatingAdmissionPolicy[], bindings: MutatingAdmissionPolicyBinding[], extra: Partial<MutatingAdmissionPolicyPluginOptions> = {}): Setup {
  const registry = new Registry();
  const defaulted: KubeObject[] = [];
  const plugin = new MutatingAdmissionPolicyPlugin({
    sources: mutatingApiSources(policies, bindings),
    cel,
    params,
    getNamespace,
    metrics: newMutatingAdmissionPolicyMetrics(registry),
    admissionMetrics: newAdmissionMetrics(registry),
    defaultObject: (o) => {
      defaulted.push(structuredClone(o));
    },
    readyTimeoutMs: 50,
    ...extra,
  });
  return { plugin, registry, defaulted };
}

async function denial(run: Promise<void>): Promise<StatusError> {
  try {
    await run;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('the request was allowed');
}

const annotations = (attrs: AdmissionAttributes) => attrs.object?.metadata?.annotations;
const withAnnotations = (a: Record<string, string>): AdmissionAttributes => {
  const object = deployment('web', 1);
  object.metadata!.annotations = a;
  return deploymentAttributes({ object });
};

const incrementFoo = (marker: string) =>
  applyConfiguration(`Object{metadata: Object.metadata{annotations: {?"foo": optional.of(string(int(object.metadata.annotations["foo"]) + 1)), "${marker}": "true"}}}`);

describe('MutatingAdmissionPolicy: mutations', () => {
  it('mutates a Deployment\'s replicas and annotations with an ApplyConfiguration, then defaults it', async () => {
    const { plugin, defaulted } = setup(
      [map('scale.example.com', [applyConfiguration(`Object{spec: Object.spec{replicas: object.spec.replicas + 2}, metadata: Object.metadata{annotations: {"mutated-by": "admission-policy"}}}`)])],
      [mapb('scale-binding', 'scale.example.com')],
    );
    const attrs = deploymentAttributes();
    const original = attrs.object;
    await plugin.admit(attrs);
    expect(attrs.object?.['spec']).toMatchObject({ replicas: 3 });
    expect(annotations(attrs)).toEqual({ 'mutated-by': 'admission-policy' });
    // the request's object is replaced, never changed in place
    expect(original?.['spec']).toMatchObject({ replicas: 1 });
    expect(defaulted).toHaveLength(1);
    expect(attrs.reinvocation.shouldReinvoke).toBe(true);
  });

  it('runs mutations in order, JSONPatch and ApplyConfiguration alike, with variables (kube\'s "policy with variables")', async () => {
    const policy = map(
      'vars.example.com',
      [
        applyConfiguration(`Object{metadata: Object.metadata{annotations: {"foo1": variables.foo1}}}`),
        jsonPatch(`[JSONPatch{op: "test", path: "/metadata/annotations", value: {"foo1": variables.foo1}}, JSONPatch{op: "add", path: "/metadata/annotations/foo2", value: variables.foo2}]`),
        applyConfiguration(`Object{metadata: Object.metadata{annotations: {"foo3": "foo3Value"}}}`),
      ],
      { variables: [{ name: 'foo1', expression: `"foo1" + "Value"` }, { name: 'foo2', expression: `variables.foo1.replace("1", "2")` }] },
    );
    const { plugin } = setup([policy], [mapb('vars-binding', 'vars.example.com')]);
    const attrs = deploymentAttributes();
    await plugin.admit(attrs);
    expect(annotations(attrs)).toEqual({ foo1: 'foo1Value', foo2: 'foo2Value', foo3: 'foo3Value' });
  });

  it('applies every policy bound, in order (kube\'s "multiple policies")', async () => {
    const { plugin } = setup(
      [map('p1', [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"foo1": "foo1Value"}}}`)]), map('p2', [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"foo2": "foo2Value"}}}`)])],
      [mapb('b1', 'p1'), mapb('b2', 'p2')],
    );
    const attrs = deploymentAttributes();
    await plugin.admit(attrs);
    expect(annotations(attrs)).toEqual({ foo1: 'foo1Value', foo2: 'foo2Value' });
  });

  it('leaves the object alone for an unbound policy, and ignores a binding whose policy does not exist', async () => {
    const { plugin } = setup([map('unbound', [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"foo": "fooValue"}}}`)])], [mapb('orphan', 'missing.example.com')]);
    const attrs = deploymentAttributes();
    const before = structuredClone(attrs.object);
    await plugin.admit(attrs);
    expect(attrs.object).toEqual(before);
    expect(attrs.reinvocation.shouldReinvoke).toBe(false);
  });

  it('does not handle DELETE, and has nothing to patch on CONNECT', async () => {
    const { plugin } = setup([map('p', [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"a": "b"}}}`)], { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] }] } })], [mapb('b', 'p')]);
    expect(plugin.handles('DELETE')).toBe(false);
    expect(['CREATE', 'UPDATE', 'CONNECT'].every((op) => plugin.handles(op as 'CREATE'))).toBe(true);
    const attrs = deploymentAttributes({ operation: 'CONNECT', object: undefined });
    await plugin.admit(attrs);
    expect(attrs.object).toBeUndefined();
  });
});

describe('MutatingAdmissionPolicy: params', () => {
  const paramPolicy = (name: string) =>
    map(name, [applyConfiguration(`Object{metadata: Object.metadata{annotations: params.data}}`)], { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } });

  it('mutates with a named param (kube\'s "policy with native param")', async () => {
    const policy = map('native', [applyConfiguration(`Object{metadata: Object.metadata{annotations: {params.data["key"]: params.data["value"]}}}`)], { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } });
    const { plugin } = setup([policy], [mapb('native-binding', 'native', { paramRef: { name: 'annotations', parameterNotFoundAction: 'Allow' } })]);
    const attrs = deploymentAttributes();
    await plugin.admit(attrs);
    expect(annotations(attrs)).toEqual({ myFooKey: 'myFooValue' });
  });

  it('runs once per param a selector finds (kube\'s "multiple params quantified by single binding")', async () => {
    const { plugin } = setup([paramPolicy('multi')], [mapb('multi-binding', 'multi', { paramRef: { selector: { matchLabels: { 'multi-param': 'true' } }, parameterNotFoundAction: 'Allow' } })]);
    const attrs = deploymentAttributes();
    await plugin.admit(attrs);
    expect(annotations(attrs)).toEqual({ firstApplied: 'true', secondApplied: 'true' });
  });

  it('skips a missing param under Allow and denies under Deny with kube\'s message', async () => {
    const allow = setup([paramPolicy('p')], [mapb('b', 'p', { paramRef: { name: 'missing', parameterNotFoundAction: 'Allow' } })]);
    const attrs = deploymentAttributes();
    await allow.plugin.admit(attrs);
    expect(annotations(attrs)).toBeUndefined();

    const deny = setup([paramPolicy('p')], [mapb('b', 'p', { paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' } })]);
    const err = await denial(deny.plugin.admit(deploymentAttributes()));
    expect(err.status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    });
  });

  it('quotes the policy name of a policy-level configuration error', async () => {
    const policy = map('unknown-kind', [applyConfiguration('Object{}')], { paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' } });
    const { plugin } = setup([policy], [mapb('b', 'unknown-kind', { paramRef: { name: 'x' } })]);
    const err = await denial(plugin.admit(deploymentAttributes()));
    expect(err.status.message).toBe(`policy "unknown-kind" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'`);
  });
});

describe('MutatingAdmissionPolicy: matchConditions and failurePolicy', () => {
  const labeled = (env: string): AdmissionAttributes => deploymentAttributes({ object: deployment('web', 1, 'team-a', { app: 'nginx', environment: env }) });
  const conditional = (name: string, env: string, value: string) =>
    map(name, [applyConfiguration(`Object{metadata: Object.metadata{labels: {"applied": "${value}"}}}`)], {
      matchConditions: [{ name: 'env-only', expression: `object.metadata.?labels["environment"] == optional.of("${env}")` }],
    });

  it('mutates only the policies whose matchConditions hold (kube\'s "some policy conditions match")', async () => {
    const { plugin } = setup([conditional('policy-1', 'production', 'wrong'), conditional('policy-2', 'test', 'updated')], [mapb('b1', 'policy-1'), mapb('b2', 'policy-2')]);
    const attrs = labeled('test');
    await plugin.admit(attrs);
    expect(attrs.object?.metadata?.labels).toEqual({ app: 'nginx', environment: 'test', applied: 'updated' });
    const skipped = labeled('staging');
    await plugin.admit(skipped);
    expect(skipped.object?.metadata?.labels).toEqual({ app: 'nginx', environment: 'staging' });
  });

  it('denies on a matchCondition error under Fail (reason Invalid) and skips the policy under Ignore', async () => {
    const failing = (fp: 'Fail' | 'Ignore') =>
      map('mc', [applyConfiguration(`Object{metadata: Object.metadata{labels: {"applied": "yes"}}}`)], { failurePolicy: fp, matchConditions: [{ name: 'broken', expression: 'object.nope == 1' }] });
    const err = await denial(setup([failing('Fail')], [mapb('b', 'mc')]).plugin.admit(deploymentAttributes()));
    expect(err.status).toMatchObject({ code: 403, reason: 'Invalid', message: "policy 'mc' with binding 'b' denied request: expression 'object.nope == 1' resulted in error: no such key: nope" });
    const attrs = deploymentAttributes();
    await setup([failing('Ignore')], [mapb('b', 'mc')]).plugin.admit(attrs);
    expect(attrs.object?.metadata?.labels).toEqual({ app: 'nginx' });
  });

  it('denies a failed mutation under Fail with kube\'s Status, after every other policy ran', async () => {
    const { plugin } = setup(
      [map('a-bad', [applyConfiguration(`Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}`)]), map('b-good', [applyConfiguration(`Object{spec: Object.spec{replicas: 5}}`)])],
      [mapb('bad-binding', 'a-bad'), mapb('good-binding', 'b-good')],
    );
    const attrs = deploymentAttributes();
    const err = await denial(plugin.admit(attrs));
    const message = "policy 'a-bad' with binding 'bad-binding' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector";
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Invalid',
      details: { name: 'web', group: 'apps', kind: 'deployments', causes: [{ message }] },
      code: 403,
    });
    expect(attrs.object?.['spec']).toMatchObject({ replicas: 5 });
  });

  it('skips a failed mutation under Ignore and keeps the policy\'s other mutations (kube\'s "failure policy ignore")', async () => {
    const { plugin } = setup(
      [map('p', [applyConfiguration(`Object{spec: Object.spec{replicas: 4}}`), applyConfiguration(`Object{bogus: Object.bogus{invalidField: "x"}}`)], { failurePolicy: 'Ignore' })],
      [mapb('b', 'p')],
    );
    const attrs = deploymentAttributes();
    await plugin.admit(attrs);
    expect(attrs.object?.['spec']).toMatchObject({ replicas: 4 });
    expect(attrs.object?.['bogus']).toBeUndefined();
  });

  it('sends a strict-decoding error as a 500 whatever the failurePolicy', async () => {
    const { plugin } = setup([map('p', [jsonPatch(`[JSONPatch{op: "add", path: "/bogus", value: 1}]`)], { failurePolicy: 'Ignore' })], [mapb('b', 'p')]);
    const err = await denial(plugin.admit(deploymentAttributes()));
    expect(err.status).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: strict decoding error: unknown field "bogus"' });
  });

  it('counts every mutation in apiserver_mutating_admission_policy_check_total by error type', async () => {
    const { plugin, registry } = setup(
      [map('p', [applyConfiguration(`Object{spec: Object.spec{replicas: 4}}`), applyConfiguration(`Object{spec: Object.spec{replicas: object.nope}}`)], { failurePolicy: 'Ignore' })],
      [mapb('b', 'p')],
    );
    await plugin.admit(deploymentAttributes());
    const text = await registry.metrics();
    expect(text).toContain('# HELP apiserver_mutating_admission_policy_check_total [ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.');
    expect(text).toContain('apiserver_mutating_admission_policy_check_total{error_type="no_error",policy="p",policy_binding="b"} 1');
    expect(text).toContain('apiserver_mutating_admission_policy_check_total{error_type="invalid_error",policy="p",policy_binding="b"} 1');
    expect(text).toContain('apiserver_mutating_admission_policy_check_duration_seconds_count{error_type="no_error",policy="p",policy_binding="b"} 1');
  });
});

describe('MutatingAdmissionPolicy: reinvocation (IfNeeded)', () => {
  const chainOf = (...plugins: AdmissionPlugin[]) => new OrderedAdmissionChain(plugins);

  it('reinvokes the IfNeeded policies a later policy changed the object after (kube\'s "multiple policies requiring reinvocation")', async () => {
    const { plugin } = setup(
      [map('policy-1', [incrementFoo('firstApplied')], { reinvocationPolicy: 'IfNeeded' }), map('policy-2', [incrementFoo('secondApplied')], { reinvocationPolicy: 'IfNeeded' }), map('policy-3', [incrementFoo('thirdApplied')])],
      [mapb('b1', 'policy-1'), mapb('b2', 'policy-2'), mapb('b3', 'policy-3')],
    );
    const attrs = withAnnotations({ foo: '0' });
    await chainOf(plugin).admit(attrs);
    // 0→1→2→3 in the first round, policy-1 3→4 and policy-2 4→5 in the second; policy-3 is Never
    expect(annotations(attrs)).toEqual({ foo: '5', firstApplied: 'true', secondApplied: 'true', thirdApplied: 'true' });
  });

  it('keys invocations by param (kube\'s "multiple params causing reinvocation")', async () => {
    const paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };
    const mutations = [applyConfiguration(`Object{metadata: Object.metadata{annotations: params.data}}`), incrementFoo('incremented')];
    const { plugin } = setup(
      [map('multi-param-reinvocation', mutations, { paramKind, reinvocationPolicy: 'IfNeeded' }), map('policy-with-param-no-reinvoke', mutations, { paramKind })],
      [
        mapb('b1', 'multi-param-reinvocation', { paramRef: { selector: { matchLabels: { 'multi-param': 'true' } }, parameterNotFoundAction: 'Allow' } }),
        mapb('b2', 'policy-with-param-no-reinvoke', { paramRef: { name: 'param-3', parameterNotFoundAction: 'Allow' } }),
      ],
    );
    const attrs = withAnnotations({ foo: '0' });
    await chainOf(plugin).admit(attrs);
    expect(annotations(attrs)).toEqual({ foo: '5', firstApplied: 'true', secondApplied: 'true', thirdApplied: 'true', incremented: 'true' });
  });

  it('reinvokes an IfNeeded policy when a later plugin changed the object, not a Never one', async () => {
    // the policy changes nothing until it sees the later plugin's label
    const watcher = (name: string, reinvocationPolicy: 'IfNeeded' | 'Never') =>
      map(name, [applyConfiguration(`has(object.metadata.labels.later) ? Object{metadata: Object.metadata{annotations: {"later-seen": "yes"}}} : Object{}`)], { reinvocationPolicy });
    const later: AdmissionPlugin = {
      name: 'LaterWebhook',
      handles: () => true,
      async admit(a) {
        if (a.reinvocation.isReinvoke) return;
        a.object = { ...a.object!, metadata: { ...a.object!.metadata, labels: { ...a.object!.metadata?.labels, later: 'yes' } } };
        a.reinvocation.shouldReinvoke = true;
      },
    };
    for (const [policy, expected] of [['if-needed', { 'later-seen': 'yes' }], ['never', undefined]] as const) {
      const { plugin } = setup([watcher(policy, policy === 'if-needed' ? 'IfNeeded' : 'Never')], [mapb('b', policy)]);
      const attrs = deploymentAttributes();
      await chainOf(plugin, later).admit(attrs);
      expect(annotations(attrs)).toEqual(expected);
    }
  });

  it('runs an IfNeeded policy that changed the object once more in the second round (kube\'s write-back of the changed object)', async () => {
    const { plugin } = setup([map('self', [incrementFoo('self')], { reinvocationPolicy: 'IfNeeded' })], [mapb('b', 'self')]);
    const attrs = withAnnotations({ foo: '0' });
    await chainOf(plugin).admit(attrs);
    expect(annotations(attrs)?.['foo']).toBe('2');
  });

  it('asks for no second round when no policy changed the object (kube\'s no-op IfNeeded case)', async () => {
    const { plugin } = setup([map('noop', [applyConfiguration('Object{}')], { reinvocationPolicy: 'IfNeeded' })], [mapb('b', 'noop')]);
    const attrs = deploymentAttributes();
    await plugin.admit(attrs);
    expect(attrs.reinvocation.shouldReinvoke).toBe(false);
  });

  it('runs no invocation for the first time in the reinvocation round', async () => {
    const { plugin } = setup([map('late', [incrementFoo('late')], { reinvocationPolicy: 'IfNeeded' })], [mapb('b', 'late')]);
    const attrs = withAnnotations({ foo: '0' });
    attrs.reinvocation.isReinvoke = true;
    attrs.reinvocation.values.set('MutatingAdmissionPolicy', new PolicyReinvokeContext());
    await plugin.admit(attrs);
    expect(annotations(attrs)).toEqual({ foo: '0' });
  });
});

describe('MutatingAdmissionPolicy: which requests policies see', () => {
  it('lets only static policies see the policy resources', async () => {
    const everything = { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*' as const] }] };
    const apiPolicy = map('api', [applyConfiguration(`Object{metadata: Object.metadata{labels: {"api": "yes"}}}`)], { matchConstraints: everything });
    const staticPolicy = map('guard.static.k8s.io', [applyConfiguration(`Object{metadata: Object.metadata{labels: {"static": "yes"}}}`)], { matchConstraints: everything });
    const staticSources = {
      policies: staticSnapshotSource(policyItemsOf<MutatingAdmissionPolicy>(staticPolicy, 'static')),
      bindings: staticSnapshotSource(bindingItemsOf<MutatingAdmissionPolicyBinding>(mapb('guard-binding.static.k8s.io', 'guard.static.k8s.io'), 'static')),
    };
    const { plugin } = setup([], [], { sources: compositePolicySources(staticSources, mutatingApiSources([apiPolicy], [mapb('api-binding', 'api')])), staticSources });
    const target = map('target', [applyConfiguration('Object{}')]);
    const attrs = deploymentAttributes({
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingAdmissionPolicy' },
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingadmissionpolicies' },
      namespace: '',
      name: 'target',
      object: target,
    });
    await plugin.admit(attrs);
    expect(attrs.object?.metadata?.labels).toEqual({ static: 'yes' });

    const deploymentRequest = deploymentAttributes();
    await plugin.admit(deploymentRequest);
    expect(deploymentRequest.object?.metadata?.labels).toEqual({ app: 'nginx', static: 'yes', api: 'yes' });
  });
});
