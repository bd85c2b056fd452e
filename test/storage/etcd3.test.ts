// The storage contract against a real etcd, plus what only a real etcd can show: the stored bytes, and
// behaviour while etcd is down, frozen or restarting.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../server/api/types.js';
import { Etcd3Storage } from '../../server/storage/etcd3.js';
import { StorageError } from '../../server/storage/interface.js';
import { collectionKey, objectKey } from '../../server/storage/keys.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { freePort } from '../../harness/ports.js';
import { collectWatch, describeStorageContract, expectStorageError, waitFor } from './contract.js';

const freshPrefix = (): string => `/t-${randomBytes(6).toString('hex')}/registry`;
const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });

let etcd: EtcdProcess;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.cleanup();
});

describeStorageContract('etcd3', async () => {
  const storage = new Etcd3Storage({ endpoints: etcd.endpoint });
  return { storage, prefix: freshPrefix(), cleanup: () => storage.close(), compact: (rev) => storage.compact(rev) };
});

describe('Etcd3Storage on a running etcd', () => {
  let storage: Etcd3Storage;
  let prefix: string;
  beforeEach(() => {
    storage = new Etcd3Storage({ endpoints: etcd.endpoint });
    prefix = freshPrefix();
  });
  afterEach(() => storage.close());

  it('stores JSON without metadata.resourceVersion and sets it from mod_revision on read', async () => {
    const key = objectKey(prefix, '', 'configmaps', 'ns', 'a');
    const input = cm('a', { k: 'v' });
    input.metadata!.resourceVersion = '12345';
    const created = await storage.create(key, input);
    const raw = await storage.client.get(key).exec();
    const stored = JSON.parse(raw.kvs[0]!.value.toString()) as KubeObject;
    expect(stored.metadata).toEqual({ name: 'a', namespace: 'ns' });
    expect(stored.data).toEqual({ k: 'v' });
    expect(created.metadata?.resourceVersion).toBe(raw.kvs[0]!.mod_revision);
  });

  it('hands out continue tokens shaped like kube-apiserver’s', async () => {
    for (const n of ['a', 'b', 'c']) await storage.create(objectKey(prefix, '', 'configmaps', 'ns', n), cm(n));
    const page = await storage.list(collectionKey(prefix, '', 'configmaps', 'ns'), { limit: 2 });
    const token = JSON.parse(Buffer.from(page.continue!, 'base64url').toString()) as unknown;
    expect(token).toEqual({ v: 'meta.k8s.io/v1', rv: Number(page.resourceVersion), start: 'b\u0000' });
  });

  it('reports the store revision on quiet watches through onProgress', async () => {
    const quick = new Etcd3Storage({ endpoints: etcd.endpoint, progressIntervalMs: 50 });
    try {
      await quick.create(objectKey(prefix, '', 'configmaps', 'ns', 'a'), cm('a'));
      const w = collectWatch(quick, collectionKey(prefix, '', 'configmaps'), await quick.currentRevision());
      await waitFor('a progress report', () => w.progress.length > 0);
      expect(Number(w.progress[0])).toBeGreaterThanOrEqual(Number(await quick.currentRevision()) - 1);
      w.stop();
    } finally {
      await quick.close();
    }
  });
});

describe('Etcd3Storage when etcd is unreachable', () => {
  it('fails every call with Unavailable naming the endpoint, quickly, when nothing listens', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const storage = new Etcd3Storage({ endpoints: endpoint, requestTimeoutMs: 1000 });
    const started = Date.now();
    const err = await expectStorageError(storage.get('/registry/pods/a/b'), 'Unavailable');
    expect(err.message).toContain(endpoint);
    expect(err.message).toMatch(/ECONNREFUSED|No connection established/);
    await expectStorageError(storage.create('/registry/pods/a/b', cm('b')), 'Unavailable');
    await expectStorageError(storage.healthCheck(), 'Unavailable');
    expect(Date.now() - started).toBeLessThan(3500);
    const w = collectWatch(storage, '/registry/pods/', '0');
    expect((await w.waitForError(5000)).code).toBe('Unavailable');
    await storage.close();
  });
});

/** Retries fn until it resolves, up to timeoutMs; returns its value and how long it took. */
async function eventually<T>(what: string, fn: () => Promise<T>, timeoutMs = 10_000): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < timeoutMs) {
    try {
      return { value: await fn(), ms: Date.now() - started };
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${what}: still failing after ${timeoutMs}ms: ${last instanceof Error ? last.message : String(last)}`);
}

describe('Etcd3Storage across etcd failures', () => {
  let own: EtcdProcess;
  let storage: Etcd3Storage;
  let prefix: string;
  const key = (n: string): string => objectKey(prefix, '', 'configmaps', 'ns', n);
  const coll = (): string => collectionKey(prefix, '', 'configmaps', 'ns');

  beforeAll(async () => {
    own = await startEtcd({ name: 'failures' });
  });
  afterAll(async () => {
    await own?.cleanup();
  });
  beforeEach(async () => {
    if (!own.running) await own.restart();
    prefix = freshPrefix();
    storage = new Etcd3Storage({ endpoints: own.endpoint, requestTimeoutMs: 1000, watchReconnectTimeoutMs: 20_000 });
  });
  afterEach(async () => {
    await storage.close();
    await own.kill('SIGCONT');
  });

  it('rejects with Unavailable while etcd is down and recovers by itself, without a new storage, when it is back', async () => {
    await storage.create(key('a'), cm('a'));
    await own.kill('SIGKILL');
    const err = await expectStorageError(storage.get(key('a')), 'Unavailable');
    expect(err.message).toContain(own.endpoint);
    // hammer it: the etcd3 client's default circuit breaker would open now
    for (let i = 0; i < 10; i++) {
      const t0 = Date.now();
      await expectStorageError(storage.get(key('a')), 'Unavailable');
      await expectStorageError(storage.create(key(`x${i}`), cm('x')), 'Unavailable');
      expect(Date.now() - t0).toBeLessThan(2 * 1000 + 1000);
    }
    await expectStorageError(storage.healthCheck(), 'Unavailable');

    await own.restart();
    const { ms } = await eventually('get after the restart', () => storage.get(key('a')));
    expect(ms).toBeLessThan(3000);
    await storage.healthCheck();
    const b = await storage.create(key('b'), cm('b'));
    await storage.guaranteedUpdate(key('b'), (cur) => ({ ...cur!, data: { v: '2' } }));
    expect((await storage.list(coll())).items.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    const w = collectWatch(storage, coll(), b.metadata!.resourceVersion!);
    await w.waitForEvents(1);
    w.stop();
  });

  it('bounds every call in time when etcd is frozen (SIGSTOP), and recovers on SIGCONT, watches included', async () => {
    const w = collectWatch(storage, coll(), await storage.currentRevision());
    await storage.create(key('a'), cm('a'));
    await w.waitForEvents(1);
    await own.kill('SIGSTOP');
    const t0 = Date.now();
    const results = await Promise.allSettled([storage.get(key('a')), storage.create(key('b'), cm('b')), storage.list(coll()), storage.healthCheck()]);
    const elapsed = Date.now() - t0;
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason as StorageError;
      expect(reason).toBeInstanceOf(StorageError);
      expect(reason.code).toBe('Unavailable');
      expect(reason.message).toContain(own.endpoint);
    }
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2500);
    await own.kill('SIGCONT');
    await eventually('get after SIGCONT', () => storage.get(key('a')));
    // the timeouts made the client drop its connections; the watch must still be delivering
    await storage.create(key('c'), cm('c'));
    await waitFor('ADDED c', () => w.events.some((e) => e.object.metadata?.name === 'c'), 10_000);
    // The create of b timed out, but etcd may have read it from the socket when it was continued: a timed-out
    // write is ambiguous, as it is for kube-apiserver. Either way the watch shows what etcd holds, in order.
    const bApplied = await storage.get(key('b')).then(() => true, () => false);
    expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(bApplied ? ['ADDED a', 'ADDED b', 'ADDED c'] : ['ADDED a', 'ADDED c']);
    expect(w.errors).toEqual([]);
    w.stop();
  });

  it('keeps a watch through an etcd restart: it resumes from the last delivered revision, nothing lost or repeated', async () => {
    const from = await storage.currentRevision();
    const w = collectWatch(storage, coll(), from);
    await storage.create(key('a'), cm('a'));
    await w.waitForEvents(1);
    await own.kill('SIGKILL');
    await own.restart();
    const { value: b } = await eventually('create after the restart', () => storage.create(key('b'), cm('b')));
    await storage.delete(key('a'));
    await w.waitForEvents(3, 10_000);
    expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
    expect(w.events[1]!.object.metadata?.resourceVersion).toBe(b.metadata?.resourceVersion);
    expect(w.errors).toEqual([]);
    w.stop();
  });

  it('ends a watch with Unavailable when etcd stays away longer than watchReconnectTimeoutMs', async () => {
    await storage.close();
    storage = new Etcd3Storage({ endpoints: own.endpoint, requestTimeoutMs: 500, watchReconnectTimeoutMs: 1500 });
    const w = collectWatch(storage, coll(), await storage.currentRevision());
    await storage.create(key('a'), cm('a'));
    await w.waitForEvents(1);
    await own.kill('SIGKILL');
    const t0 = Date.now();
    const err = await w.waitForError(10_000);
    expect(err.code).toBe('Unavailable');
    expect(err.message).toContain(own.endpoint);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
