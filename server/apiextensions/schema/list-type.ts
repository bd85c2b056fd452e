// x-kubernetes-list-type invariants on values (apiextensions-apiserver pkg/apiserver/schema/listtype): a "set"
// holds no element twice, a "map" holds objects whose key fields are unique. Each repeated element is reported
// once, at its first repetition, as kube's Duplicate error with the element (or its key fields) as value.
import { FieldPath, fieldErrors, type FieldError } from '../../api/field.js';
import type { CompiledSchema } from './compiled.js';
import { canonicalJSON, kindOf, type JSONObject } from './json-value.js';

/** the indices where an element is seen for the second time */
function nonUniqueIndices(items: readonly unknown[]): number[] {
  if (items.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  items.forEach((x, i) => {
    // scalars compare as Go interface values (int64 1 and float64 1.5 differ by type and value), compounds by JSON
    const k = kindOf(x);
    const key = k === 'map' || k === 'slice' ? `c:${canonicalJSON(x)}` : x === UNSPECIFIED ? 'u' : `s:${k}:${String(x)}`;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

const UNSPECIFIED = Symbol('unspecifiedKeyValue');

function validateListMap(path: FieldPath, s: CompiledSchema, items: unknown[]): FieldError[] {
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    if (x !== null && x !== undefined && kindOf(x) !== 'map') {
      return [fieldErrors.invalid(path.index(i), x, 'must be an object for an array of list-type map')];
    }
  }
  if (items.length <= 1) return [];
  if (s.listMapKeys.length === 1) {
    const keyField = s.listMapKeys[0]!;
    const keys = items.map((x) => {
      const obj = x as JSONObject | null | undefined;
      return obj && Object.prototype.hasOwnProperty.call(obj, keyField) ? obj[keyField] : UNSPECIFIED;
    });
    return nonUniqueIndices(keys).map((i) => fieldErrors.duplicate(path.index(i), keys[i] === UNSPECIFIED ? {} : { [keyField]: keys[i] }));
  }
  const keys = items.map((x) => {
    const key: JSONObject = {};
    const obj = x as JSONObject | null | undefined;
    if (obj) for (const f of s.listMapKeys) if (Object.prototype.hasOwnProperty.call(obj, f)) key[f] = obj[f];
    return key;
  });
  return nonUniqueIndices(keys).map((i) => fieldErrors.duplicate(path.index(i), keys[i]));
}

function validateArray(path: FieldPath, s: CompiledSchema, items: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  if (s.listType === 'set') {
    for (const i of nonUniqueIndices(items)) errs.push(fieldErrors.duplicate(path.index(i), items[i]));
  } else if (s.listType === 'map') {
    errs.push(...validateListMap(path, s, items));
  }
  if (s.items) items.forEach((x, i) => errs.push(...validateValue(path.index(i), s.items!, x)));
  return errs;
}

function validateValue(path: FieldPath, s: CompiledSchema, x: unknown): FieldError[] {
  const k = kindOf(x);
  if (k === 'slice') return validateArray(path, s, x as unknown[]);
  if (k === 'map') return validateListSetsAndMaps(path, s, x as JSONObject);
  return [];
}

/** ValidateListSetsAndMaps over an object and everything below it. */
export function validateListSetsAndMaps(path: FieldPath, s: CompiledSchema | undefined, obj: JSONObject): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const ap = s.additionalProperties?.schema;
  if (ap) for (const [k, v] of Object.entries(obj)) errs.push(...validateValue(path.key(k), ap, v));
  for (const [k, v] of Object.entries(obj)) {
    const sub = s.properties.get(k);
    if (sub) errs.push(...validateValue(path.child(k), sub, v));
  }
  return errs;
}
