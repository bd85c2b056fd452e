// The strictness errors kube-apiserver's decoders report for a built-in kind, at every depth, from the kind's fields
// as client-node's models describe them (plus ./fields-missing-from-models.ts):
// - sigs.k8s.io/json UnmarshalStrict (the json serializer of create and update, and of a JSON or merge patch's
//   result): `unknown field "spec.containers[0].imagee"` and `duplicate field "spec.replicas"` in document order,
//   deduplicated and capped at 100, as decodeState.saveStrictError keeps them. Map keys are part of the path
//   (`metadata.labels.app`) but are never unknown; below a type with its own UnmarshalJSON (IntOrString, Quantity,
//   Time, RawExtension, FieldsV1, JSON) nothing is checked.
// - runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation (a strategic merge patch's result): only
//   unknown fields; each struct's nested fields first, then its own unknown keys (kube walks Go's map order there,
//   which is random; here keys are sorted).
// Values of the wrong type are not this module's business: the decoders fail on them separately.
import type { JsonNode } from '../go-json-document.js';
import { goQuote } from '../../options/go-strconv.js';
import { loadModels, type Attribute } from './client-node-models.js';

type FieldShape =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'struct'; readonly model: string }
  | { readonly kind: 'list'; readonly elem: FieldShape }
  | { readonly kind: 'map'; readonly elem: FieldShape };

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;
const leaf: FieldShape = Object.freeze({ kind: 'leaf' });

/** decodeState.saveStrictError: at most 100 errors are kept */
const maxStrictErrors = 100;

class StrictErrors {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();

  add(message: string): void {
    if (this.list.length >= maxStrictErrors || this.seen.has(message)) return;
    this.seen.add(message);
    this.list.push(message);
  }
}

const childPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** An object's members in document order, a key seen before reported as the json decoder does. */
function visitMembers(node: Extract<JsonNode, { type: 'object' }>, path: string, out: StrictErrors, visit: (child: JsonNode, path: string) => void): void {
  const seen = new Set<string>();
  for (const { key, node: child } of node.members) {
    const p = childPath(path, key);
    if (seen.has(key)) out.add(`duplicate field ${goQuote(p)}`);
    seen.add(key);
    visit(child, p);
  }
}
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The fields of one kind's Go struct and of every struct below it. */
export class KindFields {
  private readonly structs = new Map<string, ReadonlyMap<string, FieldShape>>();

  constructor(
    private readonly models: ReadonlyMap<string, readonly Attribute[]>,
    private readonly root: string,
  ) {}

  private shapeOf(type: string): FieldShape {
    const arr = ARRAY.exec(type);
    if (arr) return { kind: 'list', elem: this.shapeOf(arr[1]!) };
    const map = MAP.exec(type);
    if (map) return { kind: 'map', elem: this.shapeOf(map[1]!) };
    // a model the generated code references but does not have is left open rather than rejecting everything in it
    return this.models.get(type)?.length ? { kind: 'struct', model: type } : leaf;
  }

  private fieldsOf(model: string): ReadonlyMap<string, FieldShape> {
    let fields = this.structs.get(model);
    if (!fields) {
      fields = new Map((this.models.get(model) ?? []).map((a) => [a.baseName, this.shapeOf(a.type)] as const));
      this.structs.set(model, fields);
    }
    return fields;
  }

  /** UnmarshalStrict's unknown and duplicate fields of a document decoded into the kind, in the decoder's order. */
  decodeErrors(doc: JsonNode): string[] {
    const out = new StrictErrors();
    this.decode(doc, { kind: 'struct', model: this.root }, '', out);
    return out.list;
  }

  private decode(node: JsonNode, shape: FieldShape, path: string, out: StrictErrors): void {
    switch (shape.kind) {
      case 'leaf':
        return;
      case 'list':
        if (node.type === 'array') node.items.forEach((item, i) => this.decode(item, shape.elem, `${path}[${i}]`, out));
        return;
      case 'map':
        if (node.type === 'object') visitMembers(node, path, out, (child, p) => this.decode(child, shape.elem, p, out));
        return;
      case 'struct': {
        if (node.type !== 'object') return;
        const fields = this.fieldsOf(shape.model);
        const seen = new Set<string>();
        for (const { key, node: child } of node.members) {
          const p = childPath(path, key);
          const field = fields.get(key);
          // json tags are matched case-sensitively (sigs.k8s.io/json's CaseSensitive)
          if (!field) {
            out.add(`unknown field ${goQuote(p)}`);
            continue;
          }
          if (seen.has(key)) out.add(`duplicate field ${goQuote(p)}`);
          seen.add(key);
          this.decode(child, field, p, out);
        }
        return;
      }
    }
  }

  /** FromUnstructuredWithValidation's unknown fields of a (patched) object, as `unknown field "…"` errors. */
  unstructuredErrors(obj: Record<string, unknown>): string[] {
    const out: string[] = [];
    this.convert(obj, { kind: 'struct', model: this.root }, '', out);
    return out.map((p) => `unknown field ${goQuote(p)}`);
  }

  private convert(value: unknown, shape: FieldShape, path: string, out: string[]): void {
    switch (shape.kind) {
      case 'leaf':
        return;
      case 'list':
        if (Array.isArray(value)) value.forEach((item, i) => this.convert(item, shape.elem, `${path}[${i}]`, out));
        return;
      case 'map':
        if (isPlainObject(value)) for (const key of Object.keys(value).sort()) this.convert(value[key], shape.elem, childPath(path, key), out);
        return;
      case 'struct': {
        if (!isPlainObject(value)) return;
        const fields = this.fieldsOf(shape.model);
        const keys = Object.keys(value).sort();
        // structFromUnstructured fills the fields first and verifies the struct's unmatched keys afterwards
        for (const key of keys) {
          const field = fields.get(key);
          if (field) this.convert(value[key], field, childPath(path, key), out);
        }
        for (const key of keys) if (!fields.has(key)) out.push(childPath(path, key));
        return;
      }
    }
  }
}

/**
 * UnmarshalStrict into map[string]interface{} (a custom resource, a merge or strategic merge patch): nothing is
 * unknown, duplicates are found at every depth.
 */
export function duplicateFieldErrors(doc: JsonNode): string[] {
  const out = new StrictErrors();
  const visit = (node: JsonNode, path: string): void => {
    if (node.type === 'array') node.items.forEach((item, i) => visit(item, `${path}[${i}]`));
    if (node.type === 'object') visitMembers(node, path, out, visit);
  };
  visit(doc, '');
  return out.list;
}

const loaded = new Map<string, Promise<KindFields | undefined>>();

/**
 * The fields of a generated model's type (`V1Deployment`), or undefined when client-node has no such model. Loaded
 * once per process and model, on first use: a few hundred small imports, so that startup does not pay for them.
 */
export function kindFields(model: string): Promise<KindFields | undefined> {
  let p = loaded.get(model);
  if (!p) {
    p = loadModels(model).then((models) => (models.get(model)?.length ? new KindFields(models, model) : undefined));
    loaded.set(model, p);
  }
  return p;
}
