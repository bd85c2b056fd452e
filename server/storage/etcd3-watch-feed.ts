// The watches of one key range share one etcd watcher, as kube-apiserver's watch cache (storage/cacher) serves every
// watch of a resource from one etcd watch: etcd then sends each change once, and the client receives and decodes
// its gRPC message once. In this server the garbage collector, the root-CA publisher, admission sources and the
// clients' own watches all watch the same resources: a start holds 57 etcd watchers instead of 72, a ConfigMap
// create makes etcd send one watch message instead of two, and with 20 clients watching ConfigMaps etcd spends
// ≈ 0.06 ms less CPU per create. The server's own CPU did not move beyond noise (README, Performance).
//
// A feed keeps its latest events (a window, as the watch cache keeps a ring of them), so a watch that starts at a
// revision the feed has already passed (a list answered just before an event) still joins it. A watch starting
// below the window gets a feed of its own: nothing is served from a shortened history, so a watch sees exactly what
// its own etcd watcher would (every change after its revision, in order; ResourceVersionTooOld only when its own
// revision is compacted). Each watch decodes the events itself: consumers own, and may change, what they get.
import { StorageError, type ListResult, type StorageWatch, type WatchHandlers } from './interface.js';
import { decodeWatchEvent, EtcdWatcher, type RawWatchEvent, type SharedWatchStream, type WatchedStorage } from './etcd3-watch.js';
import { parseRevision, watchConsumerFailed, watchTooOld } from './stored-object.js';

/** How many of its latest events a feed keeps for watches that join it late, and their most bytes (keys and values). */
export interface FeedWindow {
  events: number;
  bytes: number;
}
export const defaultFeedWindow: FeedWindow = { events: 100, bytes: 1 << 20 };

/** The feeds of one storage, by key range. */
export class WatchFeeds {
  private readonly byPrefix = new Map<string, WatchFeed[]>();

  constructor(
    private readonly storage: WatchedStorage,
    private readonly stream: SharedWatchStream,
    private readonly window: FeedWindow = defaultFeedWindow,
  ) {}

  /** A watch of prefix, for every change after fromRevision ("0" or "": the current state first, then changes). */
  watch(prefix: string, fromRevision: string, handlers: WatchHandlers): FeedWatch {
    const w = new FeedWatch(this.storage, this, prefix, handlers);
    w.start(fromRevision);
    return w;
  }

  /** Feeds currently open (one etcd watcher each). */
  get size(): number {
    let n = 0;
    for (const feeds of this.byPrefix.values()) n += feeds.length;
    return n;
  }

  /** @internal a feed with every event after `from`: one whose window reaches back to it, or a new one. */
  feedFrom(prefix: string, from: number): WatchFeed {
    const feeds = this.byPrefix.get(prefix) ?? [];
    const open = feeds.find((f) => f.reaches(from));
    if (open) return open;
    const feed = new WatchFeed(this.storage, this.stream, this, prefix, from, this.window);
    feeds.push(feed);
    this.byPrefix.set(prefix, feeds);
    feed.start();
    return feed;
  }

  /** @internal the feed has no watch left, or failed */
  remove(feed: WatchFeed): void {
    const feeds = this.byPrefix.get(feed.prefix);
    if (!feeds) return;
    const i = feeds.indexOf(feed);
    if (i >= 0) feeds.splice(i, 1);
    if (feeds.length === 0) this.byPrefix.delete(feed.prefix);
  }
}

/** One etcd watcher of a key range, its latest events, and the watches it serves. */
export class WatchFeed {
  private readonly watcher: EtcdWatcher;
  private readonly watches = new Set<FeedWatch>();
  /** The latest events, oldest first: every event above `floor` up to the last delivered one. */
  private readonly recent: RawWatchEvent[] = [];
  private recentBytes = 0;
  /** Every change after this revision is in `recent` or still to come from etcd. */
  private floor: number;
  private closed = false;

  constructor(
    storage: WatchedStorage,
    stream: SharedWatchStream,
    private readonly feeds: WatchFeeds,
    readonly prefix: string,
    private readonly from: number,
    private readonly window: FeedWindow,
  ) {
    this.floor = from;
    const feed = this;
    this.watcher = new EtcdWatcher(storage, stream, prefix, {
      onEvents: (events) => this.onEvents(events),
      onError: (err, compactRevision) => this.onError(err, compactRevision),
      // asked at every progress tick: etcd is asked for progress only for a feed with a watch that wants it
      get onProgress() {
        return feed.wantsProgress() ? (rv: string) => feed.onProgress(rv) : undefined;
      },
    });
  }

  start(): void {
    this.watcher.start(this.from);
  }

  /** Whether a watch from this revision can be served: every change after it is kept or still to come. */
  reaches(from: number): boolean {
    return !this.closed && from >= this.floor;
  }

  /** w gets the kept events after `from` now, and every later one as it comes. */
  join(w: FeedWatch, from: number): void {
    this.watches.add(w);
    const replay = this.recent.filter((ev) => ev.revision > from);
    if (replay.length > 0) w.onEvents(replay);
  }

  leave(w: FeedWatch): void {
    this.watches.delete(w);
    if (this.watches.size === 0) this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher.stop();
    this.feeds.remove(this);
  }

  private wantsProgress(): boolean {
    for (const w of this.watches) if (w.wantsProgress) return true;
    return false;
  }

  private onEvents(events: RawWatchEvent[]): void {
    for (const ev of events) {
      this.recent.push(ev);
      this.recentBytes += eventBytes(ev);
    }
    while (this.recent.length > this.window.events || (this.recentBytes > this.window.bytes && this.recent.length > 0)) {
      const old = this.recent.shift()!;
      this.recentBytes -= eventBytes(old);
      this.floor = Math.max(this.floor, old.revision);
    }
    // a watch may stop (or another join) while the events are handed out
    for (const w of [...this.watches]) if (this.watches.has(w)) w.onEvents(events);
  }

  private onProgress(rv: string): void {
    for (const w of [...this.watches]) if (this.watches.has(w)) w.onProgress(rv);
  }

  private onError(err: StorageError, compactRevision: number | undefined): void {
    const watches = [...this.watches];
    this.watches.clear();
    this.close();
    for (const w of watches) w.feedEnded(err, compactRevision);
  }
}

function eventBytes(ev: RawWatchEvent): number {
  return ev.kv.key.length + ev.kv.value.length + (ev.prevKv ? ev.prevKv.value.length : 0);
}

/** One storage watch: events from a feed, decoded for its consumer alone. */
export class FeedWatch implements StorageWatch {
  private stopped = false;
  /** Every change up to and including this revision has been delivered (or was before the watch's start). */
  private lastRevision = 0;
  private feed: WatchFeed | undefined;

  constructor(
    private readonly storage: WatchedStorage,
    private readonly feeds: WatchFeeds,
    private readonly prefix: string,
    private readonly handlers: WatchHandlers,
  ) {}

  get wantsProgress(): boolean {
    return this.handlers.onProgress !== undefined;
  }

  start(fromRevision: string): void {
    let from: number | undefined;
    try {
      from = parseRevision(this.prefix, fromRevision);
    } catch (err) {
      this.failLater(err as StorageError);
      return;
    }
    if (this.storage.isClosed) {
      this.failLater(this.storage.closedError(this.prefix));
      return;
    }
    if (from === undefined) {
      void this.startFromNow();
      return;
    }
    const start = from;
    // joining may hand out kept events at once; the caller gets its watch first
    queueMicrotask(() => this.attach(start));
  }

  /** kube-apiserver's watch from "0": the current state as ADDED events, then changes after the list's revision. */
  private async startFromNow(): Promise<void> {
    let state: ListResult;
    try {
      state = await this.storage.list(this.prefix);
    } catch (err) {
      this.fail(err instanceof StorageError ? err : this.storage.unavailable('watch', this.prefix, err));
      return;
    }
    if (this.stopped) return;
    for (const object of state.items) {
      this.deliver({ type: 'ADDED', object });
      if (this.stopped) return;
    }
    this.attach(Number(state.resourceVersion));
  }

  private attach(from: number): void {
    if (this.stopped) return;
    if (this.storage.isClosed) {
      this.fail(this.storage.closedError(this.prefix));
      return;
    }
    this.lastRevision = from;
    this.feed = this.feeds.feedFrom(this.prefix, from);
    this.feed.join(this, from);
  }

  /** @internal one response's events from the feed (some may be at or below what this watch has delivered) */
  onEvents(events: readonly RawWatchEvent[]): void {
    if (this.stopped) return;
    const floor = this.lastRevision;
    for (const ev of events) {
      if (ev.revision <= floor) continue;
      const event = decodeWatchEvent(ev);
      if (event instanceof StorageError) {
        this.fail(event);
        return;
      }
      this.lastRevision = Math.max(this.lastRevision, ev.revision);
      this.deliver(event);
      if (this.stopped) return;
    }
  }

  /** @internal every change up to rv has been sent to the feed */
  onProgress(rv: string): void {
    if (this.stopped) return;
    this.handlers.onProgress?.(String(Math.max(Number(rv), this.lastRevision)));
  }

  /**
   * @internal the feed's etcd watcher ended. A compacted start revision is this watch's error only if its own
   * watcher would have been compacted too (etcd refuses a start revision below the compaction): one that joined
   * later starts over on a feed of its own.
   */
  feedEnded(err: StorageError, compactRevision: number | undefined): void {
    if (this.stopped) return;
    this.feed = undefined;
    if (compactRevision !== undefined) {
      if (this.lastRevision + 1 < compactRevision) this.fail(watchTooOld(this.prefix, this.lastRevision, compactRevision));
      else this.attach(this.lastRevision);
      return;
    }
    this.fail(err);
  }

  /**
   * Hands an event to the consumer. A consumer that throws ends this watch alone, with the error, as it would end on
   * an event it cannot decode: the feed and the stream are shared, and a throw out of them would cost every other
   * watch its events.
   */
  private deliver(event: Parameters<WatchHandlers['onEvent']>[0]): void {
    try {
      this.handlers.onEvent(event);
    } catch (err) {
      this.fail(watchConsumerFailed(this.prefix, event, err));
    }
  }

  private failLater(err: StorageError): void {
    queueMicrotask(() => this.fail(err));
  }

  private fail(err: StorageError): void {
    if (this.stopped) return;
    this.stop();
    this.handlers.onError(err);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.feed?.leave(this);
    this.feed = undefined;
    this.storage.forgetWatch(this);
  }
}
