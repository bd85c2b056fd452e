import { createHash } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import type { JsonObject, JsonValue } from '../api/types.js';
import { builtinResources } from '../registry/catalogue/index.js';
import { ResourceIndex } from '../registry/resource-index.js';
import { allVerbs, type ResourceInfo } from '../registry/resource.js';
import { definitionName, openAPIV3Document, openapiRouter, swaggerV2Document, type OpenAPIV3Document, type OpenAPIV3Root } from './openapi.js';

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
    expect(Object.keys(root.paths).sort()).toEqual(['api/v1', 'apis/admissionregistration.k8s.io/v1', 'apis/apiextensions.k8s.io/v1', 'apis/apps/v1', 'apis/authentication.k8s.io/v1', 'apis/authorization.k8s.io/v1']);
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
  const docs = gvs.map((gv) => ({ ...gv, doc: openAPIV3Document(index, gv.group, gv.version)! }));

  it.each(builtinResources.filter((r) => r.verbs.includes('patch')).map((r) => [`${r.group || 'core'}/${r.version} ${r.kind}`, r] as const))(
    'lets kubectl\'s QueryParamVerifierV3 find fieldValidation and dryRun on the PATCH of %s',
    (_name, r) => {
      const doc = openAPIV3Document(index, r.group, r.version)!;
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
    const doc = openAPIV3Document(index, '', 'v1')!;
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

  it('does not advertise strategic merge patch, whose patch metadata its open schemas cannot give', () => {
    for (const { doc } of docs) {
      for (const { op } of operations(doc).filter((o) => o.method === 'patch')) {
        expect(Object.keys(op.requestBody!.content).sort()).toEqual(['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json']);
      }
    }
  });

  it('gives virtual resources only their create operation', () => {
    const doc = openAPIV3Document(index, 'authorization.k8s.io', 'v1')!;
    expect(operations(doc).map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'post /apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews',
      'post /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      'post /apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      'post /apis/authorization.k8s.io/v1/subjectaccessreviews',
    ]);
  });

  it('serves deployments/scale as autoscaling/v1 Scale', () => {
    const doc = openAPIV3Document(index, 'apps', 'v1')!;
    const scale = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!;
    expect((scale['patch'] as JsonObject)['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', kind: 'Scale', version: 'v1' });
    expect((scale['get'] as JsonObject)['operationId']).toBe('readAppsV1NamespacedDeploymentScale');
    expect(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale']!['x-kubernetes-group-version-kind']).toEqual([{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
  });

  it('describes each kind and its list with x-kubernetes-group-version-kind, and ObjectMeta field by field', () => {
    for (const r of builtinResources) {
      const doc = openAPIV3Document(index, r.group, r.version)!;
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
