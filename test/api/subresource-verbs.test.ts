// Every verb on every subresource of every served resource answers as kube-apiserver's routes do: status and
// scale get/update/patch, namespaces/finalize update only, everything else 405 (a route exists at the path for
// other methods) or 404 (none does) — DELETE /status never deletes the parent. Table-driven from the resource
// catalogue, plus a custom resource with status and scale; discovery must list nothing the table leaves out.
import { useApiServer } from '../../harness/jest.js';
import { builtinResources } from '../../server/registry/catalogue/index.js';
import { eventually } from '../support/eventually.js';
import { certificateRequestPem } from '../support/csr.js';

const env = useApiServer();
const ns = 'routes';
const crGroup = 'routes.example.com';

type Obj = Record<string, unknown>;

interface Served {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  virtual: boolean;
  /** status/scale from the catalogue, finalize for namespaces: what kube's storage has for this resource */
  subresources: string[];
}

const containers = [{ name: 'c', image: 'busybox' }];
const matchConfigMaps = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }] };
const crdSpec = (plural: string, kind: string, subresources: Obj | undefined) => ({
  group: crGroup,
  scope: 'Namespaced',
  names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
  versions: [
    {
      name: 'v1',
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } } } },
      ...(subresources ? { subresources } : {}),
    },
  ],
});

/** A valid object of each served kind (the body the test creates before trying every verb on it). */
const fixtures: Record<string, (name: string) => Obj> = {
  '/namespaces': () => ({}),
  '/pods': () => ({ spec: { containers } }),
  '/configmaps': () => ({ data: { a: 'b' } }),
  '/secrets': () => ({ type: 'Opaque', stringData: { a: 'b' } }),
  '/services': () => ({ spec: { ports: [{ port: 80 }] } }),
  '/serviceaccounts': () => ({}),
  '/events': () => ({ involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Tested', message: 'routes', type: 'Normal' }),
  // core/v1 (issue #15)
  '/nodes': () => ({}),
  '/persistentvolumes': () => ({ spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } }),
  '/persistentvolumeclaims': () => ({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
  '/endpoints': () => ({ subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] }),
  '/limitranges': () => ({ spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }),
  '/resourcequotas': () => ({ spec: { hard: { pods: '1' } } }),
  '/replicationcontrollers': () => ({ spec: { template: { metadata: { labels: { app: 'r' } }, spec: { containers } } } }),
  '/podtemplates': () => ({ template: { spec: { containers } } }),
  'apps/deployments': () => ({ spec: { selector: { matchLabels: { app: 'r' } }, template: { metadata: { labels: { app: 'r' } }, spec: { containers } } } }),
  'apps/replicasets': () => ({ spec: { selector: { matchLabels: { app: 'r' } }, template: { metadata: { labels: { app: 'r' } }, spec: { containers } } } }),
  'apps/statefulsets': () => ({ spec: { selector: { matchLabels: { app: 'r' } }, template: { metadata: { labels: { app: 'r' } }, spec: { containers } } } }),
  'apps/daemonsets': () => ({ spec: { selector: { matchLabels: { app: 'r' } }, template: { metadata: { labels: { app: 'r' } }, spec: { containers } } } }),
  'apps/controllerrevisions': () => ({ data: { a: 'b' }, revision: 1 }),
  // batch/v1, autoscaling/v2+v1 (one fixture fits both versions), policy/v1
  'batch/jobs': () => ({ spec: { template: { spec: { restartPolicy: 'Never', containers } } } }),
  'batch/cronjobs': () => ({ spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers } } } } } }),
  'autoscaling/horizontalpodautoscalers': () => ({ spec: { scaleTargetRef: { kind: 'Deployment', name: 'r' }, maxReplicas: 2 } }),
  'policy/poddisruptionbudgets': () => ({ spec: { minAvailable: 1, selector: { matchLabels: { app: 'r' } } } }),
  'admissionregistration.k8s.io/validatingwebhookconfigurations': () => ({}),
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': () => ({}),
  'admissionregistration.k8s.io/validatingadmissionpolicies': () => ({ spec: { matchConstraints: matchConfigMaps, validations: [{ expression: 'true' }] } }),
  'admissionregistration.k8s.io/mutatingadmissionpolicies': () => ({
    spec: { matchConstraints: matchConfigMaps, reinvocationPolicy: 'Never', mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }] },
  }),
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': () => ({ spec: { policyName: 'none', validationActions: ['Deny'] } }),
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': () => ({ spec: { policyName: 'none' } }),
  'apiextensions.k8s.io/customresourcedefinitions': (name) => ({ spec: crdSpec(name.split('.')[0]!, 'Gadget', undefined) }),
  [`${crGroup}/widgets`]: () => ({ spec: { replicas: 1 } }),
  // storage, certificates, resource, flowcontrol, apiregistration
  'storage.k8s.io/storageclasses': () => ({ provisioner: 'example.com/disk' }),
  'storage.k8s.io/csidrivers': () => ({ spec: {} }),
  'storage.k8s.io/csinodes': () => ({ spec: { drivers: [] } }),
  'storage.k8s.io/csistoragecapacities': () => ({ storageClassName: 'fast' }),
  'storage.k8s.io/volumeattachments': () => ({ spec: { attacher: 'example.com', source: { persistentVolumeName: 'pv' }, nodeName: 'node-1' } }),
  'storage.k8s.io/volumeattributesclasses': () => ({ driverName: 'example.com', parameters: { a: 'b' } }),
  'certificates.k8s.io/certificatesigningrequests': (name) => ({
    spec: { request: Buffer.from(certificateRequestPem({ commonName: name })).toString('base64'), signerName: 'example.com/signer', usages: ['client auth'] },
  }),
  'resource.k8s.io/deviceclasses': () => ({ spec: {} }),
  'resource.k8s.io/resourceclaims': () => ({ spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'c' } }] } } }),
  'resource.k8s.io/resourceclaimtemplates': () => ({ spec: { spec: {} } }),
  'resource.k8s.io/resourceslices': () => ({ spec: { driver: 'example.com', nodeName: 'node-1', pool: { name: 'p', resourceSliceCount: 1 } } }),
  'flowcontrol.apiserver.k8s.io/flowschemas': () => ({ spec: { priorityLevelConfiguration: { name: 'catch-all' } } }),
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': () => ({ spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } }),
  // networking, rbac, scheduling, coordination, discovery, events.k8s.io, node
  'networking.k8s.io/ingresses': () => ({ spec: { rules: [{ host: 'example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } }),
  'networking.k8s.io/ingressclasses': () => ({ spec: { controller: 'example.com/ingress-controller' } }),
  'networking.k8s.io/networkpolicies': () => ({ spec: { podSelector: { matchLabels: { app: 'web' } } } }),
  'networking.k8s.io/ipaddresses': () => ({ spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } } }),
  'networking.k8s.io/servicecidrs': () => ({ spec: { cidrs: ['10.200.0.0/16'] } }),
  'rbac.authorization.k8s.io/roles': () => ({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }),
  'rbac.authorization.k8s.io/clusterroles': () => ({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }),
  'rbac.authorization.k8s.io/rolebindings': () => ({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }] }),
  'rbac.authorization.k8s.io/clusterrolebindings': () => ({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }] }),
  'scheduling.k8s.io/priorityclasses': () => ({ value: 1000 }),
  'coordination.k8s.io/leases': () => ({ spec: { holderIdentity: 'h', leaseDurationSeconds: 15 } }),
  'discovery.k8s.io/endpointslices': () => ({ addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'] }], ports: [{ port: 8080 }] }),
  'events.k8s.io/events': () => ({ eventTime: '2026-01-02T03:04:05.123456Z', reportingController: 'example.com/walker', reportingInstance: 'walker-1', action: 'Walk', reason: 'Walking', type: 'Normal', note: 'one step', regarding: { kind: 'Pod', name: 'p', namespace: ns } }),
  'node.k8s.io/runtimeclasses': () => ({ handler: 'runc' }),
  'apiregistration.k8s.io/apiservices': (name) => ({ spec: { group: name.slice('v1.'.length), version: 'v1', groupPriorityMinimum: 100, versionPriority: 100 } }),
};
/** custom resource definitions are named <plural>.<group> */
const nameFor = (s: Served): string => {
  if (s.resource === 'customresourcedefinitions') return `gadgets.${crGroup}`;
  // APIServices are named version.group
  if (s.resource === 'apiservices') return 'v1.routes.example.com';
  // IPAddresses are named by their canonical address
  if (s.resource === 'ipaddresses') return '10.96.0.77';
  return `routes-${s.resource}`;
};

/**
 * The pod and service-account subresources served by their own REST storages (NamedCreaters: binding, eviction,
 * token; Connecters: exec, attach, portforward, proxy; the pod's ephemeralcontainers and resize) and the create-only
 * legacy `bindings` have their verb tables in server/endpoints/routes.test.ts and their behaviour in
 * test/resources/pod-subresources.test.ts; this file walks the storages that share the parent's object.
 */
const ownStorageSubresources = new Set(['binding', 'eviction', 'token', 'exec', 'attach', 'portforward', 'proxy', 'ephemeralcontainers', 'resize']);
const createOnly = (r: { verbs: readonly string[] }): boolean => r.verbs.length === 1 && r.verbs[0] === 'create';

const table: Served[] = [
  ...builtinResources.filter((r) => !(createOnly(r) && r.virtual === undefined)).map((r) => ({
    group: r.group,
    version: r.version,
    resource: r.resource,
    namespaced: r.namespaced,
    virtual: r.virtual !== undefined,
    subresources: [...(r.subresources.status ? ['status'] : []), ...(r.subresources.scale ? ['scale'] : []), ...(r.group === '' && r.resource === 'namespaces' ? ['finalize'] : []), ...(r.subresources.approval ? ['approval'] : [])],
  })),
  { group: crGroup, version: 'v1', resource: 'widgets', namespaced: true, virtual: false, subresources: ['status', 'scale'] },
];

const prefixOf = (s: Served): string => (s.group ? `/apis/${s.group}/${s.version}` : `/api/${s.version}`);
const collectionOf = (s: Served): string => `${prefixOf(s)}${s.namespaced ? `/namespaces/${ns}` : ''}/${s.resource}`;
const watchCollectionOf = (s: Served): string => `${prefixOf(s)}/watch${s.namespaced ? `/namespaces/${ns}` : ''}/${s.resource}`;

async function call(method: string, p: string, body?: unknown, contentType = 'application/json') {
  const res = await env.server.request(p, { method, body, headers: body === undefined ? {} : { 'Content-Type': contentType } });
  let json: Obj = {};
  try {
    json = JSON.parse(res.body) as Obj;
  } catch {
    /* asserted through status */
  }
  return { status: res.status, json };
}

// go-restful's answers through kube's serviceErrorHandler (NewGenericServerResponse): no name, group or kind.
const status405 = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 };
const status404 = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };

/** kube's subresource storages: StatusREST and ScaleREST are Getter + Updater (so Patcher), FinalizeREST an Updater. */
const allowed: Record<string, string[]> = { status: ['GET', 'PUT', 'PATCH'], scale: ['GET', 'PUT', 'PATCH'], finalize: ['PUT'], approval: ['GET', 'PUT', 'PATCH'] };

beforeAll(async () => {
  expect((await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${crGroup}` }, spec: crdSpec('widgets', 'Widget', { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } }) };
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  await eventually(async () => expect((await call('GET', `/apis/${crGroup}/v1/namespaces/${ns}/widgets`)).status).toBe(200), 30_000);
}, 60_000);

describe('verbs × subresources through the HTTP API', () => {
  it('covers every resource and subresource discovery lists, each with a fixture', async () => {
    const listed: string[] = [];
    const v1 = (await call('GET', '/api/v1')).json as { resources: Array<{ name: string }> };
    listed.push(...v1.resources.map((r) => `/v1/${r.name}`));
    const groups = (await call('GET', '/apis')).json as { groups: Array<{ name: string; versions: Array<{ groupVersion: string }> }> };
    for (const g of groups.groups) {
      for (const v of g.versions) {
        const list = (await call('GET', `/apis/${v.groupVersion}`)).json as { resources: Array<{ name: string }> };
        listed.push(...list.resources.map((r) => `${v.groupVersion}/${r.name}`));
      }
    }
    const gv = (s: Served): string => (s.group ? `${s.group}/${s.version}` : `/${s.version}`);
    const covered = table.flatMap((s) => [`${gv(s)}/${s.resource}`, ...s.subresources.filter((sub) => sub !== 'finalize').map((sub) => `${gv(s)}/${s.resource}/${sub}`)]);
    // "/v1/pods/exec" and "apps/v1/deployments/scale" both split into four parts
    const isOwnStorage = (l: string): boolean => l.split('/').length === 4 && ownStorageSubresources.has(l.split('/')[3]!);
    const walked = listed.filter((l) => !isOwnStorage(l));
    const legacyBindings = '/v1/bindings';
    expect(walked.filter((l) => l !== legacyBindings).sort()).toEqual([...covered].sort());
    // and every one of those is listed: nothing served goes unseen
    expect(listed).toContain(legacyBindings);
    for (const s of table.filter((x) => !x.virtual)) expect([s.resource, fixtures[`${s.group}/${s.resource}`] !== undefined]).toEqual([s.resource, true]);
  });

  describe.each(table.filter((s) => !s.virtual).map((s) => [`${s.group || 'core'}/${s.resource}`, s] as const))('%s', (_title, s) => {
    const name = nameFor(s);
    const item = (): string => `${collectionOf(s)}/${name}`;

    it('answers each subresource verb as kube does, and never deletes the parent through a subresource', async () => {
      const body = { apiVersion: s.group ? `${s.group}/${s.version}` : s.version, kind: undefined as string | undefined, metadata: { name }, ...fixtures[`${s.group}/${s.resource}`]!(name) };
      delete body.kind;
      const created = await call('POST', collectionOf(s), body);
      expect([created.status, created.status === 201 ? '' : created.json['message']]).toEqual([201, '']);
      const uid = (created.json['metadata'] as { uid: string }).uid;
      if (s.resource === 'customresourcedefinitions') {
        // The naming and establishing controllers write the new CRD's status (NamesAccepted, then Established) in the
        // background, as kube's do: an update sending back an earlier read would race them into a 409, so wait for
        // their last write first, as kube's own tests do (apiextensions test/integration fixtures.waitForEstablishedCRD).
        await eventually(async () => {
          const conditions = ((await call('GET', item())).json['status'] as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
          expect(conditions.find((c) => c.type === 'Established')?.status).toBe('True');
        }, 30_000);
      }

      for (const sub of s.subresources) {
        const path = `${item()}/${sub}`;
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'POST']) {
          let reqBody: unknown;
          let contentType = 'application/json';
          if (method === 'PATCH') [reqBody, contentType] = [{}, 'application/merge-patch+json'];
          // an update sends back what it read (the Scale for /scale, the object otherwise)
          else if (method === 'PUT' || method === 'POST') reqBody = (await call('GET', sub === 'scale' ? path : item())).json;
          let r = await call(method, path, reqBody, contentType);
          // a controller may write between the read and the update (the quota controller's status.used): read again,
          // as any client does on 409
          for (let tries = 0; r.status === 409 && method === 'PUT' && tries < 5; tries++) {
            reqBody = (await call('GET', sub === 'scale' ? path : item())).json;
            r = await call(method, path, reqBody, contentType);
          }
          if (allowed[sub]!.includes(method)) expect([sub, method, r.status, r.status === 200 ? '' : r.json['message']]).toEqual([sub, method, 200, '']);
          else expect([sub, method, r.json]).toEqual([sub, method, status405]);
        }
        // GET ?watch=true on a subresource is a get (or the 405 of a storage that cannot get); /watch/ has no route
        const watched = await call('GET', `${path}?watch=true`);
        expect([sub, watched.status]).toEqual([sub, allowed[sub]!.includes('GET') ? 200 : 405]);
        const watchPrefixed = await call('GET', `${watchCollectionOf(s)}/${name}/${sub}`);
        expect([sub, watchPrefixed.json]).toEqual([sub, status404]);
      }
      // subresources the resource lacks, and unknown ones, have no route at all
      for (const sub of ['status', 'scale', 'finalize', 'approval', 'nope'].filter((x) => !s.subresources.includes(x))) {
        for (const method of ['GET', 'DELETE']) expect([sub, method, (await call(method, `${item()}/${sub}`)).json]).toEqual([sub, method, status404]);
      }

      const still = await call('GET', item());
      expect([still.status, (still.json['metadata'] as { uid?: string } | undefined)?.uid]).toEqual([200, uid]);
      expect((still.json['metadata'] as { deletionTimestamp?: string }).deletionTimestamp).toBeUndefined();

      // methods a path has no route for
      expect((await call('PUT', collectionOf(s), body)).json).toEqual(status405);
      expect((await call('PATCH', collectionOf(s), {}, 'application/merge-patch+json')).json).toEqual(status405);
      expect((await call('POST', item(), body)).json).toEqual(status405);

      if (s.namespaced) {
        // across all namespaces only the list lives (installer: MethodList at /<resource>)
        const all = `${prefixOf(s)}/${s.resource}`;
        expect((await call('GET', all)).status).toBe(200);
        expect((await call('POST', all, body)).json).toEqual(status405);
        expect((await call('DELETE', all)).json).toEqual(status405);
        expect((await call('GET', `${all}/${name}`)).json).toEqual(status404);
        expect((await call('GET', `${all}/${name}/status`)).json).toEqual(status404);
      }

      const deleted = await call('DELETE', item());
      expect(deleted.status).toBe(200);
    });
  });

  describe.each(table.filter((s) => s.virtual).map((s) => [`${s.group}/${s.resource}`, s] as const))('%s (create only)', (_title, s) => {
    it('answers 405 on its collection but for POST, and 404 on anything below it', async () => {
      expect((await call('GET', collectionOf(s))).json).toEqual(status405);
      expect((await call('DELETE', collectionOf(s))).json).toEqual(status405);
      expect((await call('PUT', collectionOf(s), {})).json).toEqual(status405);
      expect((await call('GET', `${collectionOf(s)}/x`)).json).toEqual(status404);
      expect((await call('DELETE', `${collectionOf(s)}/x`)).json).toEqual(status404);
      expect((await call('GET', `${collectionOf(s)}/x/status`)).json).toEqual(status404);
      expect((await call('GET', watchCollectionOf(s))).json).toEqual(status404);
    });
  });
});
