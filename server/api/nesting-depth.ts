// How deeply a request body may nest, checked by a linear scan of the raw bytes before any parser or recursive walker
// sees them. kube-apiserver's decoders stop at 10000 levels (Go's encoding/json and sigs.k8s.io/json scanners:
// maxNestingDepth = 10000, "exceeded max depth"; go-yaml v2/v3: max_flow_level = max_indents = 10000, "exceeded max
// depth of 10000"). Node's stack is much smaller than Go's growable one, and this server's own walkers (decoding,
// field validation, managedFields, patches, admission copies, CEL conversion) recurse once or more per level, so the
// limit here is lower: low enough that no walker comes near a stack overflow (which V8 can turn into a fatal
// "RegExpCompiler Allocation failed" abort instead of a catchable RangeError), and far above any real object.

/** The deepest nesting of objects and arrays a request body may have (kube-apiserver: 10000). */
export const maxNestingDepth = 500;

export type NestingCheck = { ok: true; depth: number } | { ok: false; offset: number; char: string };

const openBrace = 0x7b; // {
const openBracket = 0x5b; // [
const closeBrace = 0x7d;
const closeBracket = 0x5d;
const quote = 0x22;
const backslash = 0x5c;

/**
 * The nesting of a JSON text, as Go's scanner counts it: every `{` or `[` outside a string opens a level. Malformed
 * input is scanned the same way (the parser reports its own error afterwards); the scan only bounds the depth.
 */
export function checkJsonNesting(input: Uint8Array | string, limit = maxNestingDepth): NestingCheck {
  // The characters that matter are ASCII, so UTF-16 code units and UTF-8 bytes scan alike; a body (bytes) takes the
  // direct loop, which runs on every request.
  return typeof input === 'string' ? scan((i) => input.charCodeAt(i), input.length, limit) : scanBytes(input, limit);
}

function scanBytes(bytes: Uint8Array, limit: number): NestingCheck {
  let depth = 0;
  let deepest = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === quote) {
      // skip the string: to its closing quote, stepping over escapes
      for (i++; i < n; i++) {
        const d = bytes[i]!;
        if (d === backslash) i++;
        else if (d === quote) break;
      }
    } else if (c === openBrace || c === openBracket) {
      if (++depth > limit) return { ok: false, offset: i, char: String.fromCharCode(c) };
      if (depth > deepest) deepest = depth;
    } else if ((c === closeBrace || c === closeBracket) && depth > 0) depth--;
  }
  return { ok: true, depth: deepest };
}

function scan(at: (i: number) => number, n: number, limit: number): NestingCheck {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < n; i++) {
    const c = at(i);
    if (c === quote) {
      for (i++; i < n; i++) {
        const d = at(i);
        if (d === backslash) i++;
        else if (d === quote) break;
      }
    } else if (c === openBrace || c === openBracket) {
      if (++depth > limit) return { ok: false, offset: i, char: String.fromCharCode(c) };
      if (depth > deepest) deepest = depth;
    } else if ((c === closeBrace || c === closeBracket) && depth > 0) depth--;
  }
  return { ok: true, depth: deepest };
}

/** Go's scanner error for a body nested beyond the limit: `invalid character '{' exceeded max depth`. */
export function jsonDepthError(check: Extract<NestingCheck, { ok: false }>): string {
  return `invalid character '${check.char}' exceeded max depth`;
}

/**
 * Whether a decoded value nests objects and arrays deeper than `limit` (the value itself being level 1 when it is
 * one): for values no raw scan saw, such as a patch's result or JSON carried inside protobuf. Iterative, linear.
 */
export function exceedsNestingDepth(value: unknown, limit = maxNestingDepth): boolean {
  // two parallel stacks: no allocation per node
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const here = depth + 1;
    if (here > limit) return true;
    if (Array.isArray(v)) {
      for (const c of v) {
        if (c === null || typeof c !== 'object') continue;
        values.push(c);
        depths.push(here);
      }
      continue;
    }
    for (const k in v) {
      const c = (v as Record<string, unknown>)[k];
      if (c === null || typeof c !== 'object') continue;
      values.push(c);
      depths.push(here);
    }
  }
  return false;
}

/**
 * How much deeper than the fields they track an object's managedFields nest (metadata, managedFields, the entry,
 * fieldsV1, and the empty set of a leaf): an object whose fields nest maxNestingDepth levels is stored with
 * managedFields that nest this much deeper.
 */
export const managedFieldsExtraDepth = 5;

/**
 * exceedsNestingDepth for an object the server is about to keep (a patch's result): its fields may nest
 * `limit` levels, its managedFields the managedFieldsExtraDepth more they take to track such fields, so that an
 * object at the limit can still be patched.
 */
export function objectExceedsNestingDepth(object: unknown, limit = maxNestingDepth): boolean {
  const meta = isPlainObject(object) ? object['metadata'] : undefined;
  if (!isPlainObject(meta) || !('managedFields' in meta)) return exceedsNestingDepth(object, limit);
  const { managedFields, ...otherMeta } = meta;
  // managedFields sit two levels down (the object, its metadata)
  return exceedsNestingDepth({ ...(object as Record<string, unknown>), metadata: otherMeta }, limit) || exceedsNestingDepth(managedFields, limit + managedFieldsExtraDepth - 2);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
