// Decoding one manifest document as kube-apiserver's manifest loader does (KEP-5793): the file is split into YAML
// documents by k8s.io/apimachinery's YAMLReader, and each document goes through a strict UniversalDeserializer
// (serializer.EnableStrict): JSON when it starts with '{', YAML otherwise; meta.Interpret for apiVersion/kind; the
// scheme lookup; then sigs.k8s.io/json UnmarshalStrict, whose unknown and duplicate fields (and YAML's duplicate
// keys) become one "strict decoding error: …". Error texts are kube's; Node's JSON and YAML parsers word their
// syntax errors differently from Go's.
import { goJsonMarshal, parseJsonOrYamlDocument, type JsonNode } from '../../api/go-json-document.js';
import { interpretTypeMeta, strictDecodingError, unmarshalStrict } from '../../api/go-strict-decoder.js';
import { goQuote } from '../../options/go-strconv.js';
import { lookupKind, manifestSchemeName, type SchemeEntry } from './schema.js';

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
  // each line with its newline; indexOf rather than a lookbehind split, which costs more than the rest of the split
  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl + 1;
    const line = text.slice(start, end);
    start = end;
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
 * missing kind and version errors, the scheme lookup, then the strict unmarshal. `originalText` is the document as
 * read (trimmed), which kube quotes in its missing kind/apiVersion errors (NewMissingKindErr(string(originalData)));
 * without it the document is shown as compact JSON.
 */
export function decodeNode(root: JsonNode, yamlStrictError?: string, originalText?: string): DecodeResult {
  const meta = interpretTypeMeta(root);
  if (!meta.ok) return meta;
  const { group, version, kind } = meta;
  const shown = originalText ?? goJsonMarshal(root.value);
  // A document of only comments decodes to null, so it has no kind either: kube fails on it the same way.
  if (kind === '') return { ok: false, error: `Object 'Kind' is missing in '${shown}'` };
  if (version === '') return { ok: false, error: `Object 'apiVersion' is missing in '${shown}'` };
  const groupVersion = group === '' ? version : `${group}/${version}`;
  const entry = lookupKind(group, version, kind);
  if (!entry) return { ok: false, error: `no kind ${goQuote(kind)} is registered for version ${goQuote(groupVersion)} in scheme ${goQuote(manifestSchemeName)}` };
  const decoded: DecodedObject = { group, version, kind, entry };
  if (entry.form === 'registered') return { ok: true, decoded };

  const { object, fatal, strict } = unmarshalStrict(root, entry.type);
  if (fatal !== undefined) return { ok: true, decoded: { ...decoded, error: fatal } };
  if (entry.form === 'list') {
    const itemsNode = root.type === 'object' ? [...root.members].reverse().find((m) => m.key === 'items')?.node : undefined;
    decoded.items = itemsNode?.type === 'array' ? itemsNode.items : [];
  }
  decoded.object = object;
  const error = strictDecodingError(yamlStrictError, strict);
  if (error !== undefined) decoded.error = error;
  return { ok: true, decoded };
}
