// The two limits go-yaml (yaml.v2, under sigs.k8s.io/yaml) puts on every YAML document kube-apiserver decodes, checked
// here before the yaml package composes or converts anything:
//   nesting  scannerc.go max_flow_level / max_indents: "yaml: exceeded max depth of 10000" (the limit here is
//            maxNestingDepth, see nesting-depth.ts), found on the yaml package's CST, whose lexer and parser are
//            iterative: only composing and toJS recurse, and those run after the check;
//   aliases  decode.go allowedAliasRatio: "yaml: document contains excessive aliasing" once more than 100 of over
//            1000 decoded nodes come from alias expansion and their share passes 99% (shrinking to 10% between
//            400,000 and 4,000,000 decoded nodes), the "billion laughs" guard.
import { Lexer, LineCounter, Parser, isAlias, isMap, isPair, isScalar, isSeq, type CST, type Document } from 'yaml';
import { checkJsonNesting, maxNestingDepth } from './nesting-depth.js';

/**
 * yaml.v2's parser.fail(): "yaml: line N: <problem>", without the line on the first line (its 0-based mark is 0).
 */
function goYamlFailure(problem: string, line: number): string {
  return line > 1 ? `yaml: line ${line}: ${problem}` : `yaml: ${problem}`;
}

/** The go-yaml error for YAML text nested deeper than `limit` collections, or undefined. Linear in the text. */
export function yamlNestingError(text: string, limit = maxNestingDepth): string | undefined {
  // Every level takes at least one character ('[', '{', '-', a key), so a short text cannot be too deep.
  if (text.length <= limit) return undefined;
  // JSON is YAML, and what kubectl sends as an apply patch: for text that is valid JSON the byte scan counts the
  // same collections as the YAML parser would, at a fraction of its cost. (Text the scan finds too deep goes to the
  // parser below, which stops as early and knows YAML's quotes.)
  if (/^\s*[{[]/u.test(text) && checkJsonNesting(text, limit).ok) {
    try {
      JSON.parse(text);
      return undefined;
    } catch {
      // YAML flow text, or malformed: the parser decides
    }
  }
  const cst = parseYamlCst(text, new LineCounter(), limit);
  return cst.ok ? undefined : cst.error;
}

export type YamlCst = { ok: true; tokens: CST.Token[] } | { ok: false; error: string };

/**
 * The yaml package's CST of `text` (lexed and parsed once, line starts recorded in `lc`), or go-yaml's error when it
 * nests deeper than `limit` collections. Callers compose documents from these tokens (yaml's Composer) rather than
 * parse the text a second time.
 */
export function parseYamlCst(text: string, lc: LineCounter, limit = maxNestingDepth): YamlCst {
  const parser = new Parser(lc.addNewLine);
  const tooDeepAt = (offset: number): YamlCst => ({ ok: false, error: goYamlFailure(`exceeded max depth of ${limit}`, lc.linePos(offset).line) });
  const documents: CST.Token[] = [];
  // Parser.parse, lexeme by lexeme: the parser only yields a document once it ends, so its stack (the document, the
  // open collections and at most one scalar) is watched on the way, and a deep body is refused as soon as it is deep
  // rather than after the whole body was parsed.
  lc.addNewLine(0);
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) documents.push(token);
    // below the document, only the top entry may be something other than a collection: entry limit + 1 is the
    // collection one level too deep
    if (parser.stack.length > limit + 2) return tooDeepAt(parser.stack[limit + 1]!.offset);
  }
  for (const token of parser.end()) documents.push(token);
  // Nothing can be deep in fewer characters than levels ('[', '{', '-', a key each).
  if (text.length <= limit) return { ok: true, tokens: documents };
  // The exact count, on the finished documents.
  const stack: Array<{ token: CST.Token; depth: number }> = [];
  for (const top of documents) {
    stack.push({ token: top, depth: 0 });
    while (stack.length > 0) {
      const { token, depth } = stack.pop()!;
      switch (token.type) {
        case 'document':
          if (token.value) stack.push({ token: token.value, depth });
          break;
        case 'block-map':
        case 'block-seq':
        case 'flow-collection': {
          const here = depth + 1;
          if (here > limit) return tooDeepAt(token.offset);
          for (const item of token.items) {
            if ('key' in item && item.key) stack.push({ token: item.key, depth: here });
            if (item.value) stack.push({ token: item.value, depth: here });
          }
          break;
        }
        default:
          break;
      }
    }
  }
  return { ok: true, tokens: documents };
}

/** decode.go's alias_ratio_range_low/high and allowedAliasRatio. */
const aliasRatioRangeLow = 400_000;
const aliasRatioRangeHigh = 4_000_000;
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= aliasRatioRangeLow) return 0.99;
  if (decodeCount >= aliasRatioRangeHigh) return 0.1;
  return 0.99 - (0.89 * (decodeCount - aliasRatioRangeLow)) / (aliasRatioRangeHigh - aliasRatioRangeLow);
}

// Expansion sizes are capped so that a billion-laughs document counts in finite numbers, far past any limit.
const sizeCap = 1e15;

/**
 * "yaml: document contains excessive aliasing" when decoding the document as yaml.v2 does would expand aliases past
 * its ratio, else undefined. yaml.v2 counts one decode per node it unmarshals, map keys included, and every node
 * under an alias as an aliased decode; the count is kept here without expanding anything: an alias adds the
 * expanded size of its anchor, remembered when the anchor was decoded. Within one expansion both counts grow
 * together, so the ratio only rises: checking at its end is checking at every step.
 */
export function yamlAliasingError(doc: Document.Parsed): string | undefined {
  let decodes = 1; // the document node
  let aliased = 0;
  const anchors = new Map<string, number>();
  const excessive = (): boolean => aliased > 100 && decodes > 1000 && aliased / decodes > allowedAliasRatio(decodes);
  // Returns the node's expanded size; throws `excessiveAliasing` as soon as the ratio is passed.
  const visit = (node: unknown): number => {
    decodes++;
    if (excessive()) throw excessiveAliasing;
    let size = 1;
    if (isAlias(node)) {
      const expanded = anchors.get(node.source) ?? 0;
      decodes = Math.min(decodes + expanded, sizeCap);
      aliased = Math.min(aliased + expanded, sizeCap);
      if (excessive()) throw excessiveAliasing;
      return Math.min(1 + expanded, sizeCap);
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        size = Math.min(size + visit(pair.key) + visit(pair.value), sizeCap);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) size = Math.min(size + visit(item), sizeCap);
    }
    const anchor = isScalar(node) || isMap(node) || isSeq(node) ? node.anchor : undefined;
    if (anchor) anchors.set(anchor, size);
    return size;
  };
  try {
    visit(doc.contents);
  } catch (err) {
    if (err === excessiveAliasing) return 'yaml: document contains excessive aliasing';
    throw err;
  }
  return undefined;
}

const excessiveAliasing = Symbol('excessiveAliasing');

/**
 * yaml.v2's error for a merge key (`<<`) whose value is not a map, an alias of a map or a sequence of those
 * (go.yaml.in/yaml/v2 decode.go failWantMap). The yaml package's toJS throws its own text for the same documents.
 */
export const yamlMergeNotMapError = 'yaml: map merge requires map or sequence of maps as the value';

/**
 * doc.toJS as yaml.v2 decodes (sigs.k8s.io/yaml's YAMLToJSON): merge keys merged, aliases already bounded by
 * yamlAliasingError. Documents must be parsed with `merge: true` (or YAML 1.1, where it is the default). A merge
 * yaml.v2 refuses is its error; so is any other throw of toJS (a bug there must not become a 500).
 */
export function yamlDocumentToJS(doc: Document.Parsed, opts: { json?: boolean } = {}): { ok: true; value: unknown } | { ok: false; error: string } {
  const cycle = yamlSelfContainingAnchor(doc);
  if (cycle !== undefined) return { ok: false, error: `yaml: anchor '${cycle}' value contains itself` };
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: -1, ...(opts.json ? { json: true } : {}) }) };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { ok: false, error: /^Merge sources must be/.test(msg) ? yamlMergeNotMapError : `yaml: ${msg}` };
  }
}

/**
 * The name of an alias inside the node its anchor names (`a: &a [*a]`), else undefined. yaml.v2 registers an anchor
 * when its node starts, so such an alias resolves to a node still being decoded, and its decoder fails with
 * "anchor 'a' value contains itself" (go.yaml.in/yaml/v2 decode.go alias); the yaml package builds a circular value.
 */
export function yamlSelfContainingAnchor(doc: Document.Parsed): string | undefined {
  const latest = new Map<string, unknown>();
  const open = new Set<unknown>();
  const visit = (node: unknown): string | undefined => {
    if (isAlias(node)) return open.has(latest.get(node.source)) ? node.source : undefined;
    if (!isMap(node) && !isSeq(node)) {
      if (isScalar(node) && node.anchor) latest.set(node.anchor, node);
      return undefined;
    }
    if (node.anchor) latest.set(node.anchor, node);
    open.add(node);
    try {
      if (isMap(node)) {
        for (const pair of node.items) {
          if (!isPair(pair)) continue;
          const found = visit(pair.key) ?? visit(pair.value);
          if (found !== undefined) return found;
        }
      } else {
        for (const item of node.items) {
          const found = visit(item);
          if (found !== undefined) return found;
        }
      }
      return undefined;
    } finally {
      open.delete(node);
    }
  };
  return visit(doc.contents);
}
