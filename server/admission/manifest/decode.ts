// Decoding one manifest document as kube-apiserver's manifest loader does (KEP-5793): the file is split into YAML
// documents by k8s.io/apimachinery's YAMLReader, and each document goes through a strict UniversalDeserializer
// (serializer.EnableStrict): JSON when it starts with '{', YAML otherwise; meta.Interpret for apiVersion/kind; the
// scheme lookup; then sigs.k8s.io/json UnmarshalStrict, whose unknown and duplicate fields (and YAML's duplicate
// keys) become one "strict decoding error: …". Error texts are kube's; Node's JSON and YAML parsers word their
// syntax errors differently from Go's.
import { goJsonMarshal, interpretStruct, parseGroupVersion, parseJsonOrYamlDocument, setMember, type JsonNode } from '../../api/go-json-document.js';
import { goQuote } from '../../options/go-strconv.js';
import { lookupKind, manifestSchemeName, type GoStruct, type GoType, type SchemeEntry } from './schema.js';

export { goJsonMarshal, type JsonNode };

// ---- splitting a file into documents --------------------------------------------------------------------

export type SplitResult = { ok: true; docs: string[] } | { ok: false; error: string };

/**
 * utilyaml.NewYAMLReader as manifest.LoadFiles uses it: a line starting with "---" ends a document (only spaces or a
 * comment may follow the separator), each document is trimmed, and empty ones are skipped.
 */
export function splitYamlDocuments(text: string): SplitResult {
  const docs: string[] = [];
  let buffer = '';
  const flush = (): void => {
    const doc = buffer.trim();
    if (doc !== '') docs.push(doc);
    buffer = '';
  };
  for (const line of text.split(/(?<=\n)/u)) {
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim();
      if (rest !== '' && !rest.startsWith('#')) return { ok: false, error: `invalid Yaml document separator: ${rest}` };
      flush();
      continue;
    }
    buffer += line;
  }
  flush();
  return { ok: true, docs };
}

// ---- parsing one document -------------------------------------------------------------------------------

export type ParsedDocument = { ok: true; node: JsonNode; yamlStrictError?: string } | { ok: false; error: string };

/** One document as the deserializer reads it before typing: the JSON tree, and YAML's duplicate keys. */
export function parseDocument(text: string): ParsedDocument {
  const parsed = parseJsonOrYamlDocument(text);
  if (!parsed.ok) return parsed;
  const dups = parsed.yamlDuplicateKeys;
  // yaml.v2's TypeError lists each problem on its own line; manifest errors are one line each.
  return { ok: true, node: parsed.node, ...(dups.length > 0 ? { yamlStrictError: `yaml: unmarshal errors: ${dups.join('; ')}` } : {}) };
}

// ---- strict decoding into the Go types ------------------------------------------------------------------

function goTypeString(t: GoType): string {
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

/** sigs.k8s.io/json UnmarshalStrict over a JsonNode: the first type error is fatal, strict errors accumulate. */
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
    if (node.type === 'null' && type.kind !== 'raw') return undefined;
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
        return structuredClone(node.value);
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

  decodeStruct(node: JsonNode, type: GoStruct, strictPath: string, field: readonly string[], struct: string): { [key: string]: unknown } | undefined {
    if (node.type !== 'object') {
      this.typeError(node, type, struct, field);
      return undefined;
    }
    const out: { [key: string]: unknown } = {};
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

// ---- the deserializer ------------------------------------------------------------------------------------

export interface DecodedObject {
  group: string;
  version: string;
  kind: string;
  entry: SchemeEntry;
  /** the object with the fields its Go type has; undefined when a type error ended decoding */
  object?: { [key: string]: unknown };
  /** for a generic List: the items, undecoded */
  items?: JsonNode[];
  /** "strict decoding error: …" or a type error; the object is still returned for strict errors */
  error?: string;
}

export type DecodeResult = { ok: true; decoded: DecodedObject } | { ok: false; error: string };

/**
 * runtime.Decode with the strict universal deserializer over an already parsed document: meta.Interpret, the
 * missing kind and version errors, the scheme lookup, then the strict unmarshal.
 */
export function decodeNode(root: JsonNode, yamlStrictError?: string): DecodeResult {
  // meta.Interpret: json.Unmarshal into struct{APIVersion, Kind}.
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
  // kube quotes the document it read; a manifest error is one line, so the document is shown as compact JSON.
  if (kind === '') return { ok: false, error: `Object 'Kind' is missing in '${goJsonMarshal(root.value)}'` };
  if (gv.version === '') return { ok: false, error: `Object 'apiVersion' is missing in '${goJsonMarshal(root.value)}'` };
  const groupVersion = gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
  const entry = lookupKind(gv.group, gv.version, kind);
  if (!entry) return { ok: false, error: `no kind ${goQuote(kind)} is registered for version ${goQuote(groupVersion)} in scheme ${goQuote(manifestSchemeName)}` };
  const decoded: DecodedObject = { group: gv.group, version: gv.version, kind, entry };
  if (entry.form === 'registered') return { ok: true, decoded };

  const d = new StrictDecoder();
  const object = d.decodeStruct(root, entry.type, '', [], entry.type.name) ?? {};
  // A type error ends the decode; the strictness errors of that decode are dropped with it, as in the serializer.
  if (d.fatal) return { ok: true, decoded: { ...decoded, error: d.fatal } };
  if (entry.form === 'list') {
    const itemsNode = root.type === 'object' ? [...root.members].reverse().find((m) => m.key === 'items')?.node : undefined;
    decoded.items = itemsNode?.type === 'array' ? itemsNode.items : [];
  }
  decoded.object = object;
  const strict = [...(yamlStrictError ? [yamlStrictError] : []), ...d.strict];
  if (strict.length > 0) decoded.error = `strict decoding error: ${strict.join(', ')}`;
  return { ok: true, decoded };
}
