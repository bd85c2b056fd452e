// A built-in kind's Go type, by GroupVersionKind, for the places that decode an object they did not receive as a
// request body: a mutating webhook's or a MutatingAdmissionPolicy's patched object, which kube decodes into the
// typed struct (wrong types fail, unknown fields vanish).
import { builtinModelOf } from './builtin-schemas.js';
import type { GroupVersionKind } from './resolver.js';
import { kindFields, type KindFields } from './strict-decoding.js';

const ready = new Map<string, KindFields | undefined>();
const key = (gvk: GroupVersionKind): string => `${gvk.group}/${gvk.version}/${gvk.kind}`;

/** Loads the kind's fields (once); undefined for kinds client-node does not describe (custom resources). */
export async function loadTypedKind(gvk: GroupVersionKind): Promise<KindFields | undefined> {
  const k = key(gvk);
  if (ready.has(k)) return ready.get(k);
  const model = builtinModelOf(gvk);
  const fields = model ? await kindFields(model) : undefined;
  ready.set(k, fields);
  return fields;
}

/** The kind's fields when `loadTypedKind` loaded them before; undefined otherwise. */
export function loadedTypedKind(gvk: GroupVersionKind): KindFields | undefined {
  return ready.get(key(gvk));
}

/**
 * The json serializer's (non-strict) Decode of an object's JSON into the kind: the decode error, or the object with
 * its unknown fields and nulls dropped (in place). Kinds without a description decode as they are.
 */
export function decodeIntoKind(fields: KindFields | undefined, obj: Record<string, unknown>): { ok: true } | { ok: false; error: string } {
  if (!fields) return { ok: true };
  const r = fields.decodePlain(obj);
  if (!r.ok) return r;
  r.prune();
  return { ok: true };
}
