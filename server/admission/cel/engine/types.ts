// CEL's static types, as the checker (checker/types.go in cel-go) and function declarations see them.
// A type is plain data so declarations can be written as literals; `T` builds the common ones.

export type CelType =
  | { readonly kind: 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'timestamp' | 'duration' }
  /** dynamic: any value, checked at runtime (JSON-derived values are dyn) */
  | { readonly kind: 'dyn' }
  /** the checker's error type: an expression that failed to check */
  | { readonly kind: 'error' }
  | { readonly kind: 'list'; readonly elem: CelType }
  | { readonly kind: 'map'; readonly key: CelType; readonly value: CelType }
  /** the type of a type value: `type(int)`; param is the type it denotes */
  | { readonly kind: 'type'; readonly param?: CelType }
  /** a library's opaque type (net.IP, Quantity, optional_type(T), …), possibly parameterised */
  | { readonly kind: 'opaque'; readonly name: string; readonly params: readonly CelType[] }
  /**
   * a struct type: built with `Name{field: value}` (ApplyConfiguration's Object, JSONPatch), declared by a library,
   * or derived from an OpenAPI schema (kube's DeclType objects). `fields`, when present, declares the fields
   * itself (lazily: Kubernetes schemas are large); otherwise the registry's ObjectTypeDecl of that name does.
   */
  | { readonly kind: 'object'; readonly name: string; readonly fields?: ObjectFields }
  /** a type parameter of a generic overload (`list(A).sum() -> A`) */
  | { readonly kind: 'param'; readonly name: string };

export type TypeSpec = CelType;

/**
 * The declared fields of a schema-derived object type, resolved on demand (cel-go's TypeProvider
 * FindStructFieldType). `field` answers undefined for a field the type does not declare.
 */
export interface ObjectFields {
  field(name: string): CelType | undefined;
  /** the declared field names (for tests and diagnostics; forces every field's type) */
  names(): readonly string[];
}

const prim = <K extends 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'timestamp' | 'duration'>(kind: K) =>
  Object.freeze({ kind }) as { readonly kind: K };

/** Builders for declarations: `T.list(T.string)`, `T.opaque('net.IP')`, `T.optional(T.param('A'))`. */
export const T = {
  int: prim('int'),
  uint: prim('uint'),
  double: prim('double'),
  bool: prim('bool'),
  string: prim('string'),
  bytes: prim('bytes'),
  null: prim('null'),
  timestamp: prim('timestamp'),
  duration: prim('duration'),
  dyn: Object.freeze({ kind: 'dyn' }) as CelType,
  error: Object.freeze({ kind: 'error' }) as CelType,
  list: (elem: CelType): CelType => ({ kind: 'list', elem }),
  map: (key: CelType, value: CelType): CelType => ({ kind: 'map', key, value }),
  type: (param?: CelType): CelType => (param ? { kind: 'type', param } : { kind: 'type' }),
  opaque: (name: string, ...params: CelType[]): CelType => ({ kind: 'opaque', name, params }),
  optional: (param: CelType): CelType => ({ kind: 'opaque', name: 'optional_type', params: [param] }),
  object: (name: string, fields?: ObjectFields): CelType => (fields ? { kind: 'object', name, fields } : { kind: 'object', name }),
  param: (name: string): CelType => ({ kind: 'param', name }),
} as const;

/** The runtime type name of values of this type (`type(x)` prints it). */
export function runtimeTypeName(t: CelType): string {
  switch (t.kind) {
    case 'null':
      return 'null_type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'opaque':
    case 'object':
      return t.name;
    case 'param':
      return t.name;
    default:
      return t.kind;
  }
}

/** Formats a type as cel-go does in messages: `list(int)`, `map(string, dyn)`, `optional_type(int)`. */
export function formatType(t: CelType): string {
  switch (t.kind) {
    case 'list':
      return `list(${formatType(t.elem)})`;
    case 'map':
      return `map(${formatType(t.key)}, ${formatType(t.value)})`;
    case 'type':
      return t.param ? `type(${formatType(t.param)})` : 'type';
    case 'opaque':
      return t.params.length ? `${t.name}(${t.params.map(formatType).join(', ')})` : t.name;
    case 'object':
    case 'param':
      return t.name;
    case 'null':
      return 'null';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    default:
      return t.kind;
  }
}

export function typeEquals(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
      return typeEquals(a.elem, (b as typeof a).elem);
    case 'map':
      return typeEquals(a.key, (b as typeof a).key) && typeEquals(a.value, (b as typeof a).value);
    case 'type': {
      const bp = (b as typeof a).param;
      if (!a.param || !bp) return !a.param && !bp;
      return typeEquals(a.param, bp);
    }
    case 'opaque': {
      const bo = b as typeof a;
      return a.name === bo.name && a.params.length === bo.params.length && a.params.every((p, i) => typeEquals(p, bo.params[i]!));
    }
    case 'object':
    case 'param':
      return a.name === (b as typeof a).name;
    default:
      return true;
  }
}

export function isOptionalType(t: CelType): t is { kind: 'opaque'; name: string; params: readonly CelType[] } {
  return t.kind === 'opaque' && t.name === 'optional_type';
}
