// Small, typed accessors for the parts of objects the generic store manages.
import { deepCopyJSON } from '../api/deep-copy.js';
import type { KubeObject, ObjectMeta, OwnerReference } from '../api/types.js';

export function metaOf(obj: KubeObject): ObjectMeta {
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  return obj.metadata;
}

/**
 * metadata.finalizers as a list of strings, whatever is stored: an object written with another type (by an older
 * version of this server, before bodies were decoded into their Go types) would fail kube's decoding; here it must
 * still be deletable, so what is not a list of strings holds no finalizer.
 */
export function finalizersOf(meta: ObjectMeta | undefined): string[] {
  const f: unknown = meta?.finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

/** metadata.ownerReferences as a list of objects, whatever is stored (see finalizersOf). */
export function ownerReferencesOf(meta: ObjectMeta | undefined): OwnerReference[] {
  const refs: unknown = meta?.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r): r is OwnerReference => r !== null && typeof r === 'object' && !Array.isArray(r)) : [];
}

/** A decoded object copied all the way down (runtime.DeepCopyJSONValue). */
export const deepCopy = deepCopyJSON;

/** Deep equality over JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}

/** Everything but metadata and status: what a change to bumps metadata.generation. */
export function specPart(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** kube's SimpleNameGenerator: generateName + 5 random characters from a confusion-free alphabet. */
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
export function generateName(base: string): string {
  const maxBase = 63 - 5;
  const prefix = base.length > maxBase ? base.slice(0, maxBase) : base;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
  return prefix + suffix;
}
