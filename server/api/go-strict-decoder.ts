// sigs.k8s.io/json UnmarshalStrict over a JsonNode, as apimachinery's strict serializer runs it for KEP-5793
// manifests and for the AdmissionConfiguration file and its plugin configurations: unknown and duplicate fields
// accumulate as strictness errors, the first type error ends the decode ("json: cannot unmarshal string into Go
// struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32"). Go types are described only as far as
// encoding/json needs them for those errors; callers declare their structs in this vocabulary.
import { goQuote } from '../options/go-strconv.js';
import { interpretStruct, parseGroupVersion, setMember, type JsonNode } from './go-json-document.js';

export type GoType =
  /** string or a named string type (`name` is how Go prints it, e.g. v1.FailurePolicyType) */
  | { readonly kind: 'string'; readonly name?: string }
  | { readonly kind: 'bool' }
  | { readonly kind: 'int'; readonly name: 'int32' | 'int64' }
  /** []byte: a base64 string in JSON */
  | { readonly kind: 'bytes' }
  /** metav1.Time: an RFC 3339 string or null */
  | { readonly kind: 'time' }
  /**
   * Any JSON value kept undecoded (`name` as Go prints the type). By default the value is copied as plain JSON
   * (FieldsV1, runtime.RawExtension); `keep: 'node'` keeps the JsonNode, raw text included, in a RawJson, and null
   * leaves the field unset as a nil pointer does (*runtime.Unknown).
   */
  | { readonly kind: 'raw'; readonly name: string; readonly keep?: 'value' | 'node' }
  | { readonly kind: 'slice'; readonly elem: GoType }
  | { readonly kind: 'map'; readonly elem: GoType }
  | GoStruct;

export interface GoStruct {
  readonly kind: 'struct';
  /** reflect.Type.Name(), for "Go struct field <Name>.<path>" */
  readonly name: string;
  /** reflect.Type.String(), for "of type <pkg.Name>" */
  readonly qualified: string;
  readonly fields: Readonly<Record<string, GoType>>;
}

/** A `raw` field decoded with `keep: 'node'`: the JSON it held, as runtime.Unknown keeps its bytes. */
export class RawJson {
  constructor(readonly node: JsonNode) {}
}

/** A decoded struct: the members present in the input with a known field, by JSON field name. */
export interface DecodedStruct {
  [field: string]: unknown;
}

export function isDecodedStruct(v: unknown): v is DecodedStruct {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawJson);
}

export function goTypeString(t: GoType): string {
  switch (t.kind) {
    case 'string':
      return t.name ?? 'string';
    case 'bool':
      return 'bool';
    case 'int':
      return t.name;
    case 'bytes':
      return '[]uint8';
    case 'time':
      return 'v1.Time';
    case 'raw':
      return t.name;
    case 'slice':
      return `[]${goTypeString(t.elem)}`;
    case 'map':
      return `map[string]${goTypeString(t.elem)}`;
    case 'struct':
      return t.qualified;
  }
}

const int32Range = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const int64Range = { min: -(2 ** 63), max: 2 ** 63 - 1 };

// base64.StdEncoding.Decode ("illegal base64 data at input byte N"): the padded standard alphabet, \r and \n
// skipped. The offset is the first character outside the alphabet, or the end when the length or padding is wrong.
function base64ErrorOffset(s: string): number | undefined {
  const data = s.replace(/[\r\n]/gu, '');
  if (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u.test(data)) return undefined;
  const bad = [...s].findIndex((c) => !/[A-Za-z0-9+/=\r\n]/u.test(c));
  return bad >= 0 ? bad : s.length;
}

/** What Go leaves in a slice element that was null (or failed to decode): the element type's zero value. */
function zeroValue(t: GoType): unknown {
  switch (t.kind) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int':
      return 0;
    case 'struct':
      return {};
    default:
      return null;
  }
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/u;

class StrictDecoder {
  fatal?: string;
  readonly strict: string[] = [];

  private strictError(msg: string): void {
    if (!this.strict.includes(msg)) this.strict.push(msg);
  }

  private typeError(value: JsonNode, type: GoType, struct: string, field: readonly string[], what: string = value.type): void {
    this.fatal ??= `json: cannot unmarshal ${what} into Go struct field ${struct}.${field.join('.')} of type ${goTypeString(type)}`;
  }

  decode(node: JsonNode, type: GoType, strictPath: string, field: readonly string[], struct: string): unknown {
    if (node.type === 'null' && (type.kind !== 'raw' || type.keep === 'node')) return undefined;
    switch (type.kind) {
      case 'string':
        if (node.type === 'string') return node.value;
        this.typeError(node, type, struct, field);
        return undefined;
      case 'bool':
        if (node.type === 'bool') return node.value;
        this.typeError(node, type, struct, field);
        return undefined;
      case 'int': {
        if (node.type !== 'number') {
          this.typeError(node, type, struct, field);
          return undefined;
        }
        const range = type.name === 'int32' ? int32Range : int64Range;
        if (!/^-?\d+$/u.test(node.raw) || node.value < range.min || node.value > range.max) {
          this.typeError(node, type, struct, field, `number ${node.raw}`);
          return undefined;
        }
        return node.value;
      }
      case 'bytes': {
        if (node.type !== 'string') {
          this.typeError(node, type, struct, field);
          return undefined;
        }
        const bad = base64ErrorOffset(node.value);
        if (bad !== undefined) this.fatal ??= `illegal base64 data at input byte ${bad}`;
        return node.value;
      }
      case 'time':
        if (node.type !== 'string') {
          this.fatal ??= `json: cannot unmarshal ${node.type} into Go value of type string`;
          return undefined;
        }
        if (!rfc3339.test(node.value)) {
          this.fatal ??= `parsing time ${goQuote(node.value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(node.value)} as "2006"`;
        }
        return node.value;
      case 'raw':
        return type.keep === 'node' ? new RawJson(node) : structuredClone(node.value);
      case 'slice':
        if (node.type !== 'array') {
          this.typeError(node, type, struct, field);
          return undefined;
        }
        return node.items.map((item, i) => this.decode(item, type.elem, `${strictPath}[${i}]`, field, struct) ?? zeroValue(type.elem));
      case 'map': {
        if (node.type !== 'object') {
          this.typeError(node, type, struct, field);
          return undefined;
        }
        const out: { [key: string]: unknown } = {};
        const seen = new Set<string>();
        for (const { key, node: child } of node.members) {
          if (seen.has(key)) this.strictError(`duplicate field ${goQuote(`${strictPath}.${key}`)}`);
          seen.add(key);
          const d = this.decode(child, type.elem, `${strictPath}.${key}`, field, struct);
          setMember(out, key, d ?? '');
        }
        return out;
      }
      case 'struct':
        return this.decodeStruct(node, type, strictPath, field, struct);
    }
  }

  private decodeStruct(node: JsonNode, type: GoStruct, strictPath: string, field: readonly string[], struct: string): DecodedStruct | undefined {
    if (node.type !== 'object') {
      this.typeError(node, type, struct, field);
      return undefined;
    }
    const out: DecodedStruct = {};
    const seen = new Set<string>();
    for (const { key, node: child } of node.members) {
      const childPath = strictPath === '' ? key : `${strictPath}.${key}`;
      const childType = Object.prototype.hasOwnProperty.call(type.fields, key) ? type.fields[key] : undefined;
      if (!childType) {
        this.strictError(`unknown field ${goQuote(childPath)}`);
        continue;
      }
      if (seen.has(key)) this.strictError(`duplicate field ${goQuote(childPath)}`);
      seen.add(key);
      const d = this.decode(child, childType, childPath, [...field, key], type.name);
      if (d !== undefined) setMember(out, key, d);
      else delete out[key];
    }
    return out;
  }
}

export interface StrictUnmarshalResult {
  /** the struct with the fields its Go type has (`{}` when the document is null or not an object) */
  object: DecodedStruct;
  /** the first type error: the decode ended there, and its strictness errors are dropped with it as in the serializer */
  fatal?: string;
  /** unknown and duplicate field errors, in input order, each once */
  strict: string[];
}

/** sigs.k8s.io/json UnmarshalStrict of a document into a top-level struct. */
export function unmarshalStrict(root: JsonNode, type: GoStruct): StrictUnmarshalResult {
  const d = new StrictDecoder();
  const decoded = d.decode(root, type, '', [], type.name);
  const object = isDecodedStruct(decoded) ? decoded : {};
  return d.fatal !== undefined ? { object, fatal: d.fatal, strict: [] } : { object, strict: d.strict };
}

/** The strict serializer's one error for a document: YAML's duplicate keys first, then the field errors. */
export function strictDecodingError(yamlStrictError: string | undefined, strict: readonly string[]): string | undefined {
  const all = [...(yamlStrictError ? [yamlStrictError] : []), ...strict];
  return all.length > 0 ? `strict decoding error: ${all.join(', ')}` : undefined;
}

export type TypeMetaResult = { ok: true; group: string; version: string; kind: string } | { ok: false; error: string };

/**
 * meta.Interpret as the universal deserializer runs it before the scheme lookup: json.Unmarshal into
 * struct{APIVersion, Kind}, then schema.ParseGroupVersion. The missing kind/version checks are the caller's, since
 * their texts quote the document as each loader shows it.
 */
export function interpretTypeMeta(root: JsonNode): TypeMetaResult {
  if (root.type !== 'object' && root.type !== 'null') {
    return { ok: false, error: `couldn't get version/kind; json parse error: json: cannot unmarshal ${root.type} into Go value of type ${interpretStruct}` };
  }
  let apiVersion = '';
  let kind = '';
  if (root.type === 'object') {
    for (const { key, node } of root.members) {
      if (key !== 'apiVersion' && key !== 'kind') continue;
      if (node.type === 'string') {
        if (key === 'kind') kind = node.value;
        else apiVersion = node.value;
      } else if (node.type !== 'null') {
        return { ok: false, error: `couldn't get version/kind; json parse error: json: cannot unmarshal ${node.type} into Go struct field .${key} of type string` };
      }
    }
  }
  const gv = parseGroupVersion(apiVersion);
  if (!gv.ok) return gv;
  return { ok: true, group: gv.group, version: gv.version, kind };
}
