// Cascading deletion through ownerReferences, as kube-controller-manager's garbage collector does it, through the
// real server on memory and on etcd. The cases are those of kube's
// test/integration/garbagecollector/garbage_collector_test.go (TestCascadingDeletion, TestCreateWithNonExistentOwner,
// TestOrphaning, TestSolidOwnerDoesNotBlockWaitingOwner, TestNonBlockingOwnerRefDoesNotBlock,
// TestBlockingOwnerRefDoesBlock, TestCustomResourceCascadingDeletion, TestMixedRelationships, …) with the kinds
// this server serves: configmaps, secrets, pods, deployments, cluster-scoped owners and custom resources.
import { Etcd3 } from 'etcd3';
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import { useApiServer } from '../../harness/jest.js';
import type { OwnerReference } from '../../server/api/types.js';
import { api, freshNamespace } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

interface Meta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: OwnerReference[];
  generation?: number;
}
interface Obj {
  metadata: Meta;
  [k: string]: unknown;
}

const gcUser = 'system:serviceaccount:kube-system:generic-garbage-collector';

/** A CRD with one namespaced and one cluster-scoped kind, for owners and dependents that are custom resources. */
const widgetCRDs = [
  { plural: 'widgets', kind: 'Widget', scope: 'Namespaced' },
  { plural: 'clusterwidgets', kind: 'ClusterWidget', scope: 'Cluster' },
].map((c) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${c.plural}.gc.example.com` },
  spec: {
    group: 'gc.example.com',
    scope: c.scope,
    names: { plural: c.plural, singular: c.kind.toLowerCase(), kind: c.kind },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
  },
}));

describe.each([['memory'], ['etcd3']] as const)('garbage collection on %s storage', (storage) => {
  const env = useApiServer({ storage });
  let ns: string;

  const server = (): ApiServerHandle => env.server;
  const cmPath = (name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
  const podPath = (name = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;

  async function create(path: string, body: Record<string, unknown>): Promise<Obj> {
    const r = await api(server(), 'POST', path, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as unknown as Obj;
  }
  async function get(path: string): Promise<Obj | undefined> {
    const r = await api(server(), 'GET', path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as unknown as Obj;
  }
  async function del(path: string, options?: Record<string, unknown>): Promise<Obj> {
    const r = await api(server(), 'DELETE', path, options ? { kind: 'DeleteOptions', apiVersion: 'v1', ...options } : undefined);
    if (r.status !== 200 && r.status !== 202) throw new Error(`DELETE ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as unknown as Obj;
  }
  const gone = (path: string, timeoutMs = 15_000) =>
    eventually(async () => {
      const o = await get(path);
      if (o) throw new Error(`${path} still exists: ${JSON.stringify(o.metadata)}`);
    }, timeoutMs);
  const ref = (owner: Obj, kind: string, apiVersion = 'v1', extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion, kind, name: owner.metadata.name, uid: owner.metadata.uid, ...extra });
  const configMap = (name: string, owners: OwnerReference[] = [], extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners, ...extra } });
  const pod = (name: string, owners: OwnerReference[] = [], extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ownerReferences: owners, ...extra },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  });

  beforeEach(async () => {
    ns = await freshNamespace(server());
  });

  describe('background (the default)', () => {
    it('deletes a dependent whose only owner was deleted, and keeps one that still has an owner, dropping the reference to the deleted one (TestCascadingDeletion)', async () => {
      const toBeDeleted = await create(cmPath(), configMap('to-be-deleted'));
      const remaining = await create(cmPath(), configMap('remaining'));
      await create(podPath(), pod('independent'));
      await create(podPath(), pod('dependent-one-owner', [ref(toBeDeleted, 'ConfigMap')]));
      await create(podPath(), pod('dependent-two-owners', [ref(toBeDeleted, 'ConfigMap'), ref(remaining, 'ConfigMap')]));

      const status = await del(cmPath('to-be-deleted'));
      // background: the owner itself goes at once, as kube answers it (a Success Status)
      expect(status).toMatchObject({ kind: 'Status', status: 'Success' });
      expect(await get(cmPath('to-be-deleted'))).toBeUndefined();

      await gone(podPath('dependent-one-owner'));
      await eventually(async () => {
        const two = await get(podPath('dependent-two-owners'));
        expect(two?.metadata.ownerReferences).toEqual([ref(remaining, 'ConfigMap')]);
      });
      expect(await get(podPath('independent'))).toBeDefined();
    });

    it('deletes a dependent created after its owner was gone (TestCreateWithNonExistentOwner)', async () => {
      await create(podPath(), pod('orphan-at-birth', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-existed', uid: '8e8d1f3a-0000-4000-8000-000000000001' }]));
      await gone(podPath('orphan-at-birth'));
    });

    it('deletes a dependent whose owner of that name has another uid (a namesake is not the owner)', async () => {
      const first = await create(cmPath(), configMap('namesake'));
      await del(cmPath('namesake'));
      const second = await create(cmPath(), configMap('namesake'));
      expect(second.metadata.uid).not.toBe(first.metadata.uid);
      await create(cmPath(), configMap('owned-by-the-first', [ref(first, 'ConfigMap')]));
      await gone(cmPath('owned-by-the-first'));
      expect(await get(cmPath('namesake'))).toBeDefined();
    });

    it('cascades through a chain: owner → deployment → configmap', async () => {
      const top = await create(cmPath(), configMap('top'));
      const deployment = await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'middle', ownerReferences: [ref(top, 'ConfigMap')] },
        spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      });
      await create(cmPath(), configMap('bottom', [ref(deployment, 'Deployment', 'apps/v1')]));
      await del(cmPath('top'));
      await gone(`/apis/apps/v1/namespaces/${ns}/deployments/middle`);
      await gone(cmPath('bottom'));
    });

    it('deletes namespaced dependents of a cluster-scoped owner', async () => {
      const owner = await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: `gc-owner-${ns}` },
      });
      await create(cmPath(), configMap('of-a-cluster-owner', [ref(owner, 'MutatingWebhookConfiguration', 'admissionregistration.k8s.io/v1')]));
      await create(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-of-a-cluster-owner', ownerReferences: [ref(owner, 'MutatingWebhookConfiguration', 'admissionregistration.k8s.io/v1')] } });
      await del(`/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gc-owner-${ns}`);
      await gone(cmPath('of-a-cluster-owner'));
      await gone(`/api/v1/namespaces/${ns}/secrets/secret-of-a-cluster-owner`);
    });

    it('leaves a cluster-scoped object that names a namespaced owner alone (kube never collects it)', async () => {
      const owner = await create(cmPath(), configMap('namespaced-owner'));
      const name = `cluster-dependent-${ns}`;
      await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name, ownerReferences: [ref(owner, 'ConfigMap')] },
      });
      await del(cmPath('namespaced-owner'));
      // a sentinel the GC does collect, created after: once it is gone, the GC has looked at the other one too
      await create(cmPath(), configMap('sentinel', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nope', uid: '8e8d1f3a-0000-4000-8000-000000000002' }]));
      await gone(cmPath('sentinel'));
      expect(await get(`/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`)).toBeDefined();
    });
  });

  describe('orphan', () => {
    it('removes the owner from its dependents, then the finalizer, and the owner goes (TestOrphaning)', async () => {
      const owner = await create(cmPath(), configMap('orphaning-owner'));
      await create(podPath(), pod('orphan-a', [ref(owner, 'ConfigMap')]));
      const other = await create(cmPath(), configMap('other-owner'));
      await create(podPath(), pod('orphan-b', [ref(owner, 'ConfigMap'), ref(other, 'ConfigMap', 'v1', { blockOwnerDeletion: false })]));
      const answer = await del(cmPath('orphaning-owner'), { propagationPolicy: 'Orphan' });
      // kube answers the object it marked: deletionTimestamp and the orphan finalizer
      expect(answer.metadata.finalizers).toEqual(['orphan']);
      expect(answer.metadata.deletionTimestamp).toBeDefined();
      await gone(cmPath('orphaning-owner'));
      const a = await get(podPath('orphan-a'));
      expect(a).toBeDefined();
      expect(a!.metadata.ownerReferences).toBeUndefined();
      // kube's field manager forgets the removed reference: no manager owns it any more
      expect(JSON.stringify(a!['metadata'])).not.toContain(owner.metadata.uid);
      const b = await get(podPath('orphan-b'));
      expect(b!.metadata.ownerReferences).toEqual([ref(other, 'ConfigMap', 'v1', { blockOwnerDeletion: false })]);
    });

    it('orphans with the deprecated orphanDependents=true as well (query parameter)', async () => {
      const owner = await create(cmPath(), configMap('orphan-param-owner'));
      await create(cmPath(), configMap('orphan-param-dependent', [ref(owner, 'ConfigMap')]));
      const r = await api(server(), 'DELETE', `${cmPath('orphan-param-owner')}?orphanDependents=true`);
      expect(r.status).toBe(200);
      expect((r.json as unknown as Obj).metadata.finalizers).toEqual(['orphan']);
      await gone(cmPath('orphan-param-owner'));
      const dep = await get(cmPath('orphan-param-dependent'));
      expect(dep?.metadata.ownerReferences).toBeUndefined();
    });

    it('answers 202 with the object when orphanDependents=false leaves it waiting on a finalizer (kube\'s DeleteResource)', async () => {
      await create(cmPath(), configMap('accepted', [], { finalizers: ['example.com/hold'] }));
      const r = await api(server(), 'DELETE', `${cmPath('accepted')}?orphanDependents=false`);
      expect(r.status).toBe(202);
      expect((r.json as unknown as Obj).metadata).toMatchObject({ name: 'accepted', finalizers: ['example.com/hold'], deletionTimestamp: expect.any(String) });
      // without the deprecated option the same answer is a 200
      await create(cmPath(), configMap('not-accepted', [], { finalizers: ['example.com/hold'] }));
      expect((await api(server(), 'DELETE', cmPath('not-accepted'), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' })).status).toBe(200);
      for (const name of ['accepted', 'not-accepted']) await api(server(), 'PATCH', cmPath(name), { metadata: { finalizers: null } }, 'application/merge-patch+json');
      await gone(cmPath('accepted'));
    });

    it('answers 202 with the object when orphanDependents=false leaves it waiting on a finalizer (kube\'s DeleteResource)', async () => {
      await create(cmPath(), configMap('accepted', [], { finalizers: ['example.com/hold'] }));
      const r = await api(server(), 'DELETE', `${cmPath('accepted')}?orphanDependents=false`);
      expect(r.status).toBe(202);
      expect((r.json as unknown as Obj).metadata).toMatchObject({ name: 'accepted', finalizers: ['example.com/hold'], deletionTimestamp: expect.any(String) });
      // without the deprecated option the same answer is a 200
      await create(cmPath(), configMap('not-accepted', [], { finalizers: ['example.com/hold'] }));
      expect((await api(server(), 'DELETE', cmPath('not-accepted'), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' })).status).toBe(200);
      for (const name of ['accepted', 'not-accepted']) await api(server(), 'PATCH', cmPath(name), { metadata: { finalizers: null } }, 'application/merge-patch+json');
      await gone(cmPath('accepted'));
    });

    it('never puts a GC finalizer on an event (kube\'s eventStrategy: Unsupported), so Orphan deletes it at once', async () => {
      await create(`/api/v1/namespaces/${ns}/events`, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'R', message: 'm' });
      const r = await api(server(), 'DELETE', `/api/v1/namespaces/${ns}/events/ev`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Success' });
      expect(await get(`/api/v1/namespaces/${ns}/events/ev`)).toBeUndefined();
    });

    it("refuses orphanDependents beside propagationPolicy with kube's 422", async () => {
      await create(cmPath(), configMap('both-options'));
      const r = await api(server(), 'DELETE', cmPath('both-options'), { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: true, propagationPolicy: 'Foreground' });
      expect(r.status).toBe(422);
      expect(r.json['message']).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set');
      expect(await get(cmPath('both-options'))).toBeDefined();
    });
  });

  describe('foreground', () => {
    it('marks the owner, deletes its dependents, then removes foregroundDeletion and the owner goes', async () => {
      const owner = await create(cmPath(), configMap('fg-owner'));
      await create(podPath(), pod('fg-blocking', [ref(owner, 'ConfigMap', 'v1', { blockOwnerDeletion: true })]));
      await create(podPath(), pod('fg-plain', [ref(owner, 'ConfigMap')]));
      const answer = await del(cmPath('fg-owner'), { propagationPolicy: 'Foreground' });
      expect(answer.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(answer.metadata.deletionTimestamp).toBeDefined();
      await gone(cmPath('fg-owner'));
      await gone(podPath('fg-blocking'));
      await gone(podPath('fg-plain'));
    });

    it('keeps the owner while a blocking dependent is held by its own finalizer (TestBlockingOwnerRefDoesBlock)', async () => {
      const owner = await create(cmPath(), configMap('blocked-owner'));
      await create(podPath(), pod('held', [ref(owner, 'ConfigMap', 'v1', { blockOwnerDeletion: true })], { finalizers: ['x/y'] }));
      await del(cmPath('blocked-owner'), { propagationPolicy: 'Foreground' });
      // the GC deletes the dependent: it is marked, and the owner waits for it
      await eventually(async () => expect((await get(podPath('held')))?.metadata.deletionTimestamp).toBeDefined());
      const waiting = await get(cmPath('blocked-owner'));
      expect(waiting?.metadata.finalizers).toEqual(['foregroundDeletion']);
      const r = await api(server(), 'PATCH', podPath('held'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
      expect(r.status).toBe(200);
      await gone(podPath('held'));
      await gone(cmPath('blocked-owner'));
    });

    it('does not wait for a dependent whose reference does not block (TestNonBlockingOwnerRefDoesNotBlock)', async () => {
      const owner = await create(cmPath(), configMap('unblocked-owner'));
      await create(podPath(), pod('not-blocking', [ref(owner, 'ConfigMap', 'v1', { blockOwnerDeletion: false })], { finalizers: ['x/y'] }));
      await del(cmPath('unblocked-owner'), { propagationPolicy: 'Foreground' });
      await gone(cmPath('unblocked-owner'));
      // the dependent was deleted too, and waits for its own finalizer
      await eventually(async () => expect((await get(podPath('not-blocking')))?.metadata.deletionTimestamp).toBeDefined());
      await api(server(), 'PATCH', podPath('not-blocking'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
      await gone(podPath('not-blocking'));
    });

    it('keeps a dependent another owner still holds, and drops its reference to the waiting owner (TestSolidOwnerDoesNotBlockWaitingOwner)', async () => {
      const waiting = await create(cmPath(), configMap('waiting-owner'));
      const solid = await create(cmPath(), configMap('solid-owner'));
      await create(podPath(), pod('shared', [ref(waiting, 'ConfigMap', 'v1', { blockOwnerDeletion: true }), ref(solid, 'ConfigMap', 'v1', { blockOwnerDeletion: true })]));
      await del(cmPath('waiting-owner'), { propagationPolicy: 'Foreground' });
      await gone(cmPath('waiting-owner'));
      const shared = await get(podPath('shared'));
      expect(shared?.metadata.ownerReferences).toEqual([ref(solid, 'ConfigMap', 'v1', { blockOwnerDeletion: true })]);
      expect(shared?.metadata.deletionTimestamp).toBeUndefined();
    });

    it('deletes a dependent chain in the foreground: the middle object waits for its own dependents first', async () => {
      const top = await create(cmPath(), configMap('fg-top'));
      const middle = await create(cmPath(), configMap('fg-middle', [ref(top, 'ConfigMap', 'v1', { blockOwnerDeletion: true })]));
      await create(cmPath(), configMap('fg-bottom', [ref(middle, 'ConfigMap', 'v1', { blockOwnerDeletion: true })], { finalizers: ['x/y'] }));
      await del(cmPath('fg-top'), { propagationPolicy: 'Foreground' });
      // the middle one is deleted in the foreground (its owner waits and it has dependents) and waits for the bottom
      await eventually(async () => expect((await get(cmPath('fg-middle')))?.metadata.finalizers).toEqual(['foregroundDeletion']));
      expect((await get(cmPath('fg-top')))?.metadata.finalizers).toEqual(['foregroundDeletion']);
      await eventually(async () => expect((await get(cmPath('fg-bottom')))?.metadata.deletionTimestamp).toBeDefined());
      await api(server(), 'PATCH', cmPath('fg-bottom'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
      await gone(cmPath('fg-bottom'));
      await gone(cmPath('fg-middle'));
      await gone(cmPath('fg-top'));
    });

    it('deletes at once with Background an object already waiting in the foreground (the policy replaces the finalizer)', async () => {
      const owner = await create(cmPath(), configMap('switch-owner'));
      await create(podPath(), pod('switch-held', [ref(owner, 'ConfigMap', 'v1', { blockOwnerDeletion: true })], { finalizers: ['x/y'] }));
      await del(cmPath('switch-owner'), { propagationPolicy: 'Foreground' });
      expect((await get(cmPath('switch-owner')))?.metadata.finalizers).toEqual(['foregroundDeletion']);
      const r = await api(server(), 'DELETE', cmPath('switch-owner'), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Success' });
      expect(await get(cmPath('switch-owner'))).toBeUndefined();
      await api(server(), 'PATCH', podPath('switch-held'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
      await gone(podPath('switch-held'));
    });
  });

  describe('custom resources', () => {
    beforeAll(async () => {
      for (const crd of widgetCRDs) {
        const r = await api(env.server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
        expect(r.status).toBe(201);
      }
      await eventually(async () => {
        for (const p of ['widgets', 'clusterwidgets']) expect((await api(env.server, 'GET', `/apis/gc.example.com/v1/${p}`)).status).toBe(200);
      }, 30_000);
    }, 40_000);

    const widgetPath = (name = '') => `/apis/gc.example.com/v1/namespaces/${ns}/widgets${name ? `/${name}` : ''}`;
    const widget = (name: string, owners: OwnerReference[] = []) => ({ apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name, ownerReferences: owners }, spec: {} });

    it('deletes custom resources owned by a custom resource, and core objects owned by one (TestCustomResourceCascadingDeletion, TestMixedRelationships)', async () => {
      const owner = await create(widgetPath(), widget('cr-owner'));
      await create(widgetPath(), widget('cr-dependent', [ref(owner, 'Widget', 'gc.example.com/v1')]));
      await create(cmPath(), configMap('core-of-cr', [ref(owner, 'Widget', 'gc.example.com/v1')]));
      const coreOwner = await create(cmPath(), configMap('core-owner'));
      await create(widgetPath(), widget('cr-of-core', [ref(coreOwner, 'ConfigMap')]));
      await del(widgetPath('cr-owner'));
      await gone(widgetPath('cr-dependent'));
      await gone(cmPath('core-of-cr'));
      await del(cmPath('core-owner'), { propagationPolicy: 'Foreground' });
      await gone(widgetPath('cr-of-core'));
      await gone(cmPath('core-owner'));
    });

    it('orphans the dependents of a cluster-scoped custom resource', async () => {
      const owner = await create('/apis/gc.example.com/v1/clusterwidgets', { apiVersion: 'gc.example.com/v1', kind: 'ClusterWidget', metadata: { name: `cw-${ns}` }, spec: {} });
      await create(widgetPath(), widget('orphaned-widget', [ref(owner, 'ClusterWidget', 'gc.example.com/v1')]));
      await del(`/apis/gc.example.com/v1/clusterwidgets/cw-${ns}`, { propagationPolicy: 'Orphan' });
      await gone(`/apis/gc.example.com/v1/clusterwidgets/cw-${ns}`);
      const w = await get(widgetPath('orphaned-widget'));
      expect(w).toBeDefined();
      expect(w!.metadata.ownerReferences).toBeUndefined();
    });
  });

  it('deletes as system:serviceaccount:kube-system:generic-garbage-collector, which admission sees', async () => {
    // a policy only the GC's identity passes: the GC's deletes go through admission, the admin's are denied
    const policy = `gc-only-${ns}`;
    const vap = await api(server(), 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['DELETE'] }] },
        validations: [{ expression: `request.userInfo.username == '${gcUser}'`, message: 'only the garbage collector deletes these' }],
      },
    });
    expect(vap.status).toBe(201);
    const binding = await api(server(), 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: { policyName: policy, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } }, objectSelector: { matchLabels: { 'gc-only': 'true' } } } },
    });
    expect(binding.status).toBe(201);
    try {
      // a new probe per attempt: one deleted before the policy was in force is gone
      let probes = 0;
      await eventually(async () => {
        const probe = `probe-${++probes}`;
        await create(cmPath(), configMap(probe, [], { labels: { 'gc-only': 'true' } }));
        const r = await api(server(), 'DELETE', cmPath(probe));
        // a ValidatingAdmissionPolicy's denial without a reason is kube's 422 Invalid
        expect(r.status).toBe(422);
        expect(r.json['message']).toContain('only the garbage collector deletes these');
      });
      const owner = await create(cmPath(), configMap('policy-owner'));
      await create(cmPath(), configMap('policy-dependent', [ref(owner, 'ConfigMap')], { labels: { 'gc-only': 'true' } }));
      await del(cmPath('policy-owner'));
      await gone(cmPath('policy-dependent'));
    } finally {
      await api(server(), 'DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${policy}`);
      await api(server(), 'DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${policy}`);
    }
  });

  if (storage === 'etcd3') {
    it('deletes the dependents of an owner that went while the server was down', async () => {
      const owner = await create(cmPath(), configMap('gone-while-down'));
      await create(podPath(), pod('left-behind', [ref(owner, 'ConfigMap')]));
      await server().stop();
      const etcd = new Etcd3({ hosts: server().etcd!.endpoint });
      try {
        expect(await etcd.delete().key(`/registry/configmaps/${ns}/gone-while-down`)).toMatchObject({ deleted: '1' });
      } finally {
        etcd.close();
      }
      await server().restart();
      await gone(podPath('left-behind'), 30_000);
    }, 60_000);
  }
});
