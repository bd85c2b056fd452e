// Admission of custom resources with real HTTPS webhook servers, after kube's e2e webhook conformance cases
// (test/e2e/apimachinery/webhook.go): "should be able to deny custom resource creation, update and deletion",
// "should mutate custom resource", "... with different stored version", "... with pruning"; plus matchPolicy
// Equivalent across a CRD's versions (objects converted to the matched version) and ValidatingAdmissionPolicies
// matching and type-checked against custom resources.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { startConversionWebhookServer, type ConversionWebhookServer } from '../../harness/conversion-webhook-server.js';
import { parse as parseYaml } from 'yaml';
import { createConvertedCronTabCRD, cronConvert, crontabCRD } from './fixtures.js';
import { allow, deny, patch, startWebhookServer, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { api, deleteMutating, deleteValidating, freshNamespace, registerMutating, registerValidating } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

let server: ApiServerHandle;
let webhook: WebhookServer;
let conversion: ConversionWebhookServer;

type Data = Record<string, string> | undefined;
const dataOf = (o: unknown): Data => (o as { data?: Record<string, string> } | undefined)?.data;

// The sample webhook's /custom-resource and /mutating-custom-resource handlers.
function route(r: ReceivedReview): WebhookReply {
  switch (r.path) {
    case '/custom-resource':
      if (r.request.operation === 'DELETE') {
        return dataOf(r.request.oldObject)?.['webhook-e2e-test'] === 'webhook-nondeletable' ? deny('the custom resource cannot be deleted because it contains unwanted key and value') : allow();
      }
      return dataOf(r.request.object)?.['webhook-e2e-test'] === 'webhook-disallow' ? deny('the custom resource contains unwanted data') : allow();
    case '/mutating-custom-resource': {
      const data = dataOf(r.request.object) ?? {};
      if (data['mutation-stage-1'] === 'yes') return patch([{ op: 'add', path: '/data/mutation-stage-2', value: 'yes' }]);
      if (data['mutation-start'] === 'yes') return patch([{ op: 'add', path: '/data/mutation-stage-1', value: 'yes' }]);
      return allow();
    }
    case '/set-cron-spec': {
      // only a v1 object has spec.cronSpec: a v2 object (spec.schedule) sent unconverted is left alone
      const spec = (r.request.object as { spec?: Record<string, unknown> } | undefined)?.spec ?? {};
      return 'cronSpec' in spec ? patch([{ op: 'replace', path: '/spec/cronSpec', value: '*/1 * * * *' }]) : allow();
    }
    default:
      return allow();
  }
}

const openSchema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
const prunedSchema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      data: {
        type: 'object',
        // mutation-stage-2 is intentionally missing so that it is pruned
        properties: { 'mutation-start': { type: 'string' }, 'mutation-stage-1': { type: 'string' } },
      },
    },
  },
};

let crdCount = 0;
/** createAdmissionWebhookMultiVersionTestCRDWithV1Storage: v1 (storage) and v2, namespaced. */
async function multiVersionCRD(schema: Record<string, unknown> = openSchema): Promise<{ group: string; plural: string; name: string; kind: string }> {
  const n = ++crdCount;
  const group = `webhook-crd-test-${n}.example.com`;
  const plural = `e2e-test-webhook-crds`;
  const kind = 'E2eTestWebhookCrd';
  const name = `${plural}.${group}`;
  const r = await api(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    metadata: { name },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: 'e2e-test-webhook-crd', kind, listKind: `${kind}List` },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v2', served: true, storage: false, schema },
      ],
    },
  });
  if (r.status !== 201) throw new Error(`crd: ${r.status} ${JSON.stringify(r.json)}`);
  await eventually(async () => {
    const got = await api(server, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    const conds = ((got.json['status'] as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []);
    expect(conds.find((c) => c.type === 'Established')?.status).toBe('True');
  }, 15_000);
  return { group, plural, name, kind };
}

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: route });
  conversion = await startConversionWebhookServer({ convert: cronConvert });
  server = await startApiServer({ storage: 'memory' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
  await conversion?.close();
});

/** A v1 (storage) / v2 CRD whose versions differ in shape, converted by the conversion webhook. */
const convertedCRD = () => createConvertedCronTabCRD(server, `conv-webhook-test-${++crdCount}.example.com`, conversion);

describe('webhooks on custom resources', () => {
  it('should be able to deny custom resource creation, update and deletion', async () => {
    const crd = await multiVersionCRD();
    const ns = await freshNamespace(server);
    await registerValidating(server, webhook, 'deny-cr', [
      { name: 'deny-unwanted-custom-resource-data.k8s.io', path: '/custom-resource', apiGroups: [crd.group], apiVersions: ['v1', 'v2'], resources: [crd.plural], operations: ['CREATE', 'UPDATE', 'DELETE'] },
    ]);
    const base = `/apis/${crd.group}/v1/namespaces/${ns}/${crd.plural}`;
    const cr = (name: string, data: Record<string, string>) => ({ apiVersion: `${crd.group}/v1`, kind: crd.kind, metadata: { name }, data });
    let r = await api(server, 'POST', base, cr('cr-instance-1', { 'webhook-e2e-test': 'webhook-disallow' }));
    expect(r.status).toBe(403);
    expect(r.json['message']).toBe('admission webhook "deny-unwanted-custom-resource-data.k8s.io" denied the request: the custom resource contains unwanted data');

    r = await api(server, 'POST', base, cr('cr-instance-2', { mutation: 'false' }));
    expect(r.status).toBe(201);
    r = await api(server, 'PATCH', `${base}/cr-instance-2`, { data: { 'webhook-e2e-test': 'webhook-disallow' } }, 'application/merge-patch+json');
    expect(r.status).toBe(403);
    expect(r.json['message']).toContain('the custom resource contains unwanted data');

    r = await api(server, 'POST', base, cr('cr-instance-3', { 'webhook-e2e-test': 'webhook-nondeletable' }));
    expect(r.status).toBe(201);
    r = await api(server, 'DELETE', `${base}/cr-instance-3`);
    expect(r.status).toBe(403);
    expect(r.json['message']).toBe('admission webhook "deny-unwanted-custom-resource-data.k8s.io" denied the request: the custom resource cannot be deleted because it contains unwanted key and value');
    r = await api(server, 'PATCH', `${base}/cr-instance-3`, { data: { 'webhook-e2e-test': null } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    r = await api(server, 'DELETE', `${base}/cr-instance-3`);
    expect(r.status).toBe(200);
    await deleteValidating(server, 'deny-cr');
  });

  async function registerMutatingForCR(name: string, crd: { group: string; plural: string }): Promise<void> {
    const hook = (n: number) => ({ name: `mutate-custom-resource-data-stage-${n}.k8s.io`, path: '/mutating-custom-resource', apiGroups: [crd.group], apiVersions: ['v1', 'v2'], resources: [crd.plural], operations: ['CREATE', 'UPDATE'] });
    await registerMutating(server, webhook, name, [hook(1), hook(2)]);
  }

  it('should mutate custom resource', async () => {
    const crd = await multiVersionCRD();
    const ns = await freshNamespace(server);
    await registerMutatingForCR('mutate-cr', crd);
    const r = await api(server, 'POST', `/apis/${crd.group}/v1/namespaces/${ns}/${crd.plural}`, { apiVersion: `${crd.group}/v1`, kind: crd.kind, metadata: { name: 'cr-instance-1' }, data: { 'mutation-start': 'yes' } });
    expect(r.status).toBe(201);
    expect(r.json['data']).toEqual({ 'mutation-start': 'yes', 'mutation-stage-1': 'yes', 'mutation-stage-2': 'yes' });
    await deleteMutating(server, 'mutate-cr');
  });

  it('should mutate custom resource with different stored version', async () => {
    const crd = await multiVersionCRD();
    const ns = await freshNamespace(server);
    await registerMutatingForCR('mutate-cr-stored', crd);
    let r = await api(server, 'POST', `/apis/${crd.group}/v1/namespaces/${ns}/${crd.plural}`, { apiVersion: `${crd.group}/v1`, kind: crd.kind, metadata: { name: 'cr-instance-1' }, data: { 'mutation-start': 'yes' } });
    expect(r.status).toBe(201);
    // Patching Custom Resource Definition to set v2 as storage (a strategic merge patch, as the e2e test sends)
    const versions = [
      { name: 'v1', storage: false, served: true, schema: openSchema },
      { name: 'v2', storage: true, served: true, schema: openSchema },
    ];
    r = await api(server, 'PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.name}`, { spec: { versions } }, 'application/strategic-merge-patch+json');
    expect(r.status).toBe(200);
    expect((r.json['status'] as { storedVersions: string[] }).storedVersions).toEqual(['v1', 'v2']);
    await eventually(async () => {
      const got = await api(server, 'GET', `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}/cr-instance-1`);
      expect(got.status).toBe(200);
    });
    r = await api(server, 'PATCH', `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}/cr-instance-1`, [{ op: 'add', path: '/dummy', value: 'test' }], 'application/json-patch+json');
    expect(r.status).toBe(200);
    expect(r.json['apiVersion']).toBe(`${crd.group}/v2`);
    expect(r.json['data']).toEqual({ 'mutation-start': 'yes', 'mutation-stage-1': 'yes', 'mutation-stage-2': 'yes' });
    expect(r.json['dummy']).toBe('test');
    await deleteMutating(server, 'mutate-cr-stored');
  });

  it('should mutate custom resource with pruning', async () => {
    const crd = await multiVersionCRD(prunedSchema);
    const ns = await freshNamespace(server);
    await registerMutatingForCR('mutate-cr-pruning', crd);
    const r = await api(server, 'POST', `/apis/${crd.group}/v1/namespaces/${ns}/${crd.plural}`, { apiVersion: `${crd.group}/v1`, kind: crd.kind, metadata: { name: 'cr-instance-1' }, data: { 'mutation-start': 'yes' } });
    expect(r.status).toBe(201);
    expect(r.json['data']).toEqual({ 'mutation-start': 'yes', 'mutation-stage-1': 'yes' });
    const got = await api(server, 'GET', `/apis/${crd.group}/v1/namespaces/${ns}/${crd.plural}/cr-instance-1`);
    expect(got.json['data']).toEqual({ 'mutation-start': 'yes', 'mutation-stage-1': 'yes' });
    await deleteMutating(server, 'mutate-cr-pruning');
  });

  it('matchPolicy Equivalent: a rule for v1 is called for a v2 request, told the matched and the requested version', async () => {
    const crd = await multiVersionCRD();
    const ns = await freshNamespace(server);
    await registerValidating(server, webhook, 'equivalent-cr', [{ name: 'equivalent.k8s.io', path: '/record', apiGroups: [crd.group], apiVersions: ['v1'], resources: [crd.plural], operations: ['CREATE'] }]);
    const before = webhook.reviews.length;
    const r = await api(server, 'POST', `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}`, { apiVersion: `${crd.group}/v2`, kind: crd.kind, metadata: { name: 'eq' }, data: {} });
    expect(r.status).toBe(201);
    const review = webhook.reviews.slice(before).find((x) => x.path === '/record');
    expect(review?.request.resource).toEqual({ group: crd.group, version: 'v1', resource: crd.plural });
    expect(review?.request.requestResource).toEqual({ group: crd.group, version: 'v2', resource: crd.plural });
    expect(review?.request.kind).toEqual({ group: crd.group, version: 'v1', kind: crd.kind });
    await deleteValidating(server, 'equivalent-cr');
  });

  it('matchPolicy Equivalent: a webhook for v1 gets a v2 request converted to v1, and its patch is converted back', async () => {
    const crd = await convertedCRD();
    const ns = await freshNamespace(server);
    const rule = { apiGroups: [crd.group], apiVersions: ['v1'], resources: [crd.plural], operations: ['CREATE', 'UPDATE'] };
    await registerMutating(server, webhook, 'equivalent-mutate-cr', [{ name: 'set-cron-spec.k8s.io', path: '/set-cron-spec', ...rule }]);
    await registerValidating(server, webhook, 'equivalent-record-cr', [{ name: 'record-v1.k8s.io', path: '/record-v1', ...rule }]);
    const before = webhook.reviews.length;
    const base = `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}`;
    let r = await api(server, 'POST', base, { apiVersion: `${crd.group}/v2`, kind: crd.kind, metadata: { name: 'eq' }, spec: { schedule: '0 * * * *' } });
    expect(r.status).toBe(201);
    expect(r.json['apiVersion']).toBe(`${crd.group}/v2`);
    expect(r.json['spec']).toEqual({ schedule: '*/1 * * * *' });

    const reviews = webhook.reviews.slice(before);
    const mutated = reviews.find((x) => x.path === '/set-cron-spec');
    expect(mutated?.request.kind).toEqual({ group: crd.group, version: 'v1', kind: crd.kind });
    expect(mutated?.request.resource).toEqual({ group: crd.group, version: 'v1', resource: crd.plural });
    expect(mutated?.request.requestKind).toEqual({ group: crd.group, version: 'v2', kind: crd.kind });
    expect(mutated?.request.requestResource).toEqual({ group: crd.group, version: 'v2', resource: crd.plural });
    expect(mutated?.request.object).toMatchObject({ apiVersion: `${crd.group}/v1`, spec: { cronSpec: '0 * * * *' } });
    // the validating webhook sees the mutated object, in v1 again
    const validated = reviews.find((x) => x.path === '/record-v1');
    expect(validated?.request.object).toMatchObject({ apiVersion: `${crd.group}/v1`, spec: { cronSpec: '*/1 * * * *' } });

    const current = r.json;
    r = await api(server, 'PUT', `${base}/eq`, { ...current, spec: { schedule: '5 * * * *' } });
    expect(r.status).toBe(200);
    expect(r.json['spec']).toEqual({ schedule: '*/1 * * * *' });
    const update = webhook.reviews.slice(before).filter((x) => x.path === '/record-v1' && x.request.operation === 'UPDATE')[0];
    expect(update?.request.object).toMatchObject({ apiVersion: `${crd.group}/v1`, spec: { cronSpec: '*/1 * * * *' } });
    expect(update?.request.oldObject).toMatchObject({ apiVersion: `${crd.group}/v1`, spec: { cronSpec: '*/1 * * * *' } });
    expect((update?.request.oldObject as { spec?: Record<string, unknown> } | undefined)?.spec).not.toHaveProperty('schedule');
    await deleteMutating(server, 'equivalent-mutate-cr');
    await deleteValidating(server, 'equivalent-record-cr');
  });

  it('a ValidatingAdmissionPolicy matches a custom resource', async () => {
    const crd = await multiVersionCRD();
    const ns = await freshNamespace(server);
    let r = await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      metadata: { name: 'no-forbidden-data.example.com' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [crd.group], apiVersions: ['*'], resources: [crd.plural], operations: ['CREATE', 'UPDATE'] }] },
        validations: [{ expression: "!has(object.data) || !('forbidden' in object.data)", message: 'data.forbidden is not allowed' }],
      },
    });
    expect(r.status).toBe(201);
    r = await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      metadata: { name: 'no-forbidden-data-binding.example.com' },
      spec: { policyName: 'no-forbidden-data.example.com', validationActions: ['Deny'] },
    });
    expect(r.status).toBe(201);
    r = await api(server, 'POST', `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}`, { apiVersion: `${crd.group}/v2`, kind: crd.kind, metadata: { name: 'vap' }, data: { forbidden: 'x' } });
    expect(r.status).toBe(422);
    expect(r.json['message']).toBe(
      `${crd.plural}.${crd.group} "vap" is forbidden: ValidatingAdmissionPolicy 'no-forbidden-data.example.com' with binding 'no-forbidden-data-binding.example.com' denied request: data.forbidden is not allowed`,
    );
    r = await api(server, 'POST', `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}`, { apiVersion: `${crd.group}/v2`, kind: crd.kind, metadata: { name: 'vap' }, data: { fine: 'x' } });
    expect(r.status).toBe(201);
  });
});

describe('ValidatingAdmissionPolicy type checking of custom kinds', () => {
  const vapPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
  const cronTabRule = { operations: ['CREATE'], apiGroups: ['stable.example.com'], apiVersions: ['v1'], resources: ['crontabs'] };
  type Warning = { fieldRef: string; warning: string };
  let policies = 0;

  beforeAll(async () => {
    const r = await api(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', parseYaml(crontabCRD));
    expect(r.status).toBe(201);
    await eventually(async () => expect((await api(server, 'GET', '/apis/stable.example.com/v1')).status).toBe(200), 15_000);
  });

  /** Creates the policy and waits for the status controller's typeChecking. */
  async function typeCheck(spec: Record<string, unknown>): Promise<Warning[]> {
    const name = `crd-typecheck-${++policies}.example.com`;
    const created = await api(server, 'POST', vapPath, { metadata: { name }, spec: { failurePolicy: 'Fail', ...spec } });
    expect(created.status).toBe(201);
    return eventually(async () => {
      const s = (await api(server, 'GET', `${vapPath}/${name}`)).json['status'] as { typeChecking?: { expressionWarnings?: Warning[] } } | undefined;
      expect(s?.typeChecking).toBeDefined();
      return s!.typeChecking!.expressionWarnings ?? [];
    });
  }

  it('warns about an undefined field of a custom resource, naming its kind', async () => {
    const warnings = await typeCheck({ matchConstraints: { resourceRules: [cronTabRule] }, validations: [{ expression: 'object.spec.replicass > 1' }] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fieldRef).toBe('spec.validations[0].expression');
    expect(warnings[0]!.warning).toMatch(/^stable\.example\.com\/v1, Kind=CronTab: ERROR: <input>:1:\d+: undefined field 'replicass'\n/);
  });

  it('accepts the fields the CRD schema declares, and object metadata', async () => {
    const warnings = await typeCheck({
      matchConstraints: { resourceRules: [cronTabRule] },
      validations: [{ expression: "object.spec.replicas > 1 && object.spec.cronSpec != '' && object.metadata.name != ''" }],
    });
    expect(warnings).toEqual([]);
  });

  it('types params from a CRD paramKind', async () => {
    const spec = (expression: string) => ({
      paramKind: { apiVersion: 'stable.example.com/v1', kind: 'CronTab' },
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] },
      validations: [{ expression }],
    });
    expect(await typeCheck(spec('object.spec.replicas <= params.spec.replicas'))).toEqual([]);
    const warnings = await typeCheck(spec("params.spec.image == 1"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.warning).toMatch(/^apps\/v1, Kind=Deployment: ERROR: <input>:1:\d+: found no matching overload for '_==_' applied to '\(string, int\)'/);
  });
});
