// OpenAPI schemas of kinds, for schema-aware CEL type checking.
export { BuiltinSchemaResolver, builtinSchemaResolver } from './builtin-schemas.js';
export { chainSchemaResolvers, formatGroupVersionKind, type GroupVersionKind, type SchemaResolver } from './resolver.js';
