// The storage contract every backend passes: the same behaviours kube-apiserver's storage tests pin down
// (k8s.io/apiserver/pkg/storage/testing), run against memory and against a real etcd.
import type { KubeObject } from '../../server/api/types.js';
import { StorageError, type Storage, type StorageEvent, type StorageErrorCode } from '../../server/storage/interface.js';
import { collectionKey, objectKey } from '../../server/storage/keys.js';

export interface StorageUnderTest {
  storage: Storage;
  /** Releases the storage (and whatever the factory started for it). */
  cleanup: () => Promise<void>;
  /** Key prefix for this test's keys (default "/registry"); a fresh one per test keeps a shared etcd clean. */
  prefix?: string;
  /** Compacts the backend's history up to revision; tests that need compaction are skipped without it. */
  compact?: (revision: string) => Promise<void> | void;
}

export async function waitFor(what: string, cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface CollectedWatch {
  events: StorageEvent[];
  errors: StorageError[];
  progress: string[];
  stop(): void;
  waitForEvents(n: number, timeoutMs?: number): Promise<StorageEvent[]>;
  waitForError(timeoutMs?: number): Promise<StorageError>;
}

export function collectWatch(storage: Storage, prefix: string, from: string): CollectedWatch {
  const events: StorageEvent[] = [];
  const errors: StorageError[] = [];
  const progress: string[] = [];
  const w = storage.watch(prefix, from, {
    onEvent: (e) => events.push(e),
    onError: (e) => errors.push(e),
    onProgress: (rv) => progress.push(rv),
  });
  return {
    events,
    errors,
    progress,
    stop: () => w.stop(),
    async waitForEvents(n, timeoutMs = 5000) {
      await waitFor(`${n} watch events on ${prefix} (have ${events.length}${errors[0] ? `, error: ${errors[0].message}` : ''})`, () => events.length >= n || errors.length > 0, timeoutMs);
      if (errors.length > 0 && events.length < n) throw errors[0];
      return events;
    },
    async waitForError(timeoutMs = 5000) {
      await waitFor(`a watch error on ${prefix}`, () => errors.length > 0, timeoutMs);
      return errors[0]!;
    },
  };
}

export async function expectStorageError(p: Promise<unknown>, code: StorageErrorCode, message?: RegExp): Promise<StorageError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(StorageError);
  const se = caught as StorageError;
  expect(se.code).toBe(code);
  if (message) expect(se.message).toMatch(message);
  return se;
}

function pod(name: string, namespace: string, extra: Partial<KubeObject> = {}, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, uid: `uid-${namespace}-${name}`, labels: { app: 'demo', ...labels } },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
    ...extra,
  };
}

const rvOf = (o: KubeObject | undefined): string => o?.metadata?.resourceVersion ?? '';
const namesOf = (items: KubeObject[]): string[] => items.map((o) => o.metadata?.name ?? '');
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

export function describeStorageContract(name: string, makeStorage: () => Promise<StorageUnderTest>): void {
  describe(`storage contract: ${name}`, () => {
    let sut: StorageUnderTest;
    let storage: Storage;
    let prefix: string;
    const key = (ns: string, n: string): string => objectKey(prefix, '', 'pods', ns, n);
    const coll = (ns?: string): string => collectionKey(prefix, '', 'pods', ns);
    const watches: CollectedWatch[] = [];
    const watch = (p: string, from: string): CollectedWatch => {
      const w = collectWatch(storage, p, from);
      watches.push(w);
      return w;
    };

    beforeEach(async () => {
      sut = await makeStorage();
      storage = sut.storage;
      prefix = sut.prefix ?? '/registry';
    });

    afterEach(async () => {
      for (const w of watches.splice(0)) w.stop();
      await sut.cleanup();
    });

    describe('create, get', () => {
      it('stores a new object and returns it with the revision of the write as resourceVersion', async () => {
        const before = Number(await storage.currentRevision());
        const created = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        expect(rvOf(created)).toBe(String(before + 1));
        expect(await storage.currentRevision()).toBe(String(before + 1));
        const got = await storage.get(key('a', 'p1'));
        expect(got).toEqual(created);
        expect(got.spec).toEqual({ containers: [{ name: 'c', image: 'busybox' }] });
      });

      it('fails with KeyExists when the key is taken, without writing', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const rev = await storage.currentRevision();
        await expectStorageError(storage.create(key('a', 'p1'), pod('p1', 'a', { spec: { other: true } })), 'KeyExists');
        expect(await storage.currentRevision()).toBe(rev);
        expect((await storage.get(key('a', 'p1'))).spec).toEqual({ containers: [{ name: 'c', image: 'busybox' }] });
      });

      it('fails get with KeyNotFound for a missing key', async () => {
        await expectStorageError(storage.get(key('a', 'missing')), 'KeyNotFound');
      });

      it('ignores a resourceVersion in the input: the store sets it', async () => {
        const input = pod('p1', 'a');
        input.metadata!.resourceVersion = '424242';
        const created = await storage.create(key('a', 'p1'), input);
        expect(rvOf(created)).not.toBe('424242');
        expect(rvOf(created)).toBe(await storage.currentRevision());
      });

      it('hands out copies: neither the input nor a returned object shares state with the store', async () => {
        const input = pod('p1', 'a');
        const created = await storage.create(key('a', 'p1'), input);
        input.metadata!.labels!.app = 'changed-input';
        created.metadata!.labels!.app = 'changed-output';
        const got = await storage.get(key('a', 'p1'));
        expect(got.metadata?.labels?.app).toBe('demo');
        got.metadata!.labels!.app = 'changed-get';
        const listed = await storage.list(coll('a'));
        expect(listed.items[0]?.metadata?.labels?.app).toBe('demo');
        listed.items[0]!.metadata!.labels!.app = 'changed-list';
        expect((await storage.get(key('a', 'p1'))).metadata?.labels?.app).toBe('demo');
      });

      it('rejects a value that is not a JSON object with InvalidObject', async () => {
        await expectStorageError(storage.create(key('a', 'p1'), [] as unknown as KubeObject), 'InvalidObject');
        const cyclic = pod('p1', 'a');
        cyclic.self = cyclic;
        await expectStorageError(storage.create(key('a', 'p1'), cyclic), 'InvalidObject');
      });
    });

    describe('guaranteedUpdate', () => {
      it('writes the result of tryUpdate with a new resourceVersion, passing the current object', async () => {
        const created = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        let seen: KubeObject | undefined;
        const updated = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => {
          seen = cur;
          return { ...cur!, spec: { replicas: 2 } };
        });
        expect(seen).toEqual(created);
        expect(Number(rvOf(updated))).toBe(Number(rvOf(created)) + 1);
        expect(await storage.get(key('a', 'p1'))).toEqual(updated);
      });

      it('applies every one of many concurrent updates: lost races are retried on the winner, none is lost', async () => {
        await storage.create(key('a', 'counter'), pod('counter', 'a', { count: 0 }));
        const start = Number(await storage.currentRevision());
        let calls = 0;
        const n = 20;
        await Promise.all(
          Array.from({ length: n }, () =>
            storage.guaranteedUpdate(key('a', 'counter'), async (cur) => {
              calls++;
              const count = cur!.count as number;
              await tick(); // let the other updates read the same version
              return { ...cur!, count: count + 1 };
            }),
          ),
        );
        const final = await storage.get(key('a', 'counter'));
        expect(final.count).toBe(n);
        expect(Number(rvOf(final))).toBe(start + n);
        expect(calls).toBeGreaterThan(n);
      });

      it('does not write (nor bump resourceVersion) when tryUpdate returns an equal object', async () => {
        const created = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const rev = await storage.currentRevision();
        const same = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => cur!);
        expect(same).toEqual(created);
        // equal content with a different key order and a stale resourceVersion is still no change
        const reordered = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => {
          const { spec, metadata, ...rest } = cur!;
          return { spec, ...rest, metadata: { ...metadata, resourceVersion: '1' } };
        });
        expect(rvOf(reordered)).toBe(rvOf(created));
        expect(await storage.currentRevision()).toBe(rev);
      });

      it('fails with KeyNotFound for a missing key unless allowCreate, which passes undefined', async () => {
        await expectStorageError(storage.guaranteedUpdate(key('a', 'nope'), (cur) => cur!), 'KeyNotFound');
        let seen: KubeObject | undefined = pod('x', 'x');
        const created = await storage.guaranteedUpdate(
          key('a', 'new'),
          (cur) => {
            seen = cur;
            return pod('new', 'a');
          },
          { allowCreate: true },
        );
        expect(seen).toBeUndefined();
        expect(await storage.get(key('a', 'new'))).toEqual(created);
      });

      it('propagates an error thrown by tryUpdate unchanged and writes nothing', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const rev = await storage.currentRevision();
        const boom = new Error('denied by test');
        await expect(
          storage.guaranteedUpdate(key('a', 'p1'), () => {
            throw boom;
          }),
        ).rejects.toBe(boom);
        expect(await storage.currentRevision()).toBe(rev);
      });

      it('checks preconditions on resourceVersion and uid: a mismatch is a Conflict, a match applies', async () => {
        const created = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        const set = (cur: KubeObject | undefined): KubeObject => ({ ...cur!, spec: { v: 3 } });
        const stale = await expectStorageError(
          storage.guaranteedUpdate(key('a', 'p1'), set, { preconditions: { resourceVersion: rvOf(created) } }),
          'Conflict',
          /^Precondition failed: ResourceVersion in precondition: \d+, ResourceVersion in object meta: \d+$/,
        );
        expect(stale.currentRevision).toBe(Number(rvOf(created)) + 1);
        await expectStorageError(
          storage.guaranteedUpdate(key('a', 'p1'), set, { preconditions: { uid: 'someone-else' } }),
          'Conflict',
          /^Precondition failed: UID in precondition: someone-else, UID in object meta: uid-a-p1$/,
        );
        const current = await storage.get(key('a', 'p1'));
        const ok = await storage.guaranteedUpdate(key('a', 'p1'), set, { preconditions: { resourceVersion: rvOf(current), uid: 'uid-a-p1' } });
        expect(ok.spec).toEqual({ v: 3 });
      });
    });

    describe('delete', () => {
      it('removes the key and returns the last state with the deletion revision as resourceVersion', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a', { spec: { last: true } }));
        const deleted = await storage.delete(key('a', 'p1'));
        expect(deleted.spec).toEqual({ last: true });
        expect(rvOf(deleted)).toBe(await storage.currentRevision());
        await expectStorageError(storage.get(key('a', 'p1')), 'KeyNotFound');
        await expectStorageError(storage.delete(key('a', 'p1')), 'KeyNotFound');
      });

      it('checks preconditions before deleting', async () => {
        const created = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        await expectStorageError(storage.delete(key('a', 'p1'), { resourceVersion: rvOf(created) }), 'Conflict', /^Precondition failed/);
        await expectStorageError(storage.delete(key('a', 'p1'), { uid: 'other' }), 'Conflict', /^Precondition failed: UID/);
        await storage.get(key('a', 'p1'));
        await storage.delete(key('a', 'p1'), { uid: 'uid-a-p1' });
        await expectStorageError(storage.get(key('a', 'p1')), 'KeyNotFound');
      });

      it('retries when the object is written while validateDeletion runs, checking everything again on the new version', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const seen: string[] = [];
        const deleted = await storage.delete(key('a', 'p1'), { uid: 'uid-a-p1' }, async (current) => {
          seen.push(rvOf(current));
          // a status controller writes between the delete's read and its conditional delete (once)
          if (seen.length === 1) await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, status: { phase: 'written meanwhile' } }));
        });
        expect(seen).toHaveLength(2);
        expect(Number(seen[1])).toBeGreaterThan(Number(seen[0]));
        expect(deleted.status).toEqual({ phase: 'written meanwhile' });
        await expectStorageError(storage.get(key('a', 'p1')), 'KeyNotFound');
      });

      it('fails a resourceVersion precondition that a write made while validateDeletion ran has made stale', async () => {
        const created = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        let calls = 0;
        await expectStorageError(
          storage.delete(key('a', 'p1'), { resourceVersion: rvOf(created) }, async () => {
            if (++calls === 1) await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
          }),
          'Conflict',
          new RegExp(`^Precondition failed: ResourceVersion in precondition: ${rvOf(created)}, ResourceVersion in object meta: ${Number(rvOf(created)) + 1}$`),
        );
        expect(calls).toBe(1);
        expect((await storage.get(key('a', 'p1'))).spec).toEqual({ v: 2 });
      });

      it('keeps the object when validateDeletion throws', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const denied = new Error('denied by test');
        await expect(storage.delete(key('a', 'p1'), undefined, () => { throw denied; })).rejects.toBe(denied);
        await storage.get(key('a', 'p1'));
      });

      it('allows re-creating a deleted key', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await storage.delete(key('a', 'p1'));
        const again = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        expect(rvOf(again)).toBe(await storage.currentRevision());
      });
    });

    describe('list', () => {
      it('returns only keys under the prefix, sorted: /pods/a/ does not match /pods/ab/', async () => {
        for (const [ns, n] of [['a', 'z'], ['ab', 'x'], ['a', 'b'], ['b', 'c'], ['a', 'm']] as const) await storage.create(key(ns, n), pod(n, ns));
        const res = await storage.list(coll('a'));
        expect(namesOf(res.items)).toEqual(['b', 'm', 'z']);
        expect(res.resourceVersion).toBe(await storage.currentRevision());
        expect(res.continue).toBeUndefined();
        expect(namesOf((await storage.list(coll())).items)).toEqual(['b', 'm', 'z', 'x', 'c']);
        expect(namesOf((await storage.list(coll('zz'))).items)).toEqual([]);
        // a key without trailing slash is that one key
        expect(namesOf((await storage.list(key('a', 'm'))).items)).toEqual(['m']);
      });

      it('pages with limit and continue, every page consistent with the first page’s revision', async () => {
        for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) await storage.create(key('a', n), pod(n, 'a'));
        await storage.create(key('ab', 'p0'), pod('p0', 'ab'));
        const page1 = await storage.list(coll('a'), { limit: 2 });
        expect(namesOf(page1.items)).toEqual(['p1', 'p2']);
        expect(page1.continue).toBeDefined();
        expect(page1.remainingItemCount).toBe(3);
        // changes after the first page must not show up in later pages
        await storage.delete(key('a', 'p3'));
        await storage.create(key('a', 'p4a'), pod('p4a', 'a'));
        await storage.guaranteedUpdate(key('a', 'p5'), (cur) => ({ ...cur!, spec: { changed: true } }));
        const page2 = await storage.list(coll('a'), { limit: 2, continue: page1.continue });
        expect(namesOf(page2.items)).toEqual(['p3', 'p4']);
        expect(page2.resourceVersion).toBe(page1.resourceVersion);
        expect(page2.remainingItemCount).toBe(1);
        const page3 = await storage.list(coll('a'), { limit: 2, continue: page2.continue });
        expect(namesOf(page3.items)).toEqual(['p5']);
        expect(page3.items[0]!.spec).toEqual({ containers: [{ name: 'c', image: 'busybox' }] });
        expect(page3.continue).toBeUndefined();
        expect(page3.resourceVersion).toBe(page1.resourceVersion);
        // a fresh list sees the changes
        expect(namesOf((await storage.list(coll('a'))).items)).toEqual(['p1', 'p2', 'p4', 'p4a', 'p5']);
      });

      it('applies the predicate while paging, so limit counts matching items', async () => {
        for (let i = 0; i < 9; i++) await storage.create(key('a', `p${i}`), pod(`p${i}`, 'a', {}, { parity: i % 2 === 0 ? 'even' : 'odd' }));
        const predicate = (o: KubeObject): boolean => o.metadata?.labels?.parity === 'even';
        const page1 = await storage.list(coll('a'), { limit: 2, predicate });
        expect(namesOf(page1.items)).toEqual(['p0', 'p2']);
        expect(page1.remainingItemCount).toBeUndefined();
        const names = namesOf(page1.items);
        let cont = page1.continue;
        while (cont) {
          const page = await storage.list(coll('a'), { limit: 2, predicate, continue: cont });
          expect(page.items.length).toBeLessThanOrEqual(2);
          expect(page.resourceVersion).toBe(page1.resourceVersion);
          names.push(...namesOf(page.items));
          cont = page.continue;
        }
        expect(names).toEqual(['p0', 'p2', 'p4', 'p6', 'p8']);
      });

      it('lists at an older revision', async () => {
        const v1 = await storage.create(key('a', 'p1'), pod('p1', 'a', { spec: { v: 1 } }));
        const v2 = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        const b = await storage.create(key('a', 'p2'), pod('p2', 'a'));
        await storage.delete(key('a', 'p1'));
        const at1 = await storage.list(coll('a'), { resourceVersion: rvOf(v1) });
        expect(at1.resourceVersion).toBe(rvOf(v1));
        expect(at1.items).toEqual([v1]);
        const at3 = await storage.list(coll('a'), { resourceVersion: rvOf(b) });
        expect(at3.items).toEqual([v2, b]);
        expect(namesOf((await storage.list(coll('a'))).items)).toEqual(['p2']);
        // paging at an older revision keeps to it
        const paged = await storage.list(coll('a'), { resourceVersion: rvOf(b), limit: 1 });
        expect(paged.items).toEqual([v2]);
        const rest = await storage.list(coll('a'), { limit: 1, continue: paged.continue });
        expect(rest.items).toEqual([b]);
      });

      it('fails with ResourceVersionTooOld at a compacted revision and still serves the compaction revision', async () => {
        if (!sut.compact) return;
        const v1 = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const v2 = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        const page1 = await storage.list(coll('a'), { limit: 1, resourceVersion: rvOf(v1) });
        await storage.create(key('a', 'p2'), pod('p2', 'a'));
        await sut.compact(rvOf(v2));
        await expectStorageError(storage.list(coll('a'), { resourceVersion: rvOf(v1) }), 'ResourceVersionTooOld', /too old/);
        expect((await storage.list(coll('a'), { resourceVersion: rvOf(v2) })).items).toEqual([v2]);
        // a continue token from before the compaction expires with it
        if (page1.continue) await expectStorageError(storage.list(coll('a'), { limit: 1, continue: page1.continue }), 'ResourceVersionTooOld');
      });

      it('fails a list at a future revision with InvalidObject "Too large resource version"', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const current = Number(await storage.currentRevision());
        const err = await expectStorageError(storage.list(coll('a'), { resourceVersion: String(current + 100) }), 'InvalidObject');
        expect(err.message).toBe(`Too large resource version: ${current + 100}, current: ${current}`);
      });

      it('rejects a malformed continue token with InvalidObject', async () => {
        await expectStorageError(storage.list(coll('a'), { limit: 1, continue: 'not-a-token' }), 'InvalidObject', /^invalid continue token/);
        const traversal = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '../../secrets/' })).toString('base64url');
        await expectStorageError(storage.list(coll('a'), { limit: 1, continue: traversal }), 'InvalidObject', /^invalid continue token/);
      });
    });

    describe('watch', () => {
      it('streams ADDED, MODIFIED and DELETED in order from a revision, only for keys under the prefix', async () => {
        const from = await storage.currentRevision();
        const a1 = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await storage.create(key('ab', 'other'), pod('other', 'ab'));
        const a2 = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        const b1 = await storage.create(key('a', 'p2'), pod('p2', 'a'));
        const gone = await storage.delete(key('a', 'p1'));

        const w = watch(coll('a'), from);
        const events = await w.waitForEvents(4);
        expect(events.map((e) => `${e.type} ${e.object.metadata?.name} ${rvOf(e.object)}`)).toEqual([
          `ADDED p1 ${rvOf(a1)}`,
          `MODIFIED p1 ${rvOf(a2)}`,
          `ADDED p2 ${rvOf(b1)}`,
          `DELETED p1 ${rvOf(gone)}`,
        ]);
        expect(events[1]!.prevObject).toEqual(a1);
        expect(events[3]!.object.spec).toEqual({ v: 2 });
        expect(events[3]!.prevObject).toEqual(a2);

        // then live changes, still in order
        const b2 = await storage.guaranteedUpdate(key('a', 'p2'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        await storage.create(key('ab', 'other2'), pod('other2', 'ab'));
        const c = await storage.create(key('a', 'p3'), pod('p3', 'a'));
        await w.waitForEvents(6);
        expect(w.events.slice(4).map((e) => `${e.type} ${e.object.metadata?.name} ${rvOf(e.object)}`)).toEqual([
          `MODIFIED p2 ${rvOf(b2)}`,
          `ADDED p3 ${rvOf(c)}`,
        ]);
        expect(w.errors).toEqual([]);
      });

      // kube's RunTestWatch (storage/testing/watcher_tests.go), its cases without a predicate (this storage has none:
      // selectors are applied above it): a watch of one key and of its namespace, from the revision a list answered;
      // the same name in the namespace "<ns>-bad" must not reach it.
      for (const recursive of [false, true]) {
        for (const [name, steps] of [
          ['create a key', [['ADDED', 0]]],
          ['update', [['ADDED', 0], ['MODIFIED', 1]]],
        ] as const) {
          it(`kube RunTestWatch "${name}" (recursive ${recursive})`, async () => {
            const ns = `test-ns-${name === 'update' ? 3 : 1}-${recursive}`;
            const watchKey = recursive ? coll(ns) : key(ns, 'foo');
            const listed = await storage.list(watchKey.endsWith('/') ? watchKey : coll(ns));
            const w = watch(watchKey, listed.resourceVersion);
            await storage.guaranteedUpdate(key(`${ns}-bad`, 'foo'), () => pod('foo', `${ns}-bad`), { allowCreate: true });
            const written: KubeObject[] = [];
            for (const [, nodeName] of steps) {
              written.push(await storage.guaranteedUpdate(key(ns, 'foo'), () => pod('foo', ns, { spec: { nodeName: nodeName ? 'bar' : '' } }), { allowCreate: true }));
            }
            const events = await w.waitForEvents(steps.length);
            expect(events.map((e) => e.type)).toEqual(steps.map(([type]) => type));
            expect(events.map((e) => e.object)).toEqual(written);
            expect(w.errors).toEqual([]);
          });
        }
      }

      // kube's RunTestDeleteTriggerWatch and RunTestWatchDeleteEventObjectHaveLatestRV: a watch of one key from its
      // revision sees its deletion, whose object is what Delete returned, at the deletion's revision
      it('kube RunTestDeleteTriggerWatch / RunTestWatchDeleteEventObjectHaveLatestRV', async () => {
        const k = key('test-ns', 'foo');
        const stored = await storage.create(k, pod('foo', 'test-ns'));
        const w = watch(k, rvOf(stored));
        const deleted = await storage.delete(k, {});
        expect(rvOf(deleted)).not.toBe(rvOf(stored));
        const [event] = await w.waitForEvents(1);
        expect(event!.type).toBe('DELETED');
        expect(event!.object).toEqual(deleted);
      });

      // kube's RunTestWatchFromZero: a watch from "0" starts with the object as it is now, before and after an
      // update and after a compaction; a watch from a compacted revision then fails with "too old".
      it('kube RunTestWatchFromZero', async () => {
        const k = key('test-ns', 'foo');
        const stored = await storage.create(k, pod('foo', 'test-ns'));
        let w = watch(k, '0');
        await w.waitForEvents(1);
        expect(w.events[0]).toMatchObject({ type: 'ADDED', object: stored });
        const out = await storage.guaranteedUpdate(k, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, annotations: { a: '1' } } }));
        await w.waitForEvents(2);
        expect(w.events[1]).toMatchObject({ type: 'MODIFIED', object: out });
        w.stop();

        w = watch(k, '0');
        await w.waitForEvents(1);
        expect(w.events[0]).toMatchObject({ type: 'ADDED', object: out });
        w.stop();

        if (!sut.compact) return;
        const newOut = await storage.guaranteedUpdate(k, (cur) => {
          const { annotations: _dropped, ...metadata } = cur!.metadata!;
          return { ...cur!, metadata };
        });
        await sut.compact(rvOf(newOut));
        w = watch(k, '0');
        await w.waitForEvents(1);
        expect(w.events[0]).toMatchObject({ type: 'ADDED', object: newOut });

        // kube accepts either error here: etcd serves a watch from the compaction revision, but without the value the
        // update replaced, so kube's etcd3 watcher (as this one) ends it with "etcd event received with PrevKv=nil"
        const tooOld = watch(k, rvOf(out));
        const err = await tooOld.waitForError();
        if (err.code === 'InvalidObject') expect(err.message).toBe(`etcd event received with PrevKv=nil (key=${JSON.stringify(k)}, modRevision=${rvOf(newOut)}, type=PUT)`);
        else expect(err.code).toBe('ResourceVersionTooOld');
        expect(tooOld.events).toEqual([]);
      });

      it('delivers only changes strictly after fromRevision', async () => {
        const a1 = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const a2 = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        const w = watch(coll('a'), rvOf(a1));
        const [first] = await w.waitForEvents(1);
        expect(first!.type).toBe('MODIFIED');
        expect(rvOf(first!.object)).toBe(rvOf(a2));
      });

      it('watches a single key when the prefix has no trailing slash', async () => {
        const from = await storage.currentRevision();
        await storage.create(key('a', 'p10'), pod('p10', 'a'));
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const w = watch(key('a', 'p1'), from);
        await w.waitForEvents(1);
        await storage.create(key('a', 'p2'), pod('p2', 'a'));
        await storage.delete(key('a', 'p1'));
        await w.waitForEvents(2);
        expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED p1', 'DELETED p1']);
      });

      it('from "0" starts with the current objects as ADDED, then later changes', async () => {
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await storage.create(key('a', 'p2'), pod('p2', 'a'));
        await storage.delete(key('a', 'p2'));
        const w = watch(coll('a'), '0');
        await w.waitForEvents(1);
        await storage.create(key('a', 'p3'), pod('p3', 'a'));
        await w.waitForEvents(2);
        expect(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED p1', 'ADDED p3']);
      });

      it('ends with ResourceVersionTooOld, asynchronously, when fromRevision was compacted', async () => {
        if (!sut.compact) return;
        const a1 = await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 2 } }));
        const a3 = await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, spec: { v: 3 } }));
        await sut.compact(rvOf(a3));
        let syncError = false;
        let w: CollectedWatch | undefined;
        try {
          w = watch(coll('a'), String(Number(rvOf(a1)) - 1));
        } catch {
          syncError = true;
        }
        expect(syncError).toBe(false);
        const err = await w!.waitForError();
        expect(err.code).toBe('ResourceVersionTooOld');
        expect(err.message).toBe(`too old resource version: ${Number(rvOf(a1)) - 1} (${rvOf(a3)})`);
        expect(err.currentRevision).toBe(Number(rvOf(a3)));
        expect(w!.events).toEqual([]);
        // watching from the compaction revision itself still works
        const ok = watch(coll('a'), rvOf(a3));
        await storage.delete(key('a', 'p1'));
        const [del] = await ok.waitForEvents(1);
        expect(del!.type).toBe('DELETED');
      });

      it('delivers nothing after stop()', async () => {
        const from = await storage.currentRevision();
        const w = watch(coll('a'), from);
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await w.waitForEvents(1);
        w.stop();
        await storage.create(key('a', 'p2'), pod('p2', 'a'));
        const probe = watch(coll('a'), from);
        await probe.waitForEvents(2);
        expect(w.events).toHaveLength(1);
      });

      it('gives every watch its own copy of each event object', async () => {
        const from = await storage.currentRevision();
        const first = collectWatch(storage, coll('a'), from);
        const second = collectWatch(storage, coll('a'), from);
        watches.push(first, second);
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        const [e1] = await first.waitForEvents(1);
        e1!.object.metadata!.labels!.app = 'mutated';
        const [e2] = await second.waitForEvents(1);
        expect(e2!.object.metadata?.labels?.app).toBe('demo');
        expect((await storage.get(key('a', 'p1'))).metadata?.labels?.app).toBe('demo');
      });

      it('ends only the watch whose consumer throws, through its onError, and the others go on', async () => {
        const from = await storage.currentRevision();
        const errors: StorageError[] = [];
        const throwing = storage.watch(coll('a'), from, {
          onEvent: () => {
            throw new TypeError('consumer bug');
          },
          onError: (e) => errors.push(e),
        });
        const other = watch(coll('a'), from);
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await waitFor('the throwing watch to end', () => errors.length > 0);
        expect(errors.map((e) => [e.code, e.message])).toEqual([['InvalidObject', "the watch's consumer failed on ADDED a/p1: consumer bug"]]);
        await storage.create(key('a', 'p2'), pod('p2', 'a'));
        expect((await other.waitForEvents(2)).map((e) => e.object.metadata?.name)).toEqual(['p1', 'p2']);
        expect(other.errors).toEqual([]);
        expect(errors).toHaveLength(1);
        throwing.stop();
      });

      it('reports an unparsable fromRevision through onError, not by throwing', async () => {
        const w = watch(coll('a'), 'yesterday');
        const err = await w.waitForError();
        expect(err.code).toBe('InvalidObject');
      });
    });

    describe('revisions and health', () => {
      it('moves currentRevision by one per write and not on reads or failed writes', async () => {
        const r0 = Number(await storage.currentRevision());
        await storage.create(key('a', 'p1'), pod('p1', 'a'));
        await storage.get(key('a', 'p1'));
        await storage.list(coll());
        await storage.create(key('a', 'p1'), pod('p1', 'a')).catch(() => undefined);
        await storage.guaranteedUpdate(key('a', 'p1'), (cur) => ({ ...cur!, x: 1 }));
        await storage.delete(key('a', 'p1'));
        expect(Number(await storage.currentRevision())).toBe(r0 + 3);
      });

      it('answers healthCheck', async () => {
        await expect(storage.healthCheck()).resolves.toBeUndefined();
      });
    });
  });
}
