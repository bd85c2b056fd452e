// apps/v1 as kube-apiserver serves it: Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions
// walked through the API with kube's defaults (pkg/apis/apps/v1/defaults.go) and validation texts
// (pkg/apis/apps/validation/validation.go, pkg/registry/apps/*/strategy.go), their update rules, the scale
// subresource, and what kubectl prints for them (get, scale, rollout history).
// APPS_TEST_STORAGE=etcd3 runs the same file against etcd.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';

type Obj = Record<string, unknown>;

const env = useApiServer({ storage: process.env['APPS_TEST_STORAGE'] === 'etcd3' ? 'etcd3' : 'memory' });
const ns = 'apps-walk';

const template = (app: string, podSpec: Obj = {}): Obj => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...podSpec },
});
const workloadSpec = (app: string, extra: Obj = {}, podSpec: Obj = {}): Obj => ({ selector: { matchLabels: { app } }, template: template(app, podSpec), ...extra });
const cause = (reason: string, field: string, message: string) => ({ reason, field, message });

const walks: ResourceWalk[] = [
  {
    group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true,
    object: (name) => ({ spec: workloadSpec(name) }),
    defaulted: [
      { path: 'spec.replicas', value: 1 },
      { path: 'spec.strategy.rollingUpdate.maxSurge', value: '25%' },
      { path: 'spec.progressDeadlineSeconds', value: 600 },
      { path: 'spec.template.spec.restartPolicy', value: 'Always' },
    ],
    invalid: [
      {
        name: 'selector does not match the template labels',
        object: { spec: { ...workloadSpec('a'), template: template('b') } },
        message: 'Deployment.apps "walk-deployment-invalid" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`',
      },
      {
        name: 'activeDeadlineSeconds in the template',
        object: { spec: workloadSpec('a', {}, { activeDeadlineSeconds: 5 }) },
        causes: [cause('FieldValueForbidden', 'spec.template.spec.activeDeadlineSeconds', 'Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported')],
      },
    ],
  },
  {
    group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true,
    object: (name) => ({ spec: workloadSpec(name) }),
    defaulted: [
      { path: 'spec.replicas', value: 1 },
      { path: 'spec.template.spec.restartPolicy', value: 'Always' },
      { path: 'spec.template.spec.dnsPolicy', value: 'ClusterFirst' },
      { path: 'spec.template.spec.containers.0.imagePullPolicy', value: 'IfNotPresent' },
    ],
    invalid: [
      {
        name: 'selector does not match the template labels',
        object: { spec: { ...workloadSpec('a'), template: template('b') } },
        message: 'ReplicaSet.apps "walk-replicaset-invalid" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`',
      },
      {
        // a nil selector is labels.Nothing(): kube reports both the missing selector and the labels it cannot match
        name: 'no selector',
        object: { spec: { template: template('a') } },
        causes: [
          cause('FieldValueRequired', 'spec.selector', 'Required value'),
          cause('FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: {"app":"a"}: `selector` does not match template `labels`'),
        ],
      },
      {
        name: 'empty selector (kube words it for deployments)',
        object: { spec: { ...workloadSpec('a'), selector: {} } },
        causes: [cause('FieldValueInvalid', 'spec.selector', 'Invalid value: {}: empty selector is invalid for deployment')],
      },
      {
        name: 'negative replicas',
        object: { spec: workloadSpec('a', { replicas: -1 }) },
        message: 'ReplicaSet.apps "walk-replicaset-invalid" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      },
      {
        name: 'template restartPolicy Never',
        object: { spec: workloadSpec('a', {}, { restartPolicy: 'Never' }) },
        message: 'ReplicaSet.apps "walk-replicaset-invalid" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      },
    ],
  },
  {
    group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true,
    object: (name) => ({
      spec: workloadSpec(name, {
        serviceName: 'web',
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      }),
    }),
    defaulted: [
      { path: 'spec.replicas', value: 1 },
      { path: 'spec.podManagementPolicy', value: 'OrderedReady' },
      { path: 'spec.updateStrategy.type', value: 'RollingUpdate' },
      { path: 'spec.updateStrategy.rollingUpdate.partition', value: 0 },
      { path: 'spec.updateStrategy.rollingUpdate.maxUnavailable', value: 1 },
      { path: 'spec.revisionHistoryLimit', value: 10 },
      { path: 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted', value: 'Retain' },
      { path: 'spec.persistentVolumeClaimRetentionPolicy.whenScaled', value: 'Retain' },
      { path: 'spec.volumeClaimTemplates.0.spec.volumeMode', value: 'Filesystem' },
      { path: 'spec.volumeClaimTemplates.0.status.phase', value: 'Pending' },
      { path: 'spec.template.spec.terminationGracePeriodSeconds', value: 30 },
    ],
    invalid: [
      {
        name: 'empty selector',
        object: { spec: { ...workloadSpec('a'), selector: {} } },
        message: 'StatefulSet.apps "walk-statefulset-invalid" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for statefulset',
      },
      {
        name: 'unknown podManagementPolicy',
        object: { spec: workloadSpec('a', { podManagementPolicy: 'Random' }) },
        message: `StatefulSet.apps "walk-statefulset-invalid" is invalid: spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`,
      },
      {
        name: 'unknown persistentVolumeClaimRetentionPolicy',
        object: { spec: workloadSpec('a', { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } }) },
        causes: [cause('FieldValueNotSupported', 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted', 'Unsupported value: "Keep": supported values: "Retain", "Delete"')],
      },
      {
        name: 'rollingUpdate.maxUnavailable 0',
        object: { spec: workloadSpec('a', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } } }) },
        causes: [cause('FieldValueInvalid', 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'Invalid value: 0: cannot be 0')],
      },
      {
        name: 'template restartPolicy OnFailure',
        object: { spec: workloadSpec('a', {}, { restartPolicy: 'OnFailure' }) },
        causes: [cause('FieldValueNotSupported', 'spec.template.spec.restartPolicy', 'Unsupported value: "OnFailure": supported values: "Always"')],
      },
    ],
  },
  {
    group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true,
    object: (name) => ({ spec: workloadSpec(name) }),
    defaulted: [
      { path: 'spec.updateStrategy.type', value: 'RollingUpdate' },
      { path: 'spec.updateStrategy.rollingUpdate.maxUnavailable', value: 1 },
      { path: 'spec.updateStrategy.rollingUpdate.maxSurge', value: 0 },
      { path: 'spec.revisionHistoryLimit', value: 10 },
      { path: 'spec.template.spec.schedulerName', value: 'default-scheduler' },
    ],
    invalid: [
      {
        name: 'template restartPolicy OnFailure',
        object: { spec: workloadSpec('a', {}, { restartPolicy: 'OnFailure' }) },
        message: 'DaemonSet.apps "walk-daemonset-invalid" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      },
      {
        name: 'selector does not match the template labels',
        object: { spec: { ...workloadSpec('a'), template: template('b') } },
        causes: [cause('FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: {"app":"b"}: `selector` does not match template `labels`')],
      },
      {
        name: 'maxUnavailable and maxSurge both 0',
        object: { spec: workloadSpec('a', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }) },
        causes: [cause('FieldValueRequired', 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'Required value: cannot be 0 when maxSurge is 0')],
      },
      {
        name: 'maxUnavailable and maxSurge both set',
        object: { spec: workloadSpec('a', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '10%' } } }) },
        causes: [cause('FieldValueInvalid', 'spec.updateStrategy.rollingUpdate.maxSurge', 'Invalid value: "10%": may not be set when maxUnavailable is non-zero')],
      },
    ],
  },
  {
    group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true,
    object: () => ({ data: { spec: { template: { metadata: { labels: { app: 'x' } } } } }, revision: 1 }),
    // kube's ControllerRevision strategy defaults nothing
    defaulted: [],
    invalid: [
      { name: 'no data', object: { revision: 1 }, message: 'ControllerRevision.apps "walk-controllerrevision-invalid" is invalid: data: Required value: data is mandatory' },
      { name: 'negative revision', object: { data: {}, revision: -1 }, causes: [cause('FieldValueInvalid', 'revision', 'Invalid value: -1: must be greater than or equal to 0')] },
    ],
  },
];

describeResourceWalks(env, ns, walks);

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; json: Obj }> {
  const res = await env.server.request(path, { method, ...(body !== undefined ? { body: body as Obj } : {}), headers: { 'Content-Type': contentType } });
  return { status: res.status, json: JSON.parse(res.body || '{}') as Obj };
}
const base = `/apis/apps/v1/namespaces/${ns}`;
const meta = (o: Obj): Obj => o['metadata'] as Obj;
const specOf = (o: Obj): Obj => o['spec'] as Obj;

async function create(resource: string, kind: string, name: string, rest: Obj): Promise<Obj> {
  const res = await call('POST', `${base}/${resource}`, { apiVersion: 'apps/v1', kind, metadata: { name }, ...rest });
  expect([res.status, res.json['message']]).toEqual([201, undefined]);
  return res.json;
}

describe('apps/v1 update rules', () => {
  it('keeps a ReplicaSet selector immutable, resets status on main writes and bumps generation on spec changes only', async () => {
    const rs = await create('replicasets', 'ReplicaSet', 'rules-rs', { spec: workloadSpec('rs'), status: { replicas: 7 } });
    expect([rs['status'], meta(rs)['generation']]).toEqual([undefined, 1]);

    const changed = await call('PUT', `${base}/replicasets/rules-rs`, { ...rs, spec: workloadSpec('other') });
    expect([changed.status, changed.json['message']]).toEqual([
      422,
      'ReplicaSet.apps "rules-rs" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"other"}}: field is immutable',
    ]);

    const status = await call('PUT', `${base}/replicasets/rules-rs/status`, { ...rs, status: { replicas: 2 } });
    expect([status.status, (status.json['status'] as Obj)['replicas']]).toEqual([200, 2]);
    // a main-resource write cannot change status, and a label change is no spec change
    const relabeled = await call('PUT', `${base}/replicasets/rules-rs`, { ...status.json, metadata: { ...meta(status.json), labels: { l: '1' } }, status: { replicas: 9 } });
    expect([relabeled.status, (relabeled.json['status'] as Obj)['replicas'], meta(relabeled.json)['generation']]).toEqual([200, 2, 1]);
    const scaled = await call('PUT', `${base}/replicasets/rules-rs`, { ...relabeled.json, spec: { ...specOf(relabeled.json), replicas: 4 } });
    expect([scaled.status, meta(scaled.json)['generation']]).toEqual([200, 2]);
  });

  it("refuses StatefulSet spec changes outside kube's mutable fields and takes those inside", async () => {
    const sts = await create('statefulsets', 'StatefulSet', 'rules-sts', { spec: workloadSpec('sts', { serviceName: 'web' }) });
    const renamed = await call('PUT', `${base}/statefulsets/rules-sts`, { ...sts, spec: { ...specOf(sts), serviceName: 'other' } });
    expect([renamed.status, renamed.json['message']]).toEqual([
      422,
      "StatefulSet.apps \"rules-sts\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const mutable = await call('PUT', `${base}/statefulsets/rules-sts`, {
      ...sts,
      spec: { ...specOf(sts), replicas: 3, revisionHistoryLimit: 2, minReadySeconds: 5, updateStrategy: { type: 'OnDelete' }, template: template('sts', { hostname: 'h' }) },
    });
    expect([mutable.status, specOf(mutable.json)['replicas'], meta(mutable.json)['generation']]).toEqual([200, 3, 2]);
  });

  it('validates a StatefulSet serviceName as a DNS label and its name as one too', async () => {
    const badService = await call('POST', `${base}/statefulsets`, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'svc' }, spec: workloadSpec('s', { serviceName: 'Web_1' }) });
    expect(badService.status).toBe(422);
    expect(((badService.json['details'] as Obj)['causes'] as Obj[]).map((c) => c['field'])).toEqual(['spec.serviceName']);
    const dotted = await call('POST', `${base}/statefulsets`, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'a.b' }, spec: workloadSpec('s') });
    expect([dotted.status, ((dotted.json['details'] as Obj)['causes'] as Obj[])[0]!['field']]).toEqual([422, 'metadata.name']);
  });

  it("keeps a DaemonSet's template generation in kube's deprecated annotation: 1 on create, +1 on template changes only", async () => {
    const annotation = 'deprecated.daemonset.template.generation';
    const ds = await create('daemonsets', 'DaemonSet', 'rules-ds', { spec: workloadSpec('ds') });
    expect([(meta(ds)['annotations'] as Obj)[annotation], meta(ds)['generation']]).toEqual(['1', 1]);
    // clients cannot set it; a spec change outside the template bumps generation only
    const other = await call('PUT', `${base}/daemonsets/rules-ds`, { ...ds, metadata: { ...meta(ds), annotations: { [annotation]: '9' } }, spec: { ...specOf(ds), minReadySeconds: 3 } });
    expect([other.status, (meta(other.json)['annotations'] as Obj)[annotation], meta(other.json)['generation']]).toEqual([200, '1', 2]);
    const retemplated = await call('PUT', `${base}/daemonsets/rules-ds`, { ...other.json, spec: { ...specOf(other.json), template: template('ds', { hostname: 'h' }) } });
    expect([retemplated.status, (meta(retemplated.json)['annotations'] as Obj)[annotation], meta(retemplated.json)['generation']]).toEqual([200, '2', 3]);
    const reselected = await call('PUT', `${base}/daemonsets/rules-ds`, { ...retemplated.json, spec: workloadSpec('x') });
    expect(reselected.json['message']).toBe('DaemonSet.apps "rules-ds" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"x"}}: field is immutable');
  });

  it("refuses a ControllerRevision data change but lets its revision change, as kube's controllers renumber", async () => {
    const cr = await create('controllerrevisions', 'ControllerRevision', 'rules-cr', { data: { x: 1 }, revision: 1 });
    expect(meta(cr)['generation']).toBeUndefined();
    const data = await call('PUT', `${base}/controllerrevisions/rules-cr`, { ...cr, data: { x: 2 } });
    expect([data.status, data.json['message']]).toEqual([422, 'ControllerRevision.apps "rules-cr" is invalid: data: Invalid value: {"x":2}: field is immutable']);
    const renumbered = await call('PATCH', `${base}/controllerrevisions/rules-cr`, { revision: 5 }, 'application/merge-patch+json');
    expect([renumbered.status, renumbered.json['revision']]).toEqual([200, 5]);
  });

  it('serves /scale for StatefulSets and ReplicaSets with the selector kube prints', async () => {
    await create('statefulsets', 'StatefulSet', 'scale-sts', { spec: workloadSpec('scale') });
    const scale = await call('GET', `${base}/statefulsets/scale-sts/scale`);
    expect([scale.status, scale.json['kind'], scale.json['spec'], (scale.json['status'] as Obj)['selector']]).toEqual([200, 'Scale', { replicas: 1 }, 'app=scale']);
    const negative = await call('PATCH', `${base}/replicasets/rules-rs/scale`, { spec: { replicas: -1 } }, 'application/merge-patch+json');
    expect(negative.status).toBe(422);
  });
});

describe('kubectl with apps/v1', () => {
  const kc = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, ['-n', ns, ...args], input);
  const header = (out: string): string[] => out.split('\n')[0]!.trim().split(/\s{2,}/);

  beforeAll(async () => {
    await create('replicasets', 'ReplicaSet', 'kc-rs', { spec: workloadSpec('kc-rs') });
    await create('statefulsets', 'StatefulSet', 'kc-sts', { spec: workloadSpec('kc-sts') });
    await create('daemonsets', 'DaemonSet', 'kc-ds', { spec: workloadSpec('kc-ds', {}, { nodeSelector: { disk: 'ssd' } }) });
  });

  it("prints kube's columns for rs, sts, ds and controllerrevisions, by short name", async () => {
    const rs = await kc(['get', 'rs', 'kc-rs']);
    expect([rs.code, header(rs.stdout)]).toEqual([0, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']]);
    expect(rs.stdout.split('\n')[1]).toMatch(/^kc-rs\s+1\s+0\s+0\s+\S+$/);
    const rsWide = await kc(['get', 'rs', 'kc-rs', '-o', 'wide']);
    expect(header(rsWide.stdout)).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(rsWide.stdout).toContain('nginx:1.27');
    expect(rsWide.stdout).toContain('app=kc-rs');
    const sts = await kc(['get', 'sts', 'kc-sts']);
    expect([sts.code, header(sts.stdout)]).toEqual([0, ['NAME', 'READY', 'AGE']]);
    expect(sts.stdout.split('\n')[1]).toMatch(/^kc-sts\s+0\/1\s+\S+$/);
    const ds = await kc(['get', 'ds', 'kc-ds']);
    expect([ds.code, header(ds.stdout)]).toEqual([0, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']]);
    expect(ds.stdout.split('\n')[1]).toMatch(/^kc-ds\s+0\s+0\s+0\s+0\s+0\s+disk=ssd\s+\S+$/);
    const all = await kc(['get', 'all']);
    expect(all.code).toBe(0);
    for (const name of ['replicaset.apps/kc-rs', 'statefulset.apps/kc-sts', 'daemonset.apps/kc-ds']) expect(all.stdout).toContain(name);
  });

  it('applies a DaemonSet server-side twice, the second time with a new image', async () => {
    const manifest = (image: string) =>
      JSON.stringify({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'kc-apply', namespace: ns }, spec: { selector: { matchLabels: { app: 'kc-apply' } }, template: { metadata: { labels: { app: 'kc-apply' } }, spec: { containers: [{ name: 'c', image }] } } } });
    const first = await kc(['apply', '--server-side', '-f', '-'], manifest('nginx:1.26'));
    expect([first.code, first.stdout, first.stderr]).toEqual([0, 'daemonset.apps/kc-apply serverside-applied\n', '']);
    const second = await kc(['apply', '--server-side', '-f', '-'], manifest('nginx:1.27'));
    expect([second.code, second.stderr]).toEqual([0, '']);
    const read = (await call('GET', `${base}/daemonsets/kc-apply`)).json;
    expect([meta(read)['generation'], (meta(read)['annotations'] as Obj)['deprecated.daemonset.template.generation']]).toEqual([2, '2']);
  });

  it.each([
    ['rs', 'kc-rs', 'Replicas:'],
    ['sts', 'kc-sts', 'Update Strategy:'],
    ['ds', 'kc-ds', 'Node-Selector:'],
  ])('describes %s', async (resource, name, line) => {
    const out = await kc(['describe', resource, name]);
    expect([out.code, out.stderr]).toEqual([0, '']);
    expect(out.stdout).toMatch(new RegExp(`^Name:\\s+${name}$`, 'm'));
    expect(out.stdout).toContain(line);
  });

  it('scales StatefulSets and ReplicaSets', async () => {
    const sts = await kc(['scale', 'sts', 'kc-sts', '--replicas=3']);
    expect([sts.code, sts.stdout, sts.stderr]).toEqual([0, 'statefulset.apps/kc-sts scaled\n', '']);
    const rs = await kc(['scale', 'rs/kc-rs', '--replicas=2']);
    expect([rs.code, rs.stdout, rs.stderr]).toEqual([0, 'replicaset.apps/kc-rs scaled\n', '']);
    const read = await call('GET', `${base}/statefulsets/kc-sts`);
    expect([specOf(read.json)['replicas'], meta(read.json)['generation']]).toEqual([3, 2]);
    expect(specOf((await call('GET', `${base}/replicasets/kc-rs`)).json)['replicas']).toBe(2);
  });

  it('prints rollout history of StatefulSets and DaemonSets from the ControllerRevisions they control', async () => {
    for (const [resource, name] of [['statefulset', 'kc-sts'], ['daemonset', 'kc-ds']] as const) {
      const none = await kc(['rollout', 'history', `${resource}/${name}`]);
      // kubectl names the object on a line of its own, then what it found
      expect([none.code, none.stdout.trim(), none.stderr]).toEqual([0, `${resource}.apps/${name} \nNo rollout history found.`, '']);
    }
    const sts = (await call('GET', `${base}/statefulsets/kc-sts`)).json;
    await create('controllerrevisions', 'ControllerRevision', 'kc-sts-7d9f', {
      metadata: {
        name: 'kc-sts-7d9f',
        labels: { app: 'kc-sts' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'kc-sts', uid: meta(sts)['uid'], controller: true, blockOwnerDeletion: true }],
      },
      data: { spec: { template: template('kc-sts') } },
      revision: 1,
    });
    const history = await kc(['rollout', 'history', 'statefulset/kc-sts']);
    expect([history.code, history.stderr]).toEqual([0, '']);
    expect(history.stdout).toContain('statefulset.apps/kc-sts');
    expect(history.stdout).toMatch(/^REVISION\b/m);
    expect(history.stdout).toMatch(/^1\b/m);
    const crs = await kc(['get', 'controllerrevisions']);
    expect([crs.code, header(crs.stdout)]).toEqual([0, ['NAME', 'CONTROLLER', 'REVISION', 'AGE']]);
    expect(crs.stdout.split('\n')[1]).toMatch(/^kc-sts-7d9f\s+statefulset\.apps\/kc-sts\s+1\s+\S+$/);
  });

  it('prints rollout history of a Deployment from the ReplicaSets it controls', async () => {
    const deploy = await create('deployments', 'Deployment', 'kc-deploy', { spec: workloadSpec('kc-deploy') });
    const none = await kc(['rollout', 'history', 'deployment/kc-deploy']);
    expect([none.code, none.stdout.trim(), none.stderr]).toEqual([0, 'deployment.apps/kc-deploy \nNo rollout history found.', '']);
    await create('replicasets', 'ReplicaSet', 'kc-deploy-5c8b', {
      metadata: {
        name: 'kc-deploy-5c8b',
        labels: { app: 'kc-deploy' },
        annotations: { 'deployment.kubernetes.io/revision': '1', 'kubernetes.io/change-cause': 'first rollout' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'kc-deploy', uid: meta(deploy)['uid'], controller: true, blockOwnerDeletion: true }],
      },
      spec: workloadSpec('kc-deploy'),
    });
    const history = await kc(['rollout', 'history', 'deployment/kc-deploy']);
    expect([history.code, history.stderr]).toEqual([0, '']);
    expect(history.stdout).toContain('deployment.apps/kc-deploy');
    expect(history.stdout).toMatch(/^REVISION\s+CHANGE-CAUSE$/m);
    expect(history.stdout).toMatch(/^1\s+first rollout$/m);
  });
});
