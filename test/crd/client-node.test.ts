// Custom resources through @kubernetes/client-node (ApiextensionsV1Api, CustomObjectsApi, Watch): CRD
// validation errors, schema errors with kube's causes, CEL transition rules, watch, and a second served version
// read and written through the storage version; plus, over raw REST, metadata.generation with and without the
// status subresource and the Warning headers of ratcheted x-kubernetes-validations.
import * as k8s from '@kubernetes/client-node';
import { useApiServer } from '../../harness/jest.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

const env = useApiServer({ storage: 'memory' });
const group = 'widgets.example.com';

interface StatusBody {
  code: number;
  reason: string;
  message: string;
  details?: { causes?: Array<{ reason: string; message: string; field: string }> };
}
const statusOf = (err: unknown): StatusBody => JSON.parse((err as { body: string }).body) as StatusBody;

const widgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', enum: ['small', 'large'] },
        color: { type: 'string', default: 'blue' },
        count: { type: 'integer', minimum: 1 },
        phase: { type: 'string', 'x-kubernetes-validations': [{ rule: "self == oldSelf || oldSelf != 'Done'", message: 'a Done widget cannot change phase' }] },
      },
    },
  },
};

function widgetCRD(): k8s.V1CustomResourceDefinition {
  return {
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: widgetSchema } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: widgetSchema } },
      ],
    },
  };
}

async function waitEstablished(name: string): Promise<void> {
  const ext = env.client(k8s.ApiextensionsV1Api);
  await eventually(async () => {
    const crd = await ext.readCustomResourceDefinition({ name });
    expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
  }, 15_000);
}

describe('CRDs through @kubernetes/client-node', () => {
  it('rejects an invalid CRD with kube-apiserver messages', async () => {
    const ext = env.client(k8s.ApiextensionsV1Api);
    const bad = widgetCRD();
    bad.metadata!.name = 'wrong-name.example.com';
    bad.spec.versions = bad.spec.versions.map((v) => ({ ...v, storage: true }));
    bad.spec.versions.push({ name: 'V3', served: true, storage: false });
    const err = await ext.createCustomResourceDefinition({ body: bad }).catch((e: unknown) => e);
    const status = statusOf(err);
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toContain('CustomResourceDefinition.apiextensions.k8s.io "wrong-name.example.com" is invalid');
    const causes = status.details!.causes!.map((c) => `${c.field}: ${c.message}`);
    expect(causes).toContain('metadata.name: Invalid value: "wrong-name.example.com": must be spec.names.plural+"."+spec.group');
    expect(causes.some((c) => c.startsWith('spec.versions: Invalid value: ') && c.endsWith('must have exactly one version marked as storage version'))).toBe(true);
    expect(causes).toContain(
      'spec.versions[2].name: Invalid value: "V3": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    );
    expect(causes).toContain('spec.versions[2].schema.openAPIV3Schema: Required value: schemas are required');
  });

  it('creates the CRD and serves both versions', async () => {
    // posted as JSON: client-node's typed JSONSchemaProps would drop `default`, `enum` and x-kubernetes-* unless
    // spelled `_default`, `_enum`, `x_kubernetes_validations`
    const res0 = await env.server.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: widgetCRD() });
    expect(res0.status).toBe(201);
    await waitEstablished(`widgets.${group}`);
    const res = await env.server.request(`/apis/${group}`);
    expect(res.json()).toMatchObject({ name: group, versions: [{ groupVersion: `${group}/v2` }, { groupVersion: `${group}/v1` }], preferredVersion: { version: 'v2' } });
  });

  it('creates, lists, patches and reads a custom resource in both versions', async () => {
    const co = env.client(k8s.CustomObjectsApi);
    const created = (await co.createNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 'small' } } })) as k8s.KubernetesObject & { spec: Record<string, unknown> };
    expect(created.spec).toEqual({ size: 'small', color: 'blue' });
    const inV2 = (await co.getNamespacedCustomObject({ group, version: 'v2', namespace: 'default', plural: 'widgets', name: 'w1' })) as k8s.KubernetesObject;
    expect(inV2.apiVersion).toBe(`${group}/v2`);
    const patched = (await co.patchNamespacedCustomObject(
      { group, version: 'v2', namespace: 'default', plural: 'widgets', name: 'w1', body: { spec: { count: 3 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as k8s.KubernetesObject & { spec: Record<string, unknown> };
    expect(patched.apiVersion).toBe(`${group}/v2`);
    expect(patched.spec).toEqual({ size: 'small', color: 'blue', count: 3 });
    // stored in the storage version: the raw list in v1 has it with apiVersion v1
    const list = (await co.listNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets' })) as { kind: string; items: Array<k8s.KubernetesObject & { spec: Record<string, unknown> }> };
    expect(list.kind).toBe('WidgetList');
    expect(list.items.map((i) => [i.apiVersion, i.metadata?.name, i.spec['count']])).toEqual([[`${group}/v1`, 'w1', 3]]);
  });

  it('reports schema violations as 422 with one cause per field', async () => {
    const co = env.client(k8s.CustomObjectsApi);
    const err = await co
      .createNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'bad' }, spec: { size: 'medium', count: 0 } } })
      .catch((e: unknown) => e);
    const status = statusOf(err);
    expect(status.code).toBe(422);
    expect(status.message).toMatch(/^Widget\.widgets\.example\.com "bad" is invalid: \[/);
    expect(status.details!.causes).toEqual(
      expect.arrayContaining([
        { reason: 'FieldValueNotSupported', message: 'Unsupported value: "medium": supported values: "small", "large"', field: 'spec.size' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: 0: spec.count in body should be greater than or equal to 1', field: 'spec.count' },
      ]),
    );
    const missing = statusOf(
      await co.createNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'bad' }, spec: {} } }).catch((e: unknown) => e),
    );
    expect(missing.details!.causes).toContainEqual({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' });
  });

  it('blocks an invalid transition with a CEL rule on oldSelf', async () => {
    const co = env.client(k8s.CustomObjectsApi);
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    await co.patchNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', name: 'w1', body: { spec: { phase: 'Running' } } }, merge);
    await co.patchNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', name: 'w1', body: { spec: { phase: 'Done' } } }, merge);
    const err = await co.patchNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', name: 'w1', body: { spec: { phase: 'Running' } } }, merge).catch((e: unknown) => e);
    const status = statusOf(err);
    expect(status.code).toBe(422);
    expect(status.message).toBe('Widget.widgets.example.com "w1" is invalid: spec.phase: Invalid value: "string": a Done widget cannot change phase');
  });

  it('streams custom resource changes to a watch', async () => {
    const events: string[] = [];
    const watch = new k8s.Watch(env.kubeConfig);
    const req = await watch.watch(`/apis/${group}/v2/namespaces/default/widgets`, {}, (type: string, obj: k8s.KubernetesObject) => events.push(`${type} ${obj.apiVersion} ${obj.metadata?.name}`), () => undefined);
    try {
      await eventually(() => expect(events).toContain(`ADDED ${group}/v2 w1`));
      const co = env.client(k8s.CustomObjectsApi);
      await co.createNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 'large' } } });
      await co.deleteNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', name: 'w2' });
      await eventually(() => expect(events).toEqual(expect.arrayContaining([`ADDED ${group}/v2 w2`, `DELETED ${group}/v2 w2`])));
    } finally {
      req.abort();
    }
  });

  it('rejects a second CRD whose plural is taken in the group: NamesAccepted False', async () => {
    const ext = env.client(k8s.ApiextensionsV1Api);
    const other = widgetCRD();
    other.metadata!.name = `gadgets.${group}`;
    other.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['wd'] };
    await ext.createCustomResourceDefinition({ body: other });
    await eventually(async () => {
      const crd = await ext.readCustomResourceDefinition({ name: `gadgets.${group}` });
      expect(crd.status?.conditions?.find((c) => c.type === 'NamesAccepted')).toMatchObject({ status: 'False', reason: 'ShortNamesConflict', message: '"wd" is already in use' });
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')).toMatchObject({ status: 'False', reason: 'NotAccepted' });
    });
    const res = await env.server.request(`/apis/${group}/v1/namespaces/default/gadgets`);
    expect(res.status).toBe(404);
  });
});

describe('the custom resource strategy over REST', () => {
  const gizmos = 'gizmos.example.com';
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { x: { type: 'string' }, y: { type: 'string' } } },
        status: { type: 'object', properties: { phase: { type: 'string' } } },
      },
    },
  };
  const path = (version: string, name = '') => `/apis/${gizmos}/${version}/namespaces/default/gizmos${name ? `/${name}` : ''}`;
  const generationOf = (o: Record<string, unknown>): unknown => (o['metadata'] as { generation?: number }).generation;

  beforeAll(async () => {
    // v1 has no status subresource, v2 has one: both serve the same objects
    const r = await api(env.server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: `gizmos.${gizmos}` },
      spec: {
        group: gizmos,
        scope: 'Namespaced',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
        versions: [
          { name: 'v1', served: true, storage: true, schema },
          { name: 'v2', served: true, storage: false, schema, subresources: { status: {} } },
        ],
      },
    });
    expect(r.status).toBe(201);
    await waitEstablished(`gizmos.${gizmos}`);
    await eventually(async () => expect((await api(env.server, 'GET', path('v2'))).status).toBe(200), 15_000);
  });

  it('bumps metadata.generation for a status change of a version without the status subresource, not with it', async () => {
    let r = await api(env.server, 'POST', path('v1'), { apiVersion: `${gizmos}/v1`, kind: 'Gizmo', metadata: { name: 'g1' }, spec: { x: 'a' }, status: { phase: 'New' } });
    expect(r.status).toBe(201);
    expect(generationOf(r.json)).toBe(1);
    // v1: status is an ordinary field, any change outside metadata counts
    r = await api(env.server, 'PATCH', path('v1', 'g1'), { status: { phase: 'Running' } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    expect(r.json['status']).toEqual({ phase: 'Running' });
    expect(generationOf(r.json)).toBe(2);
    r = await api(env.server, 'PATCH', path('v1', 'g1'), { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    expect(generationOf(r.json)).toBe(2);
    // v2: the main resource ignores status, and only spec changes count
    r = await api(env.server, 'PATCH', path('v2', 'g1'), { status: { phase: 'Done' } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    expect(r.json['status']).toEqual({ phase: 'Running' });
    expect(generationOf(r.json)).toBe(2);
    r = await api(env.server, 'PATCH', path('v2', 'g1/status'), { status: { phase: 'Done' } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    expect(generationOf(r.json)).toBe(2);
    r = await api(env.server, 'PATCH', path('v2', 'g1'), { spec: { x: 'b' } }, 'application/merge-patch+json');
    expect(generationOf(r.json)).toBe(3);
  });

  it('sends a ratcheted x-kubernetes-validations failure as a Warning header on update', async () => {
    let r = await api(env.server, 'POST', path('v1'), { apiVersion: `${gizmos}/v1`, kind: 'Gizmo', metadata: { name: 'legacy' }, spec: { x: 'bad', y: '1' } });
    expect(r.status).toBe(201);
    // the rule arrives after the object: its unchanged x is ratcheted, a new object is refused
    const rule = [{ rule: "self.startsWith('ok')" }];
    r = await api(
      env.server,
      'PATCH',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.${gizmos}`,
      [{ op: 'add', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/x/x-kubernetes-validations', value: rule }],
      'application/json-patch+json',
    );
    expect(r.status).toBe(200);
    await eventually(async () => {
      const refused = await api(env.server, 'POST', path('v1'), { apiVersion: `${gizmos}/v1`, kind: 'Gizmo', metadata: { name: 'new-bad' }, spec: { x: 'bad' } });
      expect(refused.status).toBe(422);
      expect(refused.json['message']).toBe(`Gizmo.${gizmos} "new-bad" is invalid: spec.x: Invalid value: "string": failed rule: self.startsWith('ok')`);
    }, 15_000);
    r = await api(env.server, 'PATCH', path('v1', 'legacy'), { spec: { y: '2' } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    expect(r.warnings).toEqual([`spec.x: Invalid value: "string": failed rule: self.startsWith('ok')`]);
    // a change to x itself is validated
    r = await api(env.server, 'PATCH', path('v1', 'legacy'), { spec: { x: 'worse' } }, 'application/merge-patch+json');
    expect(r.status).toBe(422);
  });
});
