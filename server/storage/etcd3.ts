// Storage on a real etcd (v3 API through the `etcd3` package), laid out and behaving as kube-apiserver's
// k8s.io/apiserver/pkg/storage/etcd3 store: values are JSON without metadata.resourceVersion, which is set from
// the key's mod_revision on every read; creates, updates and deletes are transactions guarded on the revision.
//
// Fault handling is ours, not the client's: the etcd3 package's default cockatiel policies (3 retries and a
// per-host circuit breaker) are replaced by pass-throughs, because a breaker that is open, or half-open with a
// probe call that never returns, keeps failing calls after etcd is back. Instead every call has a deadline,
// reads that provably did not reach etcd are retried a few times within it, and gRPC is told to reconnect fast.
//
// Watches (etcd3-watch.ts) share one gRPC watch stream and survive an etcd restart: after a lost stream each is
// re-established from its last delivered revision (so nothing is missed or repeated) for up to
// watchReconnectTimeoutMs, after which the watch ends with onError('Unavailable'). A watch whose revision was
// compacted meanwhile ends with ResourceVersionTooOld, and the consumer re-lists, as a kube-apiserver reflector does.
import {
  ClientClosedError,
  CompareResult,
  CompareTarget,
  Etcd3,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCInternalError,
  GRPCUnavailableError,
  type IKeyValue,
  type IOptions,
  type IRangeRequest,
  type IRangeResponse,
  type KVClient,
} from 'etcd3';
import type { KubeObject } from '../api/types.js';
import {
  StorageError,
  type ListOptions,
  type ListResult,
  type Preconditions,
  type Storage,
  type StorageWatch,
  type WatchHandlers,
} from './interface.js';
import { decodeContinue, encodeContinue, prefixRangeEnd } from './keys.js';
import { ReadCoalescer } from './read-coalescer.js';
import {
  checkPreconditions,
  continueExpiredMessage,
  decodeObject,
  checkWriteSize,
  encodeObject,
  errorMessage,
  etcdRequestTooLargeMessage,
  keyExists,
  keyNotFound,
  listExpiredMessage,
  parseRevision,
  storedEqual,
  writtenObject,
} from './stored-object.js';
import { SharedWatchStream } from './etcd3-watch.js';
import { WatchFeeds } from './etcd3-watch-feed.js';

export interface Etcd3StorageOptions {
  /** etcd client URLs: a list, or one string with commas ("http://127.0.0.1:2379"). */
  endpoints: string | string[];
  /** Upper bound for every etcd call, in ms (default 5000). */
  requestTimeoutMs?: number;
  /**
   * How long a watch that lost etcd keeps trying to re-establish before it ends with Unavailable, in ms
   * (default 30000). A watch that never connected gives up after requestTimeoutMs.
   */
  watchReconnectTimeoutMs?: number;
  /** How often a quiet watch asks etcd for its progress (onProgress), in ms; 0 disables (default 5000). */
  progressIntervalMs?: number;
  /** More etcd3 client options (TLS credentials, auth, gRPC channel options). */
  client?: Omit<IOptions, 'hosts'>;
}

type CallOptions = NonNullable<Parameters<KVClient['range']>[1]>;
type FaultPolicy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/**
 * A policy that just runs the call. etcd3 only ever calls execute() on its policies; the cast skips cockatiel's
 * event properties, which nothing reads, so that cockatiel need not be a direct dependency.
 */
const neverAborted = new AbortController().signal;
// etcd3 ignores the signal (it only forwards it to the policy's function), so one shared signal serves every
// call instead of an AbortController per call.
const passThroughPolicy = {
  execute: async <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> => fn({ signal: neverAborted }),
} as unknown as FaultPolicy;

/** Reads that failed without reaching etcd are retried this many times, within the call's deadline. */
const maxReadAttempts = 3;
/** etcd's default --max-txn-ops: the most ranges one coalesced read Txn carries. */
const maxTxnOps = 128;
/** kube-apiserver's cap on one paging range request. */
const maxPageBatch = 10_000;

class DeadlineExceeded extends Error {}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The error means etcd could not be reached or did not answer in time (as opposed to answering with an error). */
function isTransient(err: unknown): boolean {
  return (
    err instanceof DeadlineExceeded ||
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    err instanceof GRPCCancelledError ||
    err instanceof GRPCInternalError ||
    err instanceof ClientClosedError
  );
}

/** The call failed before a connection existed, so etcd cannot have applied it: safe to retry even a write. */
function neverSent(err: unknown): boolean {
  return err instanceof GRPCUnavailableError && /No connection established|ECONNREFUSED|Connection refused/i.test(err.message);
}

export class Etcd3Storage implements Storage {
  readonly kind = 'etcd3' as const;
  /** @internal */
  readonly client: Etcd3;
  /** @internal the endpoints, for messages */
  readonly endpointText: string;
  /** @internal */
  readonly requestTimeoutMs: number;
  /** @internal */
  readonly watchReconnectTimeoutMs: number;
  /** @internal */
  readonly progressIntervalMs: number;
  private readonly watches = new Set<StorageWatch>();
  /** the watches of each key range share an etcd watcher; every etcd watcher is on one gRPC watch stream */
  private readonly feeds: WatchFeeds;
  private closed = false;
  private readonly reads = new ReadCoalescer<IRangeRequest, IRangeResponse>({
    sendBatch: (requests) => this.rangeBatch(requests),
    maxBatch: maxTxnOps,
    isTransient,
  });

  constructor(opts: Etcd3StorageOptions) {
    const endpoints = (Array.isArray(opts.endpoints) ? opts.endpoints : opts.endpoints.split(','))
      .map((e) => e.trim())
      .filter((e) => e !== '');
    if (endpoints.length === 0) throw new Error('Etcd3Storage: no etcd endpoints given');
    this.endpointText = endpoints.join(',');
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 5000;
    this.watchReconnectTimeoutMs = opts.watchReconnectTimeoutMs ?? 30_000;
    this.progressIntervalMs = opts.progressIntervalMs ?? 5000;
    const timeout = this.requestTimeoutMs;
    this.client = new Etcd3({
      ...opts.client,
      hosts: endpoints,
      faultHandling: { host: () => passThroughPolicy, global: passThroughPolicy },
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
      grpcOptions: {
        // A fresh channel after a failure must not inherit a shared subchannel that sits in reconnect backoff
        // (up to 2 minutes by default): that is what keeps a client failing after etcd is back.
        'grpc.use_local_subchannel_pool': 1,
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 1000,
        // Notice a dead connection (etcd frozen, network gone) on watch streams; etcd allows pings every 5 s.
        'grpc.keepalive_time_ms': 10_000,
        'grpc.keepalive_timeout_ms': Math.min(timeout, 10_000),
        // kube-apiserver lifts the receive limit too: a large list is one response.
        'grpc.max_receive_message_length': -1,
        ...opts.client?.grpcOptions,
      },
    });
    this.feeds = new WatchFeeds(this, new SharedWatchStream(this));
  }

  /** @internal the error of any call after close() */
  closedError(key: string): StorageError {
    return new StorageError('Unavailable', key, `etcd storage for ${this.endpointText} is closed`);
  }

  /** @internal */
  unavailable(what: string, key: string, err: unknown): StorageError {
    // grpc-js appends an empty "Resolution note:" to connection errors
    const cause = err instanceof DeadlineExceeded ? `no answer within ${this.requestTimeoutMs}ms` : errorMessage(err).replace(/\s*Resolution note:\s*$/, '');
    return new StorageError('Unavailable', key, `etcd ${this.endpointText} is unavailable (${what} ${key}): ${cause}`);
  }

  /** etcd's answer as a storage error when it has a meaning here, the unchanged error otherwise. */
  private interpret(what: string, key: string, err: unknown, paging = false): unknown {
    if (err instanceof StorageError) return err;
    if (isTransient(err)) return this.unavailable(what, key, err);
    const msg = errorMessage(err);
    // kube's handlers test for this exact etcd error (isTooLargeError, k8s.io/apiserver/pkg/endpoints/handlers/rest.go)
    // (the etcd3 package casts the gRPC error: its message is "<code> <CODE NAME>: <details>")
    if (msg === `3 INVALID_ARGUMENT: ${etcdRequestTooLargeMessage}`) {
      return new StorageError('RequestTooLarge', key, etcdRequestTooLargeMessage);
    }
    if (msg.includes('required revision has been compacted')) {
      return new StorageError('ResourceVersionTooOld', key, paging ? continueExpiredMessage : listExpiredMessage);
    }
    if (msg.includes('required revision is a future revision')) {
      return new StorageError('InvalidObject', key, `Too large resource version (${msg})`);
    }
    return err;
  }

  /** One etcd call, bounded by requestTimeoutMs; retried only where a retry cannot apply anything twice. */
  private async call<T>(what: string, key: string, idempotent: boolean, fn: (options: CallOptions) => Promise<T>, paging = false): Promise<T> {
    if (this.closed) throw this.closedError(key);
    try {
      return await this.boundedCall(idempotent, fn);
    } catch (err) {
      throw this.interpret(what, key, err, paging);
    }
  }

  /** call()'s deadline and retries; its error is etcd's (or DeadlineExceeded), not yet interpreted. */
  private async boundedCall<T>(idempotent: boolean, fn: (options: CallOptions) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.requestTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      let timer: NodeJS.Timeout | undefined;
      try {
        // The gRPC deadline should end the call; the timer is the guarantee in case something before the wire
        // (channel setup, auth) does not honour it.
        const guard = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new DeadlineExceeded()), Math.max(0, deadline - Date.now()) + 250);
        });
        return await Promise.race([fn({ deadline }), guard]);
      } catch (err) {
        const backoff = 50 * 2 ** (attempt - 1);
        const retry = (idempotent ? isTransient(err) && !(err instanceof DeadlineExceeded) : neverSent(err)) && attempt < maxReadAttempts;
        if (retry && !this.closed && Date.now() + backoff < deadline) {
          await sleep(backoff);
          continue;
        }
        throw err;
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Every read goes through the coalescer: concurrent ones share one read-only Txn. */
  private range(what: string, key: string, req: IRangeRequest, paging = false): Promise<IRangeResponse> {
    if (this.closed) return Promise.reject(this.closedError(key));
    return this.reads.read({
      request: req,
      alone: () => this.call(what, key, true, (o) => this.client.kv.range(req, o), paging),
      transientError: (err) => this.interpret(what, key, err, paging),
    });
  }

  /** Several ranges as one read-only Txn, answered in order, each with the Txn's header (its revision). */
  private async rangeBatch(requests: IRangeRequest[]): Promise<IRangeResponse[]> {
    const res = await this.boundedCall(true, (o) => this.client.kv.txn({ compare: [], success: requests.map((r) => ({ request_range: r })), failure: [] }, o));
    return res.responses.map((op) => ({ ...op.response_range, header: res.header }));
  }

  private decodeKv(key: string, kv: IKeyValue, revision = Number(kv.mod_revision)): KubeObject {
    return decodeObject(key, kv.value.toString('utf8'), revision);
  }

  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    const json = encodeObject(key, obj);
    checkWriteSize(key, json, undefined, 'client');
    const k = Buffer.from(key);
    const res = await this.call('create', key, false, (o) =>
      this.client.kv.txn(
        {
          compare: [{ key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key: k, value: Buffer.from(json) } }],
          failure: [],
        },
        o,
      ),
    );
    if (!res.succeeded) throw keyExists(key);
    return writtenObject(key, obj, json, Number(res.header.revision));
  }

  async get(key: string): Promise<KubeObject> {
    const res = await this.range('get', key, { key: Buffer.from(key) });
    const kv = res.kvs[0];
    if (!kv) throw keyNotFound(key);
    return this.decodeKv(key, kv);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const recursive = prefix.endsWith('/');
    const rangeEnd = recursive ? prefixRangeEnd(Buffer.from(prefix)) : undefined;
    let startKey = prefix;
    let revision = 0;
    if (opts.continue) {
      const token = decodeContinue(opts.continue, prefix);
      startKey = token.startKey;
      revision = token.revision;
    } else {
      revision = parseRevision(prefix, opts.resourceVersion) ?? 0;
    }
    const paging = opts.continue !== undefined && opts.continue !== '';
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    let batch = limit;
    const items: KubeObject[] = [];
    let lastKey = '';
    let hasMore = false;
    let remaining: number | undefined;
    // As kube-apiserver's GetList: keep reading batches at the first batch's revision until limit items match.
    for (;;) {
      const res = await this.range('list', prefix, { key: Buffer.from(startKey), range_end: rangeEnd, limit: batch, revision }, paging).catch(
        async (err: unknown) => {
          if (err instanceof StorageError && err.code === 'InvalidObject' && err.message.startsWith('Too large')) {
            // the same message as the memory backend (and kube-apiserver's watch cache)
            const current = Number(await this.currentRevision());
            throw new StorageError('InvalidObject', prefix, `Too large resource version: ${revision}, current: ${current}`, current);
          }
          throw err;
        },
      );
      if (revision === 0) revision = Number(res.header.revision);
      hasMore = res.more;
      let examined = 0;
      for (const kv of res.kvs) {
        if (limit && items.length >= limit) {
          hasMore = true;
          break;
        }
        examined++;
        lastKey = kv.key.toString('utf8');
        const obj = this.decodeKv(lastKey, kv);
        if (!opts.predicate || opts.predicate(obj)) items.push(obj);
      }
      remaining = Number(res.count) - examined;
      if (!hasMore || !limit || items.length >= limit) break;
      batch = Math.min(batch * 2, maxPageBatch);
      startKey = `${lastKey}\u0000`;
    }
    const result: ListResult = { items, resourceVersion: String(revision) };
    if (hasMore) {
      result.continue = encodeContinue(`${lastKey}\u0000`, prefix, revision);
      // as kube-apiserver: the count is only exact when no predicate skipped keys
      if (!opts.predicate) result.remainingItemCount = remaining;
    }
    return result;
  }

  async guaranteedUpdate(
    key: string,
    tryUpdate: (current: KubeObject | undefined) => Promise<KubeObject> | KubeObject,
    opts: { preconditions?: Preconditions; allowCreate?: boolean } = {},
  ): Promise<KubeObject> {
    const k = Buffer.from(key);
    let state: IRangeResponse = await this.range('update', key, { key: k });
    for (;;) {
      const kv = state.kvs[0];
      if (!kv && !opts.allowCreate) throw keyNotFound(key);
      const current = kv ? this.decodeKv(key, kv) : undefined;
      checkPreconditions(key, current ?? {}, opts.preconditions, Number(kv?.mod_revision ?? state.header.revision));
      const updated = await tryUpdate(current);
      const json = encodeObject(key, updated);
      if (kv && storedEqual(json, kv.value.toString('utf8'))) return this.decodeKv(key, kv);
      checkWriteSize(key, json, kv ? Number(kv.mod_revision) : undefined, 'client');
      const guard = kv
        ? { key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: kv.mod_revision }
        : { key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 };
      const res = await this.call('update', key, false, (o) =>
        this.client.kv.txn(
          {
            compare: [guard],
            success: [{ request_put: { key: k, value: Buffer.from(json) } }],
            // lost the race: read the winner's version in the same round trip and try again on top of it
            failure: [{ request_range: { key: k } }],
          },
          o,
        ),
      );
      if (res.succeeded) return writtenObject(key, updated, json, Number(res.header.revision));
      state = res.responses[0]!.response_range;
    }
  }

  async delete(key: string, preconditions?: Preconditions, validateDeletion?: (current: KubeObject) => Promise<void> | void): Promise<KubeObject> {
    const k = Buffer.from(key);
    let state: IRangeResponse = await this.range('delete', key, { key: k });
    for (;;) {
      const kv = state.kvs[0];
      if (!kv) throw keyNotFound(key);
      const current = this.decodeKv(key, kv);
      checkPreconditions(key, current, preconditions, Number(kv.mod_revision));
      await validateDeletion?.(current);
      const res = await this.call('delete', key, false, (o) =>
        this.client.kv.txn(
          {
            compare: [{ key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: kv.mod_revision }],
            success: [{ request_delete_range: { key: k, prev_kv: true } }],
            failure: [{ request_range: { key: k } }],
          },
          o,
        ),
      );
      if (res.succeeded) {
        const last = res.responses[0]?.response_delete_range?.prev_kvs?.[0] ?? kv;
        // the returned object carries the deletion revision, as the DELETED watch event does
        return this.decodeKv(key, last, Number(res.header.revision));
      }
      state = res.responses[0]!.response_range;
    }
  }

  /**
   * fromRevision "0" or "" means "from now", as for kube-apiserver: the current objects under prefix arrive as
   * ADDED events first, then every later change.
   */
  watch(prefix: string, fromRevision: string, handlers: WatchHandlers): StorageWatch {
    const w = this.feeds.watch(prefix, fromRevision, handlers);
    // a watch never fails inside watch() (a bad revision or a closed storage fails it in a microtask), so it is
    // known here before it forgets itself
    this.watches.add(w);
    return w;
  }

  /** @internal */
  forgetWatch(w: StorageWatch): void {
    this.watches.delete(w);
  }

  /** @internal whether close() was called */
  get isClosed(): boolean {
    return this.closed;
  }

  async currentRevision(): Promise<string> {
    // as kube-apiserver's GetCurrentResourceVersion: any cheap linearizable read carries the revision
    const res = await this.range('current revision', '/', { key: Buffer.from('/'), count_only: true });
    return String(res.header.revision);
  }

  /**
   * A bounded linearizable read of `key` (kube-apiserver's prober reads "<--etcd-prefix>/health",
   * server/storage/etcd-health-check.ts): it needs a leader and a quorum.
   */
  async healthCheck(key = '/registry/health'): Promise<void> {
    await this.range('health check', key, { key: Buffer.from(key), count_only: true });
  }

  /**
   * Compacts etcd's history up to revision (for all keys, not only this storage's), waiting until it is
   * physically applied. kube-apiserver runs such a compactor every 5 minutes; tests call it directly.
   */
  async compact(revision: number | string): Promise<void> {
    await this.call('compact', '', false, (o) => this.client.kv.compact({ revision: String(revision), physical: true }, o));
  }

  /** Stops every watch (without calling their handlers) and closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watches]) w.stop();
    this.client.close();
  }
}
