// The compiled form of one JSONSchemaProps node, built once per schema object (kube's schema.NewStructural plus
// kube-openapi's spec.Schema as ConvertJSONSchemaPropsWithPostProcess builds it for the validator), so that the
// per-request work (validation, pruning, defaulting) never re-reads the raw schema.
import { RE2JS } from 're2js';
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { isSupportedStringFormat } from './formats.js';

export interface CompiledPattern {
  readonly source: string;
  /** the Go regexp, or Go's compile error message */
  readonly re: RE2JS | string;
}

export interface CompiledAdditionalProperties {
  /** false only for `additionalProperties: false` */
  readonly allows: boolean;
  readonly schema?: CompiledSchema;
}

export interface CompiledSchema {
  readonly source: JSONSchemaProps;
  /** spec.Schema.Type: [] when unset, ["integer","string"] for x-kubernetes-int-or-string */
  readonly types: readonly string[];
  readonly nullable: boolean;
  /** the format kube-openapi validates; unsupported formats are stripped to "" as StripUnsupportedFormatsPostProcess does */
  readonly format: string;
  readonly properties: ReadonlyMap<string, CompiledSchema>;
  readonly additionalProperties?: CompiledAdditionalProperties;
  /** the items schema (an items array is not structural and is ignored here) */
  readonly items?: CompiledSchema;
  readonly hasDefault: boolean;
  readonly default: unknown;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly intOrString: boolean;
  readonly listType?: string;
  readonly listMapKeys: readonly string[];
  readonly required: readonly string[];
  readonly enum?: readonly unknown[];
  readonly maximum?: number;
  readonly exclusiveMaximum: boolean;
  readonly minimum?: number;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf?: number;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: CompiledPattern;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly uniqueItems: boolean;
  readonly maxProperties?: number;
  readonly minProperties?: number;
  readonly allOf: readonly CompiledSchema[];
  readonly anyOf: readonly CompiledSchema[];
  readonly oneOf: readonly CompiledSchema[];
  readonly not?: CompiledSchema;
}

const cache = new WeakMap<JSONSchemaProps, CompiledSchema>();
const patternCache = new Map<string, CompiledPattern>();

/** Go's regexp.Compile, cached by source as kube-openapi's compileRegexp does. */
export function compilePattern(source: string): CompiledPattern {
  let p = patternCache.get(source);
  if (!p) {
    let re: RE2JS | string;
    try {
      re = RE2JS.compile(source);
    } catch (e) {
      re = (e as Error).message;
    }
    p = { source, re };
    if (patternCache.size >= 2000) patternCache.clear();
    patternCache.set(source, p);
  }
  return p;
}

// StripUnsupportedFormatsPostProcess at compatibility version 1.0: string formats from the CRD list, int32/int64
// for integers, float/double for numbers, nothing for other types.
function effectiveFormat(s: JSONSchemaProps, types: readonly string[]): string {
  const format = s.format ?? '';
  if (format === '') return '';
  const schemaType = types.length === 1 ? types[0]! : '';
  switch (schemaType) {
    case '':
    case 'string':
      return isSupportedStringFormat(format) ? format : '';
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : '';
    case 'number':
      return format === 'float' || format === 'double' ? format : '';
    default:
      return '';
  }
}

const isSchemaObject = (v: unknown): v is JSONSchemaProps => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The compiled form of a schema, cached per schema object. */
export function compileSchema(s: JSONSchemaProps): CompiledSchema {
  const hit = cache.get(s);
  if (hit) return hit;
  // x-kubernetes-int-or-string replaces the type by integer+string, as ConvertJSONSchemaProps does.
  const types: string[] = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : [];
  const properties = new Map<string, CompiledSchema>();
  const node: CompiledSchema = {
    source: s,
    types,
    nullable: s.nullable === true,
    format: effectiveFormat(s, types),
    properties,
    additionalProperties:
      s.additionalProperties === undefined || s.additionalProperties === null
        ? undefined
        : typeof s.additionalProperties === 'boolean'
          ? { allows: s.additionalProperties }
          : { allows: true, schema: compileSchema(s.additionalProperties) },
    items: isSchemaObject(s.items) ? compileSchema(s.items) : undefined,
    hasDefault: s.default !== undefined && s.default !== null,
    default: s.default,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    intOrString: s['x-kubernetes-int-or-string'] === true,
    listType: s['x-kubernetes-list-type'],
    listMapKeys: s['x-kubernetes-list-map-keys'] ?? [],
    required: s.required ?? [],
    enum: s.enum && s.enum.length > 0 ? s.enum : undefined,
    maximum: s.maximum ?? undefined,
    exclusiveMaximum: s.exclusiveMaximum === true,
    minimum: s.minimum ?? undefined,
    exclusiveMinimum: s.exclusiveMinimum === true,
    multipleOf: s.multipleOf ?? undefined,
    maxLength: s.maxLength ?? undefined,
    minLength: s.minLength ?? undefined,
    pattern: s.pattern ? compilePattern(s.pattern) : undefined,
    maxItems: s.maxItems ?? undefined,
    minItems: s.minItems ?? undefined,
    uniqueItems: s.uniqueItems === true,
    maxProperties: s.maxProperties ?? undefined,
    minProperties: s.minProperties ?? undefined,
    allOf: (s.allOf ?? []).map(compileSchema),
    anyOf: (s.anyOf ?? []).map(compileSchema),
    oneOf: (s.oneOf ?? []).map(compileSchema),
    not: s.not ? compileSchema(s.not) : undefined,
  };
  // set before recursing into properties so that a (non-structural) self-referencing object cannot loop
  cache.set(s, node);
  for (const [k, v] of Object.entries(s.properties ?? {})) properties.set(k, compileSchema(v));
  return node;
}

/** A structural copy with x-kubernetes-embedded-resource forced on: how kube treats the resource root. */
export function asResourceRoot(s: CompiledSchema | undefined): CompiledSchema {
  if (s?.embeddedResource) return s;
  const base: CompiledSchema = s ?? emptySchema;
  return rootCache.get(base) ?? rootCache.set(base, { ...base, embeddedResource: true }).get(base)!;
}
const rootCache = new WeakMap<CompiledSchema, CompiledSchema>();
const emptySchema: CompiledSchema = compileSchema({});
