// Structural defaulting (apiextensions-apiserver pkg/apiserver/schema/defaulting): first non-nullable nulls
// without a default are dropped (PruneNonNullableNullsWithoutDefaults), then missing fields and non-nullable
// nulls get a deep copy of their default, through properties, additionalProperties and items (Default).
import type { CompiledSchema } from './compiled.js';
import { deepCopyJSON, kindOf, type JSONObject } from './json-value.js';

const isNull = (x: unknown): boolean => x === null || x === undefined;
const isNonNullableNull = (x: unknown, s: CompiledSchema | undefined): boolean => isNull(x) && !!s && !s.nullable;
const has = (o: JSONObject, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function schemaForField(field: string, s: CompiledSchema | undefined): CompiledSchema | undefined {
  if (!s) return undefined;
  return s.properties.get(field) ?? s.additionalProperties?.schema;
}

/** PruneNonNullableNullsWithoutDefaults */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: CompiledSchema | undefined): void {
  const kind = kindOf(x);
  if (kind === 'map') {
    const obj = x as JSONObject;
    for (const k of Object.keys(obj)) {
      const schema = schemaForField(k, s);
      if (isNonNullableNull(obj[k], schema) && !schema!.hasDefault) delete obj[k];
      else pruneNonNullableNullsWithoutDefaults(obj[k], schema);
    }
  } else if (kind === 'slice') {
    for (const v of x as unknown[]) pruneNonNullableNullsWithoutDefaults(v, s?.items);
  }
}

/** Default */
export function defaultWithSchema(x: unknown, s: CompiledSchema | undefined): void {
  if (!s) return;
  const kind = kindOf(x);
  if (kind === 'map') {
    const obj = x as JSONObject;
    for (const [k, prop] of s.properties) {
      if (!prop.hasDefault) continue;
      if (!has(obj, k) || isNonNullableNull(obj[k], prop)) obj[k] = deepCopyJSON(prop.default);
    }
    for (const k of Object.keys(obj)) {
      const prop = s.properties.get(k);
      if (prop) defaultWithSchema(obj[k], prop);
      else if (s.additionalProperties) {
        const ap = s.additionalProperties.schema;
        if (isNonNullableNull(obj[k], ap) && ap!.hasDefault) obj[k] = deepCopyJSON(ap!.default);
        defaultWithSchema(obj[k], ap);
      }
    }
  } else if (kind === 'slice') {
    const items = x as unknown[];
    for (let i = 0; i < items.length; i++) {
      if (isNonNullableNull(items[i], s.items) && s.items!.hasDefault) items[i] = deepCopyJSON(s.items!.default);
      defaultWithSchema(items[i], s.items);
    }
  }
}
