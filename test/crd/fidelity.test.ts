// CRD details that clients and users see, matched to kube-apiserver: discovery's storageVersionHash hashes the
// storage version, printer-column cells are null when missing and follow client-go JSONPath (filters,
// wildcards), CRD validation prints spec.versions as Go's %#v, and a stored non-structural CRD gets the
// NonStructuralSchema condition.
import { createHash } from 'node:crypto';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { useApiServer } from '../../harness/jest.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import type { KubeObject } from '../../server/api/types.js';
import { Etcd3Storage } from '../../server/storage/etcd3.js';
import { objectKey } from '../../server/storage/keys.js';
import { eventually } from '../support/eventually.js';

const group = 'fidelity.example.com';
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** discovery.StorageVersionHash, computed independently of the server's code */
const hashOf = (gvk: string): string => createHash('sha256').update(gvk).digest().subarray(0, 8).toString('base64');

const gadgetCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: ['v1', 'v2'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      additionalPrinterColumns: [
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: 'Ports', type: 'string', jsonPath: '.spec.ports[*].name' },
        { name: 'Last', type: 'string', jsonPath: '.spec.ports[-1].name' },
        { name: 'Labels', type: 'string', jsonPath: '.metadata.labels' },
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      ],
    })),
  },
};

describe('CRD fidelity', () => {
  const env = useApiServer({ storage: 'memory' });

  beforeAll(async () => {
    const r = await env.server.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: gadgetCRD });
    expect(r.status).toBe(201);
    await eventually(async () => {
      expect((await env.server.request(`/apis/${group}/v2/namespaces/default/gadgets`)).status).toBe(200);
    }, 15_000);
  }, 20_000);

  it('hashes the storage version in discovery for every served version', async () => {
    for (const version of ['v1', 'v2']) {
      const list = (await env.server.request(`/apis/${group}/${version}`)).json<{ resources: Array<{ name: string; storageVersionHash?: string }> }>();
      expect(list.resources.find((r) => r.name === 'gadgets')?.storageVersionHash).toBe(hashOf(`${group}/v1/Gadget`));
    }
  });

  it('prints printer-column cells as kube does: JSONPath filters, first result only, null when missing', async () => {
    const obj = {
      apiVersion: `${group}/v2`,
      kind: 'Gadget',
      metadata: { name: 'full', namespace: 'default', labels: { b: '2', a: '1' } },
      spec: { ports: [{ name: 'http' }, { name: 'https' }], size: 2.7 },
      status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] },
    };
    expect((await env.server.request(`/apis/${group}/v2/namespaces/default/gadgets`, { method: 'POST', body: obj })).status).toBe(201);
    const empty = { apiVersion: `${group}/v2`, kind: 'Gadget', metadata: { name: 'empty', namespace: 'default' }, spec: { size: 'big' } };
    expect((await env.server.request(`/apis/${group}/v2/namespaces/default/gadgets`, { method: 'POST', body: empty })).status).toBe(201);

    const res = await env.server.request(`/apis/${group}/v2/namespaces/default/gadgets`, { headers: { Accept: tableAccept } });
    expect(res.status).toBe(200);
    const table = res.json<{ columnDefinitions: Array<{ name: string; description: string }>; rows: Array<{ cells: unknown[] }> }>();
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Ready', 'Ports', 'Last', 'Labels', 'Size']);
    expect(table.columnDefinitions[1]!.description).toBe('Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status');
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['empty', null, null, null, null, null],
      ['full', 'True', 'http', 'https', '{"a":"1","b":"2"}', 2],
    ]);
  });
});

describe('CRD validation messages', () => {
  const env = useApiServer({ storage: 'memory' });

  const create = async (versions: unknown) => {
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `things.${group}` }, spec: { group, scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions } };
    const res = await env.server.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: crd });
    expect(res.status).toBe(422);
    return res.json<{ message: string; details: { causes: Array<{ field: string; message: string }> } }>();
  };

  it('prints spec.versions as the Go struct when no version is the storage version', async () => {
    const status = await create([{ name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } }]);
    expect(status.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.versions',
      message:
        'Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:false, Deprecated:false, ' +
        'DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), ' +
        'AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}}: must have exactly one version marked as storage version',
    });
  });

  it('has no separate error for a CRD without versions, only the storage version and stored versions ones', async () => {
    const status = await create(undefined);
    expect(status.message).toContain('spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version');
    expect(status.message).toContain('status.storedVersions: Invalid value: []string(nil): must have at least one stored version');
    expect(status.details.causes.filter((c) => c.field === 'spec.versions')).toHaveLength(1);
  });
});

describe('NonStructuralSchema', () => {
  let etcd: EtcdProcess;
  let server: ApiServerHandle | undefined;
  afterAll(async () => {
    await server?.cleanup();
    await etcd?.cleanup();
  });

  it('is set with the violations on a stored CRD whose schema is not structural', async () => {
    etcd = await startEtcd();
    // written straight to storage: the API rejects such a schema, older servers did not
    const storage = new Etcd3Storage({ endpoints: etcd.endpoint });
    const name = `legacies.${group}`;
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name, uid: 'legacy-uid', creationTimestamp: '2020-01-01T00:00:00Z' },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'legacies', singular: 'legacy', kind: 'Legacy', listKind: 'LegacyList' },
        conversion: { strategy: 'None' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { x: { type: 'string' } } } } } } }],
      },
      status: { storedVersions: ['v1'] },
    };
    try {
      await storage.create(objectKey('/registry', 'apiextensions.k8s.io', 'customresourcedefinitions', undefined, name), crd);
    } finally {
      await storage.close();
    }
    server = await startApiServer({ storage: 'etcd3', etcdServers: etcd.endpoint });
    await eventually(async () => {
      const got = (await server!.request(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).json<{ status?: { conditions?: Array<Record<string, string>> } }>();
      expect(got.status?.conditions?.find((c) => c['type'] === 'NonStructuralSchema')).toMatchObject({
        status: 'True',
        reason: 'Violations',
        message: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
      });
    }, 15_000);

    // still updatable (kube does not require structural schemas of a CRD that has none), and once the schema
    // is structural the condition goes
    const fixed = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } } } }];
    const patched = await server.request(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, {
      method: 'PATCH',
      body: { spec: { versions: fixed } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    await eventually(async () => {
      const got = (await server!.request(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).json<{ status?: { conditions?: Array<Record<string, string>> } }>();
      expect(got.status?.conditions?.map((c) => c['type'])).toEqual(expect.arrayContaining(['Established']));
      expect(got.status?.conditions?.find((c) => c['type'] === 'NonStructuralSchema')).toBeUndefined();
    }, 15_000);
  }, 60_000);
});
