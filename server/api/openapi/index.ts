// OpenAPI schemas of kinds, for schema-aware CEL type checking.
export { BuiltinSchemaResolver, builtinModelOf, builtinSchemaResolver } from './builtin-schemas.js';
export { KindFields, duplicateFieldErrors, kindFields } from './strict-decoding.js';
export { chainSchemaResolvers, formatGroupVersionKind, type GroupVersionKind, type SchemaResolver } from './resolver.js';
