import { createHash } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import type { JsonObject, JsonValue } from '../api/types.js';
import { builtinResources } from '../registry/catalogue/index.js';
import { ResourceIndex } from '../registry/resource-index.js';
import { allVerbs, type ResourceInfo } from '../registry/resource.js';
import { definitionName, openAPIV3Document, openapiRouter, swaggerV2Document, type OpenAPIV3Document, type OpenAPIV3Root } from './openapi.js';
import type { BuiltinDefinitions } from './openapi/definitions.js';
import { builtinDefinitions } from './openapi/kind-schemas.js';

let defs: BuiltinDefinitions;
beforeAll(async () => {
  defs = await builtinDefinitions();
});

const appFor = (index: ResourceIndex): express.Express => express().use(openapiRouter(index));
const builtinIndex = (): ResourceIndex => new ResourceIndex(builtinResources);
const sha512 = (s: string): string => createHash('sha512').update(s).digest('hex').toUpperCase();

function crd(group: string, version: string, kind: string): ResourceInfo {
  return {
    group, version, resource: `${kind.toLowerCase()}s`, kind, listKind: `${kind}List`, singular: kind.toLowerCase(), namespaced: true,
    shortNames: [], categories: [], verbs: allVerbs, subresources: { status: true }, nameRule: 'DNS1123Subdomain',
    hasGeneration: true, hasStatus: true, printerColumns: [], strategy: {},
  };
}

type Operation = JsonObject & { parameters?: JsonObject[]; requestBody?: { content: Record<string, JsonObject> }; 'x-kubernetes-group-version-kind'?: JsonObject };
const methods = ['get', 'put', 'post', 'patch', 'delete'] as const;

function operations(doc: { paths: Record<string, JsonObject> }): Array<{ path: string; method: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) => methods.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Operation })));
}

/** kubectl's supportsQueryParamV3 (cli-runtime query_param_verifier_v3.go): the first PATCH for the GVK decides. */
function supportsQueryParamV3(doc: OpenAPIV3Document, gvk: { group: string; version: string; kind: string }, param: string): boolean {
  for (const item of Object.values(doc.paths)) {
    const op = item['patch'] as Operation | undefined;
    if (!op) continue;
    const g = op['x-kubernetes-group-version-kind'];
    if (!g || g['group'] !== gvk.group || g['version'] !== gvk.version || g['kind'] !== gvk.kind) continue;
    return (op.parameters ?? []).some((p) => p['name'] === param);
  }
  return false;
}

/** Every "$ref" in a document, to check they all resolve inside it. */
function refsOf(v: JsonValue, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => refsOf(x, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === '$ref' && typeof x === 'string' ? out.push(x) : refsOf(x, out);
  return out;
}

describe('/openapi/v3 root', () => {
  it('lists one document per served group version, each URL pinned to the sha512 of the document it serves', async () => {
    const app = appFor(builtinIndex());
    const root = (await request(app).get('/openapi/v3').expect(200).expect('Content-Type', 'application/json')).body as OpenAPIV3Root;
    expect(Object.keys(root.paths).sort()).toEqual([
      'api/v1',
      'apis/admissionregistration.k8s.io/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/apiregistration.k8s.io/v1',
      'apis/apps/v1',
      'apis/authentication.k8s.io/v1',
      'apis/authorization.k8s.io/v1',
      'apis/autoscaling/v1',
      'apis/autoscaling/v2',
      'apis/batch/v1',
      'apis/certificates.k8s.io/v1',
      'apis/coordination.k8s.io/v1',
      'apis/discovery.k8s.io/v1',
      'apis/events.k8s.io/v1',
      'apis/flowcontrol.apiserver.k8s.io/v1',
      'apis/networking.k8s.io/v1',
      'apis/node.k8s.io/v1',
      'apis/policy/v1',
      'apis/rbac.authorization.k8s.io/v1',
      'apis/resource.k8s.io/v1',
      'apis/scheduling.k8s.io/v1',
      'apis/storage.k8s.io/v1',
    ]);
    for (const [key, { serverRelativeURL }] of Object.entries(root.paths)) {
      expect(serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`));
      const doc = await request(app).get(serverRelativeURL).set('Accept', 'application/json').expect(200);
      expect(serverRelativeURL.endsWith(sha512(doc.text))).toBe(true);
      expect(doc.headers['cache-control']).toBe('public, immutable');
      expect(doc.headers['etag']).toBe(`"${sha512(doc.text)}"`);
    }
  });

  it('adds a group version added to the index, and changes the hash of the document that changed', async () => {
    const index = builtinIndex();
    const app = appFor(index);
    const before = (await request(app).get('/openapi/v3').expect(200)).body as OpenAPIV3Root;
    index.add(crd('stable.example.com', 'v1', 'CronTab'));
    index.add(crd('', 'v1', 'Widget'));
    const after = (await request(app).get('/openapi/v3').expect(200)).body as OpenAPIV3Root;
    expect(after.paths['apis/stable.example.com/v1']).toBeDefined();
    expect(after.paths['api/v1']!.serverRelativeURL).not.toBe(before.paths['api/v1']!.serverRelativeURL);
    expect(after.paths['apis/apps/v1']).toEqual(before.paths['apis/apps/v1']);
  });
});

describe('/openapi/v3/<group version>', () => {
  it('redirects a stale hash to the current document, as kube-openapi does', async () => {
    const app = appFor(builtinIndex());
    const root = (await request(app).get('/openapi/v3').expect(200)).body as OpenAPIV3Root;
    const res = await request(app).get(`/openapi/v3/apis/apps/v1?hash=${'0'.repeat(128)}`).expect(301);
    expect(res.headers['location']).toBe(root.paths['apis/apps/v1']!.serverRelativeURL);
  });

  it('answers If-None-Match with the current ETag with 304, and serves unhashed URLs without immutable caching', async () => {
    const app = appFor(builtinIndex());
    const first = await request(app).get('/openapi/v3/api/v1').expect(200);
    expect(first.headers['cache-control']).toBeUndefined();
    await request(app).get('/openapi/v3/api/v1').set('If-None-Match', first.headers['etag'] as string).expect(304);
  });

  it('answers an unknown group version with the NotFound Status, and a protobuf-only Accept with 406', async () => {
    const app = appFor(builtinIndex());
    expect((await request(app).get('/openapi/v3/apis/example.com/v1').expect(404)).body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
    await request(app).get('/openapi/v3/api/v1').set('Accept', 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf').expect(406);
  });
});

describe('OpenAPI v3 documents', () => {
  const index = builtinIndex();
  const gvs = index.groups().flatMap((g) => g.versions.map((v) => ({ group: g.group, version: v })));
  let docs: Array<{ group: string; version: string; doc: OpenAPIV3Document }>;
  beforeAll(() => {
    docs = gvs.map((gv) => ({ ...gv, doc: openAPIV3Document(index, defs, gv.group, gv.version)! }));
  });

  it.each(builtinResources.filter((r) => r.verbs.includes('patch')).map((r) => [`${r.group || 'core'}/${r.version} ${r.kind}`, r] as const))(
    'lets kubectl\'s QueryParamVerifierV3 find fieldValidation and dryRun on the PATCH of %s',
    (_name, r) => {
      const doc = openAPIV3Document(index, defs, r.group, r.version)!;
      const gvk = { group: r.group, version: r.version, kind: r.kind };
      expect(supportsQueryParamV3(doc, gvk, 'fieldValidation')).toBe(true);
      expect(supportsQueryParamV3(doc, gvk, 'dryRun')).toBe(true);
    },
  );

  it('puts dryRun, fieldManager and fieldValidation inline on every create, replace and patch, and force on patch', () => {
    for (const { doc } of docs) {
      for (const { method, op } of operations(doc).filter((o) => ['post', 'put', 'patch'].includes(o.method))) {
        const names = (op.parameters ?? []).map((p) => p['name']);
        expect(names).toEqual(expect.arrayContaining(['dryRun', 'fieldManager', 'fieldValidation']));
        if (method === 'patch') expect(names).toContain('force');
        for (const p of op.parameters ?? []) expect(p['$ref']).toBeUndefined();
      }
    }
  });

  it('installs the operations of every verb for configmaps, with kube-apiserver\'s operation ids', () => {
    const doc = openAPIV3Document(index, defs, '', 'v1')!;
    const ids = (path: string): Record<string, unknown> =>
      Object.fromEntries(methods.filter((m) => doc.paths[path]?.[m]).map((m) => [m, (doc.paths[path]![m] as JsonObject)['operationId']]));
    expect(ids('/api/v1/namespaces/{namespace}/configmaps')).toEqual({ get: 'listCoreV1NamespacedConfigMap', post: 'createCoreV1NamespacedConfigMap', delete: 'deleteCoreV1CollectionNamespacedConfigMap' });
    expect(ids('/api/v1/namespaces/{namespace}/configmaps/{name}')).toEqual({
      get: 'readCoreV1NamespacedConfigMap',
      put: 'replaceCoreV1NamespacedConfigMap',
      patch: 'patchCoreV1NamespacedConfigMap',
      delete: 'deleteCoreV1NamespacedConfigMap',
    });
    expect(ids('/api/v1/configmaps')).toEqual({ get: 'listCoreV1ConfigMapForAllNamespaces' });
    expect(ids('/api/v1/watch/namespaces/{namespace}/configmaps')).toEqual({ get: 'watchCoreV1NamespacedConfigMapList' });
    expect(ids('/api/v1/watch/namespaces/{namespace}/configmaps/{name}')).toEqual({ get: 'watchCoreV1NamespacedConfigMap' });
    expect(ids('/api/v1/watch/configmaps')).toEqual({ get: 'watchCoreV1ConfigMapListForAllNamespaces' });
    expect(ids('/api/v1/namespaces/{namespace}/pods/{name}/status')).toEqual({ get: 'readCoreV1NamespacedPodStatus', put: 'replaceCoreV1NamespacedPodStatus', patch: 'patchCoreV1NamespacedPodStatus' });
    expect(ids('/api/v1/namespaces/{name}')).toMatchObject({ get: 'readCoreV1Namespace' });
    const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!['patch'] as JsonObject;
    expect(patch['x-kubernetes-action']).toBe('patch');
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'ConfigMap', version: 'v1' });
  });

  it('advertises strategic merge patch on the built-in kinds, whose schemas carry the patch tags, as kube does', () => {
    for (const { doc } of docs) {
      for (const { op } of operations(doc).filter((o) => o.method === 'patch')) {
        expect(Object.keys(op.requestBody!.content)).toEqual(['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
      }
    }
  });

  it('does not advertise strategic merge patch on a custom resource, as apiextensions-apiserver does not', () => {
    const idx = builtinIndex();
    idx.add(crd('stable.example.com', 'v1', 'CronTab'));
    const doc = openAPIV3Document(idx, defs, 'stable.example.com', 'v1')!;
    const patches = operations(doc).filter((o) => o.method === 'patch');
    expect(patches.length).toBeGreaterThan(0);
    for (const { op } of patches) expect(Object.keys(op.requestBody!.content)).toEqual(['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json']);
  });

  it('gives virtual resources only their create operation', () => {
    const doc = openAPIV3Document(index, defs, 'authorization.k8s.io', 'v1')!;
    expect(operations(doc).map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'post /apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews',
      'post /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      'post /apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      'post /apis/authorization.k8s.io/v1/subjectaccessreviews',
    ]);
  });

  it('serves deployments/scale as autoscaling/v1 Scale', () => {
    const doc = openAPIV3Document(index, defs, 'apps', 'v1')!;
    const scale = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!;
    expect((scale['patch'] as JsonObject)['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', kind: 'Scale', version: 'v1' });
    expect((scale['get'] as JsonObject)['operationId']).toBe('readAppsV1NamespacedDeploymentScale');
    expect(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale']!['x-kubernetes-group-version-kind']).toEqual([{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
  });

  it('describes each kind and its list with x-kubernetes-group-version-kind, and ObjectMeta field by field', () => {
    for (const r of builtinResources) {
      const doc = openAPIV3Document(index, defs, r.group, r.version)!;
      const schema = doc.components.schemas[definitionName(r.group, r.version, r.kind)]!;
      expect(schema['x-kubernetes-group-version-kind']).toEqual([{ group: r.group, kind: r.kind, version: r.version }]);
      expect(Object.keys(schema['properties'] as JsonObject)).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata']));
      if (!r.virtual) expect(doc.components.schemas[definitionName(r.group, r.version, r.listKind)]!['x-kubernetes-group-version-kind']).toEqual([{ group: r.group, kind: r.listKind, version: r.version }]);
    }
    const objectMeta = docs[0]!.doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']!['properties'] as Record<string, JsonObject>;
    expect(Object.keys(objectMeta).sort()).toEqual([
      'annotations', 'creationTimestamp', 'deletionGracePeriodSeconds', 'deletionTimestamp', 'finalizers', 'generateName', 'generation',
      'labels', 'managedFields', 'name', 'namespace', 'ownerReferences', 'resourceVersion', 'selfLink', 'uid',
    ]);
    expect(objectMeta['labels']).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(objectMeta['ownerReferences']).toMatchObject({ 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge' });
    const configMap = docs[0]!.doc.components.schemas['io.k8s.api.core.v1.ConfigMap']!['properties'] as JsonObject;
    expect(Object.keys(configMap).sort()).toEqual(['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
  });

  it('resolves every $ref inside the document that holds it', () => {
    for (const { doc } of docs) {
      for (const ref of refsOf(doc as unknown as JsonValue)) {
        expect(ref.startsWith('#/components/schemas/')).toBe(true);
        expect(doc.components.schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
      }
    }
  });
});

describe('/openapi/v2', () => {
  it('serves one JSON Swagger 2.0 document whose definitions carry x-kubernetes-group-version-kind and whose refs resolve', async () => {
    const res = await request(appFor(builtinIndex())).get('/openapi/v2').set('Accept', 'application/json').expect(200).expect('Content-Type', 'application/json');
    const doc = res.body as ReturnType<typeof swaggerV2Document>;
    expect(doc.swagger).toBe('2.0');
    expect(doc.definitions['io.k8s.api.apps.v1.Deployment']!['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(doc.definitions['io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy']).toBeDefined();
    const deleteOptionsGVKs = doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']!['x-kubernetes-group-version-kind'] as JsonObject[];
    expect(deleteOptionsGVKs).toEqual(expect.arrayContaining([{ group: '', kind: 'DeleteOptions', version: 'v1' }, { group: 'apps', kind: 'DeleteOptions', version: 'v1' }]));
    const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!['patch'] as JsonObject;
    expect((patch['parameters'] as JsonObject[]).map((p) => p['name'])).toEqual(['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
    for (const ref of refsOf(doc as unknown as JsonValue)) expect(doc.definitions[ref.slice('#/definitions/'.length)]).toBeDefined();
  });

  it('refuses client-go\'s protobuf request with 406, which kubectl treats as "no v2" and moves on', async () => {
    const res = await request(appFor(builtinIndex())).get('/openapi/v2').set('Accept', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf').expect(406);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });
});

describe('definitionName', () => {
  it.each([
    ['', 'v1', 'Pod', 'io.k8s.api.core.v1.Pod'],
    ['apps', 'v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment'],
    ['admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', 'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration'],
    ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'],
    ['stable.example.com', 'v1', 'CronTab', 'com.example.stable.v1.CronTab'],
  ])('names %s/%s %s as %s', (group, version, kind, name) => {
    expect(definitionName(group, version, kind)).toBe(name);
  });
});

// kube's published v3 schemas (kubernetes/api/openapi-spec/v3/api__v1_openapi.json and apis__apps__v1_openapi.json)
// are the expectations below: names, refs, formats, required lists, extensions.
describe('full schemas of the built-in kinds', () => {
  const index = builtinIndex();
  const v3 = (group: string, version: string): Record<string, JsonObject> => openAPIV3Document(index, defs, group, version)!.components.schemas;
  const props = (schemas: Record<string, JsonObject>, name: string): Record<string, JsonObject> => schemas[name]!['properties'] as Record<string, JsonObject>;
  const ref3 = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
  /** the definition a field refers to, bare or wrapped in allOf (kube wraps described references) */
  const target = (field: JsonObject | undefined): unknown => (field?.['allOf'] as JsonObject[] | undefined)?.[0]?.['$ref'] ?? field?.['$ref'];

  it('describes a Pod down to its containers\' ports, with kube\'s names, formats, required fields and list keys', () => {
    const core = v3('', 'v1');
    expect(target(props(core, 'io.k8s.api.core.v1.Pod')['spec'])).toBe('#/components/schemas/io.k8s.api.core.v1.PodSpec');
    const containers = props(core, 'io.k8s.api.core.v1.PodSpec')['containers']!;
    expect(containers).toMatchObject({
      type: 'array',
      items: ref3('io.k8s.api.core.v1.Container'),
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(containers['description']).toBe('List of containers belonging to the pod. Containers cannot currently be added or removed. There must be at least one container in a Pod. Cannot be updated.');
    expect(core['io.k8s.api.core.v1.PodSpec']!['required']).toEqual(['containers']);
    expect(core['io.k8s.api.core.v1.Container']!['required']).toEqual(['name']);
    expect(props(core, 'io.k8s.api.core.v1.Container')['ports']).toMatchObject({
      items: ref3('io.k8s.api.core.v1.ContainerPort'),
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'containerPort',
      'x-kubernetes-patch-strategy': 'merge',
    });
    const port = core['io.k8s.api.core.v1.ContainerPort']!;
    expect(port['required']).toEqual(['containerPort']);
    expect(port['description']).toBe('ContainerPort represents a network port in a single container.');
    expect(props(core, 'io.k8s.api.core.v1.ContainerPort')['containerPort']).toMatchObject({ type: 'integer', format: 'int32' });
    expect(props(core, 'io.k8s.api.core.v1.PodSpec')['activeDeadlineSeconds']).toMatchObject({ type: 'integer', format: 'int64' });
    expect(props(core, 'io.k8s.api.core.v1.PodSpec')['nodeSelector']).toMatchObject({ type: 'object', additionalProperties: { type: 'string', default: '' }, 'x-kubernetes-map-type': 'atomic' });
  });

  it('describes fields that are references with kube\'s texts, which client-node\'s declarations drop', () => {
    const core = v3('', 'v1');
    expect(props(core, 'io.k8s.api.core.v1.Pod')['spec']).toEqual({
      allOf: [ref3('io.k8s.api.core.v1.PodSpec')],
      description: 'Specification of the desired behavior of the pod. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
    });
    expect(props(core, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')['creationTimestamp']!['description']).toMatch(/^CreationTimestamp is a timestamp representing the server time when this object was created\./);
    // inlined members: Volume's sources are VolumeSource's, Probe's handlers ProbeHandler's
    expect(props(core, 'io.k8s.api.core.v1.Volume')['configMap']!['description']).toBe('configMap represents a configMap that should populate this volume');
    expect(props(core, 'io.k8s.api.core.v1.Probe')['httpGet']!['description']).toBe('HTTPGet specifies an HTTP GET request to perform.');
  });

  it('publishes Time, IntOrString and Quantity as kube does in v3 and in v2', async () => {
    const core = v3('', 'v1');
    expect(props(core, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')['creationTimestamp']).toMatchObject({ allOf: [ref3('io.k8s.apimachinery.pkg.apis.meta.v1.Time')] });
    expect(core['io.k8s.apimachinery.pkg.apis.meta.v1.Time']).toMatchObject({ type: 'string', format: 'date-time' });
    expect(core['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' });
    expect(core['io.k8s.apimachinery.pkg.api.resource.Quantity']).toMatchObject({ oneOf: [{ type: 'string' }, { type: 'number' }] });
    expect(props(core, 'io.k8s.api.core.v1.ResourceRequirements')['limits']).toMatchObject({ type: 'object', additionalProperties: ref3('io.k8s.apimachinery.pkg.api.resource.Quantity') });
    expect(props(core, 'io.k8s.api.core.v1.Secret')['data']).toMatchObject({ type: 'object', additionalProperties: { type: 'string', format: 'byte' } });
    expect(target(props(v3('apps', 'v1'), 'io.k8s.api.apps.v1.RollingUpdateDeployment')['maxSurge'])).toBe('#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    const v2 = swaggerV2Document(index, defs).definitions;
    expect(v2['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
    expect(v2['io.k8s.apimachinery.pkg.api.resource.Quantity']).toMatchObject({ type: 'string' });
    expect((v2['io.k8s.api.apps.v1.RollingUpdateDeployment']!['properties'] as JsonObject)['maxSurge']).toMatchObject({ $ref: '#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString' });
  });

  it('names the types a kind reaches in their own packages: a Deployment\'s pod template is core/v1, its selector meta/v1 and atomic', () => {
    const apps = v3('apps', 'v1');
    expect(target(props(apps, 'io.k8s.api.apps.v1.DeploymentSpec')['template'])).toBe('#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec');
    expect(target(props(apps, 'io.k8s.api.apps.v1.DeploymentSpec')['selector'])).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector');
    expect(apps['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']!['x-kubernetes-map-type']).toBe('atomic');
    expect(apps['io.k8s.api.apps.v1.DeploymentSpec']!['required']).toEqual(['selector', 'template']);
    expect(props(apps, 'io.k8s.api.apps.v1.DeploymentSpec')['strategy']).toMatchObject({ allOf: [ref3('io.k8s.api.apps.v1.DeploymentStrategy')], 'x-kubernetes-patch-strategy': 'retainKeys' });
    // each v3 document holds only what its group version reaches, as kube's per-group-version documents do
    expect(apps['io.k8s.api.core.v1.Pod']).toBeUndefined();
    expect(apps['io.k8s.api.core.v1.PodSpec']).toBeDefined();
    const adm = v3('admissionregistration.k8s.io', 'v1');
    expect(props(adm, 'io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicySpec')['mutations']).toMatchObject({ items: ref3('io.k8s.api.admissionregistration.v1.Mutation') });
    expect(target(props(adm, 'io.k8s.api.admissionregistration.v1.ValidatingWebhook')['clientConfig'])).toBe('#/components/schemas/io.k8s.api.admissionregistration.v1.WebhookClientConfig');
    expect(props(adm, 'io.k8s.api.admissionregistration.v1.WebhookClientConfig')['caBundle']).toMatchObject({ type: 'string', format: 'byte' });
    const ext = v3('apiextensions.k8s.io', 'v1');
    expect(props(ext, 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps')['properties']).toMatchObject({
      additionalProperties: ref3('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps'),
    });
  });

  it('keeps a custom resource\'s own schema, with ObjectMeta described in the same document', () => {
    const idx = builtinIndex();
    idx.add({ ...crd('stable.example.com', 'v1', 'CronTab'), openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } });
    const doc = openAPIV3Document(idx, defs, 'stable.example.com', 'v1')!;
    const schema = doc.components.schemas['com.example.stable.v1.CronTab']!;
    expect((schema['properties'] as JsonObject)['spec']).toEqual({ type: 'object', properties: { cronSpec: { type: 'string' } } });
    expect(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    for (const ref of refsOf(doc as unknown as JsonValue)) expect(doc.components.schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
  });

  /** What an OpenAPI 3.0 / Swagger 2.0 schema object may hold, as generators read them. */
  function schemaProblems(s: JsonValue, path: string, version: 2 | 3, out: string[]): void {
    if (!s || typeof s !== 'object' || Array.isArray(s)) return void out.push(`${path}: not an object`);
    const allowed = new Set(['$ref', 'description', 'type', 'format', 'items', 'properties', 'additionalProperties', 'required', 'default', 'enum', 'allOf', 'oneOf', 'anyOf', 'nullable', 'x-kubernetes-group-version-kind', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key', 'x-kubernetes-preserve-unknown-fields']);
    for (const k of Object.keys(s)) if (!allowed.has(k)) out.push(`${path}: unexpected key ${k}`);
    if (version === 2 && (s['oneOf'] || s['anyOf'] || s['nullable'] || s['allOf'])) out.push(`${path}: not Swagger 2.0`);
    if (s['$ref'] !== undefined && Object.keys(s).some((k) => k !== '$ref' && (version === 3 || !['description', 'default'].includes(k)) && !k.startsWith('x-'))) out.push(`${path}: $ref with siblings`);
    if (s['type'] !== undefined && !['object', 'array', 'string', 'integer', 'number', 'boolean'].includes(s['type'] as string)) out.push(`${path}: type ${JSON.stringify(s['type'])}`);
    if (s['type'] === 'array' && !s['items']) out.push(`${path}: array without items`);
    if (s['required'] !== undefined) {
      const names = Object.keys((s['properties'] as JsonObject | undefined) ?? {});
      for (const r of s['required'] as string[]) if (!names.includes(r)) out.push(`${path}: required ${r} is no property`);
    }
    for (const [k, v] of Object.entries((s['properties'] as JsonObject | undefined) ?? {})) schemaProblems(v, `${path}.${k}`, version, out);
    if (s['items']) schemaProblems(s['items'], `${path}[]`, version, out);
    if (s['additionalProperties'] && typeof s['additionalProperties'] === 'object') schemaProblems(s['additionalProperties'], `${path}{}`, version, out);
    for (const k of ['allOf', 'oneOf', 'anyOf']) ((s[k] as JsonValue[] | undefined) ?? []).forEach((x, i) => schemaProblems(x, `${path}.${k}[${i}]`, version, out));
  }

  it('serves schema objects an OpenAPI 3.0 generator accepts, in every v3 document, and Swagger 2.0 ones in v2', () => {
    const problems: string[] = [];
    for (const g of index.groups()) for (const v of g.versions) for (const [name, s] of Object.entries(v3(g.group, v))) schemaProblems(s, name, 3, problems);
    for (const [name, s] of Object.entries(swaggerV2Document(index, defs).definitions)) schemaProblems(s, name, 2, problems);
    expect(problems).toEqual([]);
  });

  it('describes every served built-in kind field by field (no kind is left open)', () => {
    for (const r of builtinResources) {
      const s = v3(r.group, r.version)[definitionName(r.group, r.version, r.kind)]!;
      expect([r.kind, s['x-kubernetes-preserve-unknown-fields']]).toEqual([r.kind, undefined]);
      expect([r.kind, typeof s['description']]).toEqual([r.kind, 'string']);
    }
  });
});
