// CEL types of OpenAPI schemas, as kube-apiserver derives them (staging/src/k8s.io/apiserver/pkg/cel/common/
// schemas.go SchemaDeclType, with the openapi adaptor's rules for built-in types): objects with properties become
// object types whose fields are the exposed properties, additionalProperties maps, arrays lists, formats
// date-time/date/duration/byte the CEL well-known types, int-or-string dyn. A schema CEL cannot represent (no
// type, an array without items, a map whose values are not exposed) is not exposed: its property is simply not a
// field, so selecting it reports cel-go's "undefined field".
//
// Object types are named as kube's DeclType.MaybeAssignTypeName names them (`<root>.spec.template`, list
// elements `.@idx`, map values `.@elem`), which is what cel-go prints in overload errors. Fields are resolved on
// first use: Kubernetes schemas are large and most expressions touch a handful of fields.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { T, type CelType, type ObjectFields } from './engine/types.js';

/** CEL's reserved words; a property with one of these names is escaped `__name__` (apiserver/pkg/cel/escaping.go). */
const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/**
 * kube's cel.Escape: a property name as a CEL field name (`__`→`__underscores__`, `.`→`__dot__`, `-`→`__dash__`,
 * `/`→`__slash__`, reserved words `__word__`), or undefined when it cannot be one (leading digit, other characters).
 */
export function escapeFieldName(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (/[^a-zA-Z0-9_./-]/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (m) => ({ __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' })[m]!);
}

/** kube's cel.Unescape: the property name of an escaped CEL field name. */
export function unescapeFieldName(escaped: string): string {
  const words: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };
  return escaped.replace(/__([^_]+)__/g, (m, w: string) => words[w] ?? (RESERVED.has(w) ? w : m));
}

export interface SchemaTypeOptions {
  /**
   * The schema is the root of a resource (or an x-kubernetes-embedded-resource): `apiVersion`, `kind` and
   * `metadata.name`/`metadata.generateName` are always accessible, as kube's WithTypeAndObjectMeta guarantees.
   * Default true.
   */
  isResourceRoot?: boolean;
}

/**
 * The CEL type of a schema, objects named from `typeName` (kube's SchemaDeclType(s, isResourceRoot)
 * .MaybeAssignTypeName(typeName)). A schema CEL cannot represent at all is `dyn`.
 */
export function celTypeOfSchema(schema: JSONSchemaProps, typeName: string, opts: SchemaTypeOptions = {}): CelType {
  return schemaDeclType(schema, typeName, opts.isResourceRoot ?? true) ?? T.dyn;
}

/** SchemaDeclType: the type, or undefined when kube does not expose the schema in CEL. */
export function schemaDeclType(schema: JSONSchemaProps, typeName: string, isResourceRoot: boolean): CelType | undefined {
  if (isIntOrString(schema)) return T.dyn;
  // x-kubernetes-preserve-unknown-fields is ignored: unknown fields are never exposed, declared ones are
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      const items = Array.isArray(s.items) ? undefined : s.items;
      if (!items) return undefined;
      const elem = schemaDeclType(items, `${typeName}.@idx`, !!items['x-kubernetes-embedded-resource']);
      return elem && T.list(elem);
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === 'object') {
        const value = schemaDeclType(ap, `${typeName}.@elem`, !!ap['x-kubernetes-embedded-resource']);
        return value && T.map(T.string, value);
      }
      return T.object(typeName, new SchemaObjectFields(s.properties ?? {}, typeName));
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return T.bytes;
        case 'duration':
          return T.duration;
        case 'date':
        case 'date-time':
          return T.timestamp;
      }
      return T.string;
    case 'boolean':
      return T.bool;
    case 'number':
      return T.double;
    case 'integer':
      return T.int;
  }
  return undefined;
}

/** Built-in types say int-or-string with the format, CRDs with the extension; kube accepts both. */
function isIntOrString(s: JSONSchemaProps): boolean {
  return s.format === 'int-or-string' || s['x-kubernetes-int-or-string'] === true;
}

const stringSchema: JSONSchemaProps = { type: 'string' };

/** WithTypeAndObjectMeta: a resource root always has kind, apiVersion and metadata.name/generateName. */
function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const p = s.properties;
  const meta = p?.['metadata'];
  if (p?.['kind']?.type === 'string' && p['apiVersion']?.type === 'string' && meta?.type === 'object' && meta.properties?.['name']?.type === 'string' && meta.properties['generateName']?.type === 'string') {
    return s;
  }
  // kube replaces metadata entirely: a root's metadata exposes only name and generateName unless fully declared
  return {
    ...s,
    properties: {
      ...(p ?? {}),
      kind: stringSchema,
      apiVersion: stringSchema,
      metadata: { type: 'object', properties: { name: stringSchema, generateName: stringSchema } },
    },
  };
}

/** The fields of an object schema, each typed on first selection and then remembered. */
class SchemaObjectFields implements ObjectFields {
  private readonly byField = new Map<string, { property: string; schema: JSONSchemaProps }>();
  private readonly resolved = new Map<string, CelType | undefined>();

  constructor(
    properties: Readonly<Record<string, JSONSchemaProps>>,
    private readonly typeName: string,
  ) {
    for (const [property, schema] of Object.entries(properties)) {
      const f = escapeFieldName(property);
      if (f !== undefined) this.byField.set(f, { property, schema });
    }
  }

  field(name: string): CelType | undefined {
    // cel-go's DeclTypeProvider also finds an escaped reserved word by its plain name (`metadata.namespace`)
    const key = this.byField.has(name) ? name : RESERVED.has(name) && this.byField.has(`__${name}__`) ? `__${name}__` : undefined;
    if (key === undefined) return undefined;
    if (!this.resolved.has(key)) {
      const { schema } = this.byField.get(key)!;
      this.resolved.set(key, schemaDeclType(schema, `${this.typeName}.${key}`, !!schema['x-kubernetes-embedded-resource']));
    }
    return this.resolved.get(key);
  }

  names(): readonly string[] {
    return [...this.byField.keys()].filter((n) => this.field(n) !== undefined).sort();
  }
}
