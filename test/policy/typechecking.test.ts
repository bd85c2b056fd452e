// Schema-aware type checking of ValidatingAdmissionPolicies through the real API: the status controller writes
// status.typeChecking.expressionWarnings as kube-controller-manager does (kube's e2e "should type check validation
// expressions", test/e2e/apimachinery/validatingadmissionpolicy.go, and typechecking.go's rules), while admission
// keeps evaluating with dyn `object`.
import { useApiServer } from '../../harness/jest.js';
import { api, freshNamespace } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

const env = useApiServer({ storage: 'memory' });

const vapPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const bindingPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

let counter = 0;
const unique = (base: string) => `${base}-${++counter}-${Date.now().toString(36)}.example.com`;

const deploymentRule = { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };

interface Warning {
  fieldRef: string;
  warning: string;
}

/** Creates the policy and polls until the controller has type-checked it (e2e: non-nil status.typeChecking). */
async function typeCheck(spec: Record<string, unknown>): Promise<Warning[] | undefined> {
  const name = unique('typecheck');
  const created = await api(env.server, 'POST', vapPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { failurePolicy: 'Fail', ...spec } });
  expect(created.status).toBe(201);
  const status = await eventually(async () => {
    const got = await api(env.server, 'GET', `${vapPath}/${name}`);
    const s = got.json['status'] as { observedGeneration?: number; typeChecking?: { expressionWarnings?: Warning[] } } | undefined;
    expect(s?.observedGeneration).toBe(1);
    expect(s?.typeChecking).toBeDefined();
    return s!;
  });
  return status.typeChecking!.expressionWarnings;
}

describe('ValidatingAdmissionPolicy type checking', () => {
  it('reports no warnings for a correctly typed policy (e2e: creating the policy with correct types)', async () => {
    const warnings = await typeCheck({ matchConstraints: { resourceRules: [deploymentRule] }, validations: [{ expression: 'object.spec.replicas > 1' }] });
    expect(warnings ?? []).toEqual([]);
  });

  it('reports the type confusion of the e2e policy, expression first, then messageExpression', async () => {
    const warnings = await typeCheck({
      matchConstraints: { resourceRules: [deploymentRule] },
      validations: [{ expression: "object.spec.replicas > '1'", messageExpression: "'wants replicas > 1, got ' + object.spec.replicas" }],
    });
    expect(warnings).toHaveLength(2);
    expect(warnings![0]!.fieldRef).toBe('spec.validations[0].expression');
    expect(warnings![0]!.warning).toContain("found no matching overload for '_>_' applied to '(int, string)'");
    expect(warnings![1]!.fieldRef).toBe('spec.validations[0].messageExpression');
    expect(warnings![1]!.warning).toContain("found no matching overload for '_+_' applied to '(string, int)'");
  });

  it('reports a field typo with the kind, position and caret as kube formats it', async () => {
    const warnings = await typeCheck({ matchConstraints: { resourceRules: [deploymentRule] }, validations: [{ expression: 'object.spec.replicass > 1' }] });
    expect(warnings).toEqual([
      { fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n" },
    ]);
  });

  it('checks every matched kind, sorted by group, version and kind, and names each failing one', async () => {
    const warnings = await typeCheck({
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['', 'apps'], apiVersions: ['v1'], resources: ['pods', 'deployments', 'configmaps'] }] },
      validations: [{ expression: 'object.spec.replicas > 1' }, { expression: "object.metadata.name != ''" }],
    });
    // ConfigMap has no spec; Pod's spec has no replicas; Deployment's has
    expect(warnings).toHaveLength(1);
    expect(warnings![0]!.fieldRef).toBe('spec.validations[0].expression');
    expect(warnings![0]!.warning).toBe(
      "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.replicas > 1\n | ......^\n" +
        '\n' +
        "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'replicas'\n | object.spec.replicas > 1\n | ...........^\n",
    );
  });

  it('skips wildcard rules and wildcard resources, as kube does', async () => {
    const warnings = await typeCheck({
      matchConstraints: {
        resourceRules: [
          { operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] },
          { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*', 'deployments/status'] },
        ],
      },
      validations: [{ expression: 'object.spec.replicass > 1' }],
    });
    expect(warnings ?? []).toEqual([]);
  });

  it('types params from a ConfigMap paramKind', async () => {
    const warnings = await typeCheck({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [deploymentRule] },
      validations: [
        { expression: "object.spec.replicas <= int(params.data['maxReplicas'])" },
        { expression: 'object.spec.replicas <= params.spec.maxReplicas' },
        { expression: 'true', messageExpression: "'limit is ' + params.data.maxReplicas" },
      ],
    });
    expect(warnings).toEqual([{ fieldRef: 'spec.validations[1].expression', warning: expect.stringContaining("apps/v1, Kind=Deployment: ERROR: <input>:1:31: undefined field 'spec'") }]);
  });

  it('types variables by their expressions', async () => {
    const warnings = await typeCheck({
      matchConstraints: { resourceRules: [deploymentRule] },
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }, { name: 'image', expression: 'object.spec.template.spec.containers[0].image' }],
      validations: [{ expression: 'variables.replicas > 1 && variables.image.startsWith("nginx")' }, { expression: "variables.replicas == 'three'" }],
    });
    expect(warnings).toEqual([{ fieldRef: 'spec.validations[1].expression', warning: expect.stringContaining("found no matching overload for '_==_' applied to '(int, string)'") }]);
  });

  it('rechecks a policy whose spec changes and clears the warnings once fixed', async () => {
    const name = unique('recheck');
    const body = (expression: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [deploymentRule] }, validations: [{ expression }] } });
    expect((await api(env.server, 'POST', vapPath, body('object.spec.replicass > 1'))).status).toBe(201);
    await eventually(async () => {
      const s = (await api(env.server, 'GET', `${vapPath}/${name}`)).json['status'] as { typeChecking?: { expressionWarnings?: Warning[] } } | undefined;
      expect(s?.typeChecking?.expressionWarnings).toHaveLength(1);
    });
    const current = await api(env.server, 'GET', `${vapPath}/${name}`);
    const fixed = { ...body('object.spec.replicas > 1'), metadata: current.json['metadata'] };
    expect((await api(env.server, 'PUT', `${vapPath}/${name}`, fixed)).status).toBe(200);
    await eventually(async () => {
      const s = (await api(env.server, 'GET', `${vapPath}/${name}`)).json['status'] as { observedGeneration?: number; typeChecking?: { expressionWarnings?: Warning[] } } | undefined;
      expect(s?.observedGeneration).toBe(2);
      expect(s?.typeChecking).toEqual({});
    });
  });

  it('leaves admission unchanged: a policy with type warnings still evaluates with dyn object', async () => {
    const label = `typecheck-${Date.now().toString(36)}`;
    const ns = await freshNamespace(env.server, { [label]: 'true' });
    const name = unique('dyn-at-runtime');
    // validations[1] warns at write time and is still compiled and evaluated at admission, with dyn `object`
    expect(
      (await api(env.server, 'POST', vapPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { failurePolicy: 'Fail', matchConstraints: { namespaceSelector: { matchLabels: { [label]: 'true' } }, resourceRules: [deploymentRule] }, validations: [{ expression: "has(object.spec.replicas) ? object.spec.replicas > 1 : true" }, { expression: 'object.spec.replicass > 0' }] } }))
        .status,
    ).toBe(201);
    expect((await api(env.server, 'POST', bindingPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `${name}-binding` }, spec: { policyName: name, validationActions: ['Deny'] } })).status).toBe(201);
    await eventually(async () => {
      const s = (await api(env.server, 'GET', `${vapPath}/${name}`)).json['status'] as { typeChecking?: { expressionWarnings?: Warning[] } } | undefined;
      expect(s?.typeChecking?.expressionWarnings?.map((w) => w.fieldRef)).toEqual(['spec.validations[1].expression']);
    });
    // at runtime the typo is a missing key on a dyn map, as in kube: "no such key: replicass"
    const res = await api(env.server, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    });
    expect(res.status).toBe(422);
    expect(String(res.json['message'])).toContain('no such key: replicass');
  });
});
