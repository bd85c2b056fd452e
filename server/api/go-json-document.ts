// One JSON or YAML document as apimachinery's decoders see it before typing, shared by the strict decoders of
// KEP-5793 manifests and of the AdmissionConfiguration file. Go's decoder needs what JSON.parse loses: object members
// in input order with duplicates kept, and each value's source text (runtime.Unknown raw bytes, error quotes).
// YAML goes through sigs.k8s.io/yaml (yaml.v2, YAML 1.1), whose duplicate keys are strictness errors.
import { Composer, CST, isMap, isScalar, isSeq, LineCounter, Schema, YAMLMap, YAMLSeq, type CollectionTag, type Document, type Node as YamlNode, type ScalarTag, type Tags } from 'yaml';
import { goQuote } from '../options/go-strconv.js';
import { goYamlSyntaxError, hasGoYamlUnprintable } from './go-yaml-errors.js';
import { checkJsonNesting, jsonDepthError } from './nesting-depth.js';
import { parseYamlCst, yamlAliasingError, yamlDocumentToJS } from './yaml-limits.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON value: object members in input order (duplicates kept, for JSON input) and the value's JSON text. */
export type JsonNode =
  | { type: 'object'; members: Array<{ key: string; node: JsonNode }>; value: { [key: string]: JsonValue }; raw: string }
  | { type: 'array'; items: JsonNode[]; value: JsonValue[]; raw: string }
  | { type: 'string'; value: string; raw: string }
  | { type: 'number'; value: number; raw: string }
  | { type: 'bool'; value: boolean; raw: string }
  | { type: 'null'; value: null; raw: string };

/** Sets a member without the `__proto__` setter getting in the way: document keys are data. */
export function setMember<V>(obj: { [key: string]: V }, key: string, value: V): void {
  // Only `__proto__` is an accessor on Object.prototype; for any other key an assignment makes the same own,
  // enumerable, writable data property, several times faster than defineProperty on cold code (issue #19).
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
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

/**
 * A node's JSON text, computed on first read and then kept: only runtime.Unknown fields and error quotes read it,
 * and marshalling every node eagerly is quadratic in the document's depth. A getter on the prototype: defining one
 * on each node (Object.defineProperty) cost ≈ 5 ms of a start that loads 300 manifest documents.
 */
abstract class LazyRawNode {
  #raw: string | undefined;
  abstract readonly value: JsonValue;
  get raw(): string {
    return (this.#raw ??= goJsonMarshal(this.value));
  }
}

class StringNode extends LazyRawNode {
  readonly type = 'string' as const;
  constructor(readonly value: string) {
    super();
  }
}

class ArrayNode extends LazyRawNode {
  readonly type = 'array' as const;
  readonly value: JsonValue[];
  constructor(readonly items: JsonNode[]) {
    super();
    this.value = items.map((i) => i.value);
  }
}

class ObjectNode extends LazyRawNode {
  readonly type = 'object' as const;
  constructor(
    readonly members: Array<{ key: string; node: JsonNode }>,
    readonly value: { [key: string]: JsonValue },
  ) {
    super();
  }
}

function scalarNode(v: null | boolean | number | string): JsonNode {
  if (v === null) return { type: 'null', value: null, raw: 'null' };
  if (typeof v === 'string') return new StringNode(v);
  if (typeof v === 'number') return { type: 'number', value: v, raw: goJsonMarshal(v) };
  return { type: 'bool', value: v, raw: String(v) };
}

function arrayNode(items: JsonNode[]): JsonNode {
  return new ArrayNode(items);
}

/** Go maps: members come out sorted by key, one per key. */
function objectNode(byKey: Map<string, JsonNode>, value: { [key: string]: JsonValue }): JsonNode {
  const members = [...byKey.keys()].sort().map((key) => ({ key, node: byKey.get(key)! }));
  return new ObjectNode(members, value);
}

/** The JSON sigs.k8s.io/yaml's YAMLToJSON makes of a YAML value: Go maps, so members come out sorted by key. */
function nodeFromYamlValue(v: JsonValue): JsonNode {
  if (v === null || typeof v !== 'object') return scalarNode(v);
  if (Array.isArray(v)) return arrayNode(v.map(nodeFromYamlValue));
  const byKey = new Map<string, JsonNode>();
  for (const key of Object.keys(v)) byKey.set(key, nodeFromYamlValue(v[key]!));
  return objectNode(byKey, v);
}

// ---- the common case straight from the CST ----------------------------------------------------------------

let yaml11ScalarTags: ReadonlyArray<CollectionTag | ScalarTag> | undefined;

// Resolved plain scalars, by key position and source: manifests repeat the same keys and many of the same values
// (apiVersion, kind, metadata, name, v1, CREATE …), and each resolution tries a dozen patterns. Results are
// primitives, so sharing them is safe; the bound only keeps odd inputs from growing the maps forever.
const resolvedPlainScalars = [new Map<string, JsonValue | typeof notPlainYaml>(), new Map<string, JsonValue | typeof notPlainYaml>()] as const;
const maxResolvedPlainScalars = 4096;

/** yaml.v2's plain-scalar resolution (YAML 1.1 core, timestamps as strings), as the yaml package's composer does it. */
function plainScalarValue(source: string, atKey: boolean): JsonValue | typeof notPlainYaml {
  const memo = resolvedPlainScalars[atKey ? 1 : 0];
  const known = memo.get(source);
  if (known !== undefined) return known;
  const value = resolvePlainScalar(source, atKey);
  if (memo.size >= maxResolvedPlainScalars) memo.clear();
  memo.set(source, value);
  return value;
}

function resolvePlainScalar(source: string, atKey: boolean): JsonValue | typeof notPlainYaml {
  yaml11ScalarTags ??= new Schema({ schema: 'yaml-1.1', merge: true, customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp') }).tags;
  // findScalarTagByTest: the first default tag whose pattern matches (merge keys only at a key, left to toJS)
  const tag = yaml11ScalarTags.find((t) => t.default === true && t.test?.test(source)) as ScalarTag | undefined;
  if (!tag) return source;
  if (atKey && yaml11ScalarTags.some((t) => t.default === 'key' && t.test?.test(source))) return notPlainYaml;
  let failed = false;
  const v: unknown = tag.resolve(source, () => (failed = true), { intAsBigInt: false } as Parameters<ScalarTag['resolve']>[2]);
  if (failed) return notPlainYaml;
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  return notPlainYaml;
}

const trivia = new Set(['space', 'comment', 'newline']);
const onlyTrivia = (tokens: readonly CST.SourceToken[] | undefined): boolean => (tokens ?? []).every((t) => trivia.has(t.type));

/**
 * The JsonNode of a one-document CST made only of block maps with single-line plain or quoted keys, block
 * sequences, and plain, quoted or block scalars (what manifests are), built straight from the CST without composing
 * a yaml Document; undefined for anything else (anchors, aliases, tags, flow collections, explicit keys, merge keys,
 * duplicate keys, anything odd), which the caller composes in full. Saves the composer's time on every manifest.
 */
function plainNodeFromCst(tokens: readonly CST.Token[], lc: LineCounter): JsonNode | undefined {
  if (tokens.length !== 1 || tokens[0]!.type !== 'document') return undefined;
  const doc = tokens[0];
  if (!onlyTrivia(doc.start) || !onlyTrivia(doc.end)) return undefined;
  // the composer's BAD_INDENT: every item of a block collection starts at the collection's column
  const column = (offset: number): number => lc.linePos(offset).col - 1;
  const scalar = (token: CST.Token, atKey: boolean): JsonValue | typeof notPlainYaml => {
    if (token.type !== 'scalar' && token.type !== 'single-quoted-scalar' && token.type !== 'double-quoted-scalar' && token.type !== 'block-scalar') return notPlainYaml;
    if (token.type === 'block-scalar' && !token.props.every((t) => t.type === 'block-scalar-header' || trivia.has(t.type))) return notPlainYaml;
    if (token.type !== 'block-scalar' && !onlyTrivia(token.end)) return notPlainYaml;
    let failed = false;
    const r = CST.resolveAsScalar(token, true, () => (failed = true));
    if (failed || !r) return notPlainYaml;
    return r.type === 'PLAIN' ? plainScalarValue(r.value, atKey) : r.value;
  };
  const visit = (token: CST.Token | undefined): JsonNode => {
    if (token === undefined) return scalarNode(null);
    if (token.type === 'block-map') {
      const byKey = new Map<string, JsonNode>();
      const value: { [key: string]: JsonValue } = {};
      for (const item of token.items) {
        if (item.explicitKey || !onlyTrivia(item.start) || !item.key || !item.sep) throw notPlainYaml;
        const k = item.key;
        if (column(k.offset) !== token.indent) throw notPlainYaml;
        // implicit keys are single-line and at most 1024 characters; a block map value starts on a new line
        if ((k.type !== 'scalar' && k.type !== 'single-quoted-scalar' && k.type !== 'double-quoted-scalar') || /[\n\r]/u.test(k.source) || k.source.length > 1024) throw notPlainYaml;
        if (item.sep.filter((t) => t.type === 'map-value-ind').length !== 1 || !item.sep.every((t) => t.type === 'map-value-ind' || trivia.has(t.type))) throw notPlainYaml;
        if ((item.value?.type === 'block-map' || item.value?.type === 'block-seq') && !item.sep.some((t) => t.type === 'newline')) throw notPlainYaml;
        const keyValue = scalar(k, true);
        if (keyValue === notPlainYaml || keyValue === null || typeof keyValue === 'object') throw notPlainYaml;
        const key = String(keyValue);
        // duplicates (and yaml.v2's text for them) are the full path's; so is the merge key
        if (byKey.has(key) || key === '<<') throw notPlainYaml;
        const child = visit(item.value);
        byKey.set(key, child);
        setMember(value, key, child.value);
      }
      return objectNode(byKey, value);
    }
    if (token.type === 'block-seq') {
      return arrayNode(
        token.items.map((item) => {
          const ind = item.start.filter((t) => t.type === 'seq-item-ind');
          if (ind.length !== 1 || column(ind[0]!.offset) !== token.indent || !item.start.every((t) => t.type === 'seq-item-ind' || trivia.has(t.type))) throw notPlainYaml;
          return visit(item.value);
        }),
      );
    }
    const v = scalar(token, false);
    if (v === notPlainYaml) throw notPlainYaml;
    return scalarNode(v as string | number | boolean | null);
  };
  try {
    return visit(doc.value);
  } catch (err) {
    if (err === notPlainYaml) return undefined;
    throw err;
  }
}

// ---- the commonest case straight from the lines ------------------------------------------------------------

/** One line of a document: its indentation and the rest. */
interface BlockLine {
  indent: number;
  content: string;
}

// A key the line walk reads itself: a plain scalar of word characters, dots, slashes and dashes (what Kubernetes
// field names and label keys are made of), then ':' and either the end of the line or a space and the value.
const simpleKeyLine = /^([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: +(.*))?$/u;
const doubleQuotedWithoutEscapes = /^"([^"\\]*)"$/u;
const singleQuoted = /^'((?:[^']|'')*)'$/u;
// a plain scalar cannot start with an indicator (a '-' followed by a space is a sequence entry, handled apart)
const indicatorStart = /^[?:,[\]{}#&*!|>'"%@`]/u;
// deeper documents take the full path, which also checks yaml.v2's nesting limit
const maxLineWalkDepth = 64;

/** Spaces only: YAML's indentation and a plain scalar's ends are spaces, while JavaScript's trim also takes NBSP and the like. */
function trimYamlSpaces(text: string, side: 'start' | 'end'): string {
  if (side === 'start') {
    let i = 0;
    while (text.charCodeAt(i) === 0x20) i++;
    return text.slice(i);
  }
  let j = text.length;
  while (j > 0 && text.charCodeAt(j - 1) === 0x20) j--;
  return text.slice(0, j);
}

/**
 * The JsonNode of a document written as `yaml.stringify` and `kubectl get -o yaml` write manifests: block maps
 * with simple keys, block sequences (indented or not, with compact maps in their entries), single-line quoted
 * scalars without escapes, plain scalars (folded over several lines), `{}` and `[]`. Read line by line with
 * regular expressions, which run as native code even when the JavaScript around them is not yet compiled: at
 * startup, 200 manifests cost a fraction of what the yaml package's lexer and parser cost before they warm up
 * (issue #19). Anything else — comments, blank lines, block scalars, escapes, anchors, tags, flow collections,
 * quoted keys, duplicate keys, odd indentation, `---`/`...` lines, CR, BOM — gives undefined and the caller takes the
 * yaml package's path. Values are resolved by the same YAML 1.1 rules (plainScalarValue) as plainNodeFromCst.
 */
export function plainNodeFromLines(text: string): JsonNode | undefined {
  // (yaml.v2 also breaks lines at NEL, LS and PS)
  if (/[#\r\uFEFF\x85\u2028\u2029]|^(?:---|\.\.\.|%)/mu.test(text)) return undefined;
  const lines: BlockLine[] = [];
  const raws = text.split('\n');
  // a final newline ends the last line
  if (raws.length > 1 && raws[raws.length - 1] === '') raws.pop();
  for (const raw of raws) {
    const content = trimYamlSpaces(raw, 'start');
    // blank lines fold plain scalars into newlines and end nothing: the full path
    if (content === '') return undefined;
    lines.push({ indent: raw.length - content.length, content });
  }
  if (lines.length === 0 || lines[0]!.indent !== 0) return undefined;
  let at = 0;
  const isSeqEntry = (l: BlockLine): boolean => l.content === '-' || l.content.startsWith('- ');

  // A scalar starting on a line whose block is at column `col`; continuation lines are deeper than `col`.
  const scalar = (first: string, col: number): JsonNode => {
    const head = trimYamlSpaces(first, 'end');
    const continues = at < lines.length && lines[at]!.indent > col;
    if (head === '{}' || head === '[]') {
      if (continues) throw notPlainYaml;
      return head === '{}' ? objectNode(new Map(), {}) : arrayNode([]);
    }
    if (head.startsWith('"') || head.startsWith("'")) {
      if (continues) throw notPlainYaml;
      const dq = doubleQuotedWithoutEscapes.exec(head);
      if (dq) return scalarNode(dq[1]!);
      const sq = singleQuoted.exec(head);
      if (sq) return scalarNode(sq[1]!.replaceAll("''", "'"));
      throw notPlainYaml;
    }
    if (indicatorStart.test(head) || head.startsWith('- ') || head === '-') throw notPlainYaml;
    const parts = [head];
    while (at < lines.length && lines[at]!.indent > col) parts.push(trimYamlSpaces(lines[at++]!.content, 'end'));
    for (const part of parts) if (part.includes(': ') || part.endsWith(':')) throw notPlainYaml;
    if (parts.length > 1 && parts.slice(1).some((p) => p === '-' || p.startsWith('- '))) throw notPlainYaml;
    const v = plainScalarValue(parts.join(' '), false);
    if (v === notPlainYaml) throw notPlainYaml;
    return scalarNode(v as string | number | boolean | null);
  };

  // The value after `key:` on a line at column `col`.
  const mapValue = (rest: string | undefined, col: number, depth: number): JsonNode => {
    if (rest !== undefined && trimYamlSpaces(rest, 'end') !== '') return scalar(rest, col);
    const next = lines[at];
    if (next === undefined || next.indent < col || (next.indent === col && !isSeqEntry(next))) return scalarNode(null);
    // an indentless sequence sits at the key's column
    return block(next.indent, depth + 1);
  };

  const map = (col: number, depth: number): JsonNode => {
    const byKey = new Map<string, JsonNode>();
    const value: { [key: string]: JsonValue } = {};
    while (at < lines.length) {
      const line = lines[at]!;
      if (line.indent < col) break;
      if (line.indent > col || isSeqEntry(line)) throw notPlainYaml;
      const m = simpleKeyLine.exec(line.content);
      // implicit keys are at most 1024 characters
      if (!m || m[1]!.length > 1024) throw notPlainYaml;
      at++;
      const keyValue = plainScalarValue(m[1]!, true);
      if (keyValue === notPlainYaml || keyValue === null || typeof keyValue === 'object') throw notPlainYaml;
      const key = String(keyValue);
      if (byKey.has(key)) throw notPlainYaml;
      const child = mapValue(m[2], col, depth);
      byKey.set(key, child);
      setMember(value, key, child.value);
    }
    return objectNode(byKey, value);
  };

  const seq = (col: number, depth: number): JsonNode => {
    const items: JsonNode[] = [];
    while (at < lines.length) {
      const line = lines[at]!;
      if (line.indent < col) break;
      if (line.indent > col || line.content === '-') throw notPlainYaml;
      // the end of an indentless sequence, whose map goes on at this column
      if (!line.content.startsWith('- ')) break;
      const rest = line.content.slice(2);
      const inner = trimYamlSpaces(rest, 'start');
      const innerCol = col + line.content.length - inner.length;
      if (simpleKeyLine.test(inner)) {
        // a compact map: its first entry on the dash's line, the others below at the same column
        lines[at] = { indent: innerCol, content: inner };
        items.push(map(innerCol, depth + 1));
      } else {
        at++;
        items.push(scalar(inner, col));
      }
    }
    return arrayNode(items);
  };

  const block = (col: number, depth: number): JsonNode => {
    if (depth > maxLineWalkDepth) throw notPlainYaml;
    return isSeqEntry(lines[at]!) ? seq(col, depth) : map(col, depth);
  };

  try {
    const node = block(0, 0);
    return at === lines.length ? node : undefined;
  } catch (err) {
    if (err === notPlainYaml) return undefined;
    throw err;
  }
}

/** A collection or scalar the direct walk leaves to toJS (aliases, merge keys, tagged collections, odd keys). */
const notPlainYaml = Symbol('notPlainYaml');

/**
 * The same JsonNode as toJS + nodeFromYamlValue, in one walk over the AST, with yaml.v2's duplicate keys collected
 * on the way (value before key, as goyamlDuplicateKeys reports them). Anything outside plain maps, sequences and
 * scalars with scalar keys throws notPlainYaml, and the caller takes the general path.
 */
function nodeFromPlainYaml(root: unknown, duplicateAt: (at: number, key: string | number | boolean) => void): JsonNode {
  const visit = (node: unknown): JsonNode => {
    if (node === null || node === undefined) return scalarNode(null);
    if (isScalar(node)) {
      const v = node.value;
      if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return scalarNode(v);
      if (typeof v === 'bigint') return scalarNode(Number(v));
      throw notPlainYaml;
    }
    if (node.constructor === YAMLSeq && (node as YAMLSeq).tag === undefined) {
      return arrayNode((node as YAMLSeq).items.map((item) => (item === null || isScalar(item) || isMap(item) || isSeq(item) ? visit(item) : fail())));
    }
    if (node.constructor === YAMLMap && (node as YAMLMap).tag === undefined) {
      const byKey = new Map<string, JsonNode>();
      const value: { [key: string]: JsonValue } = {};
      const seen = new Set<string>();
      for (const pair of (node as YAMLMap<unknown, unknown>).items) {
        const child = visit(pair.value);
        if (!isScalar(pair.key)) throw notPlainYaml;
        const k = pair.key.value;
        if (typeof k !== 'string' && typeof k !== 'number' && typeof k !== 'boolean') throw notPlainYaml;
        const key = String(k);
        // YAML 1.1 merge keys are toJS's to resolve.
        if (key === '<<') throw notPlainYaml;
        const id = `${typeof k}:${key}`;
        if (seen.has(id)) duplicateAt((pair.value as YamlNode | null)?.range?.[0] ?? pair.key.range?.[0] ?? 0, k);
        seen.add(id);
        byKey.set(key, child);
        setMember(value, key, child.value);
      }
      return objectNode(byKey, value);
    }
    throw notPlainYaml;
  };
  return visit(root);
}

function fail(): never {
  throw notPlainYaml;
}

/** The yaml package's toJS output as goyaml → JSON would see it: map keys become strings, bigints numbers. */
function jsonValueFromYaml(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(jsonValueFromYaml);
  if (v instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, val] of v) setMember(out, String(k), jsonValueFromYaml(val));
    return out;
  }
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, val] of Object.entries(v)) setMember(out, k, jsonValueFromYaml(val));
    return out;
  }
  return String(v);
}

const jsonScalar = /true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

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
      const value: { [key: string]: JsonValue } = {};
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
    // sticky: matches at pos without copying the rest of the text (a slice per scalar is quadratic)
    jsonScalar.lastIndex = this.pos;
    const m = jsonScalar.exec(this.text)!;
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

/** yaml.v2's %#v of a map key in "key %#v already set in map". */
function goyamlKeyText(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (v === null || v === undefined) return '<nil>';
  return String(v);
}

/**
 * yaml.v2 UnmarshalStrict's duplicate-key errors ("line 5: key \"name\" already set in map"), which
 * YAMLToJSONStrict reports for every mapping in the document, the line being the value's.
 */
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

/**
 * One document as the json serializer reads it before typing: the JSON tree, and YAML's duplicate keys (each
 * "line N: key \"k\" already set in map"; the callers join them as their loader prints them).
 */
export type ParsedJsonDocument = { ok: true; node: JsonNode; yamlDuplicateKeys: string[] } | { ok: false; error: string };

let yaml11TagsWithoutTimestamp: Tags | undefined;

/** `composeAlways` skips both direct walks, `cstAlways` the line walk (tests compare the paths). */
export function parseJsonOrYamlDocument(text: string, opts: { composeAlways?: boolean; cstAlways?: boolean } = {}): ParsedJsonDocument {
  // json.Serializer.RecognizesData: JSON is text whose first non-space character is '{'; anything else is YAML.
  if (/^\s*\{/u.test(text)) {
    // Go's scanner refuses excessive nesting before anything is decoded; JsonReader and every walker after it recurse.
    const nesting = checkJsonNesting(text);
    if (!nesting.ok) return { ok: false, error: `couldn't get version/kind; json parse error: ${jsonDepthError(nesting)}` };
    try {
      JSON.parse(text);
    } catch (err) {
      // meta.Interpret is the first to unmarshal JSON input; Node's syntax error text differs from Go's.
      return { ok: false, error: `couldn't get version/kind; json parse error: ${(err as Error).message}` };
    }
    return { ok: true, node: new JsonReader(text).read(), yamlDuplicateKeys: [] };
  }
  // Tabs and characters yaml.v2 refuses take the full path, which words yaml.v2's errors.
  const plainText = !opts.composeAlways && !text.includes('\t') && !hasGoYamlUnprintable(text);
  if (plainText && !opts.cstAlways) {
    const plain = plainNodeFromLines(text);
    if (plain) return { ok: true, node: plain, yamlDuplicateKeys: [] };
  }
  // One lex and parse: the CST is checked for go-yaml's nesting limit, then composed (parseAllDocuments would
  // parse the text a second time).
  const lc = new LineCounter();
  const cst = parseYamlCst(text, lc);
  if (!cst.ok) return { ok: false, error: cst.error };
  if (plainText) {
    const plain = plainNodeFromCst(cst.tokens, lc);
    if (plain) return { ok: true, node: plain, yamlDuplicateKeys: [] };
  }
  const composer = new Composer({
    // sigs.k8s.io/yaml uses yaml.v2: YAML 1.1 scalars (yes/no booleans, 0777 octals) but timestamps stay strings.
    version: '1.1',
    // The schema is built per document; the filtered list is the same every time.
    customTags: (tags) => (yaml11TagsWithoutTimestamp ??= tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp')),
    // Duplicate keys are not a parse error here: goyamlDuplicateKeys finds them all, with yaml.v2's text and lines,
    // and the values are read last-wins as the non-strict YAMLToJSON pass does.
    uniqueKeys: false,
  });
  const docs = Array.from(composer.compose(cst.tokens));
  // yaml.v2 Unmarshal reads the first document only.
  const doc: Document.Parsed | undefined = docs[0];
  const yamlFailed = doc !== undefined && doc.errors.length > 0;
  // Syntax errors are worded and placed as yaml.v2 does ("yaml: line 4: did not find expected key"), which
  // go-yaml-errors finds by re-walking the text; the yaml package also accepts control characters yaml.v2 refuses.
  if (yamlFailed || hasGoYamlUnprintable(text)) {
    const goError = goYamlSyntaxError(text);
    if (goError !== undefined) return { ok: false, error: goError };
  }
  if (yamlFailed) {
    // Documents the yaml package refuses but yaml.v2 reads (rare): no kube text to match, so the yaml package's.
    const e = doc.errors[0]!;
    const line = lc.linePos(e.pos[0]).line;
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/u, '');
    return { ok: false, error: `yaml: line ${line}: ${message}` };
  }
  const root = (doc?.contents ?? null) as YamlNode | null;
  const duplicates: string[] = [];
  try {
    const node = nodeFromPlainYaml(root, (at, key) => duplicates.push(`line ${lc.linePos(at).line}: key ${goyamlKeyText(key)} already set in map`));
    return { ok: true, node, yamlDuplicateKeys: duplicates };
  } catch (err) {
    if (err !== notPlainYaml) throw err;
  }
  // Aliases: yaml.v2's ratio bounds them (plain YAML, above, has none); then the yaml package may expand freely.
  const aliasing = doc ? yamlAliasingError(doc) : undefined;
  if (aliasing !== undefined) return { ok: false, error: aliasing };
  // YAML 1.1 merges `<<` keys, as yaml.v2 does.
  const decoded = doc ? yamlDocumentToJS(doc) : { ok: true as const, value: null };
  if (!decoded.ok) return { ok: false, error: decoded.error };
  const value = jsonValueFromYaml(decoded.value);
  return { ok: true, node: nodeFromYamlValue(value), yamlDuplicateKeys: goyamlDuplicateKeys(root, lc) };
}

/** The struct meta.Interpret unmarshals into, as encoding/json names it in type errors. */
export const interpretStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** schema.ParseGroupVersion */
export function parseGroupVersion(apiVersion: string): { ok: true; group: string; version: string } | { ok: false; error: string } {
  if (apiVersion === '' || apiVersion === '/') return { ok: true, group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { ok: true, group: '', version: parts[0]! };
  if (parts.length === 2) return { ok: true, group: parts[0]!, version: parts[1]! };
  return { ok: false, error: `unexpected GroupVersion string: ${apiVersion}` };
}
