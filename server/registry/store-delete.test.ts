// Deletes and finalizer-emptying updates racing with other writers (a status controller, say), forced
// deterministically: the storage under the store writes the object between the store's read and its delete.
import type { AdmissionChain } from '../admission/chain.js';
import { StatusError } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import type { Preconditions, Storage } from '../storage/interface.js';
import { MemoryStorage } from '../storage/memory.js';
import { builtinResourcesFor } from './catalogue/index.js';
import { newRequestContext } from './request-context.js';
import { ResourceIndex } from './resource-index.js';
import { ResourceStore } from './store.js';

const admin = { username: 'admin', groups: ['system:masters'] };
const createOptions = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' };
const updateOptions = { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' };
const deleteOptions = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };
const ctx = (namespace = '') => newRequestContext(admin, namespace);

/**
 * A MemoryStorage whose next delete first lets `meanwhile` write: what a controller writing between the
 * store's read and its delete does, without timing luck.
 */
class InterleavingStorage extends MemoryStorage {
  meanwhile: (() => Promise<void>) | undefined;
  override async delete(key: string, preconditions?: Preconditions, validateDeletion?: (current: KubeObject) => Promise<void> | void): Promise<KubeObject> {
    const write = this.meanwhile;
    this.meanwhile = undefined;
    await write?.();
    return super.delete(key, preconditions, validateDeletion);
  }
}

function storeOf(storage: Storage, resource: string, admission: AdmissionChain = { async admit() {}, async validate() {} }): ResourceStore {
  const index = new ResourceIndex(builtinResourcesFor());
  const info = index.all().find((r) => r.resource === resource && !r.virtual)!;
  return new ResourceStore(info, { storage, prefix: '/registry', admission });
}

const vap = (name: string): KubeObject => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }] }, validations: [{ expression: 'true' }] },
});

/** What the VAP status controller writes. */
const writeStatus = (store: ResourceStore, name: string) => async (): Promise<void> => {
  await store.update(ctx(), name, 'status', (cur) => ({ ...cur, status: { observedGeneration: 1, typeChecking: {} } }), updateOptions, false);
};

async function statusOf(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected a Status error');
}

describe('ResourceStore.delete racing with other writers', () => {
  it('deletes an object a status write changed between the read and the delete, when the client sent no preconditions', async () => {
    const storage = new InterleavingStorage();
    const store = storeOf(storage, 'validatingadmissionpolicies');
    await store.create(ctx(), vap('p'), createOptions);
    storage.meanwhile = writeStatus(store, 'p');
    const result = await store.delete(ctx(), 'p', {}, deleteOptions);
    expect(result.deleted).toBe(true);
    // the object deleted is the one the status controller wrote
    expect(result.object['status']).toEqual({ observedGeneration: 1, typeChecking: {} });
    expect((await statusOf(store.get(ctx(), 'p'))).code).toBe(404);
  });

  it('runs admission again on the version written while admission ran, then deletes it', async () => {
    const storage = new MemoryStorage();
    const seen: Array<string | undefined> = [];
    let store: ResourceStore | undefined;
    const admission: AdmissionChain = {
      async admit() {},
      async validate(attrs) {
        if (attrs.operation !== 'DELETE') return;
        seen.push(attrs.oldObject?.metadata?.resourceVersion);
        if (seen.length === 1) await writeStatus(store!, 'p')();
      },
    };
    store = storeOf(storage, 'validatingadmissionpolicies', admission);
    const created = await store.create(ctx(), vap('p'), createOptions);
    const result = await store.delete(ctx(), 'p', {}, deleteOptions);
    expect(result.deleted).toBe(true);
    expect(seen).toEqual([created.metadata!.resourceVersion, String(Number(created.metadata!.resourceVersion) + 1)]);
  });

  it("still answers a client's stale resourceVersion precondition with kube's 409", async () => {
    const storage = new InterleavingStorage();
    const store = storeOf(storage, 'validatingadmissionpolicies');
    const created = await store.create(ctx(), vap('p'), createOptions);
    const rv = created.metadata!.resourceVersion!;
    storage.meanwhile = writeStatus(store, 'p');
    const err = await statusOf(store.delete(ctx(), 'p', { preconditions: { resourceVersion: rv } }, deleteOptions));
    expect(err.code).toBe(409);
    expect(err.status.reason).toBe('Conflict');
    expect(err.status.message).toBe(
      `Operation cannot be fulfilled on validatingadmissionpolicies.admissionregistration.k8s.io "p": StorageError: invalid object, Code: 4, Key: ${store.key('', 'p')}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${Number(rv) + 1}`,
    );
    await store.get(ctx(), 'p');
  });

  it("answers a client's uid precondition that does not match with kube's 409", async () => {
    const store = storeOf(new MemoryStorage(), 'configmaps');
    const created = await store.create(ctx('ns'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } }, createOptions);
    const err = await statusOf(store.delete(ctx('ns'), 'c', { preconditions: { uid: 'other' } }, deleteOptions));
    expect(err.status.message).toBe(
      `Operation cannot be fulfilled on configmaps "c": StorageError: invalid object, Code: 4, Key: ${store.key('ns', 'c')}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: ${created.metadata!.uid}`,
    );
  });

  it('marks an object with finalizers for deletion though another writer changed it meanwhile', async () => {
    const storage = new MemoryStorage();
    let store: ResourceStore | undefined;
    let writes = 0;
    const admission: AdmissionChain = {
      async admit() {},
      async validate(attrs) {
        if (attrs.operation === 'DELETE' && writes++ === 0) {
          await store!.update(ctx('ns'), 'c', '', (cur) => ({ ...cur, data: { k: 'meanwhile' } }), updateOptions, false);
        }
      },
    };
    store = storeOf(storage, 'configmaps', admission);
    await store.create(ctx('ns'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', finalizers: ['example.com/keep'] } }, createOptions);
    const result = await store.delete(ctx('ns'), 'c', {}, deleteOptions);
    expect(result.deleted).toBe(false);
    expect(result.object.metadata?.deletionTimestamp).toBeDefined();
    expect(result.object['data']).toEqual({ k: 'meanwhile' });
  });

  it('deletes outright when the finalizers went away between the read and the mark', async () => {
    const storage = new InterleavingStorage();
    const store = storeOf(storage, 'configmaps');
    await store.create(ctx('ns'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', finalizers: ['example.com/keep'] } }, createOptions);
    const realGuaranteedUpdate = storage.guaranteedUpdate.bind(storage);
    let first = true;
    // the finalizer's owner removes it right after the store's first read
    storage.guaranteedUpdate = async (key, tryUpdate, opts) => {
      if (first) {
        first = false;
        await realGuaranteedUpdate(key, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: undefined } }));
      }
      return realGuaranteedUpdate(key, tryUpdate, opts);
    };
    const result = await store.delete(ctx('ns'), 'c', {}, deleteOptions);
    expect(result.deleted).toBe(true);
    expect((await statusOf(store.get(ctx('ns'), 'c'))).code).toBe(404);
  });

  it('completes the deletion when an update empties the finalizers, though another writer wrote meanwhile', async () => {
    const storage = new InterleavingStorage();
    const store = storeOf(storage, 'configmaps');
    await store.create(ctx('ns'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', finalizers: ['example.com/keep'] } }, createOptions);
    await store.delete(ctx('ns'), 'c', {}, deleteOptions);
    // a label written between the finalizer removal and the delete that completes it
    storage.meanwhile = async () => {
      await storage.guaranteedUpdate(store.key('ns', 'c'), (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { late: 'write' } } }));
    };
    const updated = await store.update(ctx('ns'), 'c', '', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }), updateOptions, false);
    expect(updated.metadata?.finalizers ?? []).toEqual([]);
    expect((await statusOf(store.get(ctx('ns'), 'c'))).code).toBe(404);
  });
});
