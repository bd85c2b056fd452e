// The shared watch stream's bookkeeping against a scripted etcd: which answer belongs to which watcher, what is
// cancelled, which progress reports reach whom, where each watcher resumes. The real etcd's side of the same is
// test/storage/etcd3-watch-stream.test.ts.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Etcd3, IKeyValue, IWatchRequest, IWatchResponse } from 'etcd3';
import { SharedWatchStream, type WatchedStorage } from './etcd3-watch.js';
import { WatchFeeds, type FeedWatch } from './etcd3-watch-feed.js';
import { StorageError, type ListResult, type StorageEvent } from './interface.js';

/** A gRPC watch stream whose answers the test writes. */
class ScriptedStream extends EventEmitter {
  readonly requests: IWatchRequest[] = [];
  writable = true;
  closed = false;
  write(req: IWatchRequest): boolean {
    this.requests.push(req);
    return true;
  }
  end(): void {
    this.writable = false;
  }
  cancel(): void {
    this.closed = true;
  }
  answer(res: Partial<IWatchResponse> & { watch_id: string }, revision = 10): void {
    this.emit('data', { header: { revision: String(revision) }, created: false, canceled: false, compact_revision: '0', cancel_reason: '', fragment: false, events: [], ...res });
  }
  creates(): Array<string | number | undefined> {
    return this.requests.filter((r) => r.create_request).map((r) => r.create_request!.start_revision);
  }
  cancels(): Array<string | number | undefined> {
    return this.requests.filter((r) => r.cancel_request).map((r) => r.cancel_request!.watch_id);
  }
  progressRequests(): number {
    return this.requests.filter((r) => r.progress_request).length;
  }
}

const put = (name: string, revision: number, created = revision): IWatchResponse['events'][number] => ({
  type: 'Put',
  kv: { key: Buffer.from(`/registry/cm/ns/${name}`), value: Buffer.from(`{"metadata":{"name":"${name}"}}`), mod_revision: String(revision), create_revision: String(created), version: '1', lease: '0' },
  // a create has no previous value; the package's type does not say that the field can be absent
  prev_kv: undefined as unknown as IKeyValue,
});

interface Recorded {
  events: string[];
  errors: StorageError[];
  progress: string[];
}

let streams: ScriptedStream[];
let storage: WatchedStorage;
let shared: SharedWatchStream;
let feeds: WatchFeeds;

function watch(prefix: string, from: string, withProgress = true): { w: FeedWatch; seen: Recorded } {
  const seen: Recorded = { events: [], errors: [], progress: [] };
  const w = feeds.watch(prefix, from, {
    onEvent: (e: StorageEvent) => seen.events.push(`${e.type} ${e.object.metadata?.name} ${e.object.metadata?.resourceVersion}`),
    onError: (e) => seen.errors.push(e),
    ...(withProgress ? { onProgress: (rv: string) => seen.progress.push(rv) } : {}),
  });
  return { w, seen };
}

/** Lets the stream's opening (a promise) and anything queued behind it run. */
const settle = (): Promise<void> => jest.advanceTimersByTimeAsync(0);

/** Two watches from revision 5 on the shared stream, both confirmed by etcd (watch ids 0 and 1). */
async function twoConfirmedWatches() {
  const a = watch('/registry/cm/a/', '5');
  const b = watch('/registry/cm/b/', '5');
  await settle();
  const s = streams[0]!;
  s.answer({ watch_id: '0', created: true });
  s.answer({ watch_id: '1', created: true });
  return { a, b, s };
}

beforeEach(() => {
  jest.useFakeTimers();
  streams = [];
  const client = {
    watchClient: {
      watch: async (): Promise<ScriptedStream> => {
        const s = new ScriptedStream();
        streams.push(s);
        return s;
      },
    },
  };
  storage = {
    // only watchClient.watch() is used by the watch code; the rest of Etcd3 is not needed here
    client: client as unknown as Etcd3,
    requestTimeoutMs: 1000,
    watchReconnectTimeoutMs: 5000,
    progressIntervalMs: 100,
    isClosed: false,
    closedError: (key) => new StorageError('Unavailable', key, 'etcd storage for http://etcd:2379 is closed'),
    unavailable: (what, key, err) => new StorageError('Unavailable', key, `etcd http://etcd:2379 is unavailable (${what} ${key}): ${err instanceof Error ? err.message : String(err)}`),
    list: async (): Promise<ListResult> => ({ items: [], resourceVersion: '5' }),
    forgetWatch: () => {},
  };
  shared = new SharedWatchStream(storage);
  feeds = new WatchFeeds(storage, shared);
});
afterEach(() => {
  jest.useRealTimers();
});

describe('SharedWatchStream', () => {
  it('opens one stream for every watch and pairs created answers with creates in the order they were sent', async () => {
    const a = watch('/registry/cm/a/', '5');
    const b = watch('/registry/cm/b/', '7');
    await settle();
    expect(streams).toHaveLength(1);
    const s = streams[0]!;
    expect(s.creates()).toEqual(['6', '8']);
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '1', created: true });
    s.answer({ watch_id: '1', events: [put('b1', 11)] }, 11);
    s.answer({ watch_id: '0', events: [put('a1', 12)] }, 12);
    expect(a.seen.events).toEqual(['ADDED a1 12']);
    expect(b.seen.events).toEqual(['ADDED b1 11']);
    watch('/registry/cm/c/', '12');
    await settle();
    expect(streams).toHaveLength(1);
    expect(s.creates()).toEqual(['6', '8', '13']);
  });

  it('retries only the watch whose create etcd refused (watch id -1), on the same stream', async () => {
    const a = watch('/registry/cm/a/', '5');
    const b = watch('/registry/cm/b/', '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '-1', created: true, canceled: true, cancel_reason: 'etcdserver: permission denied' });
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '0', events: [put('b1', 11)] }, 11);
    expect(b.seen.events).toEqual(['ADDED b1 11']);
    await jest.advanceTimersByTimeAsync(100);
    expect(streams).toHaveLength(1);
    expect(s.creates()).toEqual(['6', '6', '6']);
    s.answer({ watch_id: '1', created: true });
    s.answer({ watch_id: '1', events: [put('a1', 12)] }, 12);
    expect(a.seen.events).toEqual(['ADDED a1 12']);
    expect([...a.seen.errors, ...b.seen.errors]).toEqual([]);
  });

  it('ends a watch whose create etcd keeps refusing with Unavailable naming the reason once its window has passed', async () => {
    const a = watch('/registry/cm/a/', '5');
    await settle();
    for (let i = 0; a.seen.errors.length === 0 && i < 50; i++) {
      streams[0]!.answer({ watch_id: '-1', created: true, canceled: true, cancel_reason: 'etcdserver: permission denied' });
      await jest.advanceTimersByTimeAsync(1000);
    }
    expect(a.seen.errors.map((e) => e.code)).toEqual(['Unavailable']);
    expect(a.seen.errors[0]!.message).toMatch(/^etcd http:\/\/etcd:2379 is unavailable \(watch \/registry\/cm\/a\/\): no watch stream for \d+ms: etcd canceled the watch: etcdserver: permission denied$/);
  });

  it('cancels on etcd a watch stopped before its created answer, and a stopped created one, delivering neither anything more', async () => {
    const a = watch('/registry/cm/a/', '5');
    const b = watch('/registry/cm/b/', '5');
    const c = watch('/registry/cm/c/', '5');
    await settle();
    const s = streams[0]!;
    a.w.stop();
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '1', created: true });
    s.answer({ watch_id: '2', created: true });
    expect(s.cancels()).toEqual(['0']);
    b.w.stop();
    expect(s.cancels()).toEqual(['0', '1']);
    s.answer({ watch_id: '1', events: [put('late', 11)] }, 11);
    s.answer({ watch_id: '1', canceled: true });
    s.answer({ watch_id: '2', events: [put('c1', 12)] }, 12);
    expect(a.seen.events).toEqual([]);
    expect(b.seen.events).toEqual([]);
    expect(c.seen.events).toEqual(['ADDED c1 12']);
    expect(s.closed).toBe(false);
    c.w.stop();
    // the last one gone: the stream is closed, our side ended first
    expect(s.closed).toBe(true);
    expect(s.writable).toBe(false);
    watch('/registry/cm/d/', '5');
    await settle();
    expect(streams).toHaveLength(2);
  });

  it('ends only the watch whose consumer throws, with the error, and keeps the shared stream for the others', async () => {
    const seen: StorageError[] = [];
    feeds.watch('/registry/cm/a/', '5', {
      onEvent: () => {
        throw new TypeError('(m.ownerReferences ?? []).map is not a function');
      },
      onError: (e) => seen.push(e),
    });
    const b = watch('/registry/cm/b/', '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '1', created: true });
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    expect(seen.map((e) => [e.code, e.message])).toEqual([['InvalidObject', "the watch's consumer failed on ADDED a1: (m.ownerReferences ?? []).map is not a function"]]);
    expect(s.cancels()).toEqual(['0']);
    s.answer({ watch_id: '1', events: [put('b1', 12)] }, 12);
    expect(b.seen.events).toEqual(['ADDED b1 12']);
    expect(b.seen.errors).toEqual([]);
    expect(streams).toHaveLength(1);
    expect(s.closed).toBe(false);
  });

  it('ends only the compacted watch with ResourceVersionTooOld, cancelling its watcher on etcd', async () => {
    const { a, b, s } = await twoConfirmedWatches();
    s.answer({ watch_id: '0', canceled: true, compact_revision: '9' });
    expect(a.seen.errors.map((e) => [e.code, e.message])).toEqual([['ResourceVersionTooOld', 'too old resource version: 5 (9)']]);
    expect(s.cancels()).toEqual(['0']);
    s.answer({ watch_id: '1', events: [put('b1', 11)] }, 11);
    expect(b.seen.events).toEqual(['ADDED b1 11']);
    expect(b.seen.errors).toEqual([]);
  });

  it('brings every watch back on a new stream after the stream fails, each from its own last revision, without repeats', async () => {
    const { a, b, s } = await twoConfirmedWatches();
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    s.answer({ watch_id: '1', events: [put('b1', 12)] }, 12);
    s.answer({ watch_id: '0', events: [put('a2', 13)] }, 13);
    s.emit('error', new Error('14 UNAVAILABLE: Connection dropped'));
    expect(s.closed).toBe(true);
    await jest.advanceTimersByTimeAsync(100);
    expect(streams).toHaveLength(2);
    const s2 = streams[1]!;
    expect(s2.creates().sort()).toEqual(['13', '14']);
    const aFirst = s2.creates()[0] === '14';
    s2.answer({ watch_id: '0', created: true }, 20);
    s2.answer({ watch_id: '1', created: true }, 20);
    const [ida, idb] = aFirst ? ['0', '1'] : ['1', '0'];
    // an etcd that repeats what was delivered before: dropped
    s2.answer({ watch_id: ida, events: [put('a2', 13), put('a3', 15)] }, 15);
    s2.answer({ watch_id: idb, events: [put('b2', 16)] }, 16);
    // a late answer of the old stream: ignored
    s.answer({ watch_id: '0', events: [put('old', 17)] }, 17);
    expect(a.seen.events).toEqual(['ADDED a1 11', 'ADDED a2 13', 'ADDED a3 15']);
    expect(b.seen.events).toEqual(['ADDED b1 12', 'ADDED b2 16']);
    expect([...a.seen.errors, ...b.seen.errors]).toEqual([]);
  });

  it('treats a create etcd does not confirm within requestTimeoutMs as a lost stream', async () => {
    const a = watch('/registry/cm/a/', '5');
    await settle();
    await jest.advanceTimersByTimeAsync(1000);
    expect(streams[0]!.closed).toBe(true);
    await jest.advanceTimersByTimeAsync(100);
    expect(streams).toHaveLength(2);
    // never confirmed, so its window is requestTimeoutMs: it gives up with the reason
    await jest.advanceTimersByTimeAsync(1000);
    expect(a.seen.errors.map((e) => e.code)).toEqual(['Unavailable']);
    expect(a.seen.errors[0]!.message).toContain('etcd did not confirm the watch within 1000ms');
  });
});

describe('SharedWatchStream progress', () => {
  it('asks once per interval for all watches and reports the answer only to quiet, caught-up ones without an event since', async () => {
    const quiet = watch('/registry/cm/q/', '9');
    const busy = watch('/registry/cm/b/', '9');
    const behind = watch('/registry/cm/old/', '2');
    const eventBetween = watch('/registry/cm/e/', '9');
    const noHandler = watch('/registry/cm/n/', '9', false);
    await settle();
    const s = streams[0]!;
    for (const id of ['0', '1', '2', '3', '4']) s.answer({ watch_id: id, created: true }, 9);
    // the first tick only starts the quiet interval of watchers created since the last one
    await jest.advanceTimersByTimeAsync(100);
    expect(s.progressRequests()).toBe(0);
    s.answer({ watch_id: '1', events: [put('b1', 10)] }, 10);
    await jest.advanceTimersByTimeAsync(100);
    expect(s.progressRequests()).toBe(1);
    // a second tick while the first request is unanswered sends nothing more
    await jest.advanceTimersByTimeAsync(100);
    expect(s.progressRequests()).toBe(1);
    s.answer({ watch_id: '3', events: [put('e1', 11)] }, 11);
    s.answer({ watch_id: '-1' }, 12);
    expect(quiet.seen.progress).toEqual(['12']);
    expect(busy.seen.progress).toEqual([]);
    expect(behind.seen.progress).toEqual([]);
    expect(eventBetween.seen.progress).toEqual([]);
    expect(noHandler.seen.progress).toEqual([]);
    // a watcher's own progress notification (its id) is its own, once it is caught up
    s.answer({ watch_id: '1' }, 13);
    s.answer({ watch_id: '2' }, 13);
    expect(busy.seen.progress).toEqual(['13']);
    expect(behind.seen.progress).toEqual([]);
  });

  it('sends no progress requests when no watch wants progress, and none when the interval is 0', async () => {
    watch('/registry/cm/n/', '9', false);
    await settle();
    streams[0]!.answer({ watch_id: '0', created: true }, 9);
    await jest.advanceTimersByTimeAsync(500);
    expect(streams[0]!.progressRequests()).toBe(0);
    storage = { ...storage, progressIntervalMs: 0 };
    shared = new SharedWatchStream(storage);
    feeds = new WatchFeeds(storage, shared);
    watch('/registry/cm/q/', '9');
    await settle();
    streams[1]!.answer({ watch_id: '0', created: true }, 9);
    await jest.advanceTimersByTimeAsync(500);
    expect(streams[1]!.progressRequests()).toBe(0);
  });
});

describe('WatchFeeds: the watches of one key range share one etcd watcher', () => {
  const cm = '/registry/cm/ns/';

  it('creates one watcher for watches of one key range from one revision, and each watch decodes its own objects', async () => {
    const got: StorageEvent[][] = [[], []];
    for (const list of got) feeds.watch(cm, '5', { onEvent: (e) => list.push(e), onError: () => {} });
    await settle();
    const s = streams[0]!;
    expect(s.creates()).toEqual(['6']);
    expect(feeds.size).toBe(1);
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    expect(got.map((l) => l.map((e) => e.object.metadata?.name))).toEqual([['a1'], ['a1']]);
    // a consumer may change what it got (the registry sets apiVersion and kind): the other's object is its own
    expect(got[0]![0]!.object).not.toBe(got[1]![0]!.object);
  });

  it('hands a watch that joins after the feed passed its revision the kept events after it, after watch() returns', async () => {
    const { seen: first } = watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    s.answer({ watch_id: '0', events: [put('a2', 12), put('a3', 12)] }, 12);
    s.answer({ watch_id: '0', events: [put('a4', 14)] }, 14);
    const late = watch(cm, '11');
    expect(late.seen.events).toEqual([]);
    await settle();
    expect(late.seen.events).toEqual(['ADDED a2 12', 'ADDED a3 12', 'ADDED a4 14']);
    s.answer({ watch_id: '0', events: [put('a5', 15)] }, 15);
    expect(late.seen.events.at(-1)).toBe('ADDED a5 15');
    expect(first.events).toEqual(['ADDED a1 11', 'ADDED a2 12', 'ADDED a3 12', 'ADDED a4 14', 'ADDED a5 15']);
    // no second watcher on etcd
    expect(s.creates()).toEqual(['6']);
  });

  it('skips for a watch that starts ahead of the feed what it did not ask for', async () => {
    watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    const ahead = watch(cm, '12');
    await settle();
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    s.answer({ watch_id: '0', events: [put('a2', 12)] }, 12);
    s.answer({ watch_id: '0', events: [put('a3', 13)] }, 13);
    expect(ahead.seen.events).toEqual(['ADDED a3 13']);
    expect(s.creates()).toEqual(['6']);
  });

  it('gives a watch from below the kept window a watcher of its own, from its own revision', async () => {
    feeds = new WatchFeeds(storage, shared, { events: 2, bytes: 1 << 20 });
    const first = watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    for (const [i, rv] of [11, 12, 13].entries()) s.answer({ watch_id: '0', events: [put(`a${i}`, rv)] }, rv);
    // kept: 12 and 13, so every change after 11 can be served, not every change after 10
    const within = watch(cm, '11');
    const below = watch(cm, '10');
    await settle();
    expect(within.seen.events).toEqual(['ADDED a1 12', 'ADDED a2 13']);
    expect(s.creates()).toEqual(['6', '11']);
    expect(feeds.size).toBe(2);
    s.answer({ watch_id: '1', created: true }, 13);
    s.answer({ watch_id: '1', events: [put('a0', 11), put('a1', 12)] }, 13);
    expect(below.seen.events).toEqual(['ADDED a0 11', 'ADDED a1 12']);
    expect(first.seen.events).toEqual(['ADDED a0 11', 'ADDED a1 12', 'ADDED a2 13']);
  });

  it('keeps no more bytes than its window allows', async () => {
    feeds = new WatchFeeds(storage, shared, { events: 100, bytes: 60 });
    watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    // 44 bytes each (key and value): only the latest fits
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    s.answer({ watch_id: '0', events: [put('a2', 12)] }, 12);
    watch(cm, '11');
    await settle();
    expect(s.creates()).toEqual(['6']);
    watch(cm, '10');
    await settle();
    expect(s.creates()).toEqual(['6', '11']);
  });

  it('keeps the watcher while a watch is left, and cancels it on etcd after the last stops', async () => {
    const a = watch(cm, '5');
    const b = watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    a.w.stop();
    expect(s.cancels()).toEqual([]);
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    expect(a.seen.events).toEqual([]);
    expect(b.seen.events).toEqual(['ADDED a1 11']);
    b.w.stop();
    expect(s.cancels()).toEqual(['0']);
    expect(feeds.size).toBe(0);
  });

  it('ends only the watch whose consumer throws; the others keep the feed and its watcher', async () => {
    const seen: StorageError[] = [];
    feeds.watch(cm, '5', {
      onEvent: () => {
        throw new TypeError('boom');
      },
      onError: (e) => seen.push(e),
    });
    const other = watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '0', events: [put('a1', 11)] }, 11);
    s.answer({ watch_id: '0', events: [put('a2', 12)] }, 12);
    expect(seen.map((e) => e.message)).toEqual(["the watch's consumer failed on ADDED a1: boom"]);
    expect(other.seen.events).toEqual(['ADDED a1 11', 'ADDED a2 12']);
    expect(s.cancels()).toEqual([]);
  });

  it('ends every watch with an event none can decode, each with the error', async () => {
    const a = watch(cm, '5');
    const b = watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    const bad = put('x', 11);
    bad.kv.value = Buffer.from('{not json');
    s.answer({ watch_id: '0', events: [bad] }, 11);
    for (const w of [a, b]) expect(w.seen.errors.map((e) => e.code)).toEqual(['InvalidObject']);
    expect(s.cancels()).toEqual(['0']);
  });

  it("ends the watches with kube's PrevKv=nil error on an update etcd sends without the value it replaced (compacted)", async () => {
    const a = watch(cm, '5');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true });
    // an update (created at 3, modified at 11) without prev_kv
    s.answer({ watch_id: '0', events: [put('a1', 11, 3)] }, 11);
    expect(a.seen.events).toEqual([]);
    expect(a.seen.errors.map((e) => [e.code, e.message])).toEqual([
      ['InvalidObject', 'etcd event received with PrevKv=nil (key="/registry/cm/ns/a1", modRevision=11, type=PUT)'],
    ]);
  });

  it('on a compacted start revision ends the watches whose own revision is compacted, and restarts the others from theirs', async () => {
    const old = watch(cm, '5');
    const newer = watch(cm, '8');
    await settle();
    const s = streams[0]!;
    expect(s.creates()).toEqual(['6']);
    // etcd refuses start revision 6: everything below 9 is compacted (a watcher from 8 starts at 9 and is fine)
    s.answer({ watch_id: '0', created: true });
    s.answer({ watch_id: '0', canceled: true, compact_revision: '9' });
    expect(old.seen.errors.map((e) => [e.code, e.message])).toEqual([['ResourceVersionTooOld', 'too old resource version: 5 (9)']]);
    expect(newer.seen.errors).toEqual([]);
    // the stream lost its only watcher and closed: the restarted watch opens the next one
    await settle();
    const s2 = streams[1]!;
    expect(s2.creates()).toEqual(['9']);
    s2.answer({ watch_id: '0', created: true }, 10);
    s2.answer({ watch_id: '0', events: [put('a1', 10)] }, 10);
    expect(newer.seen.events).toEqual(['ADDED a1 10']);
  });

  it('ends every watch of a feed whose watcher is lost for good with the reason', async () => {
    const a = watch(cm, '5');
    const b = watch(cm, '5');
    await settle();
    // never confirmed: its window is requestTimeoutMs
    await jest.advanceTimersByTimeAsync(2200);
    for (const w of [a, b]) {
      expect(w.seen.errors.map((e) => e.code)).toEqual(['Unavailable']);
      expect(w.seen.errors[0]!.message).toContain('etcd did not confirm the watch within 1000ms');
    }
    expect(feeds.size).toBe(0);
  });

  it('reports progress to every watch that wants it, never below what that watch delivered, and asks etcd only for them', async () => {
    const quiet = watch(cm, '9');
    const none = watch(cm, '9', false);
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true }, 9);
    const ahead = watch(cm, '20');
    await settle();
    await jest.advanceTimersByTimeAsync(200);
    expect(s.progressRequests()).toBe(1);
    s.answer({ watch_id: '-1' }, 12);
    expect(quiet.seen.progress).toEqual(['12']);
    expect(ahead.seen.progress).toEqual(['20']);
    expect(none.seen.progress).toEqual([]);
    quiet.w.stop();
    ahead.w.stop();
    await jest.advanceTimersByTimeAsync(500);
    expect(s.progressRequests()).toBe(1);
  });
});

describe("WatchFeeds: kube's watch cache cases (cacher/watch_cache_test.go TestEvents), a window of 5 events", () => {
  const key = '/registry/pods/ns/pod';
  const value = (rv: number): Buffer => Buffer.from(`{"metadata":{"name":"pod","labels":{"v":"${rv}"}}}`);
  const kv = (rv: number): IKeyValue => ({ key: Buffer.from(key), value: value(rv), mod_revision: String(rv), create_revision: '3', version: '1', lease: '0' });
  const update = (rv: number): IWatchResponse['events'][number] => ({ type: 'Put', kv: kv(rv), prev_kv: kv(rv - 1) });
  const remove = (rv: number): IWatchResponse['events'][number] => ({
    type: 'Delete',
    kv: { key: Buffer.from(key), value: Buffer.alloc(0), mod_revision: String(rv), create_revision: '0', version: '0', lease: '0' },
    prev_kv: kv(rv - 1),
  });
  /** What a watch from `from` got: each event as type, the object's and the previous object's versions. */
  function join(from: string): { seen: string[] } {
    const seen: string[] = [];
    feeds.watch('/registry/pods/', from, {
      onEvent: (e) => seen.push([e.type, e.object.metadata?.resourceVersion, e.object.metadata?.labels?.v, e.prevObject?.metadata?.resourceVersion ?? '-'].join(' ')),
      onError: (e) => seen.push(`error ${e.code}`),
    });
    return { seen };
  }

  it('serves from the kept events every watch kube serves from its cache, and gives the ones it calls too old their own watcher', async () => {
    feeds = new WatchFeeds(storage, shared, { events: 5, bytes: 1 << 20 });
    join('2');
    await settle();
    const s = streams[0]!;
    s.answer({ watch_id: '0', created: true }, 2);
    s.answer({ watch_id: '0', events: [{ type: 'Put', kv: kv(3), prev_kv: undefined as unknown as IKeyValue }] }, 3);
    // the Added event: from 2, the pod's creation; from 1 kube answers too old, and here etcd serves it
    const from2 = join('2');
    const from1 = join('1');
    await settle();
    expect(from2.seen).toEqual(['ADDED 3 3 -']);
    expect(s.creates()).toEqual(['3', '2']);
    expect(feeds.size).toBe(2);

    s.answer({ watch_id: '0', events: [update(4)] }, 4);
    s.answer({ watch_id: '0', events: [update(5)] }, 5);
    // not full: from 3, two Modified events with their previous objects
    const from3 = join('3');
    await settle();
    expect(from3.seen).toEqual(['MODIFIED 4 4 3', 'MODIFIED 5 5 4']);

    for (let rv = 6; rv < 10; rv++) s.answer({ watch_id: '0', events: [update(rv)] }, rv);
    // full: 5 to 9 kept, so from 4 is served and from 3 is not: it joins the watcher from 1 (from revision 2 on)
    const from4 = join('4');
    const from3Again = join('3');
    await settle();
    expect(from4.seen).toEqual(['MODIFIED 5 5 4', 'MODIFIED 6 6 5', 'MODIFIED 7 7 6', 'MODIFIED 8 8 7', 'MODIFIED 9 9 8']);
    expect(from3Again.seen).toEqual([]);
    expect(s.creates()).toEqual(['3', '2']);
    expect(feeds.size).toBe(2);

    // the Deleted event: the last state at the deletion's revision, the previous object at its own
    s.answer({ watch_id: '0', events: [remove(10)] }, 10);
    const from9 = join('9');
    await settle();
    expect(from9.seen).toEqual(['DELETED 10 9 9']);
    expect(from1.seen).toEqual([]);
  });
});
