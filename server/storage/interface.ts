// The storage contract both backends (etcd3, memory) implement and one shared contract suite tests.
// Objects go in and come out as plain JSON; metadata.resourceVersion is always the store's revision
// (etcd mod_revision, or the memory backend's single counter), written by the store, never trusted from input.
import type { KubeObject } from '../api/types.js';

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  /** compare-and-swap lost: the stored resourceVersion (or uid precondition) is not the expected one */
  | 'Conflict'
  /** the requested revision was compacted away (watch or list at an old resourceVersion) */
  | 'ResourceVersionTooOld'
  /** the backend cannot be reached or timed out */
  | 'Unavailable'
  | 'InvalidObject'
  /** etcd refused the write as over its --max-request-bytes: "etcdserver: request is too large" */
  | 'RequestTooLarge';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** for Conflict: the current object's resourceVersion; for ResourceVersionTooOld: the oldest still available */
    readonly currentRevision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export interface Preconditions {
  /** fail with Conflict unless the stored object has this resourceVersion */
  resourceVersion?: string;
  /** fail with Conflict unless the stored object has this uid */
  uid?: string;
}

export interface ListOptions {
  /** 0 or absent: no limit */
  limit?: number;
  /** an opaque token from a previous page (ListResult.continue) */
  continue?: string;
  /**
   * Read at this revision (exact). Absent: the latest. A compacted revision fails with ResourceVersionTooOld.
   * With continue, the token's revision wins.
   */
  resourceVersion?: string;
  /** Applied in the store while paging, so limit counts matching items as kube-apiserver does. */
  predicate?: (obj: KubeObject) => boolean;
}

export interface ListResult {
  items: KubeObject[];
  /** the revision this list is consistent with */
  resourceVersion: string;
  /** set when more items remain */
  continue?: string;
  remainingItemCount?: number;
}

export interface StorageEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** For DELETED: the last state of the object, with metadata.resourceVersion set to the deletion revision. */
  object: KubeObject;
  /** For MODIFIED and DELETED: the state before the event, when the backend knows it. */
  prevObject?: KubeObject;
}

export interface WatchHandlers {
  onEvent(event: StorageEvent): void;
  /** The watch ended because of an error (e.g. ResourceVersionTooOld, Unavailable); no more events follow. */
  onError(err: StorageError): void;
  /** Called periodically with the store's current revision, so bookmarks can be sent on quiet watches. */
  onProgress?(resourceVersion: string): void;
}

export interface StorageWatch {
  stop(): void;
}

export interface Storage {
  readonly kind: 'etcd3' | 'memory';

  /** Stores a new object; KeyExists if the key is taken. Returns the object with its new resourceVersion. */
  create(key: string, obj: KubeObject): Promise<KubeObject>;

  /** KeyNotFound when absent. */
  get(key: string): Promise<KubeObject>;

  /** All objects whose key starts with prefix (a prefix ends with "/"), sorted by key. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;

  /**
   * Read-modify-write with compare-and-swap: reads the current object, calls tryUpdate, and writes the result
   * only if the object is unchanged since the read; retries on a lost race. tryUpdate may throw to abort
   * (the error propagates unchanged). Preconditions are checked against the current object on every try.
   * If tryUpdate returns the current object unchanged (deep-equal), nothing is written and the current
   * object is returned. KeyNotFound when absent, unless allowCreate (then tryUpdate gets undefined).
   */
  guaranteedUpdate(
    key: string,
    tryUpdate: (current: KubeObject | undefined) => Promise<KubeObject> | KubeObject,
    opts?: { preconditions?: Preconditions; allowCreate?: boolean },
  ): Promise<KubeObject>;

  /**
   * Deletes the key if preconditions hold; returns the last stored state. KeyNotFound when absent.
   * As kube's conditionalDelete: the preconditions and validateDeletion (admission, which may throw to abort)
   * are checked against the current object, and the delete applies only if the object is still that one; a
   * write that lands in between makes it read again and retry, so only the caller's own preconditions can fail.
   */
  delete(key: string, preconditions?: Preconditions, validateDeletion?: (current: KubeObject) => Promise<void> | void): Promise<KubeObject>;

  /**
   * Streams events for keys under prefix (or the single key) that happen strictly after fromRevision.
   * Events for one watch are delivered in revision order. A compacted fromRevision calls onError
   * with ResourceVersionTooOld (asynchronously, never by throwing).
   */
  watch(prefix: string, fromRevision: string, handlers: WatchHandlers): StorageWatch;

  /** The store's current revision. */
  currentRevision(): Promise<string>;

  /** Resolves when the backend answers a read of `key`; rejects with Unavailable and the reason otherwise (/livez, /readyz). */
  healthCheck(key?: string): Promise<void>;

  close(): Promise<void>;
}
