// An in-process store with etcd's semantics: one revision counter for all keys, MVCC history so that lists and
// watches at an older revision work until that revision is compacted, compare-and-swap updates. Values are kept
// in their stored form (JSON without resourceVersion), so nothing a caller holds is ever shared with the store.
import type { KubeObject } from '../api/types.js';
import {
  StorageError,
  type ListOptions,
  type ListResult,
  type Preconditions,
  type Storage,
  type StorageEvent,
  type StorageWatch,
  type WatchHandlers,
} from './interface.js';
import { decodeContinue, encodeContinue } from './keys.js';
import {
  checkPreconditions,
  continueExpiredMessage,
  decodeObject,
  checkWriteSize,
  encodeObject,
  keyExists,
  keyMatches,
  keyNotFound,
  listExpiredMessage,
  parseRevision,
  storedEqual,
  watchConsumerFailed,
  watchTooOld,
  writtenObject,
} from './stored-object.js';

export interface MemoryStorageOptions {
  /** How many revisions of history to keep for lists and watches at older revisions (default 10000). */
  historyLimit?: number;
  /** How often a watch gets onProgress with the current revision, in ms; 0 disables (default 5000). */
  progressIntervalMs?: number;
}

/** One version of one key. Immutable once created; identity changes on every write (used for compare-and-swap). */
interface StoredValue {
  readonly json: string;
  readonly createRevision: number;
  readonly modRevision: number;
}

/** The single change made at one revision. */
interface Change {
  readonly revision: number;
  readonly key: string;
  /** the new value; undefined for a delete */
  readonly value: StoredValue | undefined;
  /** the value before; undefined for a create */
  readonly prev: StoredValue | undefined;
}

type WatchItem = { change: Change } | { added: { key: string; value: StoredValue } } | { progress: number };

function eventOf(change: Change): StorageEvent {
  const { key, value, prev } = change;
  if (value && !prev) return { type: 'ADDED', object: decodeObject(key, value.json, value.modRevision) };
  if (value && prev) {
    return {
      type: 'MODIFIED',
      object: decodeObject(key, value.json, value.modRevision),
      prevObject: decodeObject(key, prev.json, prev.modRevision),
    };
  }
  // a delete always has prev: only existing keys can be deleted
  const last = prev!;
  return {
    type: 'DELETED',
    object: decodeObject(key, last.json, change.revision),
    prevObject: decodeObject(key, last.json, last.modRevision),
  };
}

class MemoryWatch implements StorageWatch {
  private queue: WatchItem[] = [];
  private draining = false;
  private stopped = false;
  private progressTimer: NodeJS.Timeout | undefined;
  /** Changes at or before this revision are not for this watch (it may start in the future). */
  after = Number.MAX_SAFE_INTEGER;

  constructor(
    private readonly store: MemoryStorage,
    readonly prefix: string,
    private readonly handlers: WatchHandlers,
    progressIntervalMs: number,
  ) {
    if (progressIntervalMs > 0 && handlers.onProgress) {
      this.progressTimer = setInterval(() => this.push({ progress: this.store.revisionNow() }), progressIntervalMs);
      this.progressTimer.unref();
    }
  }

  push(item: WatchItem): void {
    if (this.stopped) return;
    this.queue.push(item);
    if (!this.draining) {
      this.draining = true;
      // never deliver from inside watch() or a write: callers get their promise first, handlers run after
      queueMicrotask(() => this.drain());
    }
  }

  /** Ends the watch with an error, delivered asynchronously after anything already queued. */
  fail(err: StorageError): void {
    if (this.stopped) return;
    queueMicrotask(() => {
      if (this.stopped) return;
      this.stop();
      this.handlers.onError(err);
    });
  }

  private drain(): void {
    while (!this.stopped && this.queue.length > 0) {
      const item = this.queue.shift()!;
      if ('change' in item) this.deliver(eventOf(item.change));
      else if ('added' in item) {
        const { key, value } = item.added;
        this.deliver({ type: 'ADDED', object: decodeObject(key, value.json, value.modRevision) });
      } else this.handlers.onProgress?.(String(item.progress));
    }
    this.draining = false;
  }

  /** A consumer that throws ends this watch with the error, as the etcd3 backend's watch does. */
  private deliver(event: StorageEvent): void {
    try {
      this.handlers.onEvent(event);
    } catch (err) {
      this.stop();
      this.handlers.onError(watchConsumerFailed(this.prefix, event, err));
    }
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    if (this.progressTimer) clearInterval(this.progressTimer);
    this.store.forgetWatch(this);
  }
}

export class MemoryStorage implements Storage {
  readonly kind = 'memory' as const;
  /** etcd starts an empty store at revision 1; the first write is revision 2. */
  private revision = 1;
  /** Revisions up to and including this one have no history: lists at older revisions and watches from them fail. */
  private compactedRevision = 0;
  private readonly current = new Map<string, StoredValue>();
  /** Every change after compactedRevision, in revision order. */
  private history: Change[] = [];
  private readonly watches = new Set<MemoryWatch>();
  private readonly historyLimit: number;
  private readonly progressIntervalMs: number;
  private closed = false;

  constructor(opts: MemoryStorageOptions = {}) {
    this.historyLimit = Math.max(1, opts.historyLimit ?? 10_000);
    this.progressIntervalMs = opts.progressIntervalMs ?? 5000;
  }

  /** @internal the current revision, synchronously (for watch progress). */
  revisionNow(): number {
    return this.revision;
  }

  /** @internal */
  forgetWatch(w: MemoryWatch): void {
    this.watches.delete(w);
  }

  /** The oldest revision still readable (lists at it work, watches from it work). */
  get oldestRevision(): number {
    return this.compactedRevision;
  }

  private checkOpen(key: string): void {
    if (this.closed) throw new StorageError('Unavailable', key, 'memory storage is closed');
  }

  /** Applies one change at a new revision, records it and tells the watches. */
  private commit(key: string, json: string | undefined): number {
    const prev = this.current.get(key);
    const revision = ++this.revision;
    const value = json === undefined ? undefined : { json, createRevision: prev?.createRevision ?? revision, modRevision: revision };
    if (value) this.current.set(key, value);
    else this.current.delete(key);
    const change: Change = { revision, key, value, prev };
    this.history.push(change);
    for (const w of this.watches) if (revision > w.after && keyMatches(w.prefix, key)) w.push({ change });
    if (this.revision - this.compactedRevision > this.historyLimit) this.compact(this.revision - this.historyLimit);
    return revision;
  }

  /**
   * Forgets the history up to and including revision, as etcd's compaction does: lists at older revisions and
   * watches from older revisions fail with ResourceVersionTooOld afterwards. Compacting to an already compacted
   * revision is a no-op; a future revision is an error.
   */
  compact(revision: number | string): void {
    const rev = Number(revision);
    if (!Number.isSafeInteger(rev) || rev < 0) throw new Error(`invalid compaction revision ${String(revision)}`);
    if (rev > this.revision) throw new Error(`cannot compact to ${rev}: it is a future revision (current ${this.revision})`);
    if (rev <= this.compactedRevision) return;
    this.compactedRevision = rev;
    const keep = this.history.findIndex((c) => c.revision > rev);
    this.history = keep < 0 ? [] : this.history.slice(keep);
  }

  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    this.checkOpen(key);
    const json = encodeObject(key, obj);
    if (this.current.has(key)) throw keyExists(key);
    checkWriteSize(key, json, undefined, 'client+etcd');
    const revision = this.commit(key, json);
    return writtenObject(key, obj, json, revision);
  }

  async get(key: string): Promise<KubeObject> {
    this.checkOpen(key);
    const stored = this.current.get(key);
    if (!stored) throw keyNotFound(key);
    return decodeObject(key, stored.json, stored.modRevision);
  }

  /** The keys under prefix at revision, sorted: the current state with every later change undone. */
  private stateAt(prefix: string, revision: number): Array<[string, StoredValue]> {
    const state = new Map<string, StoredValue>();
    for (const [key, value] of this.current) if (keyMatches(prefix, key)) state.set(key, value);
    for (let i = this.history.length - 1; i >= 0 && this.history[i]!.revision > revision; i--) {
      const change = this.history[i]!;
      if (!keyMatches(prefix, change.key)) continue;
      if (change.prev) state.set(change.key, change.prev);
      else state.delete(change.key);
    }
    return [...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen(prefix);
    let startKey = prefix;
    let revision: number;
    if (opts.continue) {
      const token = decodeContinue(opts.continue, prefix);
      startKey = token.startKey;
      revision = token.revision;
    } else {
      revision = parseRevision(prefix, opts.resourceVersion) ?? this.revision;
    }
    if (revision > this.revision) {
      throw new StorageError('InvalidObject', prefix, `Too large resource version: ${revision}, current: ${this.revision}`, this.revision);
    }
    if (revision < this.compactedRevision) {
      throw new StorageError('ResourceVersionTooOld', prefix, opts.continue ? continueExpiredMessage : listExpiredMessage, this.compactedRevision);
    }
    const entries = this.stateAt(prefix, revision).filter(([key]) => key >= startKey);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const items: KubeObject[] = [];
    let lastKey = '';
    let examined = 0;
    let hasMore = false;
    for (const [key, value] of entries) {
      if (limit && items.length >= limit) {
        hasMore = true;
        break;
      }
      examined++;
      lastKey = key;
      const obj = decodeObject(key, value.json, value.modRevision);
      if (!opts.predicate || opts.predicate(obj)) items.push(obj);
    }
    const result: ListResult = { items, resourceVersion: String(revision) };
    if (hasMore) {
      result.continue = encodeContinue(`${lastKey}\u0000`, prefix, revision);
      // as kube-apiserver: a count is only exact when every remaining key would be returned
      if (!opts.predicate) result.remainingItemCount = entries.length - examined;
    }
    return result;
  }

  async guaranteedUpdate(
    key: string,
    tryUpdate: (current: KubeObject | undefined) => Promise<KubeObject> | KubeObject,
    opts: { preconditions?: Preconditions; allowCreate?: boolean } = {},
  ): Promise<KubeObject> {
    for (;;) {
      this.checkOpen(key);
      const stored = this.current.get(key);
      if (!stored && !opts.allowCreate) throw keyNotFound(key);
      const current = stored ? decodeObject(key, stored.json, stored.modRevision) : undefined;
      checkPreconditions(key, current ?? {}, opts.preconditions, stored?.modRevision ?? this.revision);
      const updated = await tryUpdate(current);
      const json = encodeObject(key, updated);
      this.checkOpen(key);
      // compare-and-swap: someone else wrote the key while tryUpdate ran; start over from their version
      if (this.current.get(key) !== stored) continue;
      if (stored && storedEqual(json, stored.json)) return decodeObject(key, stored.json, stored.modRevision);
      checkWriteSize(key, json, stored?.modRevision, 'client+etcd');
      const revision = this.commit(key, json);
      return writtenObject(key, updated, json, revision);
    }
  }

  async delete(key: string, preconditions?: Preconditions, validateDeletion?: (current: KubeObject) => Promise<void> | void): Promise<KubeObject> {
    for (;;) {
      this.checkOpen(key);
      const stored = this.current.get(key);
      if (!stored) throw keyNotFound(key);
      const current = decodeObject(key, stored.json, stored.modRevision);
      checkPreconditions(key, current, preconditions, stored.modRevision);
      await validateDeletion?.(current);
      this.checkOpen(key);
      // conditional delete: someone wrote the key while validateDeletion ran; check again on their version
      if (this.current.get(key) !== stored) continue;
      const revision = this.commit(key, undefined);
      return decodeObject(key, stored.json, revision);
    }
  }

  /**
   * fromRevision "0" or "" means "from now", as for kube-apiserver: the current objects under prefix arrive as
   * ADDED events first, then every later change.
   */
  watch(prefix: string, fromRevision: string, handlers: WatchHandlers): StorageWatch {
    const w = new MemoryWatch(this, prefix, handlers, this.progressIntervalMs);
    if (this.closed) {
      w.fail(new StorageError('Unavailable', prefix, 'memory storage is closed'));
      return w;
    }
    let from: number | undefined;
    try {
      from = parseRevision(prefix, fromRevision);
    } catch (err) {
      w.fail(err as StorageError);
      return w;
    }
    if (from !== undefined && from < this.compactedRevision) {
      w.fail(watchTooOld(prefix, from, this.compactedRevision));
      return w;
    }
    // Queue the backlog and register in the same synchronous step, so no change can fall between them.
    if (from === undefined) {
      for (const [key, value] of this.stateAt(prefix, this.revision)) w.push({ added: { key, value } });
    } else {
      for (const change of this.history) {
        if (change.revision > from && keyMatches(prefix, change.key)) w.push({ change });
      }
    }
    w.after = from ?? this.revision;
    this.watches.add(w);
    return w;
  }

  async currentRevision(): Promise<string> {
    this.checkOpen('');
    return String(this.revision);
  }

  async healthCheck(_key?: string): Promise<void> {
    this.checkOpen('');
  }

  /** Stops every watch (without calling their handlers) and refuses further calls with Unavailable. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of [...this.watches]) w.stop();
  }
}
