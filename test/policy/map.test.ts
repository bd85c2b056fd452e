// MutatingAdmissionPolicy end to end: a real apiserver process, policies and bindings created through the REST API,
// after kube's e2e cases (test/e2e/apimachinery/mutatingadmissionpolicy.go) and integration cases
// (test/integration/apiserver/cel/mutatingadmissionpolicy_test.go): mutating a Deployment, JSONPatch, params,
// matchConditions, failurePolicy, the MAP and MAPB API, ordering with mutating webhooks, static manifests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, patch, startWebhookServer, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { api, freshNamespace, registerMutating } from '../admission/support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;

function route(r: ReceivedReview): WebhookReply {
  if (r.path !== '/label-deployment') return allow();
  const labels = (r.request.object as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels ?? {};
  return labels['webhook'] ? allow() : patch([{ op: 'add', path: '/metadata/labels/webhook', value: 'saw-policy-annotation' }]);
}

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: route });
  server = await startApiServer({ storage: 'memory' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
});

const mapPath = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies';
const mapbPath = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings';
const deployments = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;

let counter = 0;
const unique = (base: string) => `${base}-${++counter}-${Date.now().toString(36)}`;

function deployment(name: string, replicas: number, labels: Record<string, string> = { app: 'test' }) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: { app: 'test' } }, template: { metadata: { labels: { app: 'test' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } } },
  };
}

const deploymentRule = { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };
const applyConfiguration = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });

/** The e2e policy: deployments in namespaces carrying the test's unique label. */
function policy(name: string, uniqueLabel: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { namespaceSelector: { matchLabels: { [uniqueLabel]: 'true' } }, resourceRules: [deploymentRule] }, reinvocationPolicy: 'Never', ...spec },
  };
}

/** createMAPBinding: a binding selecting the test's namespace. */
function binding(name: string, uniqueLabel: string, policyName: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, matchResources: { namespaceSelector: { matchLabels: { [uniqueLabel]: 'true' } } }, ...spec },
  };
}

async function create(p: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await api(server, 'POST', p, body);
  if (r.status !== 201) throw new Error(`POST ${p}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

/** A namespace labeled for the test, with its policy and binding in place (in force at once: the sources see this server's writes). */
async function withPolicy(
  spec: Record<string, unknown>,
  bindingSpec: Record<string, unknown> = {},
): Promise<{ ns: string; policyName: string; bindingName: string; label: string }> {
  const label = unique('map-e2e');
  const ns = await freshNamespace(server, { [label]: 'true' });
  const policyName = `${label}.policy.example.com`;
  const bindingName = `${label}.binding.example.com`;
  await create(mapPath, policy(policyName, label, spec));
  await create(mapbPath, binding(bindingName, label, policyName, bindingSpec));
  return { ns, policyName, bindingName, label };
}

describe('MutatingAdmissionPolicy (e2e and integration cases)', () => {
  it('mutates a Deployment: replicas and annotations from an ApplyConfiguration, stored as mutated', async () => {
    const { ns } = await withPolicy({
      mutations: [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"mutated-by": "admission-policy"}}, spec: Object.spec{replicas: object.spec.replicas + 1}}`)],
    });
    const r = await api(server, 'POST', deployments(ns), deployment('test-deployment', 2));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ metadata: { annotations: { 'mutated-by': 'admission-policy' } }, spec: { replicas: 3 } });
    const stored = await api(server, 'GET', `${deployments(ns)}/test-deployment`);
    expect(stored.json).toMatchObject({ metadata: { annotations: { 'mutated-by': 'admission-policy' } }, spec: { replicas: 3 } });

    // an UPDATE is mutated too; another namespace is not selected
    const scaled = await api(server, 'PATCH', `${deployments(ns)}/test-deployment`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
    expect(scaled.json).toMatchObject({ spec: { replicas: 6 } });
    const other = await freshNamespace(server);
    const untouched = await api(server, 'POST', deployments(other), deployment('test-deployment', 2));
    expect(untouched.json['spec']).toMatchObject({ replicas: 2 });
    expect((untouched.json['metadata'] as { annotations?: unknown }).annotations).toBeUndefined();
  });

  it('applies a JSONPatch mutation, test operation included', async () => {
    const { ns } = await withPolicy({
      mutations: [
        jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels/tier", value: "frontend"}, JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "sidecar", image: "busybox:1.36"}}]`),
        // a failed test leaves the object as it is, without an error
        jsonPatch(`[JSONPatch{op: "test", path: "/spec/replicas", value: 100}, JSONPatch{op: "replace", path: "/spec/replicas", value: 0}]`),
      ],
    });
    const r = await api(server, 'POST', deployments(ns), deployment('patched', 1));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ metadata: { labels: { app: 'test', tier: 'frontend' } }, spec: { replicas: 1 } });
    const containers = ((r.json['spec'] as { template: { spec: { containers: Array<{ name: string; terminationMessagePath?: string }> } } }).template.spec.containers);
    expect(containers.map((c) => c.name)).toEqual(['nginx', 'sidecar']);
  });

  it('mutates with the ConfigMap a binding\'s paramRef names', async () => {
    const label = unique('map-params');
    const ns = await freshNamespace(server, { [label]: 'true' });
    const policyName = `${label}.policy.example.com`;
    await create(mapPath, policy(policyName, label, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      mutations: [applyConfiguration(`Object{metadata: Object.metadata{annotations: {params.data["key"]: params.data["value"]}}}`)],
    }));
    await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'annotation-param' }, data: { key: 'myFooKey', value: 'myFooValue' } });
    await create(mapbPath, binding(`${label}.binding.example.com`, label, policyName, { paramRef: { name: 'annotation-param', parameterNotFoundAction: 'Deny' } }));
    const r = await api(server, 'POST', deployments(ns), deployment('with-param', 1));
    expect(r.json['metadata']).toMatchObject({ annotations: { myFooKey: 'myFooValue' } });

    // without the parameter, parameterNotFoundAction Deny fails the binding
    expect((await api(server, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/annotation-param`)).status).toBe(200);
    const denied = await api(server, 'POST', deployments(ns), deployment('without-param', 1));
    expect([denied.status, denied.json['reason'], denied.json['message']]).toEqual([
      403,
      'Forbidden',
      `policy '${policyName}' with binding '${label}.binding.example.com' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    ]);
  });

  it('skips the mutations when a matchCondition is false', async () => {
    const { ns } = await withPolicy({
      matchConditions: [{ name: 'test-only', expression: `object.metadata.?labels["environment"] == optional.of("test")` }],
      mutations: [applyConfiguration(`Object{metadata: Object.metadata{labels: {"applied": "updated"}}}`)],
    });
    const matched = await api(server, 'POST', deployments(ns), deployment('test-env', 1, { app: 'test', environment: 'test' }));
    expect(matched.json['metadata']).toMatchObject({ labels: { app: 'test', environment: 'test', applied: 'updated' } });
    const skipped = await api(server, 'POST', deployments(ns), deployment('prod-env', 1, { app: 'test', environment: 'production' }));
    expect((skipped.json['metadata'] as { labels: unknown }).labels).toEqual({ app: 'test', environment: 'production' });
  });

  it('denies a failing mutation under failurePolicy Fail and skips it under Ignore', async () => {
    const atomic = applyConfiguration(`Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}`);
    const fail = await withPolicy({ mutations: [atomic] });
    const denied = await api(server, 'POST', deployments(fail.ns), deployment('denied', 1));
    expect(denied.status).toBe(403);
    const message = `policy '${fail.policyName}' with binding '${fail.bindingName}' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector`;
    expect(denied.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Invalid',
      details: { name: 'denied', group: 'apps', kind: 'deployments', causes: [{ message }] },
      code: 403,
    });

    const ignore = await withPolicy({ failurePolicy: 'Ignore', mutations: [applyConfiguration(`Object{spec: Object.spec{paused: true}}`), atomic] });
    const allowed = await api(server, 'POST', deployments(ignore.ns), deployment('allowed', 1));
    expect(allowed.status).toBe(201);
    expect(allowed.json['spec']).toMatchObject({ paused: true, selector: { matchLabels: { app: 'test' } } });

    const metrics = (await server.request('/metrics')).body;
    expect(metrics).toContain(`apiserver_mutating_admission_policy_check_total{error_type="invalid_error",policy="${ignore.policyName}",policy_binding="${ignore.bindingName}"} 1`);
    expect(metrics).toContain(`apiserver_mutating_admission_policy_check_total{error_type="no_error",policy="${ignore.policyName}",policy_binding="${ignore.bindingName}"} 1`);
  });
});

describe('MutatingAdmissionPolicy expressions: jsonpatch library, result types, structured merge', () => {
  it('escapes a label key containing "/" with jsonpatch.escapeKey in a JSONPatch path', async () => {
    const { ns } = await withPolicy({
      mutations: [jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/tier"), value: "gold"}]`)],
    });
    const r = await api(server, 'POST', deployments(ns), deployment('escaped', 1));
    expect([r.status, r.json['message']]).toEqual([201, undefined]);
    expect(r.json['metadata']).toMatchObject({ labels: { app: 'test', 'example.com/tier': 'gold' } });
  });

  it('refuses at create a mutation whose result type is not Object / list(JSONPatch), and jsonpatch outside mutations', async () => {
    const label = unique('map-types');
    const name = `${label}.policy.example.com`;
    const r = await api(server, 'POST', mapPath, policy(name, label, {
      matchConditions: [{ name: 'escaped', expression: `jsonpatch.escapeKey("a/b") == "a~1b"` }],
      mutations: [applyConfiguration('object'), jsonPatch('[]'), applyConfiguration('Object.spec{replicas: 1}')],
    }));
    expect([r.status, r.json['reason']]).toEqual([422, 'Invalid']);
    const causes = (r.json['details'] as { causes: Array<{ field: string; message: string }> }).causes;
    expect(causes.map((c) => [c.field, c.message])).toEqual([
      [
        'spec.matchConditions[0].expression',
        `Invalid value: "jsonpatch.escapeKey(\\"a/b\\") == \\"a~1b\\"": compilation failed: ERROR: <input>:1:1: undeclared reference to 'jsonpatch' (in container '')\n | jsonpatch.escapeKey("a/b") == "a~1b"\n | ^\nERROR: <input>:1:20: undeclared reference to 'escapeKey' (in container '')\n | jsonpatch.escapeKey("a/b") == "a~1b"\n | ...................^`,
      ],
      ['spec.mutations[0].applyConfiguration.expression', 'Invalid value: "object": must evaluate to Object but got dyn'],
      ['spec.mutations[1].jsonPatch.expression', 'Invalid value: "[]": must evaluate to list(JSONPatch) but got list(dyn)'],
      ['spec.mutations[2].applyConfiguration.expression', 'Invalid value: "Object.spec{replicas: 1}": must evaluate to Object but got Object.spec'],
    ]);
  });

  it('denies a mutation whose Object initializer is not named after its field (type mismatch)', async () => {
    const { ns, policyName, bindingName } = await withPolicy({ mutations: [applyConfiguration(`Object{spec: Object.spec{strategy: Object.spec.wrong{type: "Recreate"}}}`)] });
    const r = await api(server, 'POST', deployments(ns), deployment('mismatch', 1));
    expect([r.status, r.json['message']]).toEqual([
      403,
      `policy '${policyName}' with binding '${bindingName}' denied request: type mismatch: unexpected type name "Object.spec.wrong", expected "Object.spec.strategy", which matches field name path from root Object type`,
    ]);
  });

  it('merges containers by name and finalizers as a set, and refuses a field the Deployment schema does not declare', async () => {
    const { ns } = await withPolicy({
      mutations: [
        applyConfiguration(
          `Object{metadata: Object.metadata{finalizers: ["example.com/keep"]}, spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", imagePullPolicy: "Always"}, Object.spec.template.spec.containers{name: "sidecar", image: "busybox:1.36"}]}}}}`,
        ),
      ],
    });
    const body = { ...deployment('merged', 1), metadata: { name: 'merged', labels: { app: 'test' }, finalizers: ['example.com/first'] } };
    const r = await api(server, 'POST', deployments(ns), body);
    expect(r.status).toBe(201);
    expect((r.json['metadata'] as { finalizers: string[] }).finalizers).toEqual(['example.com/first', 'example.com/keep']);
    const containers = (r.json['spec'] as { template: { spec: { containers: Array<{ name: string; image?: string; imagePullPolicy?: string }> } } }).template.spec.containers;
    expect(containers.map((c) => [c.name, c.image, c.imagePullPolicy])).toEqual([
      ['nginx', 'nginx:latest', 'Always'],
      ['sidecar', 'busybox:1.36', 'IfNotPresent'],
    ]);

    const bad = await withPolicy({ mutations: [applyConfiguration(`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", imageZ: "x"}]}}}}`)] });
    const denied = await api(server, 'POST', deployments(bad.ns), deployment('undeclared', 1));
    expect([denied.status, denied.json['message']]).toEqual([
      403,
      `policy '${bad.policyName}' with binding '${bad.bindingName}' denied request: error applying patch: failed to convert patch object to typed object: .spec.template.spec.containers[name="nginx"].imageZ: field not declared in schema`,
    ]);
  });
});

describe('MutatingAdmissionPolicy and mutating webhooks', () => {
  it('runs before MutatingAdmissionWebhook: the webhook sees the policy\'s change, and an IfNeeded policy sees the webhook\'s', async () => {
    const label = unique('map-webhook');
    const ns = await freshNamespace(server, { [label]: 'true' });
    await registerMutating(server, webhook, `${label}.webhook.example.com`, [
      { name: 'label-deployment.example.com', path: '/label-deployment', apiGroups: ['apps'], resources: ['deployments'], namespaceSelector: { matchLabels: { [label]: 'true' } } },
    ]);
    const policyName = `${label}.policy.example.com`;
    await create(mapPath, policy(policyName, label, {
      reinvocationPolicy: 'IfNeeded',
      mutations: [
        applyConfiguration(
          `Object{metadata: Object.metadata{annotations: {"policy": "ran", ?"policy-saw-webhook": object.metadata.?labels["webhook"]}}}`,
        ),
      ],
    }));
    await create(mapbPath, binding(`${label}.binding.example.com`, label, policyName));

    const r = await api(server, 'POST', deployments(ns), deployment('ordered', 1));
    expect(r.status).toBe(201);
    const seen = webhook.reviews.filter((rv) => rv.path === '/label-deployment' && (rv.request.object as { metadata?: { name?: string } }).metadata?.name === 'ordered');
    // the webhook was called after the policy had run
    expect((seen[0]!.request.object as { metadata: { annotations?: Record<string, string> } }).metadata.annotations).toEqual({ policy: 'ran' });
    // the webhook's label made the IfNeeded policy run again in the reinvocation round
    expect(r.json['metadata']).toMatchObject({ labels: { webhook: 'saw-policy-annotation' }, annotations: { policy: 'ran', 'policy-saw-webhook': 'saw-policy-annotation' } });
  });
});

describe('MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding API operations (conformance)', () => {
  it('supports create, get, list, watch, patch, update, delete and deletecollection of policies', async () => {
    const labelValue = unique('m').replace(/[^a-z0-9-]/g, '');
    const label = `example-e2e-map-label=${labelValue}`;
    const template = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { generateName: 'e2e-example-map-', labels: { 'example-e2e-map-label': labelValue } },
      spec: {
        reinvocationPolicy: 'Never',
        mutations: [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"my-foo-annotation": "myAnnotationValue"}}}`)],
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] },
      },
    };
    await create(mapPath, template);
    await create(mapPath, template);
    const created = await create(mapPath, template);
    const meta = created['metadata'] as { name: string; uid: string };
    expect(created['spec']).toMatchObject({ failurePolicy: 'Fail', matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} } });

    expect((await api(server, 'GET', `${mapPath}/${meta.name}`)).json['metadata']).toMatchObject({ uid: meta.uid });
    const list = await api(server, 'GET', `${mapPath}?labelSelector=${encodeURIComponent(label)}`);
    expect((list.json['items'] as unknown[]).length).toBe(3);
    const listRV = (list.json['metadata'] as { resourceVersion: string }).resourceVersion;

    const patched = await api(server, 'PATCH', `${mapPath}/${meta.name}`, { metadata: { annotations: { patched: 'true' } }, spec: { failurePolicy: 'Ignore' } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ metadata: { annotations: { patched: 'true' } }, spec: { failurePolicy: 'Ignore' } });

    const current = (await api(server, 'GET', `${mapPath}/${meta.name}`)).json as { metadata: { annotations: Record<string, string> }; spec: Record<string, unknown> };
    current.metadata.annotations['updated'] = 'true';
    current.spec['failurePolicy'] = 'Fail';
    const updated = await api(server, 'PUT', `${mapPath}/${meta.name}`, current);
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ metadata: { annotations: { updated: 'true' } }, spec: { failurePolicy: 'Fail' } });

    const watched = await server.request(`${mapPath}?watch=true&resourceVersion=${listRV}&labelSelector=${encodeURIComponent(label)}&timeoutSeconds=1`);
    const events = watched.body.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { annotations?: Record<string, string> } } });
    expect(events.some((e) => e.type === 'MODIFIED' && e.object.metadata.annotations?.['patched'] === 'true')).toBe(true);

    // an invalid mutation is refused at write time
    const invalid = await api(server, 'PATCH', `${mapPath}/${meta.name}`, { spec: { mutations: [{ patchType: 'ApplyConfiguration' }] } }, 'application/merge-patch+json');
    expect(invalid.status).toBe(422);
    expect(invalid.json['message']).toContain('spec.mutations[0].applyConfiguration: Required value');

    expect((await api(server, 'DELETE', `${mapPath}/${meta.name}`)).status).toBe(200);
    expect((await api(server, 'GET', `${mapPath}/${meta.name}`)).status).toBe(404);
    expect(((await api(server, 'GET', `${mapPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(2);
    expect((await api(server, 'DELETE', `${mapPath}?labelSelector=${encodeURIComponent(label)}`)).status).toBe(200);
    expect(((await api(server, 'GET', `${mapPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(0);
  });

  it('supports create, get, list, watch, patch, update, delete and deletecollection of bindings; a binding to a missing policy is harmless', async () => {
    const labelValue = unique('mb').replace(/[^a-z0-9-]/g, '');
    const label = `example-e2e-mapb-label=${labelValue}`;
    const template = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { generateName: 'e2e-example-mapb-', labels: { 'example-e2e-mapb-label': labelValue } },
      // no such policy: the binding is stored and changes nothing
      spec: { policyName: 'replicalimit-policy.example.com' },
    };
    await create(mapbPath, template);
    await create(mapbPath, template);
    const created = await create(mapbPath, template);
    const name = (created['metadata'] as { name: string; uid: string }).name;
    expect((await api(server, 'GET', `${mapbPath}/${name}`)).json['metadata']).toMatchObject({ uid: (created['metadata'] as { uid: string }).uid });
    const list = await api(server, 'GET', `${mapbPath}?labelSelector=${encodeURIComponent(label)}`);
    expect((list.json['items'] as unknown[]).length).toBe(3);
    const listRV = (list.json['metadata'] as { resourceVersion: string }).resourceVersion;

    const ns = await freshNamespace(server);
    const unaffected = await api(server, 'POST', deployments(ns), deployment('unaffected', 1));
    expect(unaffected.status).toBe(201);
    expect((unaffected.json['metadata'] as { annotations?: unknown }).annotations).toBeUndefined();

    const patched = await api(server, 'PATCH', `${mapbPath}/${name}`, { metadata: { annotations: { patched: 'true' } } }, 'application/merge-patch+json');
    expect(patched.json).toMatchObject({ metadata: { annotations: { patched: 'true' } } });
    const current = (await api(server, 'GET', `${mapbPath}/${name}`)).json as { metadata: { annotations: Record<string, string> } };
    current.metadata.annotations['updated'] = 'true';
    const updated = await api(server, 'PUT', `${mapbPath}/${name}`, current);
    expect(updated.json).toMatchObject({ metadata: { annotations: { updated: 'true' } } });

    const watched = await server.request(`${mapbPath}?watch=true&resourceVersion=${listRV}&labelSelector=${encodeURIComponent(label)}&timeoutSeconds=1`);
    const events = watched.body.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { annotations?: Record<string, string> } } });
    expect(events.some((e) => e.type === 'MODIFIED' && e.object.metadata.annotations?.['patched'] === 'true')).toBe(true);

    expect((await api(server, 'DELETE', `${mapbPath}/${name}`)).status).toBe(200);
    expect((await api(server, 'GET', `${mapbPath}/${name}`)).status).toBe(404);
    expect(((await api(server, 'GET', `${mapbPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(2);
    expect((await api(server, 'DELETE', `${mapbPath}?labelSelector=${encodeURIComponent(label)}`)).status).toBe(200);
    expect(((await api(server, 'GET', `${mapbPath}?labelSelector=${encodeURIComponent(label)}`)).json['items'] as unknown[]).length).toBe(0);
  });
});

describe('MutatingAdmissionPolicy from static manifests (KEP-5793)', () => {
  it('applies a manifest policy before the REST-registered ones', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kah-map-static-'));
    writeFileSync(
      path.join(dir, 'policy.yaml'),
      [
        'apiVersion: admissionregistration.k8s.io/v1',
        'kind: MutatingAdmissionPolicy',
        'metadata:',
        '  name: stamp.static.k8s.io',
        'spec:',
        '  reinvocationPolicy: Never',
        '  matchConstraints:',
        '    resourceRules:',
        '    - {apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], operations: ["CREATE"]}',
        '  mutations:',
        '  - patchType: ApplyConfiguration',
        '    applyConfiguration:',
        '      expression: \'Object{metadata: Object.metadata{labels: {"stamped": "static"}}}\'',
        '---',
        'apiVersion: admissionregistration.k8s.io/v1',
        'kind: MutatingAdmissionPolicyBinding',
        'metadata:',
        '  name: stamp-binding.static.k8s.io',
        'spec:',
        '  policyName: stamp.static.k8s.io',
        '',
      ].join('\n'),
    );
    const staticServer = await startApiServer({ storage: 'memory', staticManifestDirs: { MutatingAdmissionPolicy: dir } });
    try {
      const apiPolicy = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicy',
        metadata: { name: 'after-static.example.com' },
        spec: {
          reinvocationPolicy: 'Never',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }] },
          mutations: [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"saw-static": object.metadata.?labels["stamped"].orValue("no")}}}`)],
        },
      };
      expect((await api(staticServer, 'POST', mapPath, apiPolicy)).status).toBe(201);
      expect((await api(staticServer, 'POST', mapbPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'after-static-binding' }, spec: { policyName: 'after-static.example.com' } })).status).toBe(201);
      const r = await api(staticServer, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'stamped' }, data: { a: 'b' } });
      expect(r.status).toBe(201);
      expect(r.json['metadata']).toMatchObject({ labels: { stamped: 'static' }, annotations: { 'saw-static': 'static' } });
    } finally {
      await staticServer.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the MutatingAdmissionPolicy feature gate', () => {
  it('leaves the plugin out while the gate is off; the API still stores policies', async () => {
    const gateOff = await startApiServer({ storage: 'memory', featureGates: { MutatingAdmissionPolicy: false } });
    try {
      const p = policy('gated.example.com', 'unused', { mutations: [applyConfiguration(`Object{metadata: Object.metadata{annotations: {"gated": "no"}}}`)] });
      (p.spec as { matchConstraints: Record<string, unknown> }).matchConstraints = { resourceRules: [deploymentRule] };
      expect((await api(gateOff, 'POST', mapPath, p)).status).toBe(201);
      expect((await api(gateOff, 'POST', mapbPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'gated-binding' }, spec: { policyName: 'gated.example.com' } })).status).toBe(201);
      const r = await api(gateOff, 'POST', deployments('default'), deployment('gated', 1));
      expect(r.status).toBe(201);
      expect((r.json['metadata'] as { annotations?: unknown }).annotations).toBeUndefined();
      expect(gateOff.stdout()).toMatch(/"msg":"admission chain","plugins":\["NamespaceLifecycle","LimitRanger","ServiceAccount","Priority","DefaultTolerationSeconds","DefaultStorageClass","MutatingAdmissionWebhook","ValidatingAdmissionPolicy","ValidatingAdmissionWebhook","ResourceQuota"\]/);
    } finally {
      await gateOff.cleanup();
    }
  }, 60_000);
});
