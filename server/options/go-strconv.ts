// Go's strconv as kube-apiserver's flags and messages use it: ParseInt, ParseBool and Quote (%q), so that our
// errors read exactly like the Go binary's ("strconv.ParseInt: parsing \"abc\": invalid syntax").

export type GoParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const isPrintRe = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const plainAsciiRe = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** strconv.Quote: a double-quoted Go string literal, escaping what unicode.IsPrint rejects. */
export function goQuote(s: string): string {
  // printable ASCII without quotes or backslashes quotes as is (names in authorization messages, on every request)
  if (plainAsciiRe.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === ' ' || (cp >= 0x20 && isPrintRe.test(ch))) out += ch;
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    // A lone surrogate is not valid UTF-8; Go would print the replacement character's escape.
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

function syntaxError(fn: string, s: string): { ok: false; error: string } {
  return { ok: false, error: `strconv.${fn}: parsing ${goQuote(s)}: invalid syntax` };
}

function rangeError(fn: string, s: string): { ok: false; error: string } {
  return { ok: false, error: `strconv.${fn}: parsing ${goQuote(s)}: value out of range` };
}

/** Underscores are allowed only between digits (after an optional base prefix) when base is 0, as Go's underscoreOK. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (/[0-9]/.test(c) || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/**
 * strconv.ParseInt(s, base, bitSize) for base 0 (prefixes 0x, 0o, 0b, leading-0 octal, underscores) or 10.
 * Values are returned as numbers; out-of-range for bitSize is reported as Go does.
 */
export function parseGoInt(s: string, base: 0 | 10, bitSize: 32 | 64): GoParseResult<number> {
  const fn = 'ParseInt';
  if (s === '') return syntaxError(fn, s);
  let body = s;
  let neg = false;
  if (body[0] === '+' || body[0] === '-') {
    neg = body[0] === '-';
    body = body.slice(1);
  }
  let radix = 10;
  let digits = body;
  if (base === 0) {
    if (/^0[xX]/.test(body)) {
      radix = 16;
      digits = body.slice(2);
    } else if (/^0[bB]/.test(body)) {
      radix = 2;
      digits = body.slice(2);
    } else if (/^0[oO]/.test(body)) {
      radix = 8;
      digits = body.slice(2);
    } else if (body.length > 1 && body[0] === '0') {
      radix = 8;
      digits = body.slice(1);
    }
    if (digits.includes('_')) {
      if (!underscoreOK(s)) return syntaxError(fn, s);
      digits = digits.replace(/_/g, '');
    }
  }
  if (digits === '') return syntaxError(fn, s);
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[radix as 2 | 8 | 10 | 16];
  if (!valid.test(digits)) return syntaxError(fn, s);
  let v = 0n;
  const r = BigInt(radix);
  for (const d of digits) v = v * r + BigInt(parseInt(d, 16));
  if (neg) v = -v;
  const max = (1n << BigInt(bitSize - 1)) - 1n;
  const min = -(1n << BigInt(bitSize - 1));
  if (v > max || v < min) return rangeError(fn, s);
  return { ok: true, value: Number(v) };
}

/**
 * strconv.ParseUint(s, 10, 64): digits only (no sign, prefix or underscore), at most 2^64-1. The value is a bigint,
 * since it may pass 2^53. Like Go, the first overflow is a range error even if an invalid character follows.
 */
export function parseGoUint64(s: string): GoParseResult<bigint> {
  const fn = 'ParseUint';
  if (s === '') return syntaxError(fn, s);
  const max = (1n << 64n) - 1n;
  let v = 0n;
  for (const c of s) {
    if (c < '0' || c > '9') return syntaxError(fn, s);
    v = v * 10n + BigInt(c.charCodeAt(0) - 0x30);
    if (v > max) return rangeError(fn, s);
  }
  return { ok: true, value: v };
}

const goTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const goFalse = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool. */
export function parseGoBool(s: string): GoParseResult<boolean> {
  if (goTrue.has(s)) return { ok: true, value: true };
  if (goFalse.has(s)) return { ok: true, value: false };
  return syntaxError('ParseBool', s);
}
