// CRD-time cost limits (apiextensions validation.go) and the schema-derived sizes kube's estimator uses
// (k8s.io/apiserver/pkg/cel/common/schemas.go SchemaDeclType: MaxElements, MinSerializedSize, and the
// cardinality of a node: how many times it can occur in one request).
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { additionalPropertiesSchema, itemsSchema, withTypeAndObjectMeta } from './schema-nodes.js';

/** StaticEstimatedCostLimit: per expression (times its cardinality) */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** StaticEstimatedCRDCostLimit: all rules of one version's schema together */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** celconfig.MaxRequestSizeBytes */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** Go's %f: six decimals. */
const goF = (x: number): string => x.toFixed(6);

/** kube's getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let f: string;
  if (factor > 100) f = 'more than 100x';
  else if (factor < 1.5) f = `${goF(factor)}x`;
  else f = `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

const JSON_DATE_SIZE = 12; // "2006-01-02" with quotes
const MIN_DATETIME_SIZE_JSON = 22; // "2006-01-02T15:04:05Z" with quotes
const MAX_DATETIME_SIZE_JSON = 37; // RFC3339Nano with a zone offset, with quotes
const MIN_DURATION_SIZE_JSON = 4; // "0s" with quotes
const MAX_DURATION_SIZE_JSON = 32;

/** The smallest JSON a value of this schema serializes to (DeclType.MinSerializedSize). */
export function minSerializedSize(schema: JSONSchemaProps, isResourceRoot = false): number {
  if (schema['x-kubernetes-int-or-string']) return 1;
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'object': {
      if (additionalPropertiesSchema(s) && s.properties === undefined) return 2;
      let size = 2;
      const required = new Set(s.required ?? []);
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        // required properties without a default must be present in every serialization
        if (required.has(name) && prop.default === undefined) size += name.length + minSerializedSize(prop, !!prop['x-kubernetes-embedded-resource']) + 4;
      }
      return size;
    }
    case 'array':
      return 2;
    case 'string':
      if (s.format === 'date') return JSON_DATE_SIZE;
      if (s.format === 'date-time') return MIN_DATETIME_SIZE_JSON;
      if (s.format === 'duration') return MIN_DURATION_SIZE_JSON;
      return 2;
    case 'boolean':
      return 4;
    default:
      return 1;
  }
}

/** The largest size of a string/bytes (length) or list/map (elements) of this schema; undefined for other types. */
export function maxElements(schema: JSONSchemaProps): number | undefined {
  if (schema['x-kubernetes-int-or-string']) return undefined;
  switch (schema.type) {
    case 'string': {
      const nonNeg = (n: number) => Math.max(0, n);
      switch (schema.format) {
        case 'byte':
          return schema.maxLength !== undefined ? nonNeg(schema.maxLength) : MAX_REQUEST_SIZE_BYTES - 2;
        case 'duration':
          return MAX_DURATION_SIZE_JSON;
        case 'date':
          return JSON_DATE_SIZE;
        case 'date-time':
          return MAX_DATETIME_SIZE_JSON;
      }
      // maxLength counts code points; kube sizes strings in bytes, up to 4 per code point
      if (schema.maxLength !== undefined) return nonNeg(schema.maxLength) * 4;
      if (schema.enum?.length) return Math.max(0, ...schema.enum.map((v) => (typeof v === 'string' ? Buffer.byteLength(v) : 0)));
      return MAX_REQUEST_SIZE_BYTES - 2;
    }
    case 'array': {
      const items = itemsSchema(schema);
      if (!items) return undefined;
      if (schema.maxItems !== undefined) return Math.max(0, schema.maxItems);
      return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(items, !!items['x-kubernetes-embedded-resource']) + 1));
    }
    case 'object': {
      const additional = additionalPropertiesSchema(schema);
      if (!additional || schema.properties !== undefined) return undefined;
      if (schema.maxProperties !== undefined) return Math.max(0, schema.maxProperties);
      return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(additional, !!additional['x-kubernetes-embedded-resource']) + 6));
    }
    default:
      return undefined;
  }
}

/** The smallest size bound among the sized values a rule on this node can reach (strings, lists, maps). */
export function smallestSizeBound(schema: JSONSchemaProps, isResourceRoot: boolean): number | undefined {
  let min: number | undefined;
  const visit = (s: JSONSchemaProps, root: boolean, depth: number): void => {
    if (depth > 64) return;
    const node = root ? withTypeAndObjectMeta(s) : s;
    // kube sizes struct-typed objects as empty, so comparing whole objects costs next to nothing
    const m = node.type === 'object' && maxElements(node) === undefined ? 0 : maxElements(node);
    if (m !== undefined) min = min === undefined ? m : Math.min(min, m);
    for (const p of Object.values(node.properties ?? {})) visit(p, !!p['x-kubernetes-embedded-resource'], depth + 1);
    const items = itemsSchema(node);
    if (items) visit(items, !!items['x-kubernetes-embedded-resource'], depth + 1);
    const additional = additionalPropertiesSchema(node);
    if (additional) visit(additional, !!additional['x-kubernetes-embedded-resource'], depth + 1);
  };
  visit(schema, isResourceRoot, 0);
  return min;
}

/** How many times a node can occur: bounded by its ancestors' maxItems/maxProperties, else by the request size. */
export type Cardinality = number | 'unbounded';

export function childCardinality(parent: Cardinality, bound: number | undefined): Cardinality {
  if (parent === 'unbounded' || bound === undefined) return 'unbounded';
  return Math.min(Number.MAX_SAFE_INTEGER, parent * bound);
}

export function effectiveCardinality(c: Cardinality, schema: JSONSchemaProps, isResourceRoot: boolean): number {
  if (c !== 'unbounded') return c;
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize(schema, isResourceRoot) + 1));
}

/** multiplyWithOverflowGuard, saturating like Go's uint64 arithmetic at MaxUint64. */
export function multiplyCost(cost: number, cardinality: number): number {
  if (cost === 0) return 0;
  return Math.min(18446744073709551615, cost * cardinality);
}
