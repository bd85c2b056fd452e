// The sizes kube's CRD cost estimator gives values of a schema (k8s.io/apiserver/pkg/cel/common/schemas.go
// SchemaDeclType: MinSerializedSize and MaxElements) and the per-path size hook built from them (the sizeEstimator
// of apiextensions-apiserver schema/cel/compilation.go), which the engine's estimator asks for every value a rule
// reaches from `self` or `oldSelf`.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import type { SizeEstimate } from '../../admission/cel/engine/functions.js';
import { escapeFieldName, schemaDeclType } from '../../admission/cel/schema-types.js';
import { additionalPropertiesSchema, itemsSchema, withTypeAndObjectMeta } from './schema-nodes.js';

/** celconfig.MaxRequestSizeBytes */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

// apiserver/pkg/cel/limits.go
const JSON_DATE_SIZE = 12; // "2006-01-02" with quotes
const MIN_DATETIME_SIZE_JSON = 21; // YYYY-MM-DDTHH:MM:SS with quotes
const MAX_DATETIME_SIZE_JSON = 32; // 9999-12-31T23:59:59.999999999Z with quotes
const MIN_DURATION_SIZE_JSON = 3; // "0" with quotes
const MAX_DURATION_SIZE_JSON = 32;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;

const nonNeg = (n: number) => Math.max(0, n);

/** The schema as SchemaDeclType sees it: resource roots and embedded resources get TypeMeta and ObjectMeta. */
function declSchema(schema: JSONSchemaProps, isResourceRoot: boolean): JSONSchemaProps {
  return isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
}

const embedded = (s: JSONSchemaProps): boolean => !!s['x-kubernetes-embedded-resource'];

/** The smallest JSON a value of this schema serializes to (DeclType.MinSerializedSize). */
export function minSerializedSize(schema: JSONSchemaProps, isResourceRoot = false): number {
  if (schema['x-kubernetes-int-or-string']) return 1;
  const s = declSchema(schema, isResourceRoot);
  switch (s.type) {
    case 'object': {
      if (additionalPropertiesSchema(s) && s.properties === undefined) return 2;
      // at least {} plus every required property without a default, which must be present in every serialization
      let size = 2;
      const required = new Set(s.required ?? []);
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        if (required.has(name) && prop.default === undefined && schemaDeclType(prop, 'field', embedded(prop))) {
          size += Buffer.byteLength(name) + minSerializedSize(prop, embedded(prop)) + 4;
        }
      }
      return size;
    }
    case 'array':
      return 2;
    case 'string':
      if (s.format === 'date') return JSON_DATE_SIZE;
      if (s.format === 'date-time') return MIN_DATETIME_SIZE_JSON;
      if (s.format === 'duration') return MIN_DURATION_SIZE_JSON;
      return MIN_STRING_SIZE;
    case 'boolean':
      return MIN_BOOL_SIZE;
    default:
      return MIN_NUMBER_SIZE;
  }
}

/** estimateMaxStringLengthPerRequest */
function maxStringLengthPerRequest(s: JSONSchemaProps): number {
  if (s['x-kubernetes-int-or-string']) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (s.format) {
    case 'duration':
      return MAX_DURATION_SIZE_JSON;
    case 'date':
      return JSON_DATE_SIZE;
    case 'date-time':
      return MAX_DATETIME_SIZE_JSON;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

/**
 * DeclType.MaxElements of an exposed schema: the length of a string or bytes (maxLength, which counts code points,
 * times 4 since kube sizes strings in bytes; the longest enum value; or what fits in a request), the number of items
 * or properties of a list or map (maxItems/maxProperties, or what fits in a request), and 0 for everything else:
 * numbers, booleans and objects with properties (so comparing two of them costs next to nothing).
 */
export function maxElements(schema: JSONSchemaProps, isResourceRoot = false): number {
  // kube 1.32 sizes int-or-string as the longest string a request can hold, whatever its maxLength (1.34 uses it)
  if (schema['x-kubernetes-int-or-string']) return maxStringLengthPerRequest(schema);
  const s = declSchema(schema, isResourceRoot);
  switch (s.type) {
    case 'string':
      switch (s.format) {
        case 'byte':
          return s.maxLength !== undefined ? nonNeg(s.maxLength) : maxStringLengthPerRequest(s);
        case 'duration':
        case 'date':
        case 'date-time':
          return maxStringLengthPerRequest(s);
      }
      if (s.maxLength !== undefined) return nonNeg(s.maxLength) * 4;
      if (s.enum?.length) return Math.max(0, ...s.enum.map((v) => (typeof v === 'string' ? Buffer.byteLength(v) : 0)));
      return maxStringLengthPerRequest(s);
    case 'array': {
      const items = itemsSchema(s);
      if (!items) return 0;
      if (s.maxItems !== undefined) return nonNeg(s.maxItems);
      return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(items, embedded(items)) + 1));
    }
    case 'object': {
      const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      if (!additional) return 0;
      if (s.maxProperties !== undefined) return nonNeg(s.maxProperties);
      // a key of at least "" plus a colon and a comma around the smallest value
      return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(additional, embedded(additional)) + 6));
    }
    default:
      return 0;
  }
}

/** A schema node on a cost-estimation path, or the string key type of a map (whose MaxElements is 0). */
type SizedNode = { schema: JSONSchemaProps; isResourceRoot: boolean } | 'mapKey';

/**
 * kube's sizeEstimator (schema/cel/compilation.go): follows a path from `self`/`oldSelf` through the node's
 * DeclType ('@items'/'@values' to list elements and map values, '@keys' to map keys, field names, escaped, to
 * properties) and answers the MaxElements of where it ends; undefined where the path leaves what CEL can see.
 */
export function schemaSizeEstimator(node: JSONSchemaProps, isResourceRoot: boolean): (path: readonly string[]) => SizeEstimate | undefined {
  return (path) => {
    if (path[0] !== 'self' && path[0] !== 'oldSelf') return undefined;
    let cur: SizedNode = { schema: node, isResourceRoot };
    for (const step of path.slice(1)) {
      if (cur === 'mapKey') return undefined;
      const next: SizedNode | undefined = childOnPath(cur.schema, cur.isResourceRoot, step);
      if (!next) return undefined;
      cur = next;
    }
    return { min: 0, max: cur === 'mapKey' ? 0 : maxElements(cur.schema, cur.isResourceRoot) };
  };
}

function childOnPath(schema: JSONSchemaProps, isResourceRoot: boolean, step: string): SizedNode | undefined {
  if (schema['x-kubernetes-int-or-string']) return undefined;
  const s = declSchema(schema, isResourceRoot);
  const exposed = (child: JSONSchemaProps | undefined): SizedNode | undefined =>
    child && schemaDeclType(child, 'field', embedded(child)) ? { schema: child, isResourceRoot: embedded(child) } : undefined;
  const additional = s.type === 'object' && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  switch (step) {
    case '@items':
      return s.type === 'array' ? exposed(itemsSchema(s)) : additional ? exposed(additional) : undefined;
    case '@values':
      return additional ? exposed(additional) : s.type === 'array' ? exposed(itemsSchema(s)) : undefined;
    case '@keys':
      return additional ? 'mapKey' : undefined;
    default: {
      if (s.type !== 'object' || additional) return undefined;
      for (const [property, prop] of Object.entries(s.properties ?? {})) {
        if (escapeFieldName(property) === step) return exposed(prop);
      }
      return undefined;
    }
  }
}
