// How both storage backends turn objects into stored values and back, and the checks they share, so that the
// memory and etcd3 backends cannot drift apart on what a resourceVersion, a no-op update or a precondition means.
import type { KubeObject } from '../api/types.js';
import { StorageError, type Preconditions } from './interface.js';

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
  const meta = obj.metadata !== null && typeof obj.metadata === 'object' ? obj.metadata : {};
  obj.metadata = { ...meta, resourceVersion: String(revision) };
  return obj;
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
