import { Registry } from 'prom-client';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../api/admissionregistration.js';
import { StatusError } from '../../../api/errors.js';
import type { KubeObject } from '../../../api/types.js';
import { newAdmissionMetrics } from '../../../metrics/admission.js';
import type { AdmissionAttributes } from '../../attributes.js';
import { kubernetesCelEnvironment } from '../../cel/kubernetes.js';
import { staticSnapshotSource } from '../../sources/source.js';
import { newValidatingAdmissionPolicyMetrics } from '../metrics.js';
import { bindingItemsOf, compositePolicySources, policyItemsOf } from '../sources.js';
import { apiSources, configMapParam, deployment, deploymentAttributes, getNamespace, memoryParamLookup, vap, vapb } from '../test-fixtures.js';
import { errorTypeOf, validationFailureAnnotationKey, maxValidationFailures } from './dispatcher.js';
import { ValidatingAdmissionPolicyPlugin, type ValidatingAdmissionPolicyPluginOptions } from './plugin.js';
import { needsTypeChecking, typeCheckedStatus } from './status.js';

const cel = kubernetesCelEnvironment();
const params = memoryParamLookup([
  configMapParam('limits', 'team-a', { maxReplicas: '3' }, { tier: 'gold' }),
  configMapParam('strict', 'team-a', { maxReplicas: '1' }, { tier: 'gold' }),
  configMapParam('limits', 'team-b', { maxReplicas: '10' }),
]);

interface Setup {
  plugin: ValidatingAdmissionPolicyPlugin;
  registry: Registry;
}

function setup(policies: ValidatingAdmissionPolicy[], bindings: ValidatingAdmissionPolicyBinding[], extra: Partial<ValidatingAdmissionPolicyPluginOptions> = {}): Setup {
  const registry = new Registry();
  const plugin = new ValidatingAdmissionPolicyPlugin({
    sources: apiSources(policies, bindings),
    cel,
    params,
    getNamespace,
    metrics: newValidatingAdmissionPolicyMetrics(registry),
    admissionMetrics: newAdmissionMetrics(registry),
    readyTimeoutMs: 50,
    ...extra,
  });
  return { plugin, registry };
}

async function denial(plugin: ValidatingAdmissionPolicyPlugin, attrs: AdmissionAttributes): Promise<StatusError> {
  try {
    await plugin.validate(attrs);
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('the request was allowed');
}

const denied = async (plugin: ValidatingAdmissionPolicyPlugin, attrs: AdmissionAttributes): Promise<string> => (await denial(plugin, attrs)).status.message ?? '';
const prefix = 'deployments.apps "web" is forbidden: ';

describe('ValidatingAdmissionPolicy: validations and Deny', () => {
  it('denies with kube\'s Status: 422 Invalid, the default message, the message as a cause', async () => {
    const { plugin } = setup([vap('replicas.example.com')], [vapb('replicas-binding', 'replicas.example.com')]);
    const err = await denial(plugin, deploymentAttributes());
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `${prefix}ValidatingAdmissionPolicy 'replicas.example.com' with binding 'replicas-binding' denied request: failed expression: object.spec.replicas > 1`,
      reason: 'Invalid',
      code: 422,
      details: {
        name: 'web',
        group: 'apps',
        kind: 'deployments',
        causes: [{ message: "ValidatingAdmissionPolicy 'replicas.example.com' with binding 'replicas-binding' denied request: failed expression: object.spec.replicas > 1" }],
      },
    });
    await expect(plugin.validate(deploymentAttributes({ object: deployment('web', 2) }))).resolves.toBeUndefined();
  });

  it('takes the message from messageExpression, then message, then the expression (e2e: validate a Deployment)', async () => {
    const policy = vap('p', {
      validations: [
        // the e2e's messageExpression adds an int to a string: a runtime error, so the default message is used
        { expression: 'object.spec.replicas > 1', messageExpression: "'wants replicas > 1, got ' + object.spec.replicas" },
        { expression: 'object.spec.replicas > 2', messageExpression: "'wants replicas > 2, got ' + string(object.spec.replicas)", message: 'static' },
        { expression: 'object.spec.replicas > 3', messageExpression: "'  '", message: ' static message ' },
        { expression: "namespaceObject.metadata.name == 'team-b'", message: 'Internal error! Other namespace should not be allowed.' },
      ],
    });
    const { plugin } = setup([policy], [vapb('b', 'p', { validationActions: ['Warn'] })]);
    const attrs = deploymentAttributes();
    await plugin.validate(attrs);
    expect(attrs.warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: object.spec.replicas > 1",
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': wants replicas > 2, got 1",
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': static message",
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': Internal error! Other namespace should not be allowed.",
    ]);
  });

  it.each<[string, number]>([
    ['Forbidden', 403],
    ['RequestEntityTooLarge', 413],
    ['Unauthorized', 401],
    ['Invalid', 422],
  ])('answers reason %s with code %d', async (reason, code) => {
    const policy = vap('p', { validations: [{ expression: 'false', reason: reason as 'Forbidden' }] });
    const err = await denial(setup([policy], [vapb('b', 'p')]).plugin, deploymentAttributes());
    expect([err.status.reason, err.status.code]).toEqual([reason, code]);
  });

  it('lets variables be used by validations (e2e: expressions refer variables)', async () => {
    const policy = vap('p', {
      variables: [
        { name: 'replicas', expression: 'object.spec.replicas' },
        { name: 'oddReplicas', expression: 'variables.replicas % 2 == 1' },
      ],
      validations: [{ expression: 'variables.replicas > 1' }, { expression: 'variables.oddReplicas' }],
    });
    const { plugin } = setup([policy], [vapb('b', 'p')]);
    expect(await denied(plugin, deploymentAttributes({ object: deployment('web', 1) }))).toBe(`${prefix}ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: variables.replicas > 1`);
    expect(await denied(plugin, deploymentAttributes({ object: deployment('web', 2) }))).toBe(`${prefix}ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: variables.oddReplicas`);
    await expect(plugin.validate(deploymentAttributes({ object: deployment('web', 3) }))).resolves.toBeUndefined();
  });

  it('reports the first denial; policies are evaluated by name, then bindings by name', async () => {
    const { plugin } = setup([vap('b-policy'), vap('a-policy', { validations: [{ expression: 'false', message: 'first' }] })], [vapb('z', 'b-policy'), vapb('y', 'a-policy')]);
    const err = await denial(plugin, deploymentAttributes());
    expect(err.status.message).toBe(`${prefix}ValidatingAdmissionPolicy 'a-policy' with binding 'y' denied request: first`);
  });

  it('does not evaluate a policy whose binding does not match the request', async () => {
    const { plugin } = setup([vap('p')], [vapb('b', 'p', { matchResources: { namespaceSelector: { matchLabels: { env: 'dev' } }, objectSelector: {}, matchPolicy: 'Equivalent' } })]);
    await expect(plugin.validate(deploymentAttributes())).resolves.toBeUndefined();
    expect(await denied(plugin, deploymentAttributes({ namespace: 'team-b', object: deployment('web', 1, 'team-b') }))).toContain("binding 'b' denied request");
  });
});

describe('ValidatingAdmissionPolicy: authorizer', () => {
  it('answers authorizer checks for the requester through authorizerFor', async () => {
    const { requestAuthorizer } = await import('../generic/authorizer.js');
    const policy = vap('p', { validations: [{ expression: "authorizer.group('apps').resource('deployments').namespace('team-a').check('delete').allowed()", message: 'only deleters may create' }] });
    const authz = (allowed: boolean) => ({ authorize: () => ({ decision: allowed ? ('Allow' as const) : ('NoOpinion' as const), reason: '' }) });
    const allowing = setup([policy], [vapb('b', 'p')], { authorizerFor: (attrs) => requestAuthorizer(authz(true), attrs) });
    await expect(allowing.plugin.validate(deploymentAttributes())).resolves.toBeUndefined();
    const refusing = setup([policy], [vapb('b', 'p')], { authorizerFor: (attrs) => requestAuthorizer(authz(false), attrs) });
    expect(await denied(refusing.plugin, deploymentAttributes())).toBe(`${prefix}ValidatingAdmissionPolicy 'p' with binding 'b' denied request: only deleters may create`);
  });
});

describe('ValidatingAdmissionPolicy: failurePolicy and errors', () => {
  it('fails closed on a runtime error under Fail, with kube\'s error text', async () => {
    const { plugin } = setup([vap('p', { validations: [{ expression: 'object.spec.missing > 1' }] })], [vapb('b', 'p')]);
    expect(await denied(plugin, deploymentAttributes())).toBe(`${prefix}ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.missing > 1' resulted in error: no such key: missing`);
  });

  it('admits on a runtime error under Ignore, and counts it', async () => {
    const { plugin, registry } = setup([vap('p', { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.missing > 1' }] })], [vapb('b', 'p')]);
    await expect(plugin.validate(deploymentAttributes())).resolves.toBeUndefined();
    expect(await registry.getSingleMetricAsString('apiserver_validating_admission_policy_check_total')).toContain(
      'apiserver_validating_admission_policy_check_total{enforcement_action="allow",error_type="invalid_error",policy="p",policy_binding="b"} 1',
    );
  });

  it('denies with the compile error of an expression that does not compile', async () => {
    const { plugin, registry } = setup([vap('p', { validations: [{ expression: 'object.spec.replicas >' }] })], [vapb('b', 'p')]);
    expect(await denied(plugin, deploymentAttributes())).toMatch(/denied request: compilation error: compilation failed: ERROR: <input>:1:23: Syntax error/);
    expect(await registry.getSingleMetricAsString('apiserver_validating_admission_policy_check_total')).toContain('error_type="compile_error"');
  });

  it('denies when the cost budget runs out', async () => {
    const { plugin, registry } = setup([vap('p', { validations: [{ expression: 'object.spec.replicas > 0' }, { expression: 'object.spec.replicas > 0' }] })], [vapb('b', 'p')], {
      validateOptions: { runtimeCostBudget: 3 },
    });
    expect(await denied(plugin, deploymentAttributes())).toBe(
      `${prefix}ValidatingAdmissionPolicy 'p' with binding 'b' denied request: validation failed due to running out of cost budget, no further validation rules will be run`,
    );
    expect(await registry.getSingleMetricAsString('apiserver_validating_admission_policy_check_total')).toContain('error_type="out_of_budget"');
  });

  it('answers kube\'s configuration error for a paramKind that is not served, without a binding name', async () => {
    const { plugin } = setup([vap('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' } })], [vapb('b', 'p')]);
    expect(await denied(plugin, deploymentAttributes())).toBe(`${prefix}ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'`);
  });

  it('ignores configuration errors under failurePolicy Ignore', async () => {
    const { plugin } = setup([vap('p', { failurePolicy: 'Ignore', paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' } })], [vapb('b', 'p')]);
    await expect(plugin.validate(deploymentAttributes())).resolves.toBeUndefined();
  });

  it('answers 404 for a namespace that does not exist', async () => {
    const { plugin } = setup([vap('p')], [vapb('b', 'p')]);
    const err = await denial(plugin, deploymentAttributes({ namespace: 'gone', object: deployment('web', 1, 'gone') }));
    expect([err.status.code, err.status.message]).toEqual([404, 'namespaces "gone" not found']);
  });

  it('skips the policy when a matchCondition is false, fails closed when one errors', async () => {
    const skip = vap('p', { matchConditions: [{ name: 'only-prod', expression: "object.metadata.labels['app'] == 'other'" }], validations: [{ expression: 'false' }] });
    await expect(setup([skip], [vapb('b', 'p')]).plugin.validate(deploymentAttributes())).resolves.toBeUndefined();
    const broken = vap('p', { matchConditions: [{ name: 'broken', expression: 'object.nope == 1' }], validations: [{ expression: 'false' }] });
    expect(await denied(setup([broken], [vapb('b', 'p')]).plugin, deploymentAttributes())).toBe(
      `${prefix}ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.nope == 1' resulted in error: no such key: nope`,
    );
  });
});

describe('ValidatingAdmissionPolicy: params', () => {
  const withParams = (over: Partial<NonNullable<ValidatingAdmissionPolicy['spec']>> = {}) =>
    vap('replicalimit-policy.example.com', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.maxReplicas)', messageExpression: "'object.spec.replicas must be no greater than ' + params.data.maxReplicas" }],
      ...over,
    });

  it('validates against the param a binding names (e2e: params via paramKind ConfigMap with paramRef)', async () => {
    const { plugin } = setup([withParams()], [vapb('replicalimit-binding', 'replicalimit-policy.example.com', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } })]);
    await expect(plugin.validate(deploymentAttributes({ object: deployment('web', 3) }))).resolves.toBeUndefined();
    expect(await denied(plugin, deploymentAttributes({ object: deployment('web', 4) }))).toBe(
      `${prefix}ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding' denied request: object.spec.replicas must be no greater than 3`,
    );
  });

  it('evaluates every param a selector selects', async () => {
    const { plugin } = setup([withParams()], [vapb('b', 'replicalimit-policy.example.com', { paramRef: { selector: { matchLabels: { tier: 'gold' } }, parameterNotFoundAction: 'Deny' } })]);
    // "strict" allows 1 replica, "limits" 3: both must pass
    expect(await denied(plugin, deploymentAttributes({ object: deployment('web', 2) }))).toContain('must be no greater than 1');
  });

  it('answers kube\'s error when no param is found under Deny, and admits under Allow', async () => {
    const deny = setup([withParams()], [vapb('b', 'replicalimit-policy.example.com', { paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' } })]);
    expect(await denied(deny.plugin, deploymentAttributes())).toBe(
      `${prefix}ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'b' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    );
    const allow = setup([withParams()], [vapb('b', 'replicalimit-policy.example.com', { paramRef: { name: 'missing', parameterNotFoundAction: 'Allow' } })]);
    await expect(allow.plugin.validate(deploymentAttributes({ object: deployment('web', 100) }))).resolves.toBeUndefined();
  });

  it('gives params null when the binding has no paramRef', async () => {
    const policy = withParams({ validations: [{ expression: 'params == null' }] });
    await expect(setup([policy], [vapb('b', 'replicalimit-policy.example.com')]).plugin.validate(deploymentAttributes())).resolves.toBeUndefined();
  });
});

describe('ValidatingAdmissionPolicy: Warn, Audit and auditAnnotations', () => {
  it('records an Audit failure as kube\'s validation_failure annotation, once per request', async () => {
    const { plugin, registry } = setup([vap('p', { validations: [{ expression: 'true' }, { expression: 'false', message: 'm <1>' }] })], [vapb('b', 'p', { validationActions: ['Audit'] })]);
    const attrs = deploymentAttributes();
    await plugin.validate(attrs);
    expect(attrs.annotations).toEqual({
      [validationFailureAnnotationKey]: '[{"message":"m \\u003c1\\u003e","policy":"p","binding":"b","expressionIndex":1,"validationActions":["Audit"]}]',
    });
    expect(await registry.getSingleMetricAsString('apiserver_validating_admission_policy_check_total')).toContain('enforcement_action="audit",error_type="invalid_error",policy="p",policy_binding="b"} 1');
  });

  // kube's admission_test.go (since 1.37): two policies whose bindings Audit both land in the one annotation, in
  // dispatch order; at most maxValidationFailures are kept.
  it('lists the Audit failures of every policy of the request in one annotation', async () => {
    const { plugin } = setup(
      [vap('p1', { validations: [{ expression: 'false', message: "I'm sorry Dave" }] }), vap('p2', { validations: [{ expression: 'false', message: "I can't do that" }] })],
      [vapb('b1', 'p1', { validationActions: ['Audit'] }), vapb('b2', 'p2', { validationActions: ['Audit'] })],
    );
    const attrs = deploymentAttributes();
    await plugin.validate(attrs);
    expect(JSON.parse(attrs.annotations[validationFailureAnnotationKey]!)).toEqual([
      { message: "I'm sorry Dave", policy: 'p1', binding: 'b1', expressionIndex: 0, validationActions: ['Audit'] },
      { message: "I can't do that", policy: 'p2', binding: 'b2', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
  });

  it('keeps at most 50 Audit failures in the annotation', async () => {
    const validations = Array.from({ length: 60 }, (_, i) => ({ expression: 'false', message: `m${i}` }));
    const { plugin } = setup([vap('p', { validations })], [vapb('b', 'p', { validationActions: ['Audit'] })]);
    const attrs = deploymentAttributes();
    await plugin.validate(attrs);
    const failures = JSON.parse(attrs.annotations[validationFailureAnnotationKey]!) as Array<{ message: string; expressionIndex: number }>;
    expect(failures).toHaveLength(maxValidationFailures);
    expect(failures.at(-1)).toMatchObject({ message: 'm49', expressionIndex: 49 });
  });

  it('denies and audits with Deny and Audit', async () => {
    const { plugin } = setup([vap('p')], [vapb('b', 'p', { validationActions: ['Deny', 'Audit'] })]);
    const attrs = deploymentAttributes();
    await expect(plugin.validate(attrs)).rejects.toBeInstanceOf(StatusError);
    expect(Object.keys(attrs.annotations)).toEqual([validationFailureAnnotationKey]);
  });

  it('publishes auditAnnotations as <policy>/<key>, distinct values of several bindings joined', async () => {
    const policy = vap('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [],
      auditAnnotations: [
        { key: 'high-replica-count', valueExpression: "'Deployment spec.replicas set to ' + string(object.spec.replicas)" },
        { key: 'limit', valueExpression: 'params.data.maxReplicas' },
        { key: 'none', valueExpression: 'null' },
        { key: 'blank', valueExpression: "'  '" },
      ],
    });
    const bindings = [vapb('b1', 'p', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }), vapb('b2', 'p', { paramRef: { name: 'strict', parameterNotFoundAction: 'Deny' } })];
    const attrs = deploymentAttributes();
    await setup([policy], bindings).plugin.validate(attrs);
    expect(attrs.annotations).toEqual({ 'p/high-replica-count': 'Deployment spec.replicas set to 1', 'p/limit': '3, 1' });
  });

  it('denies an auditAnnotation of an unsupported type, whatever the validationActions', async () => {
    const policy = vap('p', { failurePolicy: 'Ignore', validations: [], auditAnnotations: [{ key: 'k', valueExpression: 'object.spec.replicas' }] });
    expect(await denied(setup([policy], [vapb('b', 'p', { validationActions: ['Warn'] })]).plugin, deploymentAttributes())).toBe(
      `${prefix}ValidatingAdmissionPolicy 'p' with binding 'b' denied request: valueExpression 'object.spec.replicas' resulted in unsupported return type: int. Return type must be either string or null.`,
    );
  });
});

describe('ValidatingAdmissionPolicy: which requests and which policies', () => {
  it('never sees the virtual review resources', async () => {
    const policy = vap('p', { matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] }] }, validations: [{ expression: 'false' }] });
    const { plugin } = setup([policy], [vapb('b', 'p')]);
    const review: KubeObject = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: {} };
    await expect(
      plugin.validate(deploymentAttributes({ resource: { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' }, kind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' }, namespace: '', name: '', object: review })),
    ).resolves.toBeUndefined();
  });

  it('lets only static policies see the policy resources', async () => {
    const everything = { matchPolicy: 'Equivalent' as const, namespaceSelector: {}, objectSelector: {}, resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*' as const] }] };
    const apiPolicy = vap('api-policy', { matchConstraints: everything, validations: [{ expression: 'false', message: 'api' }] });
    const staticPolicy = vap('protect.static.k8s.io', { matchConstraints: everything, validations: [{ expression: "object.metadata.name != 'forbidden'", message: 'static' }] });
    const staticSources = {
      policies: staticSnapshotSource(policyItemsOf<ValidatingAdmissionPolicy>(staticPolicy, 'static')),
      bindings: staticSnapshotSource(bindingItemsOf<ValidatingAdmissionPolicyBinding>(vapb('protect-binding.static.k8s.io', 'protect.static.k8s.io'), 'static')),
    };
    const api = apiSources([apiPolicy], [vapb('b', 'api-policy')]);
    const attrsFor = (name: string) =>
      deploymentAttributes({
        resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' },
        kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' },
        namespace: '',
        name,
        object: vap(name),
      });
    const withoutStatic = setup([], [], { sources: api });
    await expect(withoutStatic.plugin.validate(attrsFor('forbidden'))).resolves.toBeUndefined();
    const withStatic = setup([], [], { sources: compositePolicySources(staticSources, api), staticSources });
    await expect(withStatic.plugin.validate(attrsFor('fine'))).resolves.toBeUndefined();
    expect(await denied(withStatic.plugin, attrsFor('forbidden'))).toBe(
      `validatingadmissionpolicies.admissionregistration.k8s.io "forbidden" is forbidden: ValidatingAdmissionPolicy 'protect.static.k8s.io' with binding 'protect-binding.static.k8s.io' denied request: static`,
    );
    // every other request sees both, static first
    expect(await denied(withStatic.plugin, deploymentAttributes())).toContain("ValidatingAdmissionPolicy 'api-policy'");
  });

  it('refuses requests until the sources have loaded', async () => {
    const sources = apiSources([vap('p')], [vapb('b', 'p')]);
    const { plugin } = setup([], [], { sources: { ...sources, bindings: { snapshot: () => sources.bindings.snapshot(), hasSynced: () => false } } });
    expect(await denied(plugin, deploymentAttributes())).toBe(`${prefix}not yet ready to handle request`);
  });
});

describe('ValidatingAdmissionPolicy metrics', () => {
  it('exposes check_total and check_duration_seconds with kube\'s help, labels and buckets', async () => {
    const { plugin, registry } = setup([vap('p')], [vapb('b', 'p', { validationActions: ['Warn', 'Audit'] })]);
    await plugin.validate(deploymentAttributes());
    const total = await registry.getSingleMetricAsString('apiserver_validating_admission_policy_check_total');
    expect(total).toContain('# HELP apiserver_validating_admission_policy_check_total [BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.');
    expect(total).toContain('apiserver_validating_admission_policy_check_total{enforcement_action="warn",error_type="invalid_error",policy="p",policy_binding="b"} 1');
    expect(total).toContain('apiserver_validating_admission_policy_check_total{enforcement_action="audit",error_type="invalid_error",policy="p",policy_binding="b"} 1');
    const duration = await registry.getSingleMetricAsString('apiserver_validating_admission_policy_check_duration_seconds');
    expect(duration).toMatch(/apiserver_validating_admission_policy_check_duration_seconds_bucket\{le="5e-7",enforcement_action="warn",error_type="invalid_error",policy="p",policy_binding="b"\} \d/);
    expect(duration).toContain('le="+Inf",enforcement_action="warn"');
  });

  it('labels decisions as kube\'s ErrorType does', () => {
    expect(errorTypeOf({ evaluation: 'admit', message: '' })).toBe('no_error');
    expect(errorTypeOf({ evaluation: 'deny', message: 'failed expression: x' })).toBe('invalid_error');
    expect(errorTypeOf({ evaluation: 'error', message: 'compilation error: …' })).toBe('compile_error');
    expect(errorTypeOf({ evaluation: 'error', message: 'validation failed due to running out of cost budget, no further validation rules will be run' })).toBe('out_of_budget');
  });

  it('counts matchCondition evaluation errors of policies', async () => {
    const policy = vap('p', { failurePolicy: 'Ignore', matchConditions: [{ name: 'broken', expression: 'object.nope == 1' }] });
    const { plugin, registry } = setup([policy], [vapb('b', 'p')]);
    await plugin.validate(deploymentAttributes());
    expect(await registry.getSingleMetricAsString('apiserver_admission_match_condition_evaluation_errors_total')).toContain('{kind="policy",name="p",operation="CREATE",type="validate"} 1');
  });
});

describe('ValidatingAdmissionPolicy status (type checking)', () => {
  it('writes observedGeneration and an empty typeChecking, keeping conditions', () => {
    const p = { ...vap('p'), metadata: { name: 'p', generation: 3 }, status: { observedGeneration: 2, conditions: [{ type: 'X', status: 'True' as const, reason: 'R', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] } };
    expect(needsTypeChecking(p)).toBe(true);
    expect(typeCheckedStatus(p)).toEqual({ observedGeneration: 3, typeChecking: {}, conditions: p.status.conditions });
    expect(needsTypeChecking({ ...p, status: typeCheckedStatus(p) })).toBe(false);
  });

  it('lists the checker\'s warnings', () => {
    const warnings = [{ fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'" }];
    expect(typeCheckedStatus(vap('p'), () => warnings)).toEqual({ observedGeneration: 1, typeChecking: { expressionWarnings: warnings } });
  });
});
