// Etcd3Storage's watches share one gRPC watch stream (server/storage/etcd3-watch.ts): counted on etcd's own
// /metrics, and each watcher keeps its own fate on it (stopped, compacted, resumed after an etcd restart).
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../server/api/types.js';
import { Etcd3Storage } from '../../server/storage/etcd3.js';
import { collectionKey, objectKey } from '../../server/storage/keys.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { collectWatch, waitFor, type CollectedWatch } from './contract.js';

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: {} });
const describeEvents = (w: CollectedWatch): string[] => w.events.map((e) => `${e.type} ${e.object.metadata?.name} ${e.object.metadata?.resourceVersion}`);

/** One sample of etcd's Prometheus exposition, by metric name and exact label text ("" without labels). */
async function etcdMetric(etcd: EtcdProcess, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  if (line === undefined) throw new Error(`etcd exposes no ${name}${labels}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}
/** gRPC Watch streams etcd has accepted since it started. */
const watchStreamsStarted = (etcd: EtcdProcess): Promise<number> =>
  etcdMetric(etcd, 'grpc_server_started_total', '{grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"}');
/** Watchers etcd holds right now, over all streams. */
const watchersNow = (etcd: EtcdProcess): Promise<number> => etcdMetric(etcd, 'etcd_debugging_mvcc_watcher_total');
/** Watch streams open right now. */
const streamsNow = (etcd: EtcdProcess): Promise<number> => etcdMetric(etcd, 'etcd_debugging_mvcc_watch_stream_total');

async function waitForMetric(what: string, read: () => Promise<number>, expected: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = NaN;
  while (Date.now() < deadline) {
    last = await read();
    if (last === expected) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what}: ${last}, expected ${expected} within ${timeoutMs}ms`);
}

let etcd: EtcdProcess;
let storage: Etcd3Storage;
let prefix: string;
const key = (ns: string, n: string): string => objectKey(prefix, '', 'configmaps', ns, n);
const coll = (ns: string): string => collectionKey(prefix, '', 'configmaps', ns);

beforeAll(async () => {
  // its own etcd, so that every watch stream and watcher on it is this file's
  etcd = await startEtcd({ name: 'watch-stream' });
});
afterAll(async () => {
  await etcd?.cleanup();
});
beforeEach(async () => {
  if (!etcd.running) await etcd.restart();
  prefix = `/t-${randomBytes(6).toString('hex')}/registry`;
  storage = new Etcd3Storage({ endpoints: etcd.endpoint, requestTimeoutMs: 1000, watchReconnectTimeoutMs: 20_000 });
});
afterEach(async () => {
  await storage.close();
});

describe('Etcd3Storage watches on one gRPC watch stream', () => {
  it('opens one watch stream for many watches, each getting only its own events', async () => {
    const before = await watchStreamsStarted(etcd);
    const from = await storage.currentRevision();
    const watches = Array.from({ length: 20 }, (_, i) => collectWatch(storage, coll(`ns${i}`), from));
    // half of them from "0": a list first, then the watcher
    const fromNow = Array.from({ length: 10 }, (_, i) => collectWatch(storage, coll(`now${i}`), '0'));
    await waitForMetric('etcd watchers', () => watchersNow(etcd), 30);
    for (let i = 0; i < 20; i++) await storage.create(key(`ns${i}`, `a${i}`), cm(`a${i}`));
    for (let i = 0; i < 10; i++) await storage.create(key(`now${i}`, `b${i}`), cm(`b${i}`));
    for (const [i, w] of watches.entries()) {
      await w.waitForEvents(1);
      expect(w.events.map((e) => e.object.metadata?.name)).toEqual([`a${i}`]);
    }
    for (const [i, w] of fromNow.entries()) {
      await w.waitForEvents(1);
      expect(w.events.map((e) => e.object.metadata?.name)).toEqual([`b${i}`]);
    }
    expect(await watchStreamsStarted(etcd)).toBe(before + 1);
    expect(await streamsNow(etcd)).toBe(1);
    for (const w of [...watches, ...fromNow]) expect(w.errors).toEqual([]);
  });

  it('serves the watches of one key range from one etcd watcher, joining late ones from its kept events', async () => {
    const from = await storage.currentRevision();
    const early = [collectWatch(storage, coll('ns'), from), collectWatch(storage, coll('ns'), from)];
    await waitForMetric('etcd watchers', () => watchersNow(etcd), 1);
    const x = await storage.create(key('ns', 'x'), cm('x'));
    await storage.create(key('ns', 'y'), cm('y'));
    for (const w of early) await w.waitForEvents(2);
    // from x's revision, which the watcher has passed: y comes from what the feed kept
    const late = collectWatch(storage, coll('ns'), x.metadata!.resourceVersion!);
    await late.waitForEvents(1);
    await storage.create(key('ns', 'z'), cm('z'));
    for (const w of [...early, late]) await w.waitForEvents(w === late ? 2 : 3);
    expect(early.map((w) => w.events.map((e) => e.object.metadata?.name))).toEqual([['x', 'y', 'z'], ['x', 'y', 'z']]);
    expect(late.events.map((e) => e.object.metadata?.name)).toEqual(['y', 'z']);
    expect(early[0]!.events[0]!.object).not.toBe(early[1]!.events[0]!.object);
    expect(await watchersNow(etcd)).toBe(1);
    // another key range has a watcher of its own
    const other = collectWatch(storage, coll('other'), from);
    await waitForMetric('etcd watchers with a second key range', () => watchersNow(etcd), 2);
    for (const w of [...early, late, other]) w.stop();
    await waitForMetric('etcd watchers after every stop', () => watchersNow(etcd), 0);
    for (const w of [...early, late, other]) expect(w.errors).toEqual([]);
  });

  it('cancels a stopped watch on etcd while the others on the stream keep receiving, and closes the stream after the last', async () => {
    const from = await storage.currentRevision();
    const [a, b, c] = [collectWatch(storage, coll('a'), from), collectWatch(storage, coll('b'), from), collectWatch(storage, coll('c'), from)];
    await waitForMetric('etcd watchers', () => watchersNow(etcd), 3);
    for (const ns of ['a', 'b', 'c']) await storage.create(key(ns, 'x'), cm('x'));
    for (const w of [a, b, c]) await w.waitForEvents(1);
    b.stop();
    await waitForMetric('etcd watchers after one stop', () => watchersNow(etcd), 2);
    expect(await streamsNow(etcd)).toBe(1);
    for (const ns of ['a', 'b', 'c']) await storage.create(key(ns, 'y'), cm('y'));
    await a.waitForEvents(2);
    await c.waitForEvents(2);
    expect(a.events.map((e) => e.object.metadata?.name)).toEqual(['x', 'y']);
    expect(c.events.map((e) => e.object.metadata?.name)).toEqual(['x', 'y']);
    expect(b.events.map((e) => e.object.metadata?.name)).toEqual(['x']);
    expect([...a.errors, ...b.errors, ...c.errors]).toEqual([]);
    a.stop();
    c.stop();
    await waitForMetric('etcd watchers after every stop', () => watchersNow(etcd), 0);
    await waitForMetric('open watch streams after every stop', () => streamsNow(etcd), 0);
    // and a later watch opens a new one
    const d = collectWatch(storage, coll('a'), from);
    await d.waitForEvents(2);
    expect(await streamsNow(etcd)).toBe(1);
  });

  it('ends only the compacted watch with ResourceVersionTooOld; the others on the stream go on', async () => {
    const first = await storage.create(key('ns', 'old'), cm('old'));
    const current = await storage.currentRevision();
    await storage.create(key('ns', 'old2'), cm('old2'));
    const live = collectWatch(storage, coll('ns'), current);
    await live.waitForEvents(1);
    await storage.compact(await storage.currentRevision());
    const compacted = collectWatch(storage, coll('ns'), String(Number(first.metadata!.resourceVersion) - 1));
    const err = await compacted.waitForError();
    expect(err.code).toBe('ResourceVersionTooOld');
    expect(err.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    const after = collectWatch(storage, coll('ns'), await storage.currentRevision());
    await storage.create(key('ns', 'new'), cm('new'));
    await live.waitForEvents(2);
    await after.waitForEvents(1);
    expect(live.events.map((e) => e.object.metadata?.name)).toEqual(['old2', 'new']);
    expect(after.events.map((e) => e.object.metadata?.name)).toEqual(['new']);
    expect([...live.errors, ...after.errors]).toEqual([]);
    expect(compacted.events).toEqual([]);
    // the compacted watcher was cancelled on etcd too; live and after, on one key range, share a watcher
    await waitForMetric('etcd watchers', () => watchersNow(etcd), 1);
    expect(await streamsNow(etcd)).toBe(1);
  });

  it('resumes every watch after etcd is killed (-9) and restarted, each from its own revision, nothing lost or repeated', async () => {
    const start = await storage.currentRevision();
    const early = collectWatch(storage, coll('a'), start);
    await storage.create(key('a', 'a1'), cm('a1'));
    await storage.create(key('b', 'b1'), cm('b1'));
    // these start later, so their last delivered revisions differ
    const late = collectWatch(storage, coll('b'), await storage.currentRevision());
    const all = collectWatch(storage, `${prefix}/configmaps/`, start);
    await storage.create(key('b', 'b2'), cm('b2'));
    await early.waitForEvents(1);
    await late.waitForEvents(1);
    await all.waitForEvents(3);

    await etcd.kill('SIGKILL');
    await etcd.restart();
    // written as soon as etcd answers, before or while the watchers come back
    const written: string[] = [];
    for (const [ns, n] of [['a', 'a2'], ['b', 'b3'], ['a', 'a3']] as const) {
      for (;;) {
        try {
          await storage.create(key(ns, n), cm(n));
          written.push(n);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    }
    await storage.delete(key('a', 'a1'));
    await early.waitForEvents(4, 10_000);
    await late.waitForEvents(2, 10_000);
    await all.waitForEvents(7, 10_000);
    const rv = async (ns: string, n: string): Promise<string> => (await storage.list(coll(ns))).items.find((o) => o.metadata?.name === n)?.metadata?.resourceVersion ?? '?';
    const names = (w: CollectedWatch): string[] => w.events.map((e) => `${e.type} ${e.object.metadata?.name}`);
    expect(names(early)).toEqual(['ADDED a1', 'ADDED a2', 'ADDED a3', 'DELETED a1']);
    expect(names(late)).toEqual(['ADDED b2', 'ADDED b3']);
    expect(names(all)).toEqual(['ADDED a1', 'ADDED b1', 'ADDED b2', 'ADDED a2', 'ADDED b3', 'ADDED a3', 'DELETED a1']);
    // the events are the stored objects, at their revisions
    expect(describeEvents(late)[1]).toBe(`ADDED b3 ${await rv('b', 'b3')}`);
    expect(describeEvents(early)[2]).toBe(`ADDED a3 ${await rv('a', 'a3')}`);
    for (const w of [early, late, all]) expect(w.errors).toEqual([]);
    // all three came back as watchers of one stream on the restarted etcd
    await waitForMetric('etcd watchers after the restart', () => watchersNow(etcd), 3);
    expect(await streamsNow(etcd)).toBe(1);
  });

  it('reports progress to quiet watches while another watch on the stream is busy, never ahead of an event it then delivers', async () => {
    await storage.close();
    storage = new Etcd3Storage({ endpoints: etcd.endpoint, progressIntervalMs: 30 });
    const from = await storage.currentRevision();
    /** What one watch received, events and progress reports in arrival order. */
    const record = (ns: string): Array<{ kind: 'event' | 'progress' | 'error'; rv: number }> => {
      const seen: Array<{ kind: 'event' | 'progress' | 'error'; rv: number }> = [];
      storage.watch(coll(ns), from, {
        onEvent: (e) => seen.push({ kind: 'event', rv: Number(e.object.metadata?.resourceVersion) }),
        onProgress: (rv) => seen.push({ kind: 'progress', rv: Number(rv) }),
        onError: () => seen.push({ kind: 'error', rv: 0 }),
      });
      return seen;
    };
    const busy = record('busy');
    const quiet = record('quiet');
    await storage.create(key('quiet', 'q'), cm('q'));
    await waitFor('the quiet watch’s event', () => quiet.some((x) => x.kind === 'event'));
    const deadline = Date.now() + 600;
    let last = '';
    for (let i = 0; Date.now() < deadline; i++) last = (await storage.create(key('busy', `b${i}`), cm(`b${i}`))).metadata!.resourceVersion!;
    await waitFor('the busy watch’s last event', () => busy.some((x) => x.kind === 'event' && x.rv === Number(last)));
    // a quiet watch hears about the busy one's revisions through progress alone
    await waitFor('progress past the busy writes on the quiet watch', () => quiet.some((x) => x.kind === 'progress' && x.rv >= Number(last)));
    for (const seen of [busy, quiet]) {
      expect(seen.filter((x) => x.kind === 'error')).toEqual([]);
      let promised = 0;
      for (const x of seen) {
        // a progress report at rv promises that every event up to rv has been delivered
        if (x.kind === 'event') expect(x.rv).toBeGreaterThan(promised);
        else promised = Math.max(promised, x.rv);
      }
    }
    expect(quiet.filter((x) => x.kind === 'event')).toHaveLength(1);
  });
});
