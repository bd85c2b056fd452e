import express from 'express';
import request from 'supertest';
import { builtinResources } from '../registry/catalogue/index.js';
import { ResourceIndex } from '../registry/resource-index.js';
import { allVerbs, type ResourceInfo } from '../registry/resource.js';
import {
  aggregatedContentType,
  discoveryRouter,
  negotiateDiscovery,
  parseAccept,
  storageVersionHash,
  versionInfo,
  type APIGroupDiscoveryList,
  type APIResourceList,
} from './discovery.js';

// client-go 1.32's discovery Accept header, verbatim.
const clientGoAccept = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json',
].join(',');

function crd(group: string, version: string, kind: string, extra: Partial<ResourceInfo> = {}): ResourceInfo {
  return {
    group,
    version,
    resource: `${kind.toLowerCase()}s`,
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: allVerbs,
    subresources: {},
    nameRule: 'DNS1123Subdomain',
    hasGeneration: true,
    hasStatus: false,
    printerColumns: [],
    strategy: {},
    ...extra,
  };
}

function appFor(index: ResourceIndex, gitVersion = 'v1.34.0-kah'): express.Express {
  const app = express();
  app.use(discoveryRouter(index, { gitVersion }));
  return app;
}

const builtinIndex = (): ResourceIndex => new ResourceIndex(builtinResources);

describe('/version', () => {
  it('reports version.Info with major and minor taken from the gitVersion', async () => {
    const res = await request(appFor(builtinIndex(), 'v1.34.0-kah')).get('/version').expect(200).expect('Content-Type', /application\/json/);
    expect(res.body).toMatchObject({ major: '1', minor: '34', gitVersion: 'v1.34.0-kah', gitTreeState: 'clean', emulationMajor: '1', emulationMinor: '34', minCompatibilityMinor: '33' });
    expect(res.body.gitCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body.buildDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(res.body.platform).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['goVersion', 'compiler', 'platform']));
  });

  it('falls back to the mirrored release when gitVersion is not a Kubernetes version', () => {
    const v = versionInfo({ gitVersion: 'dev' });
    expect(v.gitVersion).toBe('dev');
    expect(v.major).toBe('1');
    expect(Number(v.minor)).toBeGreaterThan(30);
  });
});

describe('unaggregated discovery', () => {
  it('serves /api as APIVersions without apiVersion, with the address the client reached', async () => {
    const res = await request(appFor(builtinIndex())).get('/api').set('Accept', 'application/json').expect(200).expect('Content-Type', /^application\/json/);
    expect(res.body).toEqual({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: expect.stringMatching(/^(127\.0\.0\.1|\[::1?\]):\d+$/) }] });
  });

  it('serves /apis as an APIGroupList of named groups, preferred version first', async () => {
    const index = builtinIndex();
    index.add(crd('stable.example.com', 'v1beta1', 'CronTab'));
    index.add(crd('stable.example.com', 'v1', 'CronTab'));
    const res = await request(appFor(index)).get('/apis').expect(200);
    expect(res.body.kind).toBe('APIGroupList');
    expect(res.body.apiVersion).toBe('v1');
    const names = res.body.groups.map((g: { name: string }) => g.name);
    expect(names).toEqual(['admissionregistration.k8s.io', 'apiextensions.k8s.io', 'apiregistration.k8s.io', 'apps', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'flowcontrol.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'scheduling.k8s.io', 'stable.example.com', 'storage.k8s.io']);
    // two versions of one group: the preferred (kube's version priority) first
    expect(res.body.groups.find((g: { name: string }) => g.name === 'autoscaling')).toEqual({
      name: 'autoscaling',
      versions: [
        { groupVersion: 'autoscaling/v2', version: 'v2' },
        { groupVersion: 'autoscaling/v1', version: 'v1' },
      ],
      preferredVersion: { groupVersion: 'autoscaling/v2', version: 'v2' },
    });
    expect(res.body.groups.find((g: { name: string }) => g.name === 'apps')).toEqual({ name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } });
    expect(res.body.groups.find((g: { name: string }) => g.name === 'stable.example.com')).toEqual({
      name: 'stable.example.com',
      versions: [
        { groupVersion: 'stable.example.com/v1', version: 'v1' },
        { groupVersion: 'stable.example.com/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'stable.example.com/v1', version: 'v1' },
    });
  });

  it('serves /apis/<group> as an APIGroup', async () => {
    const res = await request(appFor(builtinIndex())).get('/apis/apps').expect(200);
    expect(res.body).toEqual({ kind: 'APIGroup', apiVersion: 'v1', name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } });
  });

  it('serves /api/v1 without apiVersion, resources and subresources sorted by name', async () => {
    const res = await request(appFor(builtinIndex())).get('/api/v1').expect(200);
    const list = res.body as APIResourceList;
    expect(list.kind).toBe('APIResourceList');
    expect('apiVersion' in list).toBe(false);
    expect(list.groupVersion).toBe('v1');
    const names = list.resources.map((r) => r.name);
    expect(names).toEqual([...names].sort());
    expect(list.resources.find((r) => r.name === 'configmaps')).toEqual({
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
      storageVersionHash: 'qFsyl6wFWjQ=',
    });
    expect(list.resources.find((r) => r.name === 'pods')).toMatchObject({ shortNames: ['po'], categories: ['all'], storageVersionHash: 'xPOwRZ+Yhw8=' });
    expect(list.resources.find((r) => r.name === 'pods/status')).toEqual({ name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    // kube's pod subresources, sorted after pods: attach … status
    expect(names.slice(names.indexOf('pods'), names.indexOf('pods/status') + 1)).toEqual(['pods', 'pods/attach', 'pods/binding', 'pods/ephemeralcontainers', 'pods/eviction', 'pods/exec', 'pods/portforward', 'pods/proxy', 'pods/resize', 'pods/status']);
  });

  it('serves /apis/apps/v1 with apiVersion, and deployments/scale answering autoscaling/v1 Scale', async () => {
    const res = await request(appFor(builtinIndex())).get('/apis/apps/v1').expect(200);
    const list = res.body as APIResourceList;
    expect(list.apiVersion).toBe('v1');
    expect(list.groupVersion).toBe('apps/v1');
    expect(list.resources.map((r) => r.name)).toEqual([
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ]);
    const byName = (name: string) => list.resources.find((r) => r.name === name);
    expect(byName('deployments/scale')).toEqual({ name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    expect(byName('deployments/status')).toEqual({ name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['get', 'patch', 'update'] });
  });

  it('gives virtual resources their single verb and no storage version hash', async () => {
    const res = await request(appFor(builtinIndex())).get('/apis/authorization.k8s.io/v1').expect(200);
    const sar = (res.body as APIResourceList).resources.find((r) => r.name === 'subjectaccessreviews');
    expect(sar).toEqual({ name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] });
  });

  it.each([['/apis/example.com'], ['/apis/apps/v2'], ['/apis/example.com/v1'], ['/api/v2']])('answers %s with the NotFound Status kube-apiserver sends', async (path) => {
    const res = await request(appFor(builtinIndex())).get(path).expect(404).expect('Content-Type', /application\/json/);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
  });

  it('leaves resource paths to the handlers after it', async () => {
    const app = appFor(builtinIndex());
    app.use((_req, res) => res.status(299).send('rest'));
    await request(app).get('/api/v1/namespaces/default/configmaps').expect(299);
    await request(app).get('/apis/apps/v1/deployments').expect(299);
  });

  it('reflects resources added to and removed from the index after the router was built', async () => {
    const index = builtinIndex();
    const app = appFor(index);
    await request(app).get('/apis/stable.example.com/v1').expect(404);
    index.add(crd('stable.example.com', 'v1', 'CronTab', { shortNames: ['ct'], subresources: { status: true } }));
    const res = await request(app).get('/apis/stable.example.com/v1').expect(200);
    expect((res.body as APIResourceList).resources.map((r) => r.name)).toEqual(['crontabs', 'crontabs/status']);
    index.remove('stable.example.com', 'v1', 'crontabs');
    await request(app).get('/apis/stable.example.com').expect(404);
  });

  const afterDone: Array<() => void> = [];
  afterEach(() => afterDone.splice(0).forEach((f) => f()));

  // kube's discovery handlers write through the negotiated serializers (discovery/version.go, group.go, root.go,
  // legacy.go: WriteObjectNegotiated), and the metav1 discovery types have protobuf messages.
  it.each([
    ['/api/v1', 'application/vnd.kubernetes.protobuf'],
    ['/apis/apps/v1', 'application/vnd.kubernetes.protobuf,application/json'],
    ['/apis/apps', 'application/vnd.kubernetes.protobuf'],
    ['/apis', 'application/vnd.kubernetes.protobuf,application/json'],
    ['/api', 'application/vnd.kubernetes.protobuf'],
  ])('answers GET %s with Accept %s in protobuf, the same document as in JSON', async (path, accept) => {
    // one listener for both requests: /api names the address it was reached on
    const app = appFor(builtinIndex()).listen(0, '127.0.0.1');
    afterDone.push(() => app.close());
    await new Promise((resolve) => app.once('listening', resolve));
    // the raw bytes: superagent hands the parser the response stream (typed as its Response)
    const binary = (res: request.Response, done: (err: Error | null, body: Buffer) => void) => {
      const stream = res as unknown as NodeJS.ReadableStream;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => done(null, Buffer.concat(chunks)));
    };
    const pb = await request(app).get(path).set('Accept', accept).buffer(true).parse(binary).expect(200);
    expect(pb.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    const body = pb.body as Buffer;
    expect([...body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const json = (await request(app).get(path).set('Accept', 'application/json').expect(200)).body as Record<string, unknown>;
    const { loadProtobufCodec } = await import('../http/responses.js');
    const decoded = (await loadProtobufCodec()).decodeKubernetesProtobuf(body) as Record<string, unknown>;
    expect(decoded).toEqual({ ...json, apiVersion: 'v1' });
  });

  it('refuses an Accept no serializer matches with 406 NotAcceptable, listing the codecs’ media types', async () => {
    const res = await request(appFor(builtinIndex())).get('/api/v1').set('Accept', 'text/html').expect(406);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'NotAcceptable',
      code: 406,
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });
});

describe('aggregated discovery', () => {
  it('answers client-go\'s Accept on /api with the v2 list of the core group and the v2 Content-Type', async () => {
    const res = await request(appFor(builtinIndex())).get('/api').set('Accept', clientGoAccept).expect(200);
    expect(res.headers['content-type']).toBe(aggregatedContentType('v2'));
    const doc = JSON.parse(res.text) as APIGroupDiscoveryList;
    expect(doc).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {} });
    expect(doc.items).toHaveLength(1);
    expect(doc.items[0]!.metadata).toEqual({ creationTimestamp: null });
    expect(doc.items[0]!.versions.map((v) => [v.version, v.freshness])).toEqual([['v1', 'Current']]);
    const pods = doc.items[0]!.versions[0]!.resources.find((r) => r.resource === 'pods');
    expect(pods).toEqual({
      resource: 'pods',
      responseKind: { group: '', version: '', kind: 'Pod' },
      scope: 'Namespaced',
      singularResource: 'pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
      subresources: [
        { subresource: 'attach', responseKind: { group: '', version: '', kind: 'PodAttachOptions' }, verbs: ['create', 'get'] },
        { subresource: 'binding', responseKind: { group: '', version: '', kind: 'Binding' }, verbs: ['create'] },
        { subresource: 'ephemeralcontainers', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
        { subresource: 'eviction', responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] },
        { subresource: 'exec', responseKind: { group: '', version: '', kind: 'PodExecOptions' }, verbs: ['create', 'get'] },
        { subresource: 'portforward', responseKind: { group: '', version: '', kind: 'PodPortForwardOptions' }, verbs: ['create', 'get'] },
        { subresource: 'proxy', responseKind: { group: '', version: '', kind: 'PodProxyOptions' }, verbs: ['create', 'delete', 'get', 'patch', 'update'] },
        { subresource: 'resize', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
        { subresource: 'status', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
      ],
    });
    expect(doc.items[0]!.versions[0]!.resources.find((r) => r.resource === 'namespaces')?.scope).toBe('Cluster');
  });

  it('lists every named group on /apis, with scale answering autoscaling/v1 Scale', async () => {
    const res = await request(appFor(builtinIndex())).get('/apis').set('Accept', clientGoAccept).expect(200);
    const doc = JSON.parse(res.text) as APIGroupDiscoveryList;
    expect(doc.items.map((i) => i.metadata.name)).toEqual(['admissionregistration.k8s.io', 'apiextensions.k8s.io', 'apiregistration.k8s.io', 'apps', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'flowcontrol.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'scheduling.k8s.io', 'storage.k8s.io']);
    const deployments = doc.items.find((i) => i.metadata.name === 'apps')!.versions[0]!.resources.find((r) => r.resource === 'deployments')!;
    expect(deployments.subresources).toEqual([
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('serves v2beta1 to a client that asks only for it', async () => {
    const res = await request(appFor(builtinIndex())).get('/apis').set('Accept', aggregatedContentType('v2beta1')).expect(200);
    expect(res.headers['content-type']).toBe(aggregatedContentType('v2beta1'));
    expect(JSON.parse(res.text).apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
  });

  it('keeps the legacy document for clients that ask for plain JSON or nothing', async () => {
    const app = appFor(builtinIndex());
    expect((await request(app).get('/apis').set('Accept', 'application/json, */*').expect(200)).body.kind).toBe('APIGroupList');
    expect((await request(app).get('/apis').expect(200)).body.kind).toBe('APIGroupList');
  });

  it('answers a matching If-None-Match with 304 and a changed index with a new ETag', async () => {
    const index = builtinIndex();
    const app = appFor(index);
    const first = await request(app).get('/apis').set('Accept', clientGoAccept).expect(200);
    const etag = first.headers['etag'] as string;
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(first.headers['vary']).toBe('Accept');
    expect(first.headers['cache-control']).toBe('public');
    await request(app).get('/apis').set('Accept', clientGoAccept).set('If-None-Match', etag).expect(304);
    index.add(crd('stable.example.com', 'v1', 'CronTab'));
    const after = await request(app).get('/apis').set('Accept', clientGoAccept).set('If-None-Match', etag).expect(200);
    expect(after.headers['etag']).not.toBe(etag);
    expect(JSON.parse(after.text).items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('stable.example.com');
  });
});

describe('negotiateDiscovery', () => {
  it.each<[string | undefined, boolean, string]>([
    [undefined, true, 'legacy'],
    ['', true, 'legacy'],
    [clientGoAccept, true, 'aggregated v2'],
    [clientGoAccept, false, 'legacy'],
    [`${aggregatedContentType('v2')};profile=nopeer,${clientGoAccept}`, true, 'aggregated v2'],
    ['application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json', true, 'legacy'],
    ['application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList', true, 'none'],
    ['application/json;q=0.5,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', true, 'aggregated v2'],
    ['application/vnd.kubernetes.protobuf', true, 'none'],
    ['application/vnd.kubernetes.protobuf, */*', true, 'legacy'],
    ['text/html', true, 'none'],
  ])('Accept %j (aggregated allowed: %s) → %s', (accept, allowAggregated, expected) => {
    const f = negotiateDiscovery(accept, allowAggregated);
    expect(f === undefined ? 'none' : f.kind === 'legacy' ? 'legacy' : `aggregated ${f.version}`).toBe(expected);
  });

  it('orders media ranges by q, keeping header order among equals, and drops q=0', () => {
    expect(parseAccept('a/x;q=0.2, b/y, c/z;q=0.2, d/w;q=0').map((r) => `${r.type}/${r.subtype}`)).toEqual(['b/y', 'a/x', 'c/z']);
  });
});

describe('storageVersionHash', () => {
  it.each([
    ['', 'v1', 'Pod', 'xPOwRZ+Yhw8='],
    ['', 'v1', 'ConfigMap', 'qFsyl6wFWjQ='],
    ['apps', 'v1', 'Deployment', '8aSe+NMegvE='],
  ])('matches kube-apiserver for %s/%s %s', (group, version, kind, hash) => {
    expect(storageVersionHash(group, version, kind)).toBe(hash);
  });
});
