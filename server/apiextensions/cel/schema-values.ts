// JSON → CEL by schema, as kube's UnstructuredToVal (apiextensions-apiserver schema/cel/values.go): integers stay int
// but `number` fields are double, strings with format date/date-time/duration/byte become timestamp/duration/bytes,
// objects with properties expose only their declared properties under their escaped names, found by either spelling
// (a null value reads as absent), maps (additionalProperties) keep every key, set and map lists compare without order
// and merge on `+`, and int-or-string and preserve-unknown-fields values are dyn.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { parseDuration, parseTimestamp } from '../../admission/cel/engine/time.js';
import { CelError, CelMap, CelTimestamp, fromJSON, withListSemantics, type CelResult, type CelValue } from '../../admission/cel/engine/values.js';
import { SchemaObjectMap } from './object-values.js';
import { additionalPropertiesSchema, itemsSchema, withTypeAndObjectMeta } from './schema-nodes.js';

/** The value of `self` for a node: errors (bad data for the schema) are returned as kube returns types.Err. */
export function schemaValueToCel(value: unknown, schema: JSONSchemaProps): CelResult {
  if (value === null || value === undefined) {
    return schema.nullable ? null : new CelError('invalid data, got null for schema with nullable=false');
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
    return new CelError('invalid data, expected XIntOrString value to be either a string or integer');
  }
  switch (schema.type) {
    case 'object':
      return objectToCel(value, schema);
    case 'array': {
      if (!Array.isArray(value)) return new CelError('invalid data, expected an array for the provided schema with type=array');
      const items = itemsSchema(schema);
      if (!items) return new CelError('invalid array type, expected Items with a non-empty Schema');
      return withListType(value.map((v) => nested(v, items)), schema);
    }
    case 'string':
      if (typeof value !== 'string') return new CelError(`invalid data, expected string, got ${goTypeName(value)}`);
      return formattedString(value, schema.format);
    case 'number':
      // whole numbers lose their fraction in YAML → JSON, so ints are accepted and read as double
      if (typeof value !== 'number') return new CelError(`invalid data, expected float, got ${goTypeName(value)}`);
      return value;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return new CelError(`invalid data, expected int, got ${goTypeName(value)}`);
      return BigInt(value);
    case 'boolean':
      if (typeof value !== 'boolean') return new CelError(`invalid data, expected bool, got ${goTypeName(value)}`);
      return value;
  }
  if (schema['x-kubernetes-preserve-unknown-fields']) return fromJSON(value);
  return new CelError(
    `invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got ${schema.type ?? ''}`,
  );
}

/**
 * Values inside lists and maps: our CEL lists and maps hold values, not errors, so data that does not fit its schema
 * (which schema validation reports anyway) is passed through as plain JSON instead of kube's deferred error.
 */
function nested(value: unknown, schema: JSONSchemaProps): CelValue {
  const v = schemaValueToCel(value, schema);
  return v instanceof CelError ? fromJSON(value) : v;
}

function objectToCel(value: unknown, schema: JSONSchemaProps): CelResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new CelError('invalid data, expected a map for the provided schema with type=object');
  }
  const obj = value as Record<string, unknown>;
  if (schema['x-kubernetes-embedded-resource'] || schema.properties !== undefined) {
    const s = schema['x-kubernetes-embedded-resource'] ? withTypeAndObjectMeta(schema) : schema;
    const entries: [string, CelValue][] = [];
    for (const [k, v] of Object.entries(obj)) {
      const prop = s.properties?.[k];
      // kube: a null field of an object reads as absent, so has(self.x) is false for `x: null`
      if (!prop || v === null || v === undefined) continue;
      entries.push([k, nested(v, prop)]);
    }
    return SchemaObjectMap.fromProperties(entries);
  }
  const additional = additionalPropertiesSchema(schema);
  if (additional) {
    const m = new CelMap();
    for (const [k, v] of Object.entries(obj)) if (v !== undefined) m.set(k, nested(v, additional));
    return m;
  }
  // kube: an object with x-kubernetes-preserve-unknown-fields but no properties reads as an empty object
  if (schema['x-kubernetes-preserve-unknown-fields']) return new CelMap();
  return new CelError('invalid object type, expected either Properties or AdditionalProperties with Allows=true and non-empty Schema');
}

/** Set and map lists compare without order and merge on `+`, as kube's unstructuredSetList/unstructuredMapList. */
function withListType(list: CelValue[], schema: JSONSchemaProps): CelValue[] {
  switch (schema['x-kubernetes-list-type']) {
    case 'set':
      return withListSemantics(list, { kind: 'set' });
    case 'map':
      return withListSemantics(list, { kind: 'map', keys: schema['x-kubernetes-list-map-keys'] ?? [] });
    default:
      return list;
  }
}

function formattedString(s: string, format: string | undefined): CelValue | CelError {
  switch (format) {
    case 'duration': {
      const d = parseDuration(s);
      return d instanceof CelError ? new CelError(`Invalid duration ${s}: ${d.message}`) : d;
    }
    case 'date': {
      const t = /^\d{4}-\d{2}-\d{2}$/.test(s) ? parseTimestamp(`${s}T00:00:00Z`) : new CelError(`parsing time "${s}" as "2006-01-02": cannot parse`);
      return t instanceof CelTimestamp ? t : new CelError(`Invalid date formatted string ${s}: ${t.message}`);
    }
    case 'date-time': {
      const t = parseTimestamp(s);
      return t instanceof CelTimestamp ? t : new CelError(`Invalid date-time formatted string ${s}: ${t.message}`);
    }
    case 'byte': {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) return new CelError(`Invalid byte formatted string ${s}: illegal base64 data`);
      return new Uint8Array(Buffer.from(s, 'base64'));
    }
    default:
      return s;
  }
}

/** Go's %T of a decoded JSON value, as kube prints it in "invalid data, expected int, got float64". */
function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** The resource root and embedded resources see TypeMeta and ObjectMeta.name/generateName. */
export function schemaForNode(schema: JSONSchemaProps, isResourceRoot: boolean): JSONSchemaProps {
  return isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
}
