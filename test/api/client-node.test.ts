// @kubernetes/client-node against the apiserver: CRUD, selectors, watch and an informer, unchanged.
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { eventually } from '../support/eventually.js';

// The same suite against both storage backends: a client must not be able to tell them apart.
describe.each([['etcd3' as const], ['memory' as const]])('against %s storage', (storage) => {
  let server: ApiServerHandle;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  const ns = 'client-node';

  beforeAll(async () => {
    server = await startApiServer({ storage });
    core = server.client(k8s.CoreV1Api);
    apps = server.client(k8s.AppsV1Api);
    await core.createNamespace({ body: { metadata: { name: ns } } });
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
  });

  const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): k8s.V1ConfigMap => ({ metadata: { name, labels }, data });

  describe(`@kubernetes/client-node on ${storage} storage`, () => {
    it('creates, reads, replaces, patches and deletes a ConfigMap', async () => {
      const created = await core.createNamespacedConfigMap({ namespace: ns, body: cm('crud', {}, { a: '1' }) });
      expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
      const read = await core.readNamespacedConfigMap({ name: 'crud', namespace: ns });
      expect(read.data).toEqual({ a: '1' });
      read.data = { a: '2' };
      const replaced = await core.replaceNamespacedConfigMap({ name: 'crud', namespace: ns, body: read });
      expect(Number(replaced.metadata!.resourceVersion)).toBeGreaterThan(Number(created.metadata!.resourceVersion));
      const patched = await core.patchNamespacedConfigMap(
        { name: 'crud', namespace: ns, body: [{ op: 'add', path: '/data/b', value: '3' }] },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      );
      expect(patched.data).toEqual({ a: '2', b: '3' });
      const status = await core.deleteNamespacedConfigMap({ name: 'crud', namespace: ns });
      expect(status.status).toBe('Success');
      await expect(core.readNamespacedConfigMap({ name: 'crud', namespace: ns })).rejects.toMatchObject({ code: 404 });
    });

    it('rejects a replace with a stale resourceVersion with 409 Conflict', async () => {
      const first = await core.createNamespacedConfigMap({ namespace: ns, body: cm('stale') });
      await core.replaceNamespacedConfigMap({ name: 'stale', namespace: ns, body: { ...first, data: { x: '1' } } });
      const err = await core.replaceNamespacedConfigMap({ name: 'stale', namespace: ns, body: { ...first, data: { x: '2' } } }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 409 });
      expect(JSON.parse((err as { body: string }).body)).toMatchObject({ reason: 'Conflict', message: expect.stringContaining('the object has been modified') });
    });

    it('lists with label selectors, field selectors and pages', async () => {
      for (const [name, tier] of [['l1', 'gold'], ['l2', 'silver'], ['l3', 'gold'], ['l4', 'bronze']]) {
        await core.createNamespacedConfigMap({ namespace: ns, body: cm(name!, { tier: tier!, suite: 'list' }) });
      }
      const names = (l: k8s.V1ConfigMapList) => l.items.map((i) => i.metadata!.name).sort();
      expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier=gold' }))).toEqual(['l1', 'l3']);
      expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'suite=list,tier in (silver,bronze)' }))).toEqual(['l2', 'l4']);
      expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'suite=list,tier notin (gold)' }))).toEqual(['l2', 'l4']);
      expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'suite,!nothing' }))).toEqual(['l1', 'l2', 'l3', 'l4']);
      expect(names(await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=l2' }))).toEqual(['l2']);
      expect(names(await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=client-node,metadata.name!=l2', labelSelector: 'suite=list' }))).toEqual(['l1', 'l3', 'l4']);
      const page1 = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'suite=list', limit: 3 });
      expect(page1.items).toHaveLength(3);
      expect(page1.metadata?._continue).toBeTruthy();
      const page2 = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'suite=list', limit: 3, _continue: page1.metadata!._continue });
      expect(page2.items.map((i) => i.metadata!.name)).toEqual(['l4']);
      expect(page2.metadata?._continue).toBeFalsy();
    });

    it('watches changes from a resourceVersion', async () => {
      const list = await core.listNamespacedConfigMap({ namespace: ns });
      const events: Array<[string, string | undefined]> = [];
      const watch = new k8s.Watch(server.kubeConfig());
      const req = await watch.watch(`/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: list.metadata!.resourceVersion, labelSelector: 'w=1' }, (type: string, obj: k8s.V1ConfigMap) => {
        events.push([type, obj.metadata?.name]);
      }, () => {});
      try {
        await core.createNamespacedConfigMap({ namespace: ns, body: cm('w1', { w: '1' }) });
        await core.patchNamespacedConfigMap({ name: 'w1', namespace: ns, body: { data: { k: 'v' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
        await core.createNamespacedConfigMap({ namespace: ns, body: cm('unwatched') });
        await core.deleteNamespacedConfigMap({ name: 'w1', namespace: ns });
        await eventually(() => expect(events).toEqual([['ADDED', 'w1'], ['MODIFIED', 'w1'], ['DELETED', 'w1']]));
      } finally {
        req.abort();
      }
    });

    it('feeds an informer with add, update and delete', async () => {
      const informer = k8s.makeInformer(server.kubeConfig(), `/apis/apps/v1/namespaces/${ns}/deployments`, () => apps.listNamespacedDeployment({ namespace: ns }));
      const seen: string[] = [];
      informer.on(k8s.ADD, (d: k8s.V1Deployment) => seen.push(`add:${d.metadata?.name}`));
      informer.on(k8s.UPDATE, (d: k8s.V1Deployment) => seen.push(`update:${d.metadata?.name}:${d.spec?.replicas}`));
      informer.on(k8s.DELETE, (d: k8s.V1Deployment) => seen.push(`delete:${d.metadata?.name}`));
      await informer.start();
      try {
        const body: k8s.V1Deployment = {
          metadata: { name: 'inf' },
          spec: { replicas: 1, selector: { matchLabels: { app: 'inf' } }, template: { metadata: { labels: { app: 'inf' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
        };
        await apps.createNamespacedDeployment({ namespace: ns, body });
        await eventually(() => expect(seen).toContain('add:inf'));
        await apps.patchNamespacedDeploymentScale({ name: 'inf', namespace: ns, body: { spec: { replicas: 4 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
        await eventually(() => expect(seen).toContain('update:inf:4'));
        await apps.deleteNamespacedDeployment({ name: 'inf', namespace: ns });
        await eventually(() => expect(seen).toContain('delete:inf'));
      } finally {
        await informer.stop();
      }
    });

    it('keeps an object with finalizers until they are removed', async () => {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'fin', finalizers: ['example.com/hold'] } } });
      // The DELETE answers with the marked object (client-node types it as V1Status, so read it back).
      await core.deleteNamespacedConfigMap({ name: 'fin', namespace: ns });
      const still = await core.readNamespacedConfigMap({ name: 'fin', namespace: ns });
      expect(still.metadata?.deletionTimestamp).toBeDefined();
      await core.patchNamespacedConfigMap({ name: 'fin', namespace: ns, body: { metadata: { finalizers: null } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await expect(core.readNamespacedConfigMap({ name: 'fin', namespace: ns })).rejects.toMatchObject({ code: 404 });
    });

    it('serves the status subresource separately from the main resource', async () => {
      const body: k8s.V1Deployment = {
        metadata: { name: 'st' },
        spec: { selector: { matchLabels: { app: 'st' } }, template: { metadata: { labels: { app: 'st' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      };
      const created = await apps.createNamespacedDeployment({ namespace: ns, body: { ...body, status: { replicas: 9 } } });
      expect(created.status?.replicas).toBeUndefined();
      expect(created.metadata?.generation).toBe(1);
      const withStatus = await apps.replaceNamespacedDeploymentStatus({ name: 'st', namespace: ns, body: { ...created, status: { replicas: 2 }, spec: { ...created.spec!, replicas: 7 } } });
      expect(withStatus.status?.replicas).toBe(2);
      expect(withStatus.spec?.replicas).toBe(1);
      expect(withStatus.metadata?.generation).toBe(1);
      const specChange = await apps.replaceNamespacedDeployment({ name: 'st', namespace: ns, body: { ...withStatus, spec: { ...withStatus.spec!, replicas: 5 }, status: { replicas: 0 } } });
      expect(specChange.status?.replicas).toBe(2);
      expect(specChange.metadata?.generation).toBe(2);
    });
  });
});
