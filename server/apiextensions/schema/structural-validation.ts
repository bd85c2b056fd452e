// CRD-time checks of one version's openAPIV3Schema, in kube-apiserver's order
// (apiextensions-apiserver pkg/apis/apiextensions/validation validateCustomResourceDefinitionValidation):
//   1. nullable at the root is forbidden;
//   2. the structural-schema invariants (pkg/apiserver/schema/validation.go ValidateStructural, sorted by
//      message), and only when those pass, defaults that do not validate or would be pruned
//      (pkg/apiserver/schema/defaulting/validation.go ValidateDefaults);
//   3. the OpenAPI keyword rules (ValidateCustomResourceDefinitionOpenAPISchema: forbidden keywords, properties
//      with additionalProperties, uniqueItems, x-kubernetes-* consistency, list-map keys, forbidden defaults);
//   4. only when nothing else was reported: why the schema could not be made structural at all.
import { FieldPath, fieldErrors, formatFieldError, type FieldError } from '../../api/field.js';
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { compilePattern, compileSchema, type CompiledSchema } from './compiled.js';
import { validateEmbeddedObjectMeta } from './embedded-meta.js';
import { deepCopyJSON, jsonEqual } from './json-value.js';
import { validateValueAgainst } from './openapi-validate.js';
import { pruneWithSchema } from './pruning.js';

type Level = 'root' | 'item' | 'field';

const present = (v: unknown): boolean => v !== undefined && v !== null;
const isSchemaObject = (v: unknown): v is JSONSchemaProps => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (o: Record<string, unknown> | undefined | null): boolean => !!o && Object.keys(o).length > 0;

// ---------------------------------------------------------------------------------------------------------------
// NewStructural: the reasons a schema cannot be converted (all of them are also reported by step 3)

function structuralConversionError(s: JSONSchemaProps): string | undefined {
  if (s.id) return "OpenAPIV3Schema 'id' is not supported";
  if (s.$schema) return "OpenAPIV3Schema 'schema' is not supported";
  if (s.$ref) return "OpenAPIV3Schema '$ref' is not supported";
  if (nonEmpty(s.patternProperties)) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (nonEmpty(s.dependencies)) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (present(s.additionalItems)) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (nonEmpty(s.definitions)) return "OpenAPIV3Schema 'definitions' is not supported";
  if (s['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  if (Array.isArray(s.items) && s.items.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const children: JSONSchemaProps[] = [
    ...(s.allOf ?? []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    ...(s.not ? [s.not] : []),
    ...(isSchemaObject(s.items) ? [s.items] : []),
    ...Object.values(s.properties ?? {}),
    ...(isSchemaObject(s.additionalProperties) ? [s.additionalProperties] : []),
  ];
  for (const c of children) {
    const err = structuralConversionError(c);
    if (err) return err;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// ValidateStructural

// the two int-or-string exceptions: anyOf exactly [{type: integer}, {type: string}], also as allOf[0].anyOf
function onlyType(s: JSONSchemaProps, type: string): boolean {
  const keys = Object.keys(s).filter((k) => present((s as Record<string, unknown>)[k]));
  return keys.length === 1 && s.type === type;
}
const isIntOrStringAnyOf = (anyOf: JSONSchemaProps[] | undefined): boolean =>
  !!anyOf && anyOf.length === 2 && onlyType(anyOf[0]!, 'integer') && onlyType(anyOf[1]!, 'string');

function validateValueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) (s.anyOf ?? []).forEach((x, i) => errs.push(...validateNested(x, false, lvl, path.child('anyOf').index(i))));
  (s.allOf ?? []).forEach((x, i) => errs.push(...validateNested(x, skipFirstAllOfAnyOf && i === 0, lvl, path.child('allOf').index(i))));
  (s.oneOf ?? []).forEach((x, i) => errs.push(...validateNested(x, false, lvl, path.child('oneOf').index(i))));
  if (s.not) errs.push(...validateNested(s.not, false, lvl, path.child('not')));
  if (s.pattern) {
    const { re } = compilePattern(s.pattern);
    if (typeof re === 'string') errs.push(fieldErrors.invalid(path.child('pattern'), s.pattern, `must be a valid regular expression, but isn't: ${re}`));
  }
  return errs;
}

// a schema under allOf/anyOf/oneOf/not may only restrict values, never specify structure
function validateNested(s: JSONSchemaProps, skipAnyOf: boolean, lvl: Level, path: FieldPath): FieldError[] {
  const errs = validateValueValidation(s, skipAnyOf, false, lvl, path);
  if (isSchemaObject(s.items)) errs.push(...validateNested(s.items, false, lvl, path.child('items')));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...validateNested(v, false, 'field', path.child('properties').key(k)));
  const forbid = (child: string, detail: string) => errs.push(fieldErrors.forbidden(path.child(child), detail));
  if (s.type) forbid('type', 'must be empty to be structural');
  if (present(s.additionalProperties)) forbid('additionalProperties', 'must be undefined to be structural');
  if (present(s.default)) forbid('default', 'must be undefined to be structural');
  if (s.title) forbid('title', 'must be empty to be structural');
  if (s.description) forbid('description', 'must be empty to be structural');
  if (s.nullable) forbid('nullable', 'must be false to be structural');
  if (present(s.externalDocs)) forbid('externalDocs', 'must be undefined to be structural');
  if (s['x-kubernetes-preserve-unknown-fields']) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (s['x-kubernetes-embedded-resource']) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (s['x-kubernetes-int-or-string']) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
  if ((s['x-kubernetes-list-map-keys'] ?? []).length > 0) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (present(s['x-kubernetes-list-type'])) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (present(s['x-kubernetes-map-type'])) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if ((s['x-kubernetes-validations'] ?? []).length > 0) forbid('x-kubernetes-validations', 'must be empty to be structural');
  if (s.properties && 'metadata' in s.properties) {
    errs.push(fieldErrors.forbidden(path.child('properties').key('metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

// metadata at the root may only restrict name and generateName
function validateMetadataInvariants(s: JSONSchemaProps, checkMetadata: boolean, lvl: Level, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(fieldErrors.invalid(path.child('type'), s.type ?? '', 'must be object'));
  if (lvl === 'root') {
    const props = Object.keys(s.properties ?? {});
    const onlyNames = props.length > 0 && props.every((p) => p === 'name' || p === 'generateName');
    // Go compares against the zero Structural: false, "", empty lists and maps count as unset
    const isSet = (v: unknown): boolean =>
      present(v) && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0) && !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);
    const rest = Object.entries(s).filter(([k, v]) => isSet(v) && k !== 'type' && k !== 'default' && !(k === 'properties' && onlyNames));
    if (rest.length > 0) {
      errs.push(fieldErrors.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  return errs;
}

function validateInvariants(s: JSONSchemaProps, lvl: Level, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const items = isSchemaObject(s.items) ? s.items : undefined;
  if (s.type === 'array' && !items) errs.push(fieldErrors.required(path.child('items'), 'must be specified'));
  if (items) errs.push(...validateInvariants(items, 'item', path.child('items')));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...validateInvariants(v, 'field', path.child('properties').key(k)));
  if (present(s.additionalProperties)) {
    if (lvl === 'root') errs.push(fieldErrors.forbidden(path.child('additionalProperties'), 'must not be used at the root'));
    if (isSchemaObject(s.additionalProperties)) errs.push(...validateInvariants(s.additionalProperties, 'field', path.child('additionalProperties')));
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) {
    errs.push(fieldErrors.invalid(path.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    errs.push(fieldErrors.invalid(path.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = (s.allOf ?? []).length >= 1 && isIntOrStringAnyOf(s.allOf![0]!.anyOf);
  errs.push(...validateValueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path));

  const type = s.type ?? '';
  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(type === '' ? fieldErrors.required(path.child('type'), detail) : fieldErrors.invalid(path.child('type'), type, detail));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = { root: 'must not be empty at the root', item: 'must not be empty for specified array items', field: 'must not be empty for specified object fields' }[lvl];
    errs.push(fieldErrors.required(path.child('type'), detail));
  }
  if (embedded && present(s.additionalProperties)) {
    errs.push(fieldErrors.forbidden(path.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(fieldErrors.invalid(path.child('type'), type, 'must be object at the root'));
  for (const meta of ['kind', 'apiVersion']) {
    const prop = s.properties?.[meta];
    if (prop && checkMetadata && prop.type !== 'string') {
      errs.push(fieldErrors.invalid(path.child('properties').key(meta).child('type'), prop.type ?? '', 'must be string'));
    }
  }
  const metadata = s.properties?.metadata;
  if (metadata) errs.push(...validateMetadataInvariants(metadata, checkMetadata, lvl, path.child('properties').key('metadata')));
  if (embedded && !preserve && !nonEmpty(s.properties)) {
    errs.push(fieldErrors.required(path.child('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

// every field or array specified under allOf/anyOf/oneOf/not of the root must also be specified outside of them
function validateCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: FieldPath, vPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const nested = (n: JSONSchemaProps, np: FieldPath) => errs.push(...validateNestedCompleteness(n, s, sPath, np));
  if (v.not) nested(v.not, vPath.child('not'));
  (v.allOf ?? []).forEach((x, i) => nested(x, vPath.child('allOf').index(i)));
  (v.anyOf ?? []).forEach((x, i) => nested(x, vPath.child('anyOf').index(i)));
  (v.oneOf ?? []).forEach((x, i) => nested(x, vPath.child('oneOf').index(i)));
  return errs;
}

function validateNestedCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: FieldPath, vPath: FieldPath): FieldError[] {
  if (!s) return [fieldErrors.required(sPath, `because it is defined in ${vPath.toString()}`)];
  const errs = validateCompleteness(v, s, sPath, vPath);
  if (isSchemaObject(v.items)) {
    errs.push(...validateNestedCompleteness(v.items, isSchemaObject(s.items) ? s.items : undefined, sPath.child('items'), vPath.child('items')));
  }
  for (const [k, vFld] of Object.entries(v.properties ?? {})) {
    const sFld = s.properties?.[k];
    if (!sFld) errs.push(fieldErrors.required(sPath.child('properties').key(k), `because it is defined in ${vPath.child('properties').key(k).toString()}`));
    else errs.push(...validateNestedCompleteness(vFld, sFld, sPath.child('properties').key(k), vPath.child('properties').key(k)));
  }
  return errs;
}

/** ValidateStructural, with kube's sort by message. */
export function validateStructural(s: JSONSchemaProps, path: FieldPath): FieldError[] {
  const errs = [...validateInvariants(s, 'root', path), ...validateCompleteness(s, s, path, path)];
  return errs.sort((a, b) => {
    const x = formatFieldError(a);
    const y = formatFieldError(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** What the nonstructuralschema controller checks of a stored schema: NewStructural's error, else ValidateStructural. */
export function structuralSchemaViolations(schema: JSONSchemaProps, path: FieldPath): { conversionError?: string; violations: FieldError[] } {
  const conversionError = structuralConversionError(schema);
  return conversionError ? { conversionError, violations: [] } : { violations: validateStructural(schema, path) };
}

// ---------------------------------------------------------------------------------------------------------------
// ValidateDefaults

function validateDefaults(path: FieldPath, s: JSONSchemaProps, insideMeta: boolean, isResourceRoot: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const embedded = isResourceRoot || s['x-kubernetes-embedded-resource'] === true;
  if (embedded) insideMeta = false;
  const compiled: CompiledSchema = compileSchema(s);
  if (present(s.default)) {
    const dflt = s.default;
    const defaultPath = path.child('default');
    if (!insideMeta) {
      // a default must survive pruning unchanged
      const pruned = deepCopyJSON(dflt);
      pruneWithSchema(pruned, compiled, embedded);
      if (!jsonEqual(pruned, dflt)) errs.push(fieldErrors.invalid(defaultPath, dflt, 'must not have unknown fields'));
    }
    const metaErrs = validateEmbeddedObjectMeta(dflt, compiled, embedded, defaultPath);
    if (metaErrs.length > 0) errs.push(...metaErrs);
    else errs.push(...validateValueAgainst(compiled, dflt, defaultPath));
  }
  if (isSchemaObject(s.items)) errs.push(...validateDefaults(path.child('items'), s.items, insideMeta, false));
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    const subInsideMeta = insideMeta || (embedded && (k === 'metadata' || k === 'apiVersion' || k === 'kind'));
    errs.push(...validateDefaults(path.child('properties').key(k), v, subInsideMeta, false));
  }
  if (isSchemaObject(s.additionalProperties)) errs.push(...validateDefaults(path.child('additionalProperties'), s.additionalProperties, insideMeta, false));
  return errs;
}

// ---------------------------------------------------------------------------------------------------------------
// ValidateCustomResourceDefinitionOpenAPISchema

interface SpecValidatorState {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const metaFields = new Set(['metadata', 'kind', 'apiVersion']);

// specStandardValidatorV3.validate: keywords OpenAPI v3 CRD schemas do not support
function validateSpecStandard(s: JSONSchemaProps, path: FieldPath, st: SpecValidatorState): FieldError[] {
  const errs: FieldError[] = [];
  if (s.type && !openapiV3Types.includes(s.type)) errs.push(fieldErrors.notSupported(path.child('type'), s.type, openapiV3Types));
  if (present(s.default) && !st.allowDefaults) {
    const detail = st.disallowDefaultsReason ? `must not be set ${st.disallowDefaultsReason}` : 'must not be set';
    errs.push(fieldErrors.forbidden(path.child('default'), detail));
  }
  if (s.id) errs.push(fieldErrors.forbidden(path.child('id'), 'id is not supported'));
  if (present(s.additionalItems)) errs.push(fieldErrors.forbidden(path.child('additionalItems'), 'additionalItems is not supported'));
  if (nonEmpty(s.patternProperties)) errs.push(fieldErrors.forbidden(path.child('patternProperties'), 'patternProperties is not supported'));
  if (nonEmpty(s.definitions)) errs.push(fieldErrors.forbidden(path.child('definitions'), 'definitions is not supported'));
  if (present(s.dependencies)) errs.push(fieldErrors.forbidden(path.child('dependencies'), 'dependencies is not supported'));
  if (present(s.$ref)) errs.push(fieldErrors.forbidden(path.child('$ref'), '$ref is not supported'));
  if (s.type === 'null') errs.push(fieldErrors.forbidden(path.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(fieldErrors.forbidden(path.child('items'), 'items must be a schema object and not an array'));
  if (st.insideResourceMeta && s['x-kubernetes-embedded-resource']) {
    errs.push(fieldErrors.forbidden(path.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errs;
}

function validateOpenAPISchema(s: JSONSchemaProps | undefined, path: FieldPath, st: SpecValidatorState, isRoot: boolean): FieldError[] {
  if (!s) return [];
  const errs = validateSpecStandard(s, path, st);
  if (s.uniqueItems) errs.push(fieldErrors.forbidden(path.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (present(s.additionalProperties)) {
    // properties are for structs, additionalProperties for maps: kube's convention to ignore unknown fields
    if (nonEmpty(s.properties) && (s.additionalProperties === false || isSchemaObject(s.additionalProperties))) {
      errs.push(fieldErrors.forbidden(path.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = st.insideResourceMeta ? { ...st, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : st;
    if (isSchemaObject(s.additionalProperties)) errs.push(...validateOpenAPISchema(s.additionalProperties, path.child('additionalProperties'), sub, false));
  }
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    let sub = st;
    if ((isRoot || s['x-kubernetes-embedded-resource']) && metaFields.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    errs.push(...validateOpenAPISchema(v, path.child('properties').key(k), sub, false));
  }
  errs.push(...validateOpenAPISchema(s.not, path.child('not'), st, false));
  (s.allOf ?? []).forEach((x, i) => errs.push(...validateOpenAPISchema(x, path.child('allOf').index(i), st, false)));
  (s.oneOf ?? []).forEach((x, i) => errs.push(...validateOpenAPISchema(x, path.child('oneOf').index(i), st, false)));
  (s.anyOf ?? []).forEach((x, i) => errs.push(...validateOpenAPISchema(x, path.child('anyOf').index(i), st, false)));
  for (const [k, v] of Object.entries(s.definitions ?? {})) errs.push(...validateOpenAPISchema(v, path.child('definitions').key(k), st, false));
  if (isSchemaObject(s.items)) errs.push(...validateOpenAPISchema(s.items, path.child('items'), st, false));
  else if (Array.isArray(s.items)) s.items.forEach((x, i) => errs.push(...validateOpenAPISchema(x, path.child('items').index(i), st, false)));
  for (const [k, v] of Object.entries(s.dependencies ?? {})) {
    if (isSchemaObject(v)) errs.push(...validateOpenAPISchema(v, path.child('dependencies').key(k), st, false));
  }
  errs.push(...validateExtensions(s, path));
  return errs;
}

// the x-kubernetes-* rules of ValidateCustomResourceDefinitionOpenAPISchema, for CRDs created through v1
function validateExtensions(s: JSONSchemaProps, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = s.type ?? '';
  const listType = s['x-kubernetes-list-type'];
  const mapType = s['x-kubernetes-map-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = isSchemaObject(s.items) ? s.items : undefined;
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fieldErrors.invalid(path.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  if (present(mapType) && type !== 'object') {
    const detail = 'must be object if x-kubernetes-map-type is specified';
    errs.push(type === '' ? fieldErrors.required(path.child('type'), detail) : fieldErrors.invalid(path.child('type'), type, detail));
  }
  if (present(mapType) && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(fieldErrors.notSupported(path.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  if (present(listType) && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errs.push(type === '' ? fieldErrors.required(path.child('type'), detail) : fieldErrors.invalid(path.child('type'), type, detail));
  } else if (listType === 'set' && items) {
    // set elements are compared whole, so they must be atomic
    if (items.type === 'array' && present(items['x-kubernetes-list-type']) && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(fieldErrors.invalid(path.child('items').child('x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube reports the item's list type here (nil for an object), hence null
      errs.push(fieldErrors.invalid(path.child('items').child('x-kubernetes-map-type'), items['x-kubernetes-list-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (present(listType) && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(fieldErrors.notSupported(path.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    if (!present(listType)) errs.push(fieldErrors.required(path.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(fieldErrors.invalid(path.child('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(fieldErrors.required(path.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (!present(s.items)) errs.push(fieldErrors.required(path.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items)) errs.push(fieldErrors.invalid(path.child('items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') {
      errs.push(fieldErrors.invalid(path.child('items').child('type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const prop = items.properties?.[k];
        if (prop) {
          if (prop.type === 'array' || prop.type === 'object') {
            // kube prints the item's type (object) as the bad value
            errs.push(fieldErrors.invalid(path.child('items').child('properties').key(k).child('type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(fieldErrors.invalid(path.child('x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
        }
        if (seen.has(k)) errs.push(fieldErrors.invalid(path.child('x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  errs.push(...validateMapListKeysMapSet(s, path));
  return errs;
}

// map keys must be required or defaulted and not nullable; set and map items not nullable
function validateMapListKeysMapSet(s: JSONSchemaProps, path: FieldPath): FieldError[] {
  const items = isSchemaObject(s.items) ? s.items : undefined;
  const listType = s['x-kubernetes-list-type'];
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const errs: FieldError[] = [];
  if (items.nullable) errs.push(fieldErrors.forbidden(path.child('items').child('nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    const required = new Set(items.required ?? []);
    for (const k of s['x-kubernetes-list-map-keys'] ?? []) {
      const prop = items.properties?.[k];
      if (!prop) continue;
      const keyPath = path.child('items').child('properties').key(k);
      if (!required.has(k) && !present(prop.default)) {
        errs.push(fieldErrors.required(keyPath.child('default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (prop.nullable) errs.push(fieldErrors.forbidden(keyPath.child('nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
    }
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------------------------

export interface StructuralSchemaOptions {
  /** true for a version's openAPIV3Schema (the resource root); defaults to true */
  isRoot?: boolean;
  /**
   * false when updating a CRD that already has a non-structural schema: kube then skips NewStructural,
   * ValidateStructural and ValidateDefaults (requireStructuralSchema), so such CRDs stay updatable; defaults to true
   */
  requireStructural?: boolean;
}

/**
 * The CRD-time checks of one openAPIV3Schema, with fldPath pointing at it
 * (`spec.versions[0].schema.openAPIV3Schema`). x-kubernetes-validations rules are compiled elsewhere (crdcel).
 */
export function validateStructuralSchema(schema: JSONSchemaProps, fldPath: FieldPath, opts: StructuralSchemaOptions = {}): FieldError[] {
  const isRoot = opts.isRoot ?? true;
  const errs: FieldError[] = [];
  if (isRoot && schema.nullable) errs.push(fieldErrors.forbidden(fldPath.child('nullable'), 'nullable cannot be true at the root'));
  const initErrs: FieldError[] = [];
  const conversionError = opts.requireStructural === false ? undefined : structuralConversionError(schema);
  if (opts.requireStructural === false) {
    // ratcheting: the structural checks are not required of this CRD
  } else if (conversionError) {
    initErrs.push(fieldErrors.invalid(fldPath, '', conversionError));
  } else {
    const structuralErrs = isRoot ? validateStructural(schema, fldPath) : [];
    if (structuralErrs.length > 0) errs.push(...structuralErrs);
    else errs.push(...validateDefaults(fldPath, schema, false, isRoot));
  }
  errs.push(...validateOpenAPISchema(schema, fldPath, { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false }, isRoot));
  // conversion failures overlap with the keyword errors above, so kube shows them only when nothing else is wrong
  if (errs.length === 0) errs.push(...initErrs);
  return errs;
}
