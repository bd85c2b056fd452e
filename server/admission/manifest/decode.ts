// Decoding one manifest document as kube-apiserver's manifest loader does (KEP-5793): the file is split into YAML
// documents by k8s.io/apimachinery's YAMLReader, and each document goes through a strict UniversalDeserializer
// (serializer.EnableStrict): JSON when it starts with '{', YAML otherwise; meta.Interpret for apiVersion/kind; the
// scheme lookup; then sigs.k8s.io/json UnmarshalStrict, whose unknown and duplicate fields (and YAML's duplicate
// keys) become one "strict decoding error: …". Error texts are kube's; Node's JSON and YAML parsers word their
// syntax errors differently from Go's.
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';
import { goQuote } from '../../options/go-strconv.js';
import { lookupKind, manifestSchemeName, type GoStruct, type GoType, type SchemeEntry } from './schema.js';

// ---- JSON values with what Go's decoder sees -----------------------------------------------------------

/** A JSON value: object members in input order (duplicates kept, for JSON input) and the value's JSON text. */
export type JsonNode =
  | { type: 'object'; members: Array<{ key: string; node: JsonNode }>; value: { [key: string]: unknown }; raw: string }
  | { type: 'array'; items: JsonNode[]; value: unknown[]; raw: string }
  | { type: 'string'; value: string; raw: string }
  | { type: 'number'; value: number; raw: string }
  | { type: 'bool'; value: boolean; raw: string }
  | { type: 'null'; value: null; raw: string };

/** Sets a member without the `__proto__` setter getting in the way: manifest keys are data. */
function setMember(obj: { [key: string]: unknown }, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Go's encoding/json Marshal of a plain value: compact, map keys sorted, <, > and & escaped. */
export function goJsonMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(',')}]`;
  const o = v as { [key: string]: unknown };
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${goJsonMarshal(k)}:${goJsonMarshal(o[k])}`)
    .join(',')}}`;
}

/** The JSON sigs.k8s.io/yaml's YAMLToJSON makes of a YAML value: Go maps, so members come out sorted by key. */
function nodeFromPlainValue(v: unknown): JsonNode {
  const raw = goJsonMarshal(v);
  if (v === null || v === undefined) return { type: 'null', value: null, raw };
  if (typeof v === 'string') return { type: 'string', value: v, raw };
  if (typeof v === 'number') return { type: 'number', value: v, raw };
  if (typeof v === 'boolean') return { type: 'bool', value: v, raw };
  if (Array.isArray(v)) return { type: 'array', items: v.map(nodeFromPlainValue), value: v, raw };
  const o = v as { [key: string]: unknown };
  const members = Object.keys(o)
    .sort()
    .map((key) => ({ key, node: nodeFromPlainValue(o[key]) }));
  return { type: 'object', members, value: o, raw };
}

/** The yaml package's toJS output as goyaml → JSON would see it: map keys become strings, bigints numbers. */
function plainFromYaml(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(plainFromYaml);
  if (v instanceof Map) {
    const out: { [key: string]: unknown } = {};
    for (const [k, val] of v) setMember(out, String(k), plainFromYaml(val));
    return out;
  }
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    const out: { [key: string]: unknown } = {};
    for (const [k, val] of Object.entries(v)) setMember(out, k, plainFromYaml(val));
    return out;
  }
  return String(v);
}

/** A JSON reader over text JSON.parse already accepted: keeps duplicate members and each value's source text. */
class JsonReader {
  private pos = 0;
  constructor(private readonly text: string) {}

  read(): JsonNode {
    return this.value();
  }

  private ws(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos++;
  }

  private value(): JsonNode {
    this.ws();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === '{') {
      this.pos++;
      const members: Array<{ key: string; node: JsonNode }> = [];
      const value: { [key: string]: unknown } = {};
      this.ws();
      if (this.text[this.pos] === '}') this.pos++;
      else {
        for (;;) {
          this.ws();
          const key = this.string();
          this.ws();
          this.pos++; // ':'
          const node = this.value();
          members.push({ key, node });
          // Go's decoder: the last duplicate wins.
          setMember(value, key, node.value);
          this.ws();
          if (this.text[this.pos++] === '}') break;
        }
      }
      return { type: 'object', members, value, raw: this.text.slice(start, this.pos) };
    }
    if (c === '[') {
      this.pos++;
      const items: JsonNode[] = [];
      this.ws();
      if (this.text[this.pos] === ']') this.pos++;
      else {
        for (;;) {
          items.push(this.value());
          this.ws();
          if (this.text[this.pos++] === ']') break;
        }
      }
      return { type: 'array', items, value: items.map((i) => i.value), raw: this.text.slice(start, this.pos) };
    }
    if (c === '"') {
      const s = this.string();
      return { type: 'string', value: s, raw: this.text.slice(start, this.pos) };
    }
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.text.slice(this.pos))!;
    this.pos += m[0].length;
    const raw = m[0];
    if (raw === 'true' || raw === 'false') return { type: 'bool', value: raw === 'true', raw };
    if (raw === 'null') return { type: 'null', value: null, raw };
    return { type: 'number', value: Number(raw), raw };
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    while (this.text[this.pos] !== '"') this.pos += this.text[this.pos] === '\\' ? 2 : 1;
    this.pos++;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }
}

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

/** yaml.v2's %#v of a map key in "key %#v already set in map". */
function goyamlKeyText(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (v === null || v === undefined) return '<nil>';
  return String(v);
}

/** YAMLToJSONStrict's duplicate-key errors ("line 5: key \"name\" already set in map"), the line being the value's. */
function goyamlDuplicateKeys(root: YamlNode | null, lc: LineCounter): string[] {
  const out: string[] = [];
  const visit = (node: unknown): void => {
    if (isSeq(node)) {
      for (const item of node.items) visit(item);
      return;
    }
    if (!isMap(node)) return;
    const seen = new Set<string>();
    for (const pair of node.items) {
      // yaml.v2 decodes the value before it sets the key, so nested duplicates are reported first.
      visit(pair.value);
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      if (key !== undefined && (key === null || typeof key !== 'object')) {
        const id = `${typeof key}:${String(key)}`;
        if (seen.has(id)) {
          const at = (pair.value as YamlNode | null)?.range?.[0] ?? (pair.key as YamlNode).range?.[0] ?? 0;
          out.push(`line ${lc.linePos(at).line}: key ${goyamlKeyText(key)} already set in map`);
        }
        seen.add(id);
      }
    }
  };
  visit(root);
  return out;
}

export type ParsedDocument = { ok: true; node: JsonNode; yamlStrictError?: string } | { ok: false; error: string };

/** One document as the deserializer reads it before typing: the JSON tree, and YAML's duplicate keys. */
export function parseDocument(text: string): ParsedDocument {
  // json.Serializer.RecognizesData: JSON is text whose first non-space character is '{'; anything else is YAML.
  if (/^\s*\{/u.test(text)) {
    try {
      JSON.parse(text);
    } catch (err) {
      // meta.Interpret is the first to unmarshal JSON input; Node's syntax error text differs from Go's.
      return { ok: false, error: `couldn't get version/kind; json parse error: ${(err as Error).message}` };
    }
    return { ok: true, node: new JsonReader(text).read() };
  }
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, {
    // sigs.k8s.io/yaml uses yaml.v2: YAML 1.1 scalars (yes/no booleans, 0777 octals) but timestamps stay strings.
    version: '1.1',
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
    // Duplicate keys are reported by goyamlDuplicateKeys with yaml.v2's text; values are read last-wins.
    uniqueKeys: false,
    lineCounter: lc,
  });
  // yaml.v2 Unmarshal reads the first document only.
  const doc: Document.Parsed | undefined = Array.isArray(docs) ? docs[0] : undefined;
  if (doc && doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = e.linePos?.[0]?.line ?? 1;
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/u, '');
    return { ok: false, error: `yaml: line ${line}: ${message}` };
  }
  const root = (doc?.contents ?? null) as YamlNode | null;
  const value = plainFromYaml(doc ? doc.toJS({ maxAliasCount: -1 }) : null);
  const dups = goyamlDuplicateKeys(root, lc);
  // yaml.v2's TypeError lists each problem on its own line; manifest errors are one line each.
  const yamlStrictError = dups.length > 0 ? `yaml: unmarshal errors: ${dups.join('; ')}` : undefined;
  return { ok: true, node: nodeFromPlainValue(value), ...(yamlStrictError ? { yamlStrictError } : {}) };
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

const interpretStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** schema.ParseGroupVersion */
function parseGroupVersion(apiVersion: string): { ok: true; group: string; version: string } | { ok: false; error: string } {
  if (apiVersion === '' || apiVersion === '/') return { ok: true, group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { ok: true, group: '', version: parts[0]! };
  if (parts.length === 2) return { ok: true, group: parts[0]!, version: parts[1]! };
  return { ok: false, error: `unexpected GroupVersion string: ${apiVersion}` };
}

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
