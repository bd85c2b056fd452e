// How both storage backends turn objects into stored values and back, and the checks they share, so that the
// memory and etcd3 backends cannot drift apart on what a resourceVersion, a no-op update or a precondition means.
import { jsonRoundTripObject, notPlainJSON } from '../api/deep-copy.js';
import type { KubeObject } from '../api/types.js';
import { StorageError, type Preconditions, type StorageEvent } from './interface.js';

export function keyNotFound(key: string): StorageError {
  return new StorageError('KeyNotFound', key, `key not found: ${key}`);
}

export function keyExists(key: string): StorageError {
  return new StorageError('KeyExists', key, `key exists: ${key}`);
}

/**
 * The stored form: JSON without metadata.resourceVersion, which kube-apiserver never persists (the revision
 * of the key is the version). The input is not modified; anything that is not a JSON object is InvalidObject.
 */
export function encodeObject(key: string, obj: KubeObject): string {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new StorageError('InvalidObject', key, `object to store at ${key} is not a JSON object`);
  }
  let stripped: KubeObject = obj;
  const meta = obj.metadata;
  if (meta !== null && typeof meta === 'object' && 'resourceVersion' in meta) {
    const { resourceVersion: _dropped, ...rest } = meta;
    stripped = { ...obj, metadata: rest };
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(stripped);
  } catch (err) {
    throw new StorageError('InvalidObject', key, `object to store at ${key} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (json === undefined) throw new StorageError('InvalidObject', key, `object to store at ${key} is not JSON`);
  return json;
}

/** A fresh object from its stored form, with metadata.resourceVersion set to the revision that wrote it. */
export function decodeObject(key: string, json: string, revision: number): KubeObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new StorageError('InvalidObject', key, `stored value at ${key} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new StorageError('InvalidObject', key, `stored value at ${key} is not a JSON object`);
  }
  const obj = parsed as KubeObject;
  const meta: unknown = obj.metadata;
  // The parse is this caller's own: resourceVersion is set on its metadata in place (a key the stored form lacks goes
  // last, one it has keeps its place, as a spread into a copy would do) rather than on a copy of it.
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) (meta as NonNullable<KubeObject['metadata']>).resourceVersion = String(revision);
  else obj.metadata = { ...(meta !== null && typeof meta === 'object' ? meta : {}), resourceVersion: String(revision) };
  return obj;
}

/**
 * The object a write stored, as decodeObject would read `json` (encodeObject(key, written)) back — a fresh object
 * with metadata.resourceVersion set to the write's revision — copied from `written` instead of parsed from the
 * text (a create's or update's answer: the parse was ≈ 3–10 µs of every write). A value JSON would transform in
 * some other way than a plain copy does is parsed from the text, as before.
 */
export function writtenObject(key: string, written: KubeObject, json: string, revision: number): KubeObject {
  const meta: unknown = written.metadata;
  // decodeObject's other cases (no metadata object) are rare: they take the parse
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta) || Array.isArray(written)) return decodeObject(key, json, revision);
  // the stored form has no resourceVersion (encodeObject drops it); decodeObject appends the revision last
  const metaCopy = jsonRoundTripObject(meta, { without: 'resourceVersion' });
  if (metaCopy === notPlainJSON) return decodeObject(key, json, revision);
  metaCopy['resourceVersion'] = String(revision);
  const out = jsonRoundTripObject(written, { replace: { key: 'metadata', value: metaCopy } });
  return out === notPlainJSON ? decodeObject(key, json, revision) : (out as KubeObject);
}

/** Structural equality of two JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** Whether two stored forms hold the same object (kube compares the encoded bytes; key order is irrelevant here). */
export function storedEqual(a: string, b: string): boolean {
  return a === b || jsonEqual(JSON.parse(a), JSON.parse(b));
}

/** storage.Preconditions.Check: a mismatch is a Conflict whose message kube-apiserver shows to the client verbatim. */
export function checkPreconditions(key: string, current: KubeObject, preconditions: Preconditions | undefined, currentRevision: number): void {
  if (!preconditions) return;
  const meta = current.metadata ?? {};
  if (preconditions.uid !== undefined && preconditions.uid !== (meta.uid ?? '')) {
    throw new StorageError(
      'Conflict',
      key,
      `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${meta.uid ?? ''}`,
      currentRevision,
    );
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== (meta.resourceVersion ?? '')) {
    throw new StorageError(
      'Conflict',
      key,
      `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
      currentRevision,
    );
  }
}

/**
 * A resourceVersion string as a revision number. Absent, "" and "0" mean "no particular revision" (undefined),
 * as kube-apiserver treats them for lists and watches.
 */
export function parseRevision(key: string, resourceVersion: string | undefined): number | undefined {
  if (resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') return undefined;
  if (!/^[0-9]+$/.test(resourceVersion) || !Number.isSafeInteger(Number(resourceVersion))) {
    throw new StorageError('InvalidObject', key, `invalid resource version: ${JSON.stringify(resourceVersion)}`);
  }
  return Number(resourceVersion);
}

/** Whether key belongs to a list/watch on prefix: a prefix ending in "/" covers its subtree, anything else one key. */
export function keyMatches(prefix: string, key: string): boolean {
  return prefix.endsWith('/') ? key.startsWith(prefix) : key === prefix;
}

/** kube-apiserver's messages for lists at a compacted revision (etcd3 store interpretListError). */
export const listExpiredMessage = 'The resourceVersion for the provided list is too old.';
export const continueExpiredMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

/** The watch cache's message for a watch from a compacted revision: "too old resource version: <requested> (<oldest>)". */
export function watchTooOld(key: string, requested: number, oldestAvailable: number): StorageError {
  return new StorageError('ResourceVersionTooOld', key, `too old resource version: ${requested} (${oldestAvailable})`, oldestAvailable);
}

/** An error's message, or the thrown value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A watch's consumer threw on an event: the watch ends with this error (both backends), as on an event it cannot
 * decode, and no other watch is disturbed.
 */
export function watchConsumerFailed(prefix: string, event: StorageEvent, err: unknown): StorageError {
  const m = event.object.metadata;
  const name = `${m?.namespace ? `${m.namespace}/` : ''}${m?.name ?? ''}`;
  return new StorageError('InvalidObject', prefix, `the watch's consumer failed on ${event.type} ${name}: ${errorMessage(err)}`);
}

/**
 * etcd's limit on one request (its --max-request-bytes, 1.5 MiB by default, which is how the harness starts etcd) and
 * the error it answers past it (etcd server/etcdserver/errors ErrRequestTooLarge, gRPC InvalidArgument).
 */
export const etcdMaxRequestBytes = 1.5 * 1024 * 1024;
export const etcdRequestTooLargeMessage = 'etcdserver: request is too large';
/**
 * kube's etcd client refuses to send a gRPC message over 2 MiB (clientv3's default MaxCallSendMsgSize, which kube
 * keeps) with grpc-go's own error, before etcd sees it.
 */
export const etcdClientMaxSendBytes = 2 * 1024 * 1024;

const varintBytes = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : n < 2 ** 35 ? 5 : n < 2 ** 42 ? 6 : n < 2 ** 49 ? 7 : 8);
/** A length-delimited protobuf field of `len` bytes (one-byte tag). */
const field = (len: number): number => 1 + varintBytes(len) + len;

/**
 * The marshalled size of the TxnRequest a create or update sends (etcdserverpb rpc.proto): the compare (create:
 * CreateRevision == 0; update: ModRevision == current), the put, and for an update the Else range. These are the
 * transactions kube's etcd3 store sends for Create and GuaranteedUpdate, and the ones this store sends.
 */
export function etcdTxnRequestBytes(key: string, valueBytes: number, modRevision: number | undefined): number {
  const k = Buffer.byteLength(key);
  // target (2 bytes), key, and the oneof revision field, written even when 0
  const compare = 2 + field(k) + 1 + varintBytes(modRevision ?? 0);
  const put = field(k) + field(valueBytes);
  const success = field(put);
  const failure = modRevision === undefined ? 0 : field(field(field(k)));
  return field(compare) + field(success) + failure;
}

/**
 * Whether etcd refuses a create (modRevision undefined) or an update of `valueBytes` at `key`, with the error kube
 * sees: the client's send limit first, then etcd's request limit, which etcd checks on the marshalled raft request
 * (the txn plus a request header of a few bytes; etcdserver v3_server.go processInternalRaftRequestOnce).
 */
export function etcdWriteSizeError(key: string, valueBytes: number, modRevision: number | undefined): string | undefined {
  const txn = etcdTxnRequestBytes(key, valueBytes, modRevision);
  if (txn > etcdClientMaxSendBytes) return `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${txn} vs. ${etcdClientMaxSendBytes})`;
  const raftRequest = 1 + varintBytes(txn) + txn + 14;
  if (raftRequest > etcdMaxRequestBytes) return etcdRequestTooLargeMessage;
  return undefined;
}

/**
 * The write size check: the memory backend refuses what etcd would (both limits), the etcd backend what kube's
 * client would refuse to send (its gRPC send limit; etcd answers the request limit itself). Both backends so refuse
 * the same writes with the same texts.
 */
export function checkWriteSize(key: string, json: string, modRevision: number | undefined, only: 'client' | 'client+etcd'): void {
  const problem = etcdWriteSizeError(key, Buffer.byteLength(json), modRevision);
  if (problem === undefined) return;
  if (only === 'client' && problem === etcdRequestTooLargeMessage) return;
  throw new StorageError('RequestTooLarge', key, problem);
}
