// Decoding a built-in kind's JSON into its Go type, as kube-apiserver's decoders do, in ONE walk over the document
// that type-checks every value, collects the strictness errors and prunes what the Go struct would not keep. The
// kind's fields come from client-node's models (plus ./fields-missing-from-models.ts and the Go types the models
// flatten, ./go-types.ts). Three decoders are modelled:
// - sigs.k8s.io/json UnmarshalStrict (the json serializer of create and update, and of a JSON or merge patch's
//   result). A value of the wrong type is an UnmarshalTypeError, "json: cannot unmarshal string into Go struct
//   field ObjectMeta.metadata.finalizers of type []string" (the innermost struct's Go name, the struct fields from
//   the top joined by dots, map keys and list indices left out); the first one is kept and decoding goes on. The
//   custom decoders (Quantity, IntOrString, metav1.Time) fail the whole decode at once with their own text. Then,
//   when nothing failed, the strictness errors: `unknown field "spec.containers[0].imagee"` and
//   `duplicate field "spec.replicas"` in document order, deduplicated and capped at 100
//   (decodeState.saveStrictError). Map keys are part of those paths (`metadata.labels.app`) but are never unknown.
// - runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation (a strategic merge patch's result): the
//   first mismatch fails with the converter's text ("cannot restore slice from string", "cannot convert int64 to
//   string", "unrecognized type: int32"), then the unknown fields, sorted as kube sorts them.
// - structured-merge-diff's validation of a server-side apply configuration (typed/validate.go): every mismatch,
//   ".spec.replicas: expected numeric (int or float), got string"; nothing pruned.
// What the Go struct drops, the walk drops: unknown fields (so Ignore and Warn store none, as kube does), and nulls
// (a null member is the field's zero value; a null map value or list item the element's zero value).
import type { JsonNode } from '../go-json-document.js';
import { goJsonMarshal } from '../go-json-document.js';
import { goFormatV, goJsonKind, type GoJsonKind } from '../../endpoints/patch/go-json.js';
import { goQuote } from '../../options/go-strconv.js';
import { loadModels, type Attribute } from './client-node-models.js';
import { base64Error, quantityJsonError, rfc3339Error } from './go-value-formats.js';
import { goStructName, namedGoType, specialField } from './go-types.js';

type Shape =
  | { readonly kind: 'string' | 'bool' | 'float64' | 'bytes' | 'time' | 'intOrString' | 'quantity' | 'opaque'; readonly goType: string }
  | { readonly kind: 'int'; readonly bits: 32 | 64; readonly goType: string }
  | { readonly kind: 'struct'; readonly model: string; readonly goType: string }
  | { readonly kind: 'list'; readonly elem: Shape; readonly goType: string }
  | { readonly kind: 'map'; readonly elem: Shape; readonly goType: string };

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

const scalar = (kind: 'string' | 'bool' | 'float64' | 'bytes' | 'time' | 'intOrString' | 'quantity' | 'opaque', goType: string): Shape => Object.freeze({ kind, goType });
const opaque = scalar('opaque', 'runtime.RawExtension');
const uint8: Shape = Object.freeze({ kind: 'int', bits: 64, goType: 'uint8' });

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

// ---- the document, as JsonNode (members in input order, duplicates kept) or as a plain value -------------------

type ValueKind = GoJsonKind;

/** How the walk reads a document; `value` is the plain value the walk prunes in place. */
interface DocAccess<N> {
  kind(n: N): ValueKind;
  members(n: N): Iterable<readonly [string, N]>;
  items(n: N): readonly N[];
  value(n: N): unknown;
  /** a number's JSON text, as Go's decoder quotes it in "number 1.5" */
  numberText(n: N): string;
}

const jsonNodeAccess: DocAccess<JsonNode> = {
  kind: (n) => n.type,
  *members(n) {
    if (n.type === 'object') for (const m of n.members) yield [m.key, m.node] as const;
  },
  items: (n) => (n.type === 'array' ? n.items : []),
  value: (n) => n.value,
  numberText: (n) => n.raw,
};

// a plain value's JSON kind, as Go's decoder names it
const kindOfPlain = goJsonKind;

/** A plain value (a patched object): keys sorted as Go's marshalling of maps sorts them. */
const plainAccess: DocAccess<unknown> = {
  kind: kindOfPlain,
  *members(v) {
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o).sort()) yield [key, o[key]] as const;
  },
  items: (v) => v as unknown[],
  value: (v) => v,
  numberText: (v) => goJsonMarshal(v),
};

// ---- the walk ------------------------------------------------------------------------------------------------

/** Where a value sits: the Go decoder's error context and the strict-error path. */
interface Place {
  /** Go name of the struct the last field was found in ("ObjectMeta") */
  readonly struct: string;
  /** struct fields from the top, joined by dots ("metadata.finalizers") */
  readonly fields: string;
  /** the strict-error path ("spec.containers[0].name", "metadata.labels.app") */
  readonly path: string;
}

/**
 * json: sigs.k8s.io/json; unstructured: the unstructured converter; smd: structured-merge-diff's validation of an
 * apply configuration (typed/validate.go: every mismatch, no pruning).
 */
type Dialect = 'json' | 'unstructured' | 'smd';

/** What the parent does with a member after the walk: keep it, drop it, or replace it (a zero value, decoded bytes). */
const DROP = Symbol('drop');
type Outcome = undefined | typeof DROP | { readonly replace: unknown };

const unstructuredKind = (k: ValueKind, v: unknown): string => {
  switch (k) {
    case 'object':
      return 'map';
    case 'array':
      return 'slice';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return k;
  }
};

/** The Go zero value a null decodes to where it cannot be absent (a map value, a list item); undefined: stays null. */
function zeroOf(shape: Shape): { replace: unknown } | undefined {
  switch (shape.kind) {
    case 'string':
      return { replace: '' };
    case 'bool':
      return { replace: false };
    case 'int':
    case 'float64':
    case 'intOrString':
      return { replace: 0 };
    case 'quantity':
      return { replace: '0' };
    case 'struct':
      return { replace: {} };
    default:
      return undefined;
  }
}

/** Go's %#v of a decoded YAML value (numbers are float64). */
function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[string]interface {}{${Object.keys(o).sort().map((k) => `${goQuote(k)}:${goSharpV(o[k])}`).join(', ')}}`;
  }
  return goFormatV(v);
}

/** %T of a decoded YAML value. */
const goTypeOfYaml = (v: unknown): string => (Array.isArray(v) ? '[]interface {}' : typeof v === 'object' ? 'map[string]interface {}' : typeof v === 'number' ? 'float64' : typeof v === 'boolean' ? 'bool' : 'string');

/** structured-merge-diff's validation texts (typed/validate.go, helpers.go): the value is a *valueUnstructured. */
function smdMismatch(v: unknown, shape: Shape): string {
  switch (shape.kind) {
    case 'struct':
    case 'map':
      return `expected map, got &{${goFormatV(v)}}`;
    case 'list':
      return `expected list, got &{${goFormatV(v)}}`;
    case 'int':
    case 'float64':
      return `expected numeric (int or float), got ${goTypeOfYaml(v)}`;
    case 'bool':
      return `expected boolean, got &{${goFormatV(v)}}`;
    case 'quantity':
    case 'intOrString':
      return `expected any scalar, got &{${goFormatV(v)}}`;
    default:
      return `expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`;
  }
}

const int32Range = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const int64Range = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/** strconv.ParseInt(text, 10, 64) and the field's overflow check. */
function fitsInt(text: string, bits: 32 | 64 | 8): boolean {
  if (!/^-?\d+$/.test(text)) return false;
  const n = BigInt(text);
  const [lo, hi] = bits === 32 ? int32Range : bits === 64 ? int64Range : [0n, 255n];
  return n >= lo && n <= hi;
}

class Walk<N> {
  /** the first UnmarshalTypeError (or base64 error), which the json decoder saves and returns at the end */
  saved: string | undefined;
  /** an error that ends the decode at once: a custom UnmarshalJSON's, or any error of the unstructured converter */
  fatal: string | undefined;
  readonly strict = new StrictErrors();
  readonly unknown: string[] = [];
  /** the pruning, applied once the decode succeeded (a failed decode leaves the document as it came, for its error) */
  readonly edits: Array<readonly [target: Record<string, unknown> | unknown[], key: string | number, value: unknown]> = [];

  constructor(
    private readonly kind: KindFields,
    private readonly doc: DocAccess<N>,
    private readonly dialect: Dialect,
  ) {}

  private get stopped(): boolean {
    return this.fatal !== undefined;
  }

  /** structured-merge-diff's validation errors, ".spec.replicas: expected numeric (int or float), got string" */
  readonly smd: string[] = [];

  /** A value of the wrong JSON type for the field. */
  private mismatch(n: N, k: ValueKind, shape: Shape, at: Place): void {
    if (this.dialect === 'smd') {
      this.smd.push(`.${at.path}: ${smdMismatch(this.doc.value(n), shape)}`);
      return;
    }
    if (this.dialect === 'unstructured') {
      this.fatal = this.converterMismatch(this.doc.value(n), k, shape);
      return;
    }
    if (this.saved !== undefined) return;
    const what = k === 'number' && (shape.kind === 'int' || shape.kind === 'float64') ? `number ${this.doc.numberText(n)}` : k === 'number' ? 'number' : k;
    this.saved = at.struct !== '' || at.fields !== '' ? `json: cannot unmarshal ${what} into Go struct field ${at.struct}.${at.fields} of type ${shape.goType}` : `json: cannot unmarshal ${what} into Go value of type ${shape.goType}`;
  }

  /** runtime/converter.go fromUnstructured's errors. */
  private converterMismatch(v: unknown, k: ValueKind, shape: Shape): string {
    const from = unstructuredKind(k, v);
    switch (shape.kind) {
      case 'list':
      case 'bytes':
        return `cannot restore slice from ${from}`;
      case 'map':
        return `cannot restore map from ${from}`;
      case 'struct':
        return `cannot restore struct from: ${from}`;
      case 'string':
        return from === 'int64' ? `cannot convert int64 to ${shape.goType}` : 'unrecognized type: string';
      case 'int':
        return from === 'float64' ? `cannot convert float64 to ${shape.goType}` : `unrecognized type: ${shape.goType}`;
      case 'float64':
        return 'unrecognized type: float64';
      default:
        return `unrecognized type: ${shape.kind}`;
    }
  }

  /** The custom decoders: run on the value's JSON text, their error ends the decode. */
  private custom(n: N, k: ValueKind, shape: Shape, at: Place): void {
    const v = this.doc.value(n);
    if (k === 'null') return;
    if (this.dialect === 'smd') {
      // Time is a string in the schema, Quantity and IntOrString scalars of any type
      if (shape.kind === 'time' ? k !== 'string' : k === 'object' || k === 'array') this.mismatch(n, k, shape, at);
      return;
    }
    if (shape.kind === 'quantity') {
      const err = quantityJsonError(k === 'string' ? '' : goJsonMarshal(v), k === 'string' ? (v as string) : undefined);
      if (err) this.fatal = err;
      return;
    }
    if (shape.kind === 'time') {
      // json.Unmarshal(b, &str) of encoding/json: no struct context
      if (k !== 'string') this.fatal = `json: cannot unmarshal ${k} into Go value of type string`;
      else {
        const err = rfc3339Error(v as string);
        if (err) this.fatal = err;
      }
      return;
    }
    // IntOrString: a string, else json.Unmarshal into its int32
    if (k === 'string') return;
    if (k === 'number') {
      const text = this.dialect === 'json' ? this.doc.numberText(n) : goJsonMarshal(v);
      if (!fitsInt(text, 32)) this.fatal = `json: cannot unmarshal number ${text} into Go value of type int32`;
      return;
    }
    this.fatal = `json: cannot unmarshal ${k} into Go value of type int32`;
  }

  walk(n: N, shape: Shape, at: Place): Outcome {
    const k = this.doc.kind(n);
    if (k === 'null') return undefined;
    switch (shape.kind) {
      case 'opaque':
        return undefined;
      case 'quantity':
      case 'time':
      case 'intOrString':
        this.custom(n, k, shape, at);
        return undefined;
      case 'string':
        if (k !== 'string') this.mismatch(n, k, shape, at);
        return undefined;
      case 'bool':
        if (k !== 'bool') this.mismatch(n, k, shape, at);
        return undefined;
      case 'int':
        if (k !== 'number') this.mismatch(n, k, shape, at);
        // structured-merge-diff's schema only says numeric; the converters want an integer
        else if (this.dialect === 'json' ? !fitsInt(this.doc.numberText(n), shape.bits) : this.dialect === 'unstructured' && !Number.isInteger(this.doc.value(n))) this.mismatch(n, k, shape, at);
        return undefined;
      case 'float64':
        if (k !== 'number' || !Number.isFinite(this.doc.value(n))) this.mismatch(n, k, shape, at);
        return undefined;
      case 'bytes':
        return this.bytes(n, k, shape, at);
      case 'list':
        if (k !== 'array') this.mismatch(n, k, shape, at);
        else this.list(n, shape, at);
        return undefined;
      case 'map':
        if (k !== 'object') this.mismatch(n, k, shape, at);
        else this.map(n, shape, at);
        return undefined;
      case 'struct':
        if (k !== 'object') this.mismatch(n, k, shape, at);
        else this.struct(n, shape.model, at);
        return undefined;
    }
  }

  /** []byte: base64 text; a JSON array of bytes decodes too, and is stored as the base64 text Go would encode. */
  private bytes(n: N, k: ValueKind, shape: Shape, at: Place): Outcome {
    if (k === 'string') {
      const err = base64Error(this.doc.value(n) as string);
      if (err && this.dialect !== 'smd') {
        if (this.dialect === 'unstructured') this.fatal = `error decoding from json: ${err}`;
        else this.saved ??= err;
      }
      return undefined;
    }
    // a list of bytes decodes too (both decoders); structured-merge-diff's schema says string
    if (k === 'array' && this.dialect !== 'smd') {
      const items = this.doc.items(n);
      const bytes: number[] = [];
      for (const item of items) {
        const ik = this.doc.kind(item);
        if (ik === 'null') bytes.push(0);
        else if (ik === 'number' && fitsInt(this.doc.numberText(item), 8)) bytes.push(Number(this.doc.numberText(item)));
        else {
          this.mismatch(item, ik, uint8, at);
          return undefined;
        }
      }
      return { replace: Buffer.from(bytes).toString('base64') };
    }
    this.mismatch(n, k, shape, at);
    return undefined;
  }

  private list(n: N, shape: Extract<Shape, { kind: 'list' }>, at: Place): void {
    const items = this.doc.items(n);
    const arr = this.doc.value(n) as unknown[];
    for (let i = 0; i < items.length && !this.stopped; i++) {
      const item = items[i]!;
      const place = { struct: at.struct, fields: at.fields, path: `${at.path}[${i}]` };
      const out = this.doc.kind(item) === 'null' ? zeroOf(shape.elem) : this.walk(item, shape.elem, place);
      if (out !== undefined && out !== DROP) this.edits.push([arr, i, out.replace]);
    }
  }

  private map(n: N, shape: Extract<Shape, { kind: 'map' }>, at: Place): void {
    const obj = this.doc.value(n) as Record<string, unknown>;
    const seen = this.dialect === 'json' ? new Set<string>() : undefined;
    for (const [key, child] of this.doc.members(n)) {
      if (this.stopped) return;
      const path = childPath(at.path, key);
      if (seen) {
        if (seen.has(key)) this.strict.add(`duplicate field ${goQuote(path)}`);
        seen.add(key);
      }
      const out = this.doc.kind(child) === 'null' ? zeroOf(shape.elem) : this.walk(child, shape.elem, { struct: at.struct, fields: at.fields, path });
      // the last member of a key is the one the map keeps
      if (out !== undefined && out !== DROP && obj[key] === this.doc.value(child)) this.edits.push([obj, key, out.replace]);
    }
  }

  private struct(n: N, model: string, at: Place): void {
    const fields = this.kind.fieldsOf(model);
    const struct = this.kind.structNameOf(model);
    const obj = this.doc.value(n) as Record<string, unknown>;
    const seen = this.dialect === 'json' ? new Set<string>() : undefined;
    for (const [key, child] of this.doc.members(n)) {
      if (this.stopped) return;
      const path = childPath(at.path, key);
      // json tags are matched case-sensitively (sigs.k8s.io/json's CaseSensitive)
      const field = fields.get(key);
      if (!field) {
        // structured-merge-diff's "field not declared in schema" is the apply code's
        if (this.dialect === 'smd') continue;
        if (this.dialect === 'json') this.strict.add(`unknown field ${goQuote(path)}`);
        else this.unknown.push(`unknown field ${goQuote(path)}`);
        this.edits.push([obj, key, DROP]);
        continue;
      }
      if (seen) {
        if (seen.has(key)) this.strict.add(`duplicate field ${goQuote(path)}`);
        seen.add(key);
      }
      const out = this.walk(child, field, { struct, fields: childPath(at.fields, key), path });
      if (obj[key] !== this.doc.value(child)) continue;
      // a null member leaves the field at its zero value: absent once encoded (or empty, for the few without omitempty)
      if (this.doc.kind(child) === 'null' || out === DROP) this.edits.push([obj, key, DROP]);
      else if (out !== undefined) this.edits.push([obj, key, out.replace]);
    }
  }
}

function applyEdits(edits: Walk<unknown>['edits']): void {
  for (const [target, key, value] of edits) {
    if (Array.isArray(target)) target[key as number] = value;
    else if (value === DROP) delete target[key as string];
    // defineProperty: document keys are data, `__proto__` included
    else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
}

/**
 * A document decoded into a kind: the error that fails the decode, or the strictness errors (maybe none) and the
 * pruning of the document (unknown fields and nulls dropped), which the caller applies when it goes on with it.
 */
export type TypedDecodeResult = { ok: true; strict: string[]; prune: () => void } | { ok: false; error: string };

/** The fields of one kind's Go struct and of every struct below it. */
export class KindFields {
  private readonly structs = new Map<string, ReadonlyMap<string, Shape>>();

  constructor(
    private readonly models: ReadonlyMap<string, readonly Attribute[]>,
    private readonly root: string,
  ) {}

  private shapeOf(type: string, format: string, named: string | undefined): Shape {
    const arr = ARRAY.exec(type);
    if (arr) {
      const elem = this.shapeOf(arr[1]!, format, undefined);
      return { kind: 'list', elem, goType: named ?? `[]${elem.goType}` };
    }
    const map = MAP.exec(type);
    if (map) {
      const elem = this.shapeOf(map[1]!, format, undefined);
      return { kind: 'map', elem, goType: named ?? `map[string]${elem.goType}` };
    }
    switch (type) {
      case 'string':
        return format === 'byte' ? scalar('bytes', '[]uint8') : scalar('string', named ?? 'string');
      case 'boolean':
        return scalar('bool', 'bool');
      case 'number':
        if (format === 'int32' || format === 'int64') return { kind: 'int', bits: format === 'int32' ? 32 : 64, goType: named ?? format };
        return scalar('float64', 'float64');
      case 'Date':
        return scalar('time', 'v1.Time');
      case 'IntOrString':
        return scalar('intOrString', 'intstr.IntOrString');
      case 'any':
      case 'object':
        return opaque;
    }
    // a model the generated code references but does not have (MicroTime) is left open rather than guessed
    return this.models.get(type)?.length ? { kind: 'struct', model: type, goType: `v1.${goStructName(type)}` } : opaque;
  }

  /** The fields of a model's struct, by JSON name. */
  fieldsOf(model: string): ReadonlyMap<string, Shape> {
    let fields = this.structs.get(model);
    if (!fields) {
      fields = new Map(
        (this.models.get(model) ?? []).map((a) => {
          const special = specialField(model, a.baseName);
          const shape =
            special === 'quantity' ? scalar('quantity', 'resource.Quantity')
            : special === 'quantityMap' ? { kind: 'map' as const, elem: scalar('quantity', 'resource.Quantity'), goType: namedGoType(model, a.baseName) ?? 'map[string]resource.Quantity' }
            : special === 'bytesMap' ? { kind: 'map' as const, elem: scalar('bytes', '[]uint8'), goType: 'map[string][]uint8' }
            : this.shapeOf(a.type, a.format, namedGoType(model, a.baseName));
          return [a.baseName, shape] as const;
        }),
      );
      this.structs.set(model, fields);
    }
    return fields;
  }

  structNameOf(model: string): string {
    return goStructName(model);
  }

  /**
   * UnmarshalStrict of a JSON document (a request body, or a patch's result) into the kind: the decode error, or
   * the strictness errors in the decoder's order. Unknown fields and nulls are pruned from the document's values
   * by `prune` (JsonNode values share their children), so the caller stores the decoded object.
   */
  decodeJson(doc: JsonNode): TypedDecodeResult {
    return this.run(new Walk(this, jsonNodeAccess, 'json'), doc);
  }

  /** The same decode of a plain value (a JSON or merge patch's result, as Go re-marshals it: keys sorted). */
  decodePlain(obj: Record<string, unknown>): TypedDecodeResult {
    return this.run(new Walk<unknown>(this, plainAccess, 'json'), obj);
  }

  private run<N>(w: Walk<N>, doc: N): TypedDecodeResult {
    w.walk(doc, { kind: 'struct', model: this.root, goType: `v1.${goStructName(this.root)}` }, { struct: '', fields: '', path: '' });
    const error = w.fatal ?? w.saved;
    if (error !== undefined) return { ok: false, error };
    return { ok: true, strict: w.strict.list, prune: () => applyEdits(w.edits) };
  }

  /**
   * structured-merge-diff's type validation of a server-side apply configuration (decoded YAML, numbers float64):
   * every value of the wrong type, as ".spec.replicas: expected numeric (int or float), got string", keys walked
   * sorted (kube walks Go's map order, which is random). List items are indexed ([0], not smd's [name="c"]). Undeclared
   * fields are left to the apply code, which reports them in the same list.
   */
  applyConfigurationTypeErrors(config: Record<string, unknown>): string[] {
    const w = new Walk<unknown>(this, plainAccess, 'smd');
    w.walk(config, { kind: 'struct', model: this.root, goType: `v1.${goStructName(this.root)}` }, { struct: '', fields: '', path: '' });
    return w.smd;
  }

  /**
   * FromUnstructuredWithValidation of a (strategic-merge-patched) object: the converter's first error, or the
   * unknown fields sorted by their text, as kube sorts them; `prune` prunes the object in place.
   */
  fromUnstructured(obj: Record<string, unknown>): TypedDecodeResult {
    const w = new Walk<unknown>(this, plainAccess, 'unstructured');
    w.walk(obj, { kind: 'struct', model: this.root, goType: `v1.${goStructName(this.root)}` }, { struct: '', fields: '', path: '' });
    if (w.fatal !== undefined) return { ok: false, error: w.fatal };
    return { ok: true, strict: [...w.unknown].sort(), prune: () => applyEdits(w.edits) };
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
    if (node.type !== 'object') return;
    const seen = new Set<string>();
    for (const { key, node: child } of node.members) {
      const p = childPath(path, key);
      if (seen.has(key)) out.add(`duplicate field ${goQuote(p)}`);
      seen.add(key);
      visit(child, p);
    }
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
