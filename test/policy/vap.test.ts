// ValidatingAdmissionPolicy end to end: a real apiserver process, policies and bindings created through the REST
// API, after kube's e2e cases (test/e2e/apimachinery/validatingadmissionpolicy.go) and the behaviours of the
// ValidatingAdmissionPolicy documentation (params, validationActions, reasons, audit annotations, metrics).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { api, freshNamespace } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

let server: ApiServerHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-vap-'));
  server = await startApiServer({ storage: 'memory', flags: [`--audit-log-path=${path.join(dir, 'audit.log')}`] });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const vapPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const vapbPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const deployments = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;

let counter = 0;
const unique = (base: string) => `${base}-${++counter}-${Date.now().toString(36)}`;

function deployment(name: string, replicas: number, labels: Record<string, string> = { app: 'nginx' }) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } } },
  };
}

const deploymentRule = { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };

/** newValidatingAdmissionPolicyBuilder(...).MatchUniqueNamespace(label): the policy only sees the test's namespace. */
function policy(name: string, uniqueLabel: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { namespaceSelector: { matchLabels: { [uniqueLabel]: 'true' } }, resourceRules: [deploymentRule] }, ...spec },
  };
}

/** createBinding(...): a Deny binding selecting the test's namespace. */
function binding(name: string, uniqueLabel: string, policyName: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, matchResources: { namespaceSelector: { matchLabels: { [uniqueLabel]: 'true' } } }, validationActions: ['Deny'], ...spec },
  };
}

async function create(p: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await api(server, 'POST', p, body);
  if (r.status !== 201) throw new Error(`POST ${p}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

/** A namespace labeled for the test (labelNamespace), with its policy and binding in place. */
async function withPolicy(
  spec: Record<string, unknown> | ((ns: string) => Record<string, unknown>),
  bindingSpec: Record<string, unknown> = {},
): Promise<{ ns: string; policyName: string; bindingName: string; label: string }> {
  const label = unique('vap-e2e');
  const ns = await freshNamespace(server, { [label]: 'true' });
  const policyName = `${label}.policy.example.com`;
  const bindingName = `${label}.binding.example.com`;
  await create(vapPath, policy(policyName, label, typeof spec === 'function' ? spec(ns) : spec));
  await create(vapbPath, binding(bindingName, label, policyName, bindingSpec));
  return { ns, policyName, bindingName, label };
}

const denialPrefix = (name: string, policyName: string, bindingName: string) =>
  `deployments.apps "${name}" is forbidden: ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: `;

describe('ValidatingAdmissionPolicy (e2e conformance cases)', () => {
  it('validates against a Deployment, with messageExpression and namespaceObject', async () => {
    const { ns, policyName, bindingName } = await withPolicy((namespace) => ({
      validations: [
        { expression: 'object.spec.replicas > 1', messageExpression: "'wants replicas > 1, got ' + object.spec.replicas" },
        { expression: `namespaceObject.metadata.name == '${namespace}'`, message: 'Internal error! Other namespace should not be allowed.' },
      ],
    }));
    const denied = await api(server, 'POST', deployments(ns), deployment('marker-deployment', 1));
    expect(denied.status).toBe(422);
    expect(denied.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      // the messageExpression adds an int to a string: a runtime error, so kube falls back to the expression
      message: `${denialPrefix('marker-deployment', policyName, bindingName)}failed expression: object.spec.replicas > 1`,
      details: { name: 'marker-deployment', group: 'apps', kind: 'deployments', causes: [{ message: `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: failed expression: object.spec.replicas > 1` }] },
    });
    expect((await api(server, 'POST', deployments(ns), deployment('replicated', 2))).status).toBe(201);
    // not matched: another resource, another namespace
    expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'cm' } })).status).toBe(201);
    const other = await freshNamespace(server);
    expect((await api(server, 'POST', deployments(other), deployment('marker-deployment', 1))).status).toBe(201);
  });

  it('lets expressions refer variables', async () => {
    const { ns, policyName, bindingName } = await withPolicy({
      variables: [
        { name: 'replicas', expression: 'object.spec.replicas' },
        { name: 'oddReplicas', expression: 'variables.replicas % 2 == 1' },
      ],
      validations: [{ expression: 'variables.replicas > 1' }, { expression: 'variables.oddReplicas' }],
    });
    const one = await api(server, 'POST', deployments(ns), deployment('marker-deployment', 1));
    expect([one.status, one.json['message']]).toEqual([422, `${denialPrefix('marker-deployment', policyName, bindingName)}failed expression: variables.replicas > 1`]);
    const two = await api(server, 'POST', deployments(ns), deployment('even', 2));
    expect([two.status, two.json['message']]).toEqual([422, `${denialPrefix('even', policyName, bindingName)}failed expression: variables.oddReplicas`]);
    expect((await api(server, 'POST', deployments(ns), deployment('replicated', 3))).status).toBe(201);
  });

  it('writes status.typeChecking once the policy is created', async () => {
    const label = unique('vap-typecheck');
    const created = await create(vapPath, policy(`${label}.correct-policy.example.com`, label, { validations: [{ expression: 'object.spec.replicas > 1' }] }));
    const name = (created['metadata'] as { name: string }).name;
    await eventually(async () => {
      const r = await api(server, 'GET', `${vapPath}/${name}`);
      expect(r.json['status']).toEqual({ observedGeneration: 1, typeChecking: {} });
    });
    // a spec change is type-checked again
    const patched = await api(server, 'PATCH', `${vapPath}/${name}`, { spec: { failurePolicy: 'Ignore' } }, 'application/merge-patch+json');
    expect(patched.json['metadata']).toMatchObject({ generation: 2 });
    await eventually(async () => expect((await api(server, 'GET', `${vapPath}/${name}`)).json['status']).toMatchObject({ observedGeneration: 2 }));
  });
});

describe('ValidatingAdmissionPolicy params, actions and reasons', () => {
  it('validates against the ConfigMap a binding\'s paramRef names', async () => {
    const label = unique('vap-params');
    const ns = await freshNamespace(server, { [label]: 'true' });
    const policyName = `${label}.replicalimit-policy.example.com`;
    await create(vapPath, policy(policyName, label, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.maxReplicas)', messageExpression: "'object.spec.replicas must be no greater than ' + params.data.maxReplicas", reason: 'Invalid' }],
    }));
    await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'replica-limit' }, data: { maxReplicas: '3' } });
    await create(vapbPath, binding(`${label}.binding.example.com`, label, policyName, { paramRef: { name: 'replica-limit', parameterNotFoundAction: 'Deny' } }));
    expect((await api(server, 'POST', deployments(ns), deployment('three', 3))).status).toBe(201);
    const four = await api(server, 'POST', deployments(ns), deployment('four', 4));
    expect([four.status, four.json['message']]).toEqual([422, `${denialPrefix('four', policyName, `${label}.binding.example.com`)}object.spec.replicas must be no greater than 3`]);

    // a parameter written by a client is in force for its next request
    expect((await api(server, 'PUT', `/api/v1/namespaces/${ns}/configmaps/replica-limit`, { metadata: { name: 'replica-limit' }, data: { maxReplicas: '5' } })).status).toBe(200);
    expect((await api(server, 'POST', deployments(ns), deployment('four', 4))).status).toBe(201);

    // without the parameter, parameterNotFoundAction Deny fails the binding
    expect((await api(server, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/replica-limit`)).status).toBe(200);
    const missing = await api(server, 'POST', deployments(ns), deployment('five', 1));
    expect([missing.status, missing.json['message']]).toEqual([
      422,
      `${denialPrefix('five', policyName, `${label}.binding.example.com`)}failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    ]);
  });

  it('answers authorizer checks with the server\'s authorizer (AlwaysAllow here)', async () => {
    const { ns } = await withPolicy({
      validations: [{ expression: "authorizer.group('apps').resource('deployments').namespace(request.namespace).check('delete').allowed() && authorizer.requestResource.check('create').allowed()" }],
    });
    expect((await api(server, 'POST', deployments(ns), deployment('authorized', 1))).status).toBe(201);
  });

  it('answers with the validation\'s reason and its code', async () => {
    const { ns } = await withPolicy({ validations: [{ expression: 'object.spec.replicas > 1', reason: 'Forbidden', message: 'replicas must be above one' }] });
    const r = await api(server, 'POST', deployments(ns), deployment('one', 1));
    expect([r.status, r.json['reason'], r.json['code']]).toEqual([403, 'Forbidden', 403]);
    expect(r.json['message']).toMatch(/denied request: replicas must be above one$/);
  });

  it('warns with Warn and admits', async () => {
    const { ns, policyName, bindingName } = await withPolicy({ validations: [{ expression: 'object.spec.replicas > 1', message: 'wants more replicas' }] }, { validationActions: ['Warn'] });
    const r = await api(server, 'POST', deployments(ns), deployment('warned', 1));
    expect(r.status).toBe(201);
    expect(r.warnings).toContain(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': wants more replicas`);
  });

  it('audits with Audit and admits; auditAnnotations are published under the policy name', async () => {
    const { ns, policyName, bindingName } = await withPolicy(
      {
        validations: [{ expression: 'object.spec.replicas > 1', message: 'wants more replicas' }],
        auditAnnotations: [{ key: 'replicas', valueExpression: "'replicas set to ' + string(object.spec.replicas)" }],
      },
      { validationActions: ['Audit'] },
    );
    expect((await api(server, 'POST', deployments(ns), deployment('audited', 1))).status).toBe(201);
    await eventually(() => {
      const events = readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      // the only create of a deployment in this namespace (the objectRef of a create has no name)
      const ev = events.find((e) => e.verb === 'create' && e.objectRef?.namespace === ns && e.objectRef?.resource === 'deployments');
      expect(JSON.parse(ev?.annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? 'null')).toEqual([
        { message: 'wants more replicas', policy: policyName, binding: bindingName, expressionIndex: 0, validationActions: ['Audit'] },
      ]);
      expect(ev.annotations[`${policyName}/replicas`]).toBe('replicas set to 1');
    });
  });

  it('refuses a policy whose expression does not compile, at the expression\'s field path', async () => {
    const label = unique('vap-invalid');
    const r = await api(server, 'POST', vapPath, policy(`${label}.example.com`, label, { validations: [{ expression: 'object.spec.replicas >' }] }));
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.validations[0].expression' }] } });
    expect(r.json['message']).toContain('compilation failed: ERROR: <input>:1:23');
  });

  it('counts checks in apiserver_validating_admission_policy_check_total', async () => {
    const { ns, policyName, bindingName } = await withPolicy({ validations: [{ expression: 'object.spec.replicas > 1' }] });
    expect((await api(server, 'POST', deployments(ns), deployment('counted', 1))).status).toBe(422);
    const metrics = (await server.request('/metrics')).body;
    expect(metrics).toContain(`apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="${policyName}",policy_binding="${bindingName}"} 1`);
  });
});

describe('ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding API operations (conformance)', () => {
  it('supports create, get, list, watch, patch, update, status, delete and deletecollection of policies', async () => {
    const labelValue = unique('v').replace(/[^a-z0-9-]/g, '');
    const label = `example-e2e-vap-label=${labelValue}`;
    const template = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { generateName: 'e2e-example-vap-', labels: { 'example-e2e-vap-label': labelValue } },
      spec: { validations: [{ expression: 'object.spec.replicas <= 100' }], matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] } },
    };
    await create(vapPath, template);
    await create(vapPath, template);
    const created = await create(vapPath, template);
    const meta = created['metadata'] as { name: string; uid: string };
    expect(created['spec']).toMatchObject({ failurePolicy: 'Fail', matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} } });

    expect((await api(server, 'GET', `${vapPath}/${meta.name}`)).json['metadata']).toMatchObject({ uid: meta.uid });
    const list = await api(server, 'GET', `${vapPath}?labelSelector=${encodeURIComponent(label)}`);
    expect((list.json['items'] as unknown[]).length).toBe(3);
    const listRV = (list.json['metadata'] as { resourceVersion: string }).resourceVersion;

    const patched = await api(server, 'PATCH', `${vapPath}/${meta.name}`, { metadata: { annotations: { patched: 'true' } }, spec: { failurePolicy: 'Ignore' } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ metadata: { annotations: { patched: 'true' } }, spec: { failurePolicy: 'Ignore' } });

    const current = (await api(server, 'GET', `${vapPath}/${meta.name}`)).json as { metadata: { annotations: Record<string, string> }; spec: Record<string, unknown> };
    current.metadata.annotations['updated'] = 'true';
    current.spec['failurePolicy'] = 'Fail';
    const updated = await api(server, 'PUT', `${vapPath}/${meta.name}`, current);
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ metadata: { annotations: { updated: 'true' } }, spec: { failurePolicy: 'Fail' } });

    const watched = await server.request(`${vapPath}?watch=true&resourceVersion=${listRV}&labelSelector=${encodeURIComponent(label)}&timeoutSeconds=1`);
    const events = watched.body.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { annotations?: Record<string, string> } } });
    expect(events.some((e) => e.type === 'MODIFIED' && e.object.metadata.annotations?.['patched'] === 'true')).toBe(true);

    const statusRead = await api(server, 'GET', `${vapPath}/${meta.name}/status`);
    expect(statusRead.json).toMatchObject({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { uid: meta.uid } });

    const statusPatch = await api(
      server,
      'PATCH',
      `${vapPath}/${meta.name}/status`,
      { status: { conditions: [{ type: 'PatchStatusFailed', status: 'False', reason: 'e2e', message: 'Set from an e2e test', lastTransitionTime: '2024-01-01T00:00:00Z' }] } },
      'application/merge-patch+json',
    );
    expect(statusPatch.status).toBe(200);
    expect((statusPatch.json['status'] as { conditions: Array<{ type: string }> }).conditions.map((c) => c.type)).toContain('PatchStatusFailed');

    await eventually(async () => {
      const fresh = (await api(server, 'GET', `${vapPath}/${meta.name}`)).json as { status: { conditions?: unknown[] } };
      fresh.status.conditions = [...(fresh.status.conditions ?? []), { type: 'StatusUpdateFailed', status: 'False', reason: 'E2E', message: 'Set from an e2e test', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }];
      const statusUpdate = await api(server, 'PUT', `${vapPath}/${meta.name}/status`, fresh);
      expect(statusUpdate.status).toBe(200);
      expect((statusUpdate.json['status'] as { conditions: Array<{ type: string }> }).conditions.map((c) => c.type)).toContain('StatusUpdateFailed');
    });

    const badStatus = await api(server, 'PATCH', `${vapPath}/${meta.name}/status`, { status: { conditions: [{ type: 'Bad', status: 'Maybe', reason: 'e2e', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] } }, 'application/merge-patch+json');
    expect(badStatus.status).toBe(422);
    expect(badStatus.json['message']).toContain('status.conditions[0].status: Unsupported value: "Maybe"');

    expect((await api(server, 'DELETE', `${vapPath}/${meta.name}`)).status).toBe(200);
    expect((await api(server, 'GET', `${vapPath}/${meta.name}`)).status).toBe(404);
    expect(((await api(server, 'GET', `${vapPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(2);
    expect((await api(server, 'DELETE', `${vapPath}?labelSelector=${encodeURIComponent(label)}`)).status).toBe(200);
    expect(((await api(server, 'GET', `${vapPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(0);
  });

  it('supports create, get, list, watch, patch, update, delete and deletecollection of bindings', async () => {
    const labelValue = unique('b').replace(/[^a-z0-9-]/g, '');
    const label = `example-e2e-vapb-label=${labelValue}`;
    const template = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { generateName: 'e2e-example-vapb-', labels: { 'example-e2e-vapb-label': labelValue } },
      spec: { policyName: 'replicalimit-policy.example.com', validationActions: ['Deny'] },
    };
    await create(vapbPath, template);
    await create(vapbPath, template);
    const created = await create(vapbPath, template);
    const name = (created['metadata'] as { name: string }).name;

    const patched = await api(server, 'PATCH', `${vapbPath}/${name}`, { metadata: { annotations: { patched: 'true' } }, spec: { validationActions: ['Warn'] } }, 'application/merge-patch+json');
    expect(patched.json).toMatchObject({ metadata: { annotations: { patched: 'true' } }, spec: { validationActions: ['Warn'] } });
    const current = (await api(server, 'GET', `${vapbPath}/${name}`)).json as { metadata: { annotations: Record<string, string> }; spec: Record<string, unknown> };
    current.metadata.annotations['updated'] = 'true';
    current.spec['validationActions'] = ['Deny'];
    const updated = await api(server, 'PUT', `${vapbPath}/${name}`, current);
    expect(updated.json).toMatchObject({ metadata: { annotations: { updated: 'true' } }, spec: { validationActions: ['Deny'] } });

    const invalid = await api(server, 'PATCH', `${vapbPath}/${name}`, { spec: { validationActions: ['Deny', 'Warn'] } }, 'application/merge-patch+json');
    expect(invalid.status).toBe(422);
    expect(invalid.json['message']).toContain('spec.validationActions: Invalid value');

    expect((await api(server, 'DELETE', `${vapbPath}/${name}`)).status).toBe(200);
    expect(((await api(server, 'GET', `${vapbPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(2);
    expect((await api(server, 'DELETE', `${vapbPath}?labelSelector=${encodeURIComponent(label)}`)).status).toBe(200);
    expect(((await api(server, 'GET', `${vapbPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(0);
  });
});
