// The core/v1 resources beyond pods, services, configmaps and secrets, walked the way users meet them, with kube's
// defaulting and validation texts (pkg/apis/core/v1/defaults.go, pkg/apis/core/validation/validation.go), the
// registry strategies' status/spec split (pkg/registry/core/*/strategy.go), and kubectl's generators and
// categories (`kubectl create quota`, `kubectl get all`, `kubectl scale rc`).
// Memory storage by default; KAH_RESOURCES_STORAGE=etcd3 runs the same file on a harness etcd.
import { useApiServer } from '../../harness/jest.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';

const storage = process.env['KAH_RESOURCES_STORAGE'] === 'etcd3' ? 'etcd3' : 'memory';
const env = useApiServer({ storage });
const ns = 'core-walk';

type Obj = Record<string, unknown>;
const cause = (field: string, message: string, reason = 'FieldValueInvalid') => ({ reason, field, message });
const required = (field: string, message = 'Required value') => cause(field, message, 'FieldValueRequired');
const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });

const walks: ResourceWalk[] = [
  {
    group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false,
    object: () => ({
      spec: { podCIDR: '10.244.1.0/24', providerID: 'kind://docker/n1', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
      // nodes keep the status a create sends
      status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
    }),
    defaulted: [
      { path: 'spec.podCIDRs', value: ['10.244.1.0/24'] },
      { path: 'status.allocatable', value: { cpu: '4', memory: '8Gi', pods: '110' } },
      { path: 'status.nodeInfo.kubeletVersion', value: '' },
      { path: 'status.daemonEndpoints.kubeletEndpoint.Port', value: 0 },
    ],
    invalid: [
      {
        name: 'taint effect',
        object: { spec: { taints: [{ key: 'dedicated', effect: 'Sometimes' }] } },
        message: 'Node "walk-node-invalid" is invalid: spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      },
      {
        name: 'pod CIDR',
        object: { spec: { podCIDRs: ['10.0.0.0/33'] } },
        causes: [cause('spec.podCIDRs[0]', 'Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')],
      },
      { name: 'taint without effect', object: { spec: { taints: [{ key: 'k' }] } }, causes: [required('spec.taints[0].effect')] },
    ],
  },
  {
    group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false,
    object: () => ({ spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } }),
    defaulted: [
      { path: 'spec.persistentVolumeReclaimPolicy', value: 'Retain' },
      { path: 'spec.volumeMode', value: 'Filesystem' },
      { path: 'spec.hostPath.type', value: '' },
      { path: 'status.phase', value: 'Pending' },
    ],
    invalid: [
      {
        name: 'empty spec',
        object: { spec: {} },
        message:
          'PersistentVolume "walk-persistentvolume-invalid" is invalid: [spec.accessModes: Required value, spec.capacity: Required value, ' +
          'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage", spec: Required value: must specify a volume type]',
      },
      {
        name: 'local volume without node affinity',
        object: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], local: { path: '/mnt/disk' } } },
        causes: [required('spec.nodeAffinity', 'Required value: Local volume requires node affinity')],
      },
      {
        name: 'two volume sources and a bad access mode',
        object: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteSometimes'], hostPath: { path: '/a' }, nfs: { server: 'nfs', path: '/b' } } },
        causes: [
          cause('spec.nfs', 'Forbidden: may not specify more than 1 volume type', 'FieldValueForbidden'),
          cause('spec.accessModes', 'Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"', 'FieldValueNotSupported'),
        ],
      },
    ],
  },
  {
    group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true,
    object: () => ({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
    defaulted: [
      { path: 'spec.volumeMode', value: 'Filesystem' },
      { path: 'status.phase', value: 'Pending' },
    ],
    invalid: [
      {
        name: 'no access modes, no storage request',
        object: { spec: { resources: {} } },
        message:
          'PersistentVolumeClaim "walk-persistentvolumeclaim-invalid" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
      },
      {
        name: 'zero storage',
        object: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '0' } } } },
        causes: [cause('spec.resources[storage]', 'Invalid value: "0": must be greater than zero')],
      },
    ],
  },
  {
    group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true,
    object: () => ({ subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }] }),
    defaulted: [{ path: 'subsets.0.ports.0.protocol', value: 'TCP' }],
    warning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
    invalid: [
      {
        name: 'loopback address',
        object: { subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }] }] },
        message: 'Endpoints "walk-endpoints-invalid" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      },
      {
        name: 'subset without addresses, unnamed ports',
        object: { subsets: [{ ports: [{ port: 80 }, { port: 81 }] }] },
        causes: [
          required('subsets[0]', 'Required value: must specify `addresses` or `notReadyAddresses`'),
          required('subsets[0].ports[0].name'),
        ],
      },
    ],
  },
  {
    group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', namespaced: true,
    object: () => ({ spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] } }),
    // SetDefaults_LimitRangeItem: default from max, defaultRequest from default, then from min. (client-node's model
    // names `default` `_default`, so the default itself is checked through the raw API below.)
    defaulted: [{ path: 'spec.limits.0.defaultRequest', value: { cpu: '2', memory: '64Mi' } }],
    invalid: [
      {
        name: 'unknown limit type',
        object: { spec: { limits: [{ type: 'Machine', max: { cpu: '1' } }] } },
        message: 'LimitRange "walk-limitrange-invalid" is invalid: spec.limits[0].type: Invalid value: "Machine": must be a standard limit type or fully qualified',
      },
      {
        name: 'default requests on a Pod item',
        object: { spec: { limits: [{ type: 'Pod', defaultRequest: { cpu: '1' } }] } },
        causes: [cause('spec.limits[0].defaultRequest', "Forbidden: may not be specified when `type` is 'Pod'", 'FieldValueForbidden')],
      },
      {
        name: 'PersistentVolumeClaim item without storage bounds',
        object: { spec: { limits: [{ type: 'PersistentVolumeClaim' }] } },
        causes: [required('spec.limits[0].limits', 'Required value: either minimum or maximum storage value is required, but neither was provided')],
      },
    ],
  },
  {
    group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', namespaced: true,
    object: () => ({ spec: { hard: { pods: '10', 'requests.cpu': '2' } } }),
    // kube defaults nothing of a ResourceQuota
    defaulted: [],
    invalid: [
      {
        name: 'negative hard limit',
        object: { spec: { hard: { cpu: '-1' } } },
        message: 'ResourceQuota "walk-resourcequota-invalid" is invalid: spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0',
      },
      {
        name: 'conflicting scopes',
        object: { spec: { hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] } },
        causes: [cause('spec.scopes', 'Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes')],
      },
      {
        name: 'not a quota resource',
        object: { spec: { hard: { 'services.clusterips': '1' } } },
        causes: [cause('spec.hard[services.clusterips]', 'Invalid value: "services.clusterips": must be a standard resource for quota')],
      },
    ],
  },
  {
    group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true,
    object: () => ({ spec: { template: template({ app: 'walk-rc' }) } }),
    defaulted: [
      { path: 'spec.replicas', value: 1 },
      { path: 'spec.selector', value: { app: 'walk-rc' } },
      { path: 'spec.template.spec.restartPolicy', value: 'Always' },
      { path: 'spec.template.spec.containers.0.terminationMessagePath', value: '/dev/termination-log' },
      { path: 'status.replicas', value: 0 },
      { path: 'metadata.generation', value: 1 },
    ],
    invalid: [
      {
        name: 'selector not matching the template',
        object: { spec: { selector: { app: 'other' }, template: template({ app: 'walk-rc' }) } },
        message: 'ReplicationController "walk-replicationcontroller-invalid" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"walk-rc"}: `selector` does not match template `labels`',
      },
      { name: 'no template', object: { spec: { selector: { app: 'x' } } }, causes: [required('spec.template')] },
      {
        name: 'restartPolicy Never',
        object: { spec: { template: { ...template({ app: 'x' }), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }] } } } },
        causes: [cause('spec.template.spec.restartPolicy', 'Unsupported value: "Never": supported values: "Always"', 'FieldValueNotSupported')],
      },
    ],
  },
  {
    group: '', version: 'v1', resource: 'podtemplates', kind: 'PodTemplate', namespaced: true,
    object: () => ({ template: template({ app: 'walk-pt' }) }),
    defaulted: [
      { path: 'template.spec.dnsPolicy', value: 'ClusterFirst' },
      { path: 'template.spec.containers.0.imagePullPolicy', value: 'IfNotPresent' },
    ],
    invalid: [
      { name: 'no containers', object: { template: { spec: {} } }, message: 'PodTemplate "walk-podtemplate-invalid" is invalid: template.spec.containers: Required value' },
    ],
  },
];

describeResourceWalks(env, ns, walks);

async function req(path: string, method: string, body?: unknown, contentType?: string) {
  return env.server.request(path, { method, ...(body !== undefined ? { body } : {}), ...(contentType ? { headers: { 'Content-Type': contentType } } : {}) });
}
const mergePatch = 'application/merge-patch+json';
async function created(path: string, body: Obj): Promise<Obj> {
  const res = await req(path, 'POST', body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.body}`);
  return res.json<Obj>();
}
interface StatusBody { code?: number; message?: string; details?: { causes?: Array<{ reason?: string; field?: string; message?: string }> } }

describe('core/v1 strategies through the API', () => {
  const nsPath = `/api/v1/namespaces/${ns}`;

  it('keeps a node status sent on create, ignores status on a main write, and fixes podCIDRs and providerID once set', async () => {
    const node = await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-immutable' }, spec: { podCIDRs: ['10.1.0.0/24'], providerID: 'p1' }, status: { capacity: { cpu: '2' } } });
    expect((node['status'] as Obj)['capacity']).toEqual({ cpu: '2' });
    const statusWrite = await req('/api/v1/nodes/n-immutable', 'PATCH', { status: { capacity: { cpu: '8' } }, metadata: { labels: { a: 'b' } } }, mergePatch);
    expect(statusWrite.status).toBe(200);
    expect(((statusWrite.json<Obj>()['status'] as Obj)['capacity'] as Obj)['cpu']).toBe('2');
    const cidr = await req('/api/v1/nodes/n-immutable', 'PATCH', { spec: { podCIDRs: ['10.2.0.0/24'], providerID: 'p2' } }, mergePatch);
    const status = cidr.json<StatusBody>();
    expect([cidr.status, status.message]).toEqual([
      422,
      'Node "n-immutable" is invalid: [spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid, spec.providerID: Forbidden: node updates may not change providerID except from "" to valid]',
    ]);
    // the /status subresource changes status only
    const viaStatus = await req('/api/v1/nodes/n-immutable/status', 'PATCH', { status: { capacity: { cpu: '8' } }, spec: { unschedulable: true } }, mergePatch);
    expect(viaStatus.status).toBe(200);
    expect([(viaStatus.json<Obj>()['status'] as Obj)['capacity'], (viaStatus.json<Obj>()['spec'] as Obj)['unschedulable']]).toEqual([{ cpu: '8' }, undefined]);
  });

  it('lets a node without a podCIDR get one (the node IPAM controller\'s write)', async () => {
    await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-assign' } });
    const res = await req('/api/v1/nodes/n-assign', 'PATCH', { spec: { podCIDR: '10.3.0.0/24', providerID: 'p' } }, mergePatch);
    expect(res.status).toBe(200);
    expect((res.json<Obj>()['spec'] as Obj)['podCIDRs']).toEqual(['10.3.0.0/24']);
  });

  it('refuses changes to a claim\'s spec with kube\'s text, and lets a bound claim grow', async () => {
    await created(`${nsPath}/persistentvolumeclaims`, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const modes = await req(`${nsPath}/persistentvolumeclaims/claim`, 'PATCH', { spec: { accessModes: ['ReadWriteMany'] } }, mergePatch);
    expect(modes.status).toBe(422);
    const cause = modes.json<StatusBody>().details?.causes?.[0];
    expect([cause?.reason, cause?.field]).toEqual(['FieldValueForbidden', 'spec']);
    expect(cause?.message?.split('\n')[0]).toBe('Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
    // an unbound claim cannot be resized either
    const unbound = await req(`${nsPath}/persistentvolumeclaims/claim`, 'PATCH', { spec: { resources: { requests: { storage: '2Gi' } } } }, mergePatch);
    expect(unbound.status).toBe(422);
    // volumeName may be set once; the same quantity in other units is no change
    const bind = await req(`${nsPath}/persistentvolumeclaims/claim`, 'PATCH', { spec: { volumeName: 'pv-1', resources: { requests: { storage: '1024Mi' } } } }, mergePatch);
    expect(bind.status).toBe(200);
    const bound = await req(`${nsPath}/persistentvolumeclaims/claim/status`, 'PATCH', { status: { phase: 'Bound', capacity: { storage: '1Gi' } } }, mergePatch);
    expect(bound.status).toBe(200);
    const grow = await req(`${nsPath}/persistentvolumeclaims/claim`, 'PATCH', { spec: { resources: { requests: { storage: '5Gi' } } } }, mergePatch);
    expect(grow.status).toBe(200);
    const shrink = await req(`${nsPath}/persistentvolumeclaims/claim`, 'PATCH', { spec: { resources: { requests: { storage: '1Gi' } } } }, mergePatch);
    expect([shrink.status, shrink.json<StatusBody>().message]).toEqual([
      422,
      'PersistentVolumeClaim "claim" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    ]);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'pvc', 'claim', '-n', ns]);
    expect(table.stdout).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\nclaim\s+Bound\s+pv-1\s+1Gi\s+/);
  });

  it('keeps a persistent volume\'s source immutable', async () => {
    await created('/api/v1/persistentvolumes', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-src' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/a' } } });
    const res = await req('/api/v1/persistentvolumes/pv-src', 'PATCH', { spec: { hostPath: { path: '/b' }, volumeMode: 'Block' } }, mergePatch);
    expect(res.status).toBe(422);
    const causes = res.json<StatusBody>().details?.causes ?? [];
    expect(causes.map((c) => [c.field, c.message?.split('\n')[0]])).toEqual([
      ['spec.persistentvolumesource', 'Forbidden: spec.persistentvolumesource is immutable after creation'],
      ['volumeMode', 'Invalid value: "Block": field is immutable'],
    ]);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'pv', 'pv-src']);
    expect(table.stdout).toMatch(/^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE\npv-src\s+1Gi\s+RWO\s+Retain\s+Pending\s+<unset>\s+/);
  });

  it('stamps a persistent volume\'s lastPhaseTransitionTime on create and when a /status write changes the phase', async () => {
    const pv = await created('/api/v1/persistentvolumes', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-phase' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], nfs: { server: 'nfs', path: '/x' } } });
    const createdAt = (pv['status'] as Obj)['lastPhaseTransitionTime'];
    expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // same phase, no time sent: the stored time stays
    const same = await req('/api/v1/persistentvolumes/pv-phase/status', 'PUT', { ...pv, status: { phase: 'Pending' } });
    expect((same.json<Obj>()['status'] as Obj)['lastPhaseTransitionTime']).toBe(createdAt);
    // a time the client sets with the phase change is kept
    const released = await req('/api/v1/persistentvolumes/pv-phase/status', 'PATCH', { status: { phase: 'Released', lastPhaseTransitionTime: '2020-01-01T00:00:00Z' } }, mergePatch);
    expect((released.json<Obj>()['status'] as Obj)['lastPhaseTransitionTime']).toBe('2020-01-01T00:00:00Z');
    // a new phase with the stored time sent back (the merge patch keeps it): stamped now
    const available = await req('/api/v1/persistentvolumes/pv-phase/status', 'PATCH', { status: { phase: 'Available' } }, mergePatch);
    const availableStatus = available.json<Obj>()['status'] as Obj;
    expect(availableStatus['phase']).toBe('Available');
    expect(Date.parse(String(availableStatus['lastPhaseTransitionTime']))).toBeGreaterThanOrEqual(Date.parse(String(createdAt)));
  });

  it('defaults a replication controller\'s labels from its template and bumps generation on spec changes only', async () => {
    const rc = await created(`${nsPath}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc-gen' }, spec: { template: template({ app: 'gen' }) } });
    expect((rc['metadata'] as Obj)['labels']).toEqual({ app: 'gen' });
    const label = await req(`${nsPath}/replicationcontrollers/rc-gen`, 'PATCH', { metadata: { labels: { app: 'gen', x: 'y' } } }, mergePatch);
    expect((label.json<Obj>()['metadata'] as Obj)['generation']).toBe(1);
    const spec = await req(`${nsPath}/replicationcontrollers/rc-gen`, 'PATCH', { spec: { minReadySeconds: 5 } }, mergePatch);
    expect((spec.json<Obj>()['metadata'] as Obj)['generation']).toBe(2);
  });

  it('defaults a Container limit range item\'s default from max and refuses min above max (raw API)', async () => {
    const lr = await created(`${nsPath}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr-defaults' }, spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] } });
    expect((lr['spec'] as { limits: Obj[] }).limits[0]).toEqual({ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '64Mi' } });
    const bad = await req(`${nsPath}/limitranges`, 'POST', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr-bad' }, spec: { limits: [{ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' }, default: { cpu: '1' } }] } });
    const causes = bad.json<StatusBody>().details?.causes ?? [];
    expect(bad.status).toBe(422);
    expect(causes).toContainEqual({ reason: 'FieldValueForbidden', field: 'spec.limits[0].default', message: "Forbidden: may not be specified when `type` is 'Pod'" });
    // kube prints the bad value as Go's %#v of a resource.Quantity, which is not reproduced: the detail is kube's
    expect(causes.find((c) => c.field === 'spec.limits[0].min[cpu]')?.message).toMatch(/^Invalid value: .*: min value 2 is greater than max value 1$/);
  });

  it('creates a quota with `kubectl create quota` and prints it', async () => {
    const out = await kubectl(env.server.kubeconfigPath, ['create', 'quota', 'q-kubectl', '-n', ns, '--hard=cpu=1,memory=1G,pods=2', '--scopes=NotTerminating']);
    expect([out.code, out.stdout.trim(), out.stderr]).toEqual([0, 'resourcequota/q-kubectl created', '']);
    const got = await req(`${nsPath}/resourcequotas/q-kubectl`, 'GET');
    expect(got.json<Obj>()['spec']).toEqual({ hard: { cpu: '1', memory: '1G', pods: '2' }, scopes: ['NotTerminating'] });
    // the quota controller fills status.hard and status.used; the table's Request/Limit columns are read from there
    await eventually(async () => {
      const table = await kubectl(env.server.kubeconfigPath, ['get', 'quota', 'q-kubectl', '-n', ns]);
      expect(table.stdout).toMatch(/^NAME\s+AGE\s+REQUEST\s+LIMIT\nq-kubectl\s+\S+\s+cpu: \S+\/1, memory: \S+\/1G, pods: \d+\/2\s*\n$/);
    });
  });

  it('lists replication controllers in `kubectl get all` and scales them with `kubectl scale rc`', async () => {
    await created(`${nsPath}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc-scale' }, spec: { selector: { app: 'scale', tier: 'web' }, template: template({ app: 'scale', tier: 'web' }) } });
    const all = await kubectl(env.server.kubeconfigPath, ['get', 'all', '-n', ns]);
    expect([all.code, all.stderr]).toEqual([0, '']);
    expect(all.stdout).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\n(.*\n)*replicationcontroller\/rc-scale\s+1\s+0\s+0\s+/);
    const scaled = await kubectl(env.server.kubeconfigPath, ['scale', 'rc', 'rc-scale', '-n', ns, '--replicas=3']);
    expect([scaled.code, scaled.stdout.trim(), scaled.stderr]).toEqual([0, 'replicationcontroller/rc-scale scaled', '']);
    await eventually(async () => {
      const scale = (await req(`${nsPath}/replicationcontrollers/rc-scale/scale`, 'GET')).json<Obj>();
      expect([scale['kind'], scale['apiVersion'], scale['spec'], scale['status']]).toEqual(['Scale', 'autoscaling/v1', { replicas: 3 }, { replicas: 0, selector: 'app=scale,tier=web' }]);
    });
    const wide = await kubectl(env.server.kubeconfigPath, ['get', 'rc', 'rc-scale', '-n', ns, '-o', 'wide']);
    expect(wide.stdout).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nrc-scale\s+3\s+0\s+0\s+\S+\s+c\s+nginx:1\.27\s+app=scale,tier=web\n$/);
  });

  it('prints nodes, endpoints, limit ranges and pod templates as kube does', async () => {
    await created('/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-print', labels: { 'node-role.kubernetes.io/control-plane': '' } },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'False' }], nodeInfo: { kubeletVersion: 'v1.36.0' }, addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] },
    });
    const nodes = await kubectl(env.server.kubeconfigPath, ['get', 'no', 'n-print', '-o', 'wide']);
    expect(nodes.stdout).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME\nn-print\s+NotReady,SchedulingDisabled\s+control-plane\s+\S+\s+v1\.36\.0\s+172\.18\.0\.2\s+<none>\s+<unknown>\s+<unknown>\s+<unknown>\n$/);
    await created(`${nsPath}/endpoints`, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep-print' },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }, { ip: '10.0.0.4' }], ports: [{ port: 80 }] }],
    });
    // RepackSubsets: one subset, addresses sorted by IP bytes
    const repacked = await created(`${nsPath}/endpoints`, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep-repack' },
      subsets: [{ addresses: [{ ip: '10.0.0.9' }], ports: [{ port: 80 }] }, { addresses: [{ ip: '10.0.0.10' }, { ip: '10.0.0.9' }], ports: [{ port: 80 }] }],
    });
    expect(repacked['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.10' }, { ip: '10.0.0.9' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
    const ep = await kubectl(env.server.kubeconfigPath, ['get', 'ep', 'ep-print', '-n', ns]);
    expect(ep.stderr).toBe('Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n');
    expect(ep.stdout).toMatch(/^NAME\s+ENDPOINTS\s+AGE\nep-print\s+10\.0\.0\.1:80,10\.0\.0\.2:80,10\.0\.0\.3:80 \+ 1 more\.\.\.\s+/);
    const lr = await created(`${nsPath}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr-print' }, spec: { limits: [{ type: 'Pod', max: { cpu: '1' } }] } });
    const limits = await kubectl(env.server.kubeconfigPath, ['get', 'limits', 'lr-print', '-n', ns]);
    expect(limits.stdout).toBe(`NAME       CREATED AT\nlr-print   ${String((lr['metadata'] as Obj)['creationTimestamp'])}\n`);
    await created(`${nsPath}/podtemplates`, { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'pt-print' }, template: template({ b: '2', a: '1' }) });
    const pt = await kubectl(env.server.kubeconfigPath, ['get', 'podtemplates', 'pt-print', '-n', ns]);
    expect(pt.stdout).toMatch(/^NAME\s+CONTAINERS\s+IMAGES\s+POD LABELS\npt-print\s+c\s+nginx:1\.27\s+a=1,b=2\n$/);
  });

  it('warns of the v1 Endpoints deprecation on every request, errors included, and on no other resource', async () => {
    const warning = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';
    const list = await req(`${nsPath}/endpoints`, 'GET');
    const missing = await req(`${nsPath}/endpoints/nope`, 'GET');
    const pods = await req(`${nsPath}/pods`, 'GET');
    expect([list.status, list.headers['warning']]).toEqual([200, warning]);
    expect([missing.status, missing.headers['warning']]).toEqual([404, warning]);
    expect([pods.status, pods.headers['warning']]).toEqual([200, undefined]);
  });

  it('prints kube\'s warnings for a Recycle volume and a replication controller named with dots (kubectl)', async () => {
    const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-recycle' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' }, persistentVolumeReclaimPolicy: 'Recycle' } };
    const out = await kubectl(env.server.kubeconfigPath, ['create', '-f', '-'], JSON.stringify(pv));
    expect([out.code, out.stderr]).toEqual([0, 'Warning: spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.\n']);
    const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc.dotted', namespace: ns }, spec: { template: template({ app: 'dotted' }) } };
    const rcOut = await kubectl(env.server.kubeconfigPath, ['create', '-f', '-'], JSON.stringify(rc));
    expect([rcOut.code, rcOut.stderr]).toEqual([
      0,
      "Warning: metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]\n",
    ]);
  });

  it('serves the short names and the `all` category as discovery', async () => {
    const out = await kubectl(env.server.kubeconfigPath, ['api-resources', '--api-group=', '-o', 'wide']);
    for (const [name, short] of [['nodes', 'no'], ['persistentvolumes', 'pv'], ['persistentvolumeclaims', 'pvc'], ['endpoints', 'ep'], ['limitranges', 'limits'], ['resourcequotas', 'quota'], ['replicationcontrollers', 'rc']]) {
      expect(out.stdout).toMatch(new RegExp(`\\n${name}\\s+${short}\\s+v1\\s`));
    }
    expect(out.stdout).toMatch(/\nreplicationcontrollers\s+rc\s+v1\s+true\s+ReplicationController\s+.*\s+all\n/);
    expect(out.stdout).toMatch(/\npodtemplates\s+v1\s+true\s+PodTemplate\s/);
  });
});
