// The garbage collector in-process over the memory storage, for what is hard to force through a server: an owner
// whose resource is not followed yet (a custom resource whose monitor has not listed) and that goes after its
// dependent was looked at. kube keeps such an owner as a virtual node and checks it until it is observed or gone.
import type { KubeObject } from '../api/types.js';
import { builtinResourcesFor } from '../registry/catalogue/index.js';
import { newRequestContext } from '../registry/request-context.js';
import { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import { ResourceStore } from '../registry/store.js';
import { MemoryStorage } from '../storage/memory.js';
import { eventually } from '../../test/support/eventually.js';
import { GarbageCollector } from './garbage-collector.js';

/** The GC sees no deployments resource to follow, but resolves ownerReferences to Deployments. */
class IndexWithoutDeploymentMonitor extends ResourceIndex {
  override all(): ResourceInfo[] {
    return super.all().filter((r) => r.resource !== 'deployments');
  }
}

/** Records the keys read, so the test knows the GC looked at the owner. */
class RecordingStorage extends MemoryStorage {
  readonly reads: string[] = [];
  override async get(key: string): Promise<KubeObject> {
    this.reads.push(key);
    return super.get(key);
  }
}

describe('GarbageCollector', () => {
  it('deletes a dependent whose unobserved owner goes after the dependent was looked at (a virtual node)', async () => {
    const storage = new RecordingStorage();
    const index = new IndexWithoutDeploymentMonitor(builtinResourcesFor());
    const stores = new Map<ResourceInfo, ResourceStore>();
    const storeFor = (info: ResourceInfo) => stores.get(info) ?? stores.set(info, new ResourceStore(info, { storage, prefix: '/registry', admission: { async admit() {}, async validate() {} } })).get(info)!;
    const gc = new GarbageCollector({ index, storeFor, log: () => {}, resyncMs: 10, relistMs: 10 });
    const ctx = newRequestContext({ username: 'admin', groups: ['system:masters'] }, 'default');
    const create = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' };
    try {
      gc.start();
      const deployments = storeFor(index.lookup('apps', 'v1', 'deployments')!);
      const configmaps = storeFor(index.lookup('', 'v1', 'configmaps')!);
      const owner = await deployments.create(ctx, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'owner' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
      }, create);
      await configmaps.create(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'owner', uid: owner.metadata!.uid! }] } }, create);
      // the GC found the owner there: the dependent stays
      await eventually(() => expect(storage.reads).toContain(deployments.key('default', 'owner')));
      await configmaps.get(ctx, 'dependent');
      await deployments.delete(ctx, 'owner', {}, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
      await eventually(async () => {
        await expect(configmaps.get(ctx, 'dependent')).rejects.toMatchObject({ code: 404 });
      }, 15_000);
    } finally {
      gc.stop();
    }
  }, 30_000);
});
