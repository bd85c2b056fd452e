import { MemoryStorage } from '../../server/storage/memory.js';
import { objectKey, collectionKey } from '../../server/storage/keys.js';
import type { KubeObject } from '../../server/api/types.js';
import { collectWatch, describeStorageContract, expectStorageError } from './contract.js';

describeStorageContract('memory', async () => {
  const storage = new MemoryStorage();
  return { storage, cleanup: () => storage.close(), compact: (rev) => storage.compact(rev) };
});

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });
const key = (name: string): string => objectKey('/registry', '', 'configmaps', 'ns', name);

describe('MemoryStorage', () => {
  it('keeps only the last historyLimit revisions: older lists and watches fail with ResourceVersionTooOld', async () => {
    const storage = new MemoryStorage({ historyLimit: 3 });
    const first = await storage.create(key('a'), cm('a'));
    for (let i = 0; i < 5; i++) await storage.guaranteedUpdate(key('a'), (cur) => ({ ...cur!, data: { i: String(i) } }));
    const current = Number(await storage.currentRevision());
    expect(storage.oldestRevision).toBe(current - 3);
    await expectStorageError(storage.list(collectionKey('/registry', '', 'configmaps'), { resourceVersion: first.metadata!.resourceVersion }), 'ResourceVersionTooOld');
    const listed = await storage.list(collectionKey('/registry', '', 'configmaps'), { resourceVersion: String(current - 3) });
    expect(listed.items[0]?.data).toEqual({ i: '1' });
    const w = collectWatch(storage, collectionKey('/registry', '', 'configmaps'), String(current - 3));
    await w.waitForEvents(3);
    expect(w.events.map((e) => e.object.data)).toEqual([{ i: '2' }, { i: '3' }, { i: '4' }]);
    w.stop();
    const old = collectWatch(storage, collectionKey('/registry', '', 'configmaps'), String(current - 4));
    const err = await old.waitForError();
    expect(err.message).toBe(`too old resource version: ${current - 4} (${current - 3})`);
    await storage.close();
  });

  it('delivers a watch from a future revision only once the store passes it', async () => {
    const storage = new MemoryStorage();
    const rev = Number(await storage.currentRevision());
    const w = collectWatch(storage, collectionKey('/registry', '', 'configmaps'), String(rev + 1));
    await storage.create(key('a'), cm('a'));
    await storage.create(key('b'), cm('b'));
    await w.waitForEvents(1);
    expect(w.events.map((e) => e.object.metadata?.name)).toEqual(['b']);
    w.stop();
    await storage.close();
  });

  it('sends onProgress with the current revision on quiet watches', async () => {
    const storage = new MemoryStorage({ progressIntervalMs: 20 });
    await storage.create(key('a'), cm('a'));
    const w = collectWatch(storage, collectionKey('/registry', '', 'configmaps'), await storage.currentRevision());
    const deadline = Date.now() + 2000;
    while (w.progress.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(w.progress[0]).toBe(await storage.currentRevision());
    w.stop();
    await storage.close();
  });

  it('never calls watch handlers synchronously from watch() or from a write', async () => {
    const storage = new MemoryStorage();
    await storage.create(key('a'), cm('a'));
    let inside = false;
    let calledInside = false;
    const w = storage.watch(collectionKey('/registry', '', 'configmaps'), '1', {
      onEvent: () => (calledInside ||= inside),
      onError: () => (calledInside ||= inside),
    });
    inside = true;
    storage.watch(collectionKey('/registry', '', 'configmaps'), 'bad', { onEvent: () => undefined, onError: () => (calledInside ||= inside) });
    inside = false;
    await new Promise((r) => setImmediate(r));
    expect(calledInside).toBe(false);
    w.stop();
    await storage.close();
  });

  it('refuses calls after close with Unavailable', async () => {
    const storage = new MemoryStorage();
    await storage.close();
    await expectStorageError(storage.get(key('a')), 'Unavailable');
    await expectStorageError(storage.healthCheck(), 'Unavailable');
  });
});
