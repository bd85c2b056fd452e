// Watchers on etcd for Etcd3Storage: every etcd watcher of one storage is on one shared gRPC watch stream, as
// kube-apiserver's clientv3 multiplexes the watchers of a client onto one stream (etcd clientv3/watch.go,
// watchGrpcStream); the watches of one key range share a watcher (etcd3-watch-feed.ts). Opening a gRPC stream costs
// the client ≈ 0.5 ms of CPU (call credentials, call and HTTP/2 stream setup), and a start opens ≈ 60 watchers; a
// create_request on an open stream is a fraction of that.
//
// What etcd (3.4, etcdserver/api/v3rpc/watch.go) guarantees and this relies on:
// - a stream answers create requests in the order it received them (one control queue), with `created` and the
//   watch id it assigned, or with watch_id -1 and `canceled` when the create failed; a watcher's events are held
//   back until its `created` response is sent, and ids are not reused on a stream;
// - a progress_request is answered with watch_id -1 and the store revision at that moment, meant for every watcher
//   of the stream, through the control queue: it may overtake events still queued for a busy watcher
//   (etcd-io/etcd#15220). So only watchers that were quiet for a whole interval, are caught up, and get no event
//   until the answer arrives, are told about it; a watcher's own progress_notify answers carry its id;
// - a compacted start revision cancels only that watcher (`canceled` with compact_revision).
//
// Each watcher keeps its own revision and reconnection window: when the stream is lost, every watcher resumes from
// its own last delivered revision on the next stream (nothing missed or repeated), and ends with Unavailable once
// its window has passed. Responses are not fragmented (WatchCreateRequest.fragment stays off): the client's
// receive limit is lifted instead, as for lists.
import type { Etcd3, IDuplexStream, IKeyValue, IWatchCreateRequest, IWatchRequest, IWatchResponse } from 'etcd3';
import { StorageError, type ListResult, type StorageEvent, type StorageWatch } from './interface.js';
import { prefixRangeEnd } from './keys.js';
import { decodeObject, errorMessage, watchTooOld } from './stored-object.js';

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

/** What a watch and its etcd watcher need from their storage (Etcd3Storage). */
export interface WatchedStorage {
  readonly client: Etcd3;
  readonly requestTimeoutMs: number;
  readonly watchReconnectTimeoutMs: number;
  readonly progressIntervalMs: number;
  readonly isClosed: boolean;
  unavailable(what: string, key: string, err: unknown): StorageError;
  closedError(key: string): StorageError;
  list(prefix: string): Promise<ListResult>;
  forgetWatch(w: StorageWatch): void;
}

/** etcd's watch id for "no watcher": a failed create, and a progress answer meant for every watcher. */
const invalidWatchId = '-1';

/**
 * The one gRPC watch stream of a storage: opened when a watcher needs it, closed when no watcher is left, and
 * replaced when lost (each watcher then comes back on its own schedule, see EtcdWatcher.lost).
 */
export class SharedWatchStream {
  private stream: WatchStream | undefined;
  private opening = false;
  /** Bumped for every stream, so late callbacks of an abandoned stream are ignored. */
  private generation = 0;
  /** Watchers waiting for the stream to open. */
  private readonly waiting = new Set<EtcdWatcher>();
  /** Sent create requests in order, awaiting their `created` answer; undefined once that watcher stopped. */
  private pendingCreates: Array<EtcdWatcher | undefined> = [];
  private readonly watchers = new Map<string, EtcdWatcher>();
  private progressTimer: NodeJS.Timeout | undefined;
  /**
   * The progress request sent and not yet answered: the watchers its answer may be reported to. One at a time, so
   * that an etcd that answers several requests at once (3.5 defers answers until its watchers are synced) cannot
   * pair an answer with the wrong request.
   */
  private progressRequest: Set<EtcdWatcher> | undefined;

  constructor(private readonly storage: WatchedStorage) {}

  /** Creates w's watcher on the stream, opening one if needed; w.attached / w.created / w.lost follow. */
  register(w: EtcdWatcher): void {
    if (this.stream) {
      this.sendCreate(w, this.stream);
      return;
    }
    this.waiting.add(w);
    if (!this.opening) void this.open();
  }

  /** Removes w (stopped or failed) from the stream; etcd is told to cancel its watcher. */
  unregister(w: EtcdWatcher): void {
    this.waiting.delete(w);
    const pending = this.pendingCreates.indexOf(w);
    // its `created` answer is still to come: keep the slot so answers stay matched, and cancel it then
    if (pending >= 0) this.pendingCreates[pending] = undefined;
    if (w.watchId !== undefined && this.watchers.get(w.watchId) === w) {
      this.watchers.delete(w.watchId);
      this.send({ cancel_request: { watch_id: w.watchId } });
    }
    this.forgetProgress(w);
    if (this.stream && this.waiting.size === 0 && this.watchers.size === 0 && this.pendingCreates.every((p) => p === undefined)) {
      // as clientv3: a stream without watchers is closed (etcd drops whatever is still pending with it)
      this.drop();
    }
  }

  /** The stream of this generation is broken: every watcher on it or waiting for it is detached and told. */
  lose(generation: number, err: unknown): void {
    if (generation !== this.generation) return;
    const affected = new Set<EtcdWatcher>([...this.waiting, ...this.watchers.values()]);
    for (const w of this.pendingCreates) if (w) affected.add(w);
    this.waiting.clear();
    this.opening = false;
    this.drop();
    for (const w of affected) w.lost(err);
  }

  private async open(): Promise<void> {
    this.opening = true;
    const generation = ++this.generation;
    let stream: WatchStream;
    try {
      stream = await this.storage.client.watchClient.watch();
    } catch (err) {
      this.lose(generation, err);
      return;
    }
    if (generation !== this.generation || this.waiting.size === 0) {
      // lost or no longer needed while it was being opened
      if (generation === this.generation) this.opening = false;
      closeStream(stream);
      return;
    }
    this.opening = false;
    this.stream = stream;
    stream.on('data', (res: IWatchResponse) => {
      if (generation === this.generation) this.onResponse(generation, res);
    });
    stream.on('error', (err: Error) => this.lose(generation, err));
    stream.on('end', () => this.lose(generation, new Error('etcd ended the watch stream')));
    this.startProgressTimer(stream);
    // one at a time out of `waiting`: if the stream breaks meanwhile, the rest are still found there and told
    for (const w of [...this.waiting]) {
      if (generation !== this.generation) return;
      this.waiting.delete(w);
      this.sendCreate(w, stream);
    }
  }

  private sendCreate(w: EtcdWatcher, stream: WatchStream): void {
    const generation = this.generation;
    this.pendingCreates.push(w);
    w.attached(generation);
    try {
      stream.write({ create_request: w.createRequest() });
    } catch (err) {
      this.lose(generation, err);
    }
  }

  /** Writes a request that needs no answer matched (cancel, progress); a failure shows as the stream's error. */
  private send(req: IWatchRequest): void {
    try {
      this.stream?.write(req);
    } catch {
      // the stream is going away; its error handler detaches the watchers
    }
  }

  private onResponse(generation: number, res: IWatchResponse): void {
    if (res.created) {
      const w = this.pendingCreates.shift();
      if (res.watch_id === invalidWatchId || res.canceled) {
        if (w) this.forgetProgress(w);
        w?.lost(new Error(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
        return;
      }
      if (!w) {
        this.send({ cancel_request: { watch_id: res.watch_id } });
        return;
      }
      this.watchers.set(res.watch_id, w);
      w.created(generation, res);
      return;
    }
    if (res.watch_id === invalidWatchId) {
      const eligible = this.progressRequest;
      this.progressRequest = undefined;
      if (eligible) for (const w of eligible) w.broadcastProgress(generation, res);
      return;
    }
    const w = this.watchers.get(res.watch_id);
    if (!w) return; // a watcher stopped meanwhile: etcd has its cancel request
    if (res.canceled) {
      this.watchers.delete(res.watch_id);
      // a compacted watcher stays registered in etcd until cancelled
      if (Number(res.compact_revision) > 0) this.send({ cancel_request: { watch_id: res.watch_id } });
      this.forgetProgress(w);
      w.canceled(res);
      return;
    }
    if (res.events.length > 0) this.forgetProgress(w);
    w.respond(generation, res);
  }

  /** w may no longer be told the answers to the progress requests sent so far. */
  private forgetProgress(w: EtcdWatcher): void {
    this.progressRequest?.delete(w);
  }

  private startProgressTimer(stream: WatchStream): void {
    const every = this.storage.progressIntervalMs;
    if (every <= 0) return;
    this.progressTimer = setInterval(() => {
      const eligible = new Set<EtcdWatcher>();
      for (const w of this.watchers.values()) if (w.progressTick()) eligible.add(w);
      if (eligible.size === 0 || this.progressRequest) return;
      this.progressRequest = eligible;
      try {
        stream.write({ progress_request: {} });
      } catch {
        // the stream is going away; its error handler detaches the watchers
      }
    }, every);
    this.progressTimer.unref();
  }

  /** Forgets the current stream (closing it) and everything registered on it. */
  private drop(): void {
    this.generation++;
    if (this.progressTimer) clearInterval(this.progressTimer);
    this.progressTimer = undefined;
    this.progressRequest = undefined;
    this.pendingCreates = [];
    this.watchers.clear();
    if (this.stream) closeStream(this.stream);
    this.stream = undefined;
  }
}

/** One event as etcd sent it, with its revision (kv.mod_revision); decoded by each watch it reaches. */
export interface RawWatchEvent {
  type: IWatchResponse['events'][number]['type'];
  kv: IKeyValue;
  prevKv: IKeyValue | undefined;
  revision: number;
}

/** What an EtcdWatcher reports to (a WatchFeed, server/storage/etcd3-watch-feed.ts). */
export interface WatcherHandlers {
  /** The events of one etcd response above every revision delivered before, in order (one revision's events come together). */
  onEvents(events: RawWatchEvent[]): void;
  /** The watcher ended; compactRevision is set when etcd compacted its start revision away. */
  onError(err: StorageError, compactRevision?: number): void;
  /** Read at every progress tick: only a watcher with a progress consumer asks etcd for progress. */
  readonly onProgress?: (resourceVersion: string) => void;
}

/**
 * One watcher on the storage's shared stream, from a revision, re-created from its last delivered revision when
 * lost. It hands on etcd's events undecoded: every watch of its feed decodes them for itself.
 */
export class EtcdWatcher {
  private stopped = false;
  /** Registered with the shared stream: waiting for it, being created, or created. */
  private onStream = false;
  /** The stream generation this watcher is on (or being created on); 0 otherwise. */
  private generation = 0;
  /** etcd's id of the watcher on the current stream, once created. */
  watchId: string | undefined;
  /** Every change up to and including this revision has been delivered (or was before the watcher's start). */
  private lastRevision = 0;
  private everConnected = false;
  private disconnectedSince: number | undefined;
  private backoffMs = 100;
  private createTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The store revision when etcd created the watcher; until an event reaches it, etcd may still be catching up. */
  private createdAtRevision = 0;
  private synced = false;
  private eventsSinceProgressTick = 0;
  /** A progress tick has passed since the watcher was created, so "no events since the last tick" spans a whole interval. */
  private tickedSinceCreated = false;
  private readonly rangeEnd: Buffer | undefined;

  constructor(
    private readonly storage: WatchedStorage,
    private readonly stream: SharedWatchStream,
    private readonly prefix: string,
    private readonly handlers: WatcherHandlers,
  ) {
    this.rangeEnd = prefix.endsWith('/') ? prefixRangeEnd(Buffer.from(prefix)) : undefined;
  }

  /** Starts watching the changes after fromRevision. */
  start(fromRevision: number): void {
    this.lastRevision = fromRevision;
    this.register();
  }

  private register(): void {
    this.onStream = true;
    this.stream.register(this);
  }

  /** @internal the create request for the current stream: from the revision after the last delivered one */
  createRequest(): IWatchCreateRequest {
    return {
      key: Buffer.from(this.prefix),
      range_end: this.rangeEnd,
      start_revision: String(this.lastRevision + 1),
      prev_kv: true,
      progress_notify: true,
    };
  }

  /** @internal the create request was sent on the stream of this generation */
  attached(generation: number): void {
    this.generation = generation;
    this.watchId = undefined;
    clearTimeout(this.createTimer);
    this.createTimer = setTimeout(
      () => this.stream.lose(generation, new Error(`etcd did not confirm the watch within ${this.storage.requestTimeoutMs}ms`)),
      this.storage.requestTimeoutMs,
    );
  }

  /** @internal etcd created the watcher */
  created(generation: number, res: IWatchResponse): void {
    if (this.stopped || generation !== this.generation) return;
    clearTimeout(this.createTimer);
    this.watchId = res.watch_id;
    this.everConnected = true;
    this.disconnectedSince = undefined;
    this.backoffMs = 100;
    this.createdAtRevision = Number(res.header.revision);
    this.synced = this.lastRevision >= this.createdAtRevision;
    this.tickedSinceCreated = false;
  }

  /** @internal etcd cancelled this watcher (the stream goes on for the others) */
  canceled(res: IWatchResponse): void {
    const compactRevision = Number(res.compact_revision);
    if (compactRevision > 0) {
      this.fail(watchTooOld(this.prefix, this.lastRevision, compactRevision), compactRevision);
    } else {
      this.lost(new Error(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
    }
  }

  /** @internal events, or this watcher's own progress notification */
  respond(generation: number, res: IWatchResponse): void {
    if (this.stopped || generation !== this.generation) return;
    if (res.events.length > 0) {
      // All events of one revision come in one response; anything at or below the floor was delivered before
      // a reconnect already.
      const floor = this.lastRevision;
      const fresh: RawWatchEvent[] = [];
      for (const ev of res.events) {
        const revision = Number(ev.kv.mod_revision);
        if (revision <= floor) continue;
        fresh.push({ type: ev.type, kv: ev.kv, prevKv: ev.prev_kv, revision });
        this.lastRevision = Math.max(this.lastRevision, revision);
        if (revision >= this.createdAtRevision) this.synced = true;
        this.eventsSinceProgressTick++;
      }
      if (fresh.length > 0) this.handlers.onEvents(fresh);
      return;
    }
    if (this.synced) {
      // a progress notification: every event up to header.revision has been sent
      this.reportProgress(res);
    }
  }

  /**
   * @internal a stream progress tick: whether this watcher may be told the answer to a progress request sent now
   * (only quiet, caught-up watchers: see the module comment).
   */
  progressTick(): boolean {
    const quiet = this.eventsSinceProgressTick === 0 && this.tickedSinceCreated;
    this.eventsSinceProgressTick = 0;
    this.tickedSinceCreated = true;
    return quiet && this.synced && this.handlers.onProgress !== undefined;
  }

  /** @internal the answer to a progress request this watcher was eligible for and got no event since */
  broadcastProgress(generation: number, res: IWatchResponse): void {
    if (this.stopped || generation !== this.generation || !this.synced) return;
    this.reportProgress(res);
  }

  private reportProgress(res: IWatchResponse): void {
    this.handlers.onProgress?.(String(Math.max(Number(res.header.revision), this.lastRevision)));
  }

  /**
   * @internal this watcher is no longer on a stream (the stream broke, or etcd cancelled or refused it): create it
   * again from the last revision after a backoff, or give up after the window.
   */
  lost(err: unknown): void {
    if (this.stopped || !this.onStream) return;
    this.onStream = false;
    this.generation = 0;
    this.watchId = undefined;
    clearTimeout(this.createTimer);
    const now = Date.now();
    this.disconnectedSince ??= now;
    const window = this.everConnected ? this.storage.watchReconnectTimeoutMs : this.storage.requestTimeoutMs;
    const down = now - this.disconnectedSince;
    if (this.storage.isClosed || down >= window) {
      const why = this.storage.isClosed ? 'storage closed' : `no watch stream for ${down}ms`;
      this.fail(this.storage.unavailable('watch', this.prefix, new Error(`${why}: ${errorMessage(err)}`)));
      return;
    }
    const delay = Math.min(this.backoffMs, window - down);
    this.backoffMs = Math.min(this.backoffMs * 2, 1000);
    this.retryTimer = setTimeout(() => {
      if (!this.stopped) this.register();
    }, delay);
  }

  private fail(err: StorageError, compactRevision?: number): void {
    if (this.stopped) return;
    this.stop();
    this.handlers.onError(err, compactRevision);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.createTimer);
    clearTimeout(this.retryTimer);
    this.stream.unregister(this);
    this.onStream = false;
    this.generation = 0;
    this.watchId = undefined;
  }
}

/** An etcd event as a storage event; an event that cannot be one (undecodable, a change without its value before) as the error. */
export function decodeWatchEvent(ev: RawWatchEvent): StorageEvent | StorageError {
  const { type, kv, prevKv } = ev;
  const key = kv.key.toString('utf8');
  try {
    if (type === 'Delete') {
      // without the previous value there is no object to report
      if (!prevKv || prevKv.value.length === 0) return prevKvNil(key, kv, 'DELETE');
      const prev = decodeObject(key, prevKv.value.toString('utf8'), Number(prevKv.mod_revision));
      return { type: 'DELETED', object: decodeObject(key, prevKv.value.toString('utf8'), Number(kv.mod_revision)), prevObject: prev };
    }
    const object = decodeObject(key, kv.value.toString('utf8'), Number(kv.mod_revision));
    if (kv.create_revision === kv.mod_revision) return { type: 'ADDED', object };
    // etcd leaves the previous value out when its revision is compacted; kube ends the watch rather than report an
    // update without what it replaced
    if (!prevKv) return prevKvNil(key, kv, 'PUT');
    const event: StorageEvent = { type: 'MODIFIED', object };
    if (prevKv.value.length > 0) event.prevObject = decodeObject(key, prevKv.value.toString('utf8'), Number(prevKv.mod_revision));
    return event;
  } catch (err) {
    return err instanceof StorageError ? err : new StorageError('InvalidObject', key, errorMessage(err));
  }
}

/** kube-apiserver's parseEvent (etcd3/event.go): every event but a create must carry the previous value. */
function prevKvNil(key: string, kv: IKeyValue, type: 'PUT' | 'DELETE'): StorageError {
  return new StorageError('InvalidObject', key, `etcd event received with PrevKv=nil (key=${JSON.stringify(key)}, modRevision=${kv.mod_revision}, type=${type})`);
}

/**
 * Ends our side first: the etcd3 client resets every gRPC client of the host when a still-writable watch stream
 * errors, and a cancel we asked for must not look like a failure to it.
 */
function closeStream(stream: WatchStream): void {
  try {
    stream.end();
  } catch {
    // already ended
  }
  try {
    stream.cancel();
  } catch {
    // already cancelled
  }
}
