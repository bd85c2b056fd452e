// The generic store and objects that older versions of this server stored with ill-typed metadata (finalizers a
// string, ownerReferences a number): they are written straight to storage here, and the store must delete and
// update them without a 500 and without waiting on finalizers nobody can remove.
import { emptyAdmissionChain } from '../admission/chain.js';
import type { KubeObject } from '../api/types.js';
import { MemoryStorage } from '../storage/memory.js';
import { builtinResourcesFor } from './catalogue/index.js';
import { newRequestContext } from './request-context.js';
import type { ResourceInfo } from './resource.js';
import { ResourceStore } from './store.js';

const configMaps = builtinResourcesFor().find((r) => r.group === '' && r.resource === 'configmaps') as ResourceInfo;
const admin = { username: 'admin', groups: ['system:masters'] };
const deleteOptions: KubeObject = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };

function setup() {
  const storage = new MemoryStorage();
  const store = new ResourceStore(configMaps, { storage, prefix: '/registry', admission: emptyAdmissionChain });
  const ctx = newRequestContext(admin, 'default');
  const put = (name: string, metadata: Record<string, unknown>) =>
    storage.create(`/registry/configmaps/default/${name}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `uid-${name}`, ...metadata } } as KubeObject);
  return { storage, store, ctx, put };
}

describe('ResourceStore with ill-typed stored metadata', () => {
  it.each([
    ['finalizers are a string', { finalizers: 'str' }],
    ['finalizers are a map', { finalizers: { a: 1 } }],
    ['finalizers are numbers', { finalizers: [1, 2] }],
    ['ownerReferences are a number', { ownerReferences: 123 }],
    ['ownerReferences are strings', { ownerReferences: ['x'] }],
  ])('deletes an object whose %s at once: nothing there is a finalizer', async (_, metadata) => {
    const { store, ctx, put } = setup();
    await put('bad', metadata);
    const result = await store.delete(ctx, 'bad', {}, deleteOptions);
    expect(result.deleted).toBe(true);
    await expect(store.get(ctx, 'bad')).rejects.toMatchObject({ code: 404 });
  });

  it('deletes an object already marked for deletion whose finalizers are a string', async () => {
    const { store, ctx, put } = setup();
    await put('marked', { finalizers: 'str', deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 });
    expect((await store.delete(ctx, 'marked', {}, deleteOptions)).deleted).toBe(true);
  });

  it('updates an object marked for deletion with ill-typed finalizers and ownerReferences without a 500, completing the deletion', async () => {
    const { store, ctx, put } = setup();
    await put('repair', { finalizers: 'str', ownerReferences: 123, deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 });
    const updated = await store.update(ctx, 'repair', '', (cur) => {
      const meta = { ...(cur.metadata as Record<string, unknown>) };
      delete meta['finalizers'];
      delete meta['ownerReferences'];
      return { ...cur, metadata: meta } as KubeObject;
    }, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' }, false);
    expect(updated.metadata?.name).toBe('repair');
    await expect(store.get(ctx, 'repair')).rejects.toMatchObject({ code: 404 });
  });
});
