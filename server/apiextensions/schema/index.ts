// Structural schemas for CustomResourceDefinitions: CRD-time schema checks, and per-request validation, pruning
// and defaulting of custom resources, as apiextensions-apiserver does them. Schemas are compiled once per
// JSONSchemaProps object (cached), so callers may pass the same schema object on every request.
import type { FieldError } from '../../api/field.js';
import { FieldPath } from '../../api/field.js';
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { compileSchema } from './compiled.js';
import { defaultWithSchema, pruneNonNullableNullsWithoutDefaults } from './defaulting.js';
import { validateEmbeddedObjectMeta } from './embedded-meta.js';
import { isObject } from './json-value.js';
import { validateListSetsAndMaps } from './list-type.js';
import { validateValueAgainst } from './openapi-validate.js';
import { pruneWithSchema } from './pruning.js';

export { structuralSchemaViolations, validateStructuralSchema, type StructuralSchemaOptions } from './structural-validation.js';
export { compileSchema, type CompiledSchema } from './compiled.js';

/**
 * Validates a custom resource against its version's schema as the custom resource strategy does: kube-openapi
 * value validation (paths rooted at the object: `spec.replicas`), then apiVersion/kind/metadata of embedded
 * resources, then x-kubernetes-list-type set/map uniqueness. The root's own TypeMeta/ObjectMeta is the caller's.
 */
export function validateCustomResourceValue(obj: unknown, schema: JSONSchemaProps): FieldError[] {
  const s = compileSchema(schema);
  const errs = validateValueAgainst(s, obj);
  errs.push(...validateEmbeddedObjectMeta(obj, s, false));
  if (isObject(obj)) errs.push(...validateListSetsAndMaps(FieldPath.root(''), s, obj));
  return errs;
}

/**
 * Removes, in place, every field the schema does not specify and returns their paths (`spec.foo`,
 * `spec.items[0].bar`). At the resource root (and in embedded resources) apiVersion, kind and metadata are kept.
 */
export function pruneUnknownFields(obj: Record<string, unknown>, schema: JSONSchemaProps, opts: { isResourceRoot: boolean }): string[] {
  return pruneWithSchema(obj, compileSchema(schema), opts.isResourceRoot);
}

/**
 * Structural defaulting in place: nulls of non-nullable fields without a default are dropped, then missing fields
 * (and non-nullable nulls) get a copy of their default, through properties, additionalProperties and items.
 * Run it after pruning on writes, and on every object read from storage.
 */
export function applySchemaDefaults(obj: unknown, schema: JSONSchemaProps): void {
  const s = compileSchema(schema);
  pruneNonNullableNullsWithoutDefaults(obj, s);
  defaultWithSchema(obj, s);
}
