// The definitions of the built-in kinds' OpenAPI documents, field by field, from the same description of the types
// that strict field validation and CEL type checking use (server/api/openapi: client-node's generated models, plus
// the fields they lack), named as kube publishes them, with:
// - descriptions and `required` from the models' declaration files (kube's own texts, see model-docs.ts), and
//   the descriptions those files drop (fields that are references) from reference-field-descriptions.ts;
// - the formats kube publishes (int32, int64, double, byte, date-time), and its special types: Time and MicroTime
//   (string, date-time), IntOrString (v2: string/int-or-string; v3: oneOf integer, string), Quantity (v2: string;
//   v3: oneOf string, number), FieldsV1 and RawExtension (object), apiextensions' JSON types (no type);
// - the strategic merge patch tags of server/endpoints/patch/smp-schema.ts as x-kubernetes-patch-strategy and
//   x-kubernetes-patch-merge-key, and the list and map types server-side apply uses
//   (server/admission/policy/mutating/apply-schema.ts) as x-kubernetes-list-type, x-kubernetes-list-map-keys and
//   x-kubernetes-map-type: the documents say what this server's patch and apply do. Lists kube marks
//   +listType=atomic are not told apart from unmarked ones, so `x-kubernetes-list-type: atomic` appears only where a
//   patch tag says replace (an unmarked list is atomic to every reader anyway); +structType=atomic types carry
//   x-kubernetes-map-type: atomic on their definition, as kube publishes them.
import type { JsonObject, JsonValue } from '../../api/types.js';
import { loadModels, modelSchemaOverrides, quantitySchema, type Attribute } from '../../api/openapi/client-node-models.js';
import { definitionName, metaGroup, packageOfModel, type GroupVersion } from '../../api/openapi/definition-names.js';
import { readModelDoc, type ModelDoc } from '../../api/openapi/model-docs.js';
import { applySchemaFor, type ApplyNode } from '../../admission/policy/mutating/apply-schema.js';
import { strategicMergeSchemaFor, type StructSchema } from '../patch/smp-schema.js';

/** How a document writes references: v3 `#/components/schemas/…` wrapped in allOf when described, v2 `#/definitions/…`. */
export interface SchemaStyle {
  readonly version: 2 | 3;
  ref(name: string): JsonObject;
  field(name: string, description: string | undefined, extra?: JsonObject): JsonObject;
}

const described = (description: string | undefined): JsonObject => (description === undefined ? {} : { description });

export const v3Style: SchemaStyle = {
  version: 3,
  ref: (name) => ({ $ref: `#/components/schemas/${name}` }),
  // kube-openapi's v3 builder wraps a described reference in allOf (a $ref's siblings are ignored in OpenAPI 3.0)
  field: (name, description, extra = {}) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], ...described(description), ...extra }),
};

export const v2Style: SchemaStyle = {
  version: 2,
  ref: (name) => ({ $ref: `#/definitions/${name}` }),
  field: (name, description, extra = {}) => ({ $ref: `#/definitions/${name}`, ...described(description), ...extra }),
};

/** A served built-in kind and the client-node model describing it. */
export interface KindModel extends GroupVersion {
  readonly kind: string;
  readonly model: string;
}

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

const meta = (type: string): string => definitionName(metaGroup, 'v1', type);
const quantityDef = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const intOrStringDef = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const rawExtensionDef = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const apiextensions = (type: string): string => definitionName('apiextensions.k8s.io', 'v1', type);

/** Definitions of types that are not structs, as kube-openapi publishes them (their OpenAPISchemaType and friends). */
function specialDefinitions(version: 2 | 3): Record<string, JsonObject> {
  return {
    [meta('Time')]: { description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.', type: 'string', format: 'date-time' },
    [meta('MicroTime')]: { description: 'MicroTime is version of Time with microsecond level precision.', type: 'string', format: 'date-time' },
    [meta('FieldsV1')]: { description: "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach key is either a '.' representing the field itself, and will always map to an empty set, or a string representing a sub-field or item. The string will follow one of these four formats: 'f:<name>', where <name> is the name of a field in a struct, or key in a map 'v:<value>', where <value> is the exact json formatted value of a list item 'i:<index>', where <index> is position of a item in a list 'k:<keys>', where <keys> is a map of  a list item's key fields to their unique values If a key maps to an empty Fields value, the field that key represents is part of the set.\n\nThe exact format is defined in sigs.k8s.io/structured-merge-diff", type: 'object' },
    [rawExtensionDef]: { description: 'RawExtension is used to hold extensions in external versions.', type: 'object' },
    [quantityDef]:
      version === 3
        ? { description: quantityDescription, oneOf: [{ type: 'string' }, { type: 'number' }] }
        : { description: quantityDescription, type: 'string' },
    [intOrStringDef]:
      version === 3
        ? { description: intOrStringDescription, oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' }
        : { description: intOrStringDescription, type: 'string', format: 'int-or-string' },
    [apiextensions('JSON')]: { description: 'JSON represents any valid JSON value. These types are supported: bool, int64, float64, string, []interface{}, map[string]interface{} and nil.' },
    [apiextensions('JSONSchemaPropsOrArray')]: { description: 'JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps or an array of JSONSchemaProps. Mainly here for serialization purposes.' },
    [apiextensions('JSONSchemaPropsOrBool')]: { description: 'JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value. Defaults to true for the boolean property.' },
    [apiextensions('JSONSchemaPropsOrStringArray')]: { description: 'JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string array.' },
    [apiextensions('CustomResourceSubresourceStatus')]: { description: 'CustomResourceSubresourceStatus defines how to serve the status subresource for CustomResources. Status is represented by the `.status` JSON path inside of a CustomResource. When set, * exposes a /status subresource for the custom resource * PUT requests to the /status subresource take a custom resource object, and ignore changes to anything except the status stanza * PATCH requests to the /status subresource take a custom resource object, and ignore changes to anything except the status stanza', type: 'object' },
  };
}

const quantityDescription =
  'Quantity is a fixed-point representation of a number. It provides convenient marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors.\n\nThe serialization format is:\n\n``` <quantity>        ::= <signedNumber><suffix>\n\n\t(Note that <suffix> may be empty, from the "" case in <decimalSI>.)\n\n<digit>           ::= 0 | 1 | ... | 9 <digits>          ::= <digit> | <digit><digits> <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits> <sign>            ::= "+" | "-" <signedNumber>    ::= <number> | <sign><number> <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI> <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei\n\n\t(International System of units; See: http://physics.nist.gov/cuu/Units/binary.html)\n\n<decimalSI>       ::= m | "" | k | M | G | T | P | E\n\n\t(Note that 1024 = 1Ki but 1000 = 1k; I didn\'t choose the capitalization.)\n\n<decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber> ```';
const intOrStringDescription =
  'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.';

const objectMetaFieldDescription = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** Fields whose models say `any` (or flatten to string), and the definition kube refers to there. */
const fieldRefs: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  V1ManagedFieldsEntry: { fieldsV1: meta('FieldsV1') },
  V1WatchEvent: { object: rawExtensionDef },
  V1CustomResourceSubresources: { status: apiextensions('CustomResourceSubresourceStatus') },
  V1JSONSchemaProps: {
    additionalItems: apiextensions('JSONSchemaPropsOrBool'),
    additionalProperties: apiextensions('JSONSchemaPropsOrBool'),
    default: apiextensions('JSON'),
    example: apiextensions('JSON'),
    items: apiextensions('JSONSchemaPropsOrArray'),
  },
};

/** Elements of `any` lists and maps kube types: JSONSchemaProps.enum is []JSON, .dependencies a map of OrStringArray. */
const elementRefs: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  V1JSONSchemaProps: { enum: apiextensions('JSON'), dependencies: apiextensions('JSONSchemaPropsOrStringArray') },
};

/** Every model the kinds reach and the docs of each, loaded once per process. */
export interface ModelCatalog {
  readonly models: ReadonlyMap<string, readonly Attribute[]>;
  readonly docs: ReadonlyMap<string, ModelDoc>;
}

export async function loadModelCatalog(roots: readonly string[]): Promise<ModelCatalog> {
  const models = new Map<string, readonly Attribute[]>();
  for (const loaded of await Promise.all(roots.map((r) => loadModels(r)))) for (const [k, v] of loaded) if (!models.has(k)) models.set(k, v);
  // imported here, not at startup: kube's descriptions of the fields the declaration files leave undocumented
  const { referenceFieldDescriptions } = await import('../../api/openapi/reference-field-descriptions.js');
  const docs = new Map<string, ModelDoc>();
  await Promise.all(
    [...models.keys()].map(async (m) => {
      const d = await readModelDoc(m);
      const added = referenceFieldDescriptions[m];
      if (!added) {
        if (d) docs.set(m, d);
        return;
      }
      const fields = new Map(d?.fields);
      for (const [f, description] of Object.entries(added)) fields.set(f, { required: fields.get(f)?.required ?? false, description });
      docs.set(m, { ...(d?.description ? { description: d.description } : {}), fields });
    }),
  );
  return { models, docs };
}

/** Per-field extensions and atomic structs found by walking the patch-tag and apply schemas along the models. */
interface Annotations {
  fields: Map<string, Map<string, JsonObject>>;
  atomic: Set<string>;
}

function elementModel(type: string | undefined): string | undefined {
  if (!type) return undefined;
  const inner = ARRAY.exec(type) ?? MAP.exec(type);
  if (inner) return elementModel(inner[1]);
  return /^[A-Z]/.test(type) ? type : undefined;
}

function annotate(ann: Annotations, model: string, field: string, ext: JsonObject): void {
  let m = ann.fields.get(model);
  if (!m) ann.fields.set(model, (m = new Map()));
  m.set(field, { ...(m.get(field) ?? {}), ...ext });
}

function walkPatchTags(cat: ModelCatalog, ann: Annotations, model: string, schema: StructSchema, seen: Set<string>, depth = 0): void {
  if (depth > 40) return;
  const attrs = cat.models.get(model) ?? [];
  for (const [field, pm] of Object.entries(schema)) {
    const attr = attrs.find((a) => a.baseName === field);
    if (!attr) continue;
    if (pm.strategy) annotate(ann, model, field, { 'x-kubernetes-patch-strategy': pm.strategy });
    if (pm.mergeKey) annotate(ann, model, field, { 'x-kubernetes-patch-merge-key': pm.mergeKey });
    const child = elementModel(attr.type);
    const key = `${child}:${field}:${depth}`;
    if (pm.schema && child && !seen.has(key)) {
      seen.add(key);
      walkPatchTags(cat, ann, child, pm.schema(), seen, depth + 1);
    }
  }
}

function walkApplyNode(cat: ModelCatalog, ann: Annotations, model: string, node: ApplyNode, depth = 0): void {
  if (depth > 40 || node.type !== 'struct') return;
  const attrs = cat.models.get(model) ?? [];
  for (const [field, thunk] of Object.entries(node.fields)) {
    const attr = attrs.find((a) => a.baseName === field);
    if (!attr) continue;
    const child = thunk();
    const elem = elementModel(attr.type);
    switch (child.type) {
      case 'associativeList':
        annotate(ann, model, field, { 'x-kubernetes-list-map-keys': child.keys.map((k) => k.name), 'x-kubernetes-list-type': 'map' });
        if (elem) walkApplyNode(cat, ann, elem, child.element(), depth + 1);
        break;
      case 'setList':
        annotate(ann, model, field, { 'x-kubernetes-list-type': 'set' });
        break;
      case 'atomicList':
        annotate(ann, model, field, { 'x-kubernetes-list-type': 'atomic' });
        break;
      case 'atomicStruct':
        // +mapType=atomic sits on the field; +structType=atomic on the struct's own definition
        if (MAP.test(attr.type)) annotate(ann, model, field, { 'x-kubernetes-map-type': 'atomic' });
        else if (elem && ARRAY.test(attr.type)) ann.atomic.add(elem);
        else if (elem) ann.atomic.add(elem);
        break;
      case 'struct':
        if (elem) walkApplyNode(cat, ann, elem, child, depth + 1);
        break;
      default:
        break;
    }
  }
}

/** The extensions every kind's walk finds, by model and field. */
function annotationsOf(cat: ModelCatalog, kinds: readonly KindModel[]): Annotations {
  const ann: Annotations = { fields: new Map(), atomic: new Set() };
  for (const k of kinds) {
    const smp = strategicMergeSchemaFor(k);
    if (smp) walkPatchTags(cat, ann, k.model, smp, new Set());
    walkApplyNode(cat, ann, k.model, applySchemaFor({ group: k.group, kind: k.kind }).root);
  }
  // kube marks these +structType=atomic wherever they appear (its apply schema lists them per field)
  for (const m of ['V1LabelSelector', 'V1OwnerReference', 'V1LocalObjectReference', 'V1NodeSelector', 'V1ConfigMapKeySelector', 'V1SecretKeySelector', 'V1ObjectFieldSelector', 'V1ResourceFieldSelector']) ann.atomic.add(m);
  return ann;
}

/**
 * Builds definitions for a set of kinds: every type they reach, by kube's name. One instance per model catalogue;
 * `definitionsFor` renders the part a document needs in its style.
 */
export class BuiltinDefinitions {
  /** kube's definition name of each model, as first reached from a kind */
  private readonly names = new Map<string, string>();
  private readonly packages = new Map<string, GroupVersion>();
  private readonly ann: Annotations;
  private readonly kindNames = new Map<string, KindModel>();

  constructor(
    private readonly cat: ModelCatalog,
    kinds: readonly KindModel[],
    /** types that are no served kind's but are published (meta/v1 Status, DeleteOptions, WatchEvent) */
    others: ReadonlyArray<{ model: string; pkg: GroupVersion; type: string }> = [],
  ) {
    for (const k of kinds) {
      const name = definitionName(k.group, k.version, k.kind);
      this.kindNames.set(name, k);
      this.assign(k.model, name, k);
    }
    for (const o of others) this.assign(o.model, definitionName(o.pkg.group, o.pkg.version, o.type), o.pkg);
    this.ann = annotationsOf(cat, kinds);
  }

  private assign(model: string, name: string, pkg: GroupVersion): void {
    if (this.names.has(model)) return;
    this.names.set(model, name);
    this.packages.set(model, pkg);
    for (const a of this.cat.models.get(model) ?? []) {
      const child = elementModel(a.type);
      if (!child || child === 'Date' || child === 'IntOrString' || this.names.has(child)) continue;
      const p = packageOfModel(child, pkg);
      this.assign(child, definitionName(p.group, p.version, p.type), p);
    }
  }

  /** The definition name of a kind's model. */
  nameOfKind(k: KindModel): string {
    return definitionName(k.group, k.version, k.kind);
  }

  /** Whether the catalogue describes this kind. */
  has(k: KindModel): boolean {
    return (this.cat.models.get(k.model)?.length ?? 0) > 0;
  }

  /** The definitions reachable from these definition names, rendered in `style`. */
  definitionsFor(style: SchemaStyle, roots: readonly string[]): Record<string, JsonObject> {
    const byName = new Map<string, string>();
    for (const [model, name] of this.names) if (!byName.has(name)) byName.set(name, model);
    const specials = specialDefinitions(style.version);
    const out: Record<string, JsonObject> = {};
    const queue = [...roots];
    while (queue.length) {
      const name = queue.pop()!;
      if (out[name]) continue;
      const special = specials[name];
      if (special) {
        out[name] = special;
        continue;
      }
      const model = byName.get(name);
      if (!model) continue;
      const def = this.renderModel(style, model, name);
      out[name] = def;
      collectRefs(def, queue);
    }
    return out;
  }

  private renderModel(style: SchemaStyle, model: string, name: string): JsonObject {
    const attrs = [...(this.cat.models.get(model) ?? [])].sort((a, b) => (a.baseName < b.baseName ? -1 : a.baseName > b.baseName ? 1 : 0));
    const doc = this.cat.docs.get(model);
    const properties: JsonObject = {};
    const required: string[] = [];
    for (const a of attrs) {
      const fd = doc?.fields.get(a.baseName);
      if (fd?.required) required.push(a.baseName);
      const ext = this.ann.fields.get(model)?.get(a.baseName) ?? {};
      // the generator drops the descriptions of fields that are references; a kind's metadata is kube's standard text
      const description = fd?.description ?? (a.baseName === 'metadata' && this.kindNames.has(name) ? objectMetaFieldDescription : undefined);
      properties[a.baseName] = this.fieldSchema(style, model, a, description, ext);
    }
    const def: JsonObject = {};
    if (doc?.description) def['description'] = doc.description;
    def['type'] = 'object';
    if (required.length) def['required'] = required;
    def['properties'] = properties;
    const kind = this.kindNames.get(name);
    if (kind) def['x-kubernetes-group-version-kind'] = [{ group: kind.group, kind: kind.kind, version: kind.version }];
    if (this.ann.atomic.has(model)) def['x-kubernetes-map-type'] = 'atomic';
    return def;
  }

  private fieldSchema(style: SchemaStyle, model: string, a: Attribute, description: string | undefined, ext: JsonObject): JsonObject {
    const ref = fieldRefs[model]?.[a.baseName];
    if (ref) return withDescription(style, { $ref: ref }, description, ext);
    const override = modelSchemaOverrides[model]?.[a.baseName];
    if (override === quantitySchema) return withDescription(style, { $ref: quantityDef }, description, ext);
    if (override?.additionalProperties === quantitySchema) return { ...described(description), type: 'object', additionalProperties: style.ref(quantityDef), ...ext };
    const schema = this.typeSchema(style, model, a.baseName, a.type, a.format);
    return withDescription(style, schema, description, ext);
  }

  private typeSchema(style: SchemaStyle, model: string, field: string, type: string, format: string): JsonObject {
    const arr = ARRAY.exec(type);
    if (arr) return { type: 'array', items: this.elementSchema(style, model, field, arr[1]!, format) };
    const map = MAP.exec(type);
    if (map) return { type: 'object', additionalProperties: this.elementSchema(style, model, field, map[1]!, format) };
    switch (type) {
      case 'string':
        return format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
      case 'number':
        return format === 'int32' || format === 'int64' ? { type: 'integer', format } : { type: 'number', ...(format ? { format } : {}) };
      case 'boolean':
        return { type: 'boolean' };
      case 'Date':
        return { $ref: meta('Time') };
      case 'V1MicroTime':
        return { $ref: meta('MicroTime') };
      case 'IntOrString':
        return { $ref: intOrStringDef };
      case 'any':
        return {};
      case 'object':
        return { type: 'object' };
    }
    const name = this.names.get(type);
    return name ? { $ref: name } : { type: 'object' };
  }

  private elementSchema(style: SchemaStyle, model: string, field: string, type: string, format: string): JsonObject {
    const ref = elementRefs[model]?.[field];
    const s = ref ? { $ref: ref } : this.typeSchema(style, model, field, type, format);
    const target = s['$ref'];
    if (typeof target === 'string') return style.ref(target);
    // the element of a map or list of strings is defaulted to "" in kube's published schemas
    return s['type'] === 'string' && !s['format'] ? { ...s, default: '' } : s;
  }
}

/** A field: a reference (wrapped as the style wraps described references) or an inline schema, described. */
function withDescription(style: SchemaStyle, schema: JsonObject, description: string | undefined, ext: JsonObject): JsonObject {
  const target = schema['$ref'];
  if (typeof target === 'string') {
    if (description === undefined && Object.keys(ext).length === 0) return style.ref(target);
    return style.field(target, description, ext);
  }
  return { ...(description ? { description } : {}), ...resolveRefs(style, schema), ...ext };
}

/** Inline schemas hold bare definition names in `$ref` until rendered in a style. */
function resolveRefs(style: SchemaStyle, v: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (x && typeof x === 'object' && !Array.isArray(x)) {
      const target = x['$ref'];
      out[k] = typeof target === 'string' && !target.startsWith('#') ? style.ref(target) : resolveRefs(style, x);
    } else out[k] = x;
  }
  return out;
}

/** The definition names a rendered schema refers to. */
export function collectRefs(v: JsonValue, out: string[]): void {
  if (Array.isArray(v)) v.forEach((x) => collectRefs(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(x.slice(x.lastIndexOf('/') + 1));
      else collectRefs(x, out);
    }
  }
}
