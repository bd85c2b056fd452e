// Tokens of the CEL grammar (cel-spec langdef "Syntax", cel-go's parser/gen/CEL.g4). Offsets are code points.
// Lexer errors read like ANTLR's ("token recognition error at: '$'") since that is what cel-go prints.

export type TokenKind =
  | 'EOF'
  | 'IDENT'
  | 'ESC_IDENT'
  | 'INT'
  | 'UINT'
  | 'DOUBLE'
  | 'STRING'
  | 'BYTES'
  | 'true'
  | 'false'
  | 'null'
  | 'in'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '&&'
  | '||'
  | '['
  | ']'
  | '{'
  | '}'
  | '('
  | ')'
  | '.'
  | ','
  | '-'
  | '!'
  | '?'
  | ':'
  | '+'
  | '*'
  | '/'
  | '%';

export interface Token {
  kind: TokenKind;
  /** source text of the token */
  text: string;
  /** code point offset */
  offset: number;
  /** decoded value of STRING/BYTES tokens, or an error message when the escape sequence was invalid */
  str?: string;
  bytes?: Uint8Array;
  invalid?: string;
}

export interface LexError {
  offset: number;
  message: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isIdentStart = (c: string | undefined): boolean => c !== undefined && /^[_a-zA-Z]$/.test(c);
const isIdentPart = (c: string | undefined): boolean => c !== undefined && /^[_a-zA-Z0-9]$/.test(c);
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';

const TWO_CHAR = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const ONE_CHAR = new Set(['<', '>', '[', ']', '{', '}', '(', ')', '.', ',', '-', '!', '?', ':', '+', '*', '/', '%']);

export function tokenize(chars: readonly string[]): { tokens: Token[]; errors: LexError[] } {
  const tokens: Token[] = [];
  const errors: LexError[] = [];
  let i = 0;
  const n = chars.length;
  const text = (a: number, b: number) => chars.slice(a, b).join('');

  while (i < n) {
    const c = chars[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === '/' && chars[i + 1] === '/') {
      while (i < n && chars[i] !== '\n') i++;
      continue;
    }
    const start = i;
    // string and bytes literals with their prefixes (r, b, rb, br in any case)
    {
      let j = i;
      let raw = false;
      let bytes = false;
      for (let k = 0; k < 2; k++) {
        const p = chars[j];
        if ((p === 'r' || p === 'R') && !raw) {
          raw = true;
          j++;
        } else if ((p === 'b' || p === 'B') && !bytes) {
          bytes = true;
          j++;
        } else break;
      }
      const q = chars[j];
      if (q === '"' || q === "'") {
        const res = lexString(chars, j, raw, bytes);
        if (res.error) {
          errors.push({ offset: start, message: `Syntax error: token recognition error at: '${text(start, res.end)}'` });
          i = res.end;
          continue;
        }
        const tok: Token = { kind: bytes ? 'BYTES' : 'STRING', text: text(start, res.end), offset: start };
        if (res.invalid) tok.invalid = res.invalid;
        else if (bytes) tok.bytes = res.bytes;
        else tok.str = res.str;
        tokens.push(tok);
        i = res.end;
        continue;
      }
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (isIdentPart(chars[j])) j++;
      const word = text(i, j);
      const kind: TokenKind = word === 'true' || word === 'false' || word === 'null' || word === 'in' ? word : 'IDENT';
      tokens.push({ kind, text: word, offset: start });
      i = j;
      continue;
    }
    if (c === '`') {
      let j = i + 1;
      while (j < n && chars[j] !== '`' && chars[j] !== '\n') j++;
      if (chars[j] !== '`') {
        errors.push({ offset: start, message: `Syntax error: token recognition error at: '${text(start, j)}'` });
        i = j;
        continue;
      }
      tokens.push({ kind: 'ESC_IDENT', text: text(i + 1, j), offset: start });
      i = j + 1;
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(chars[i + 1]))) {
      const r = lexNumber(chars, i);
      tokens.push({ kind: r.kind, text: text(i, r.end), offset: start });
      i = r.end;
      continue;
    }
    const two = c + (chars[i + 1] ?? '');
    if (TWO_CHAR.has(two)) {
      tokens.push({ kind: two as TokenKind, text: two, offset: start });
      i += 2;
      continue;
    }
    if (ONE_CHAR.has(c)) {
      tokens.push({ kind: c as TokenKind, text: c, offset: start });
      i++;
      continue;
    }
    // ANTLR consumed the characters of a partial multi-character token before failing ('|' of '||', '&' of '&&', '=')
    const partial = c === '|' || c === '&' || c === '=';
    const len = partial && i + 1 < n ? 2 : 1;
    errors.push({ offset: start, message: `Syntax error: token recognition error at: '${text(i, i + len)}'` });
    i += len;
  }
  tokens.push({ kind: 'EOF', text: '<EOF>', offset: n });
  return { tokens, errors };
}

function lexNumber(chars: readonly string[], i: number): { kind: 'INT' | 'UINT' | 'DOUBLE'; end: number } {
  let j = i;
  if (chars[j] === '0' && (chars[j + 1] === 'x' || chars[j + 1] === 'X') && isHex(chars[j + 2])) {
    j += 2;
    while (isHex(chars[j])) j++;
    if (chars[j] === 'u' || chars[j] === 'U') return { kind: 'UINT', end: j + 1 };
    return { kind: 'INT', end: j };
  }
  let isFloat = false;
  while (isDigit(chars[j])) j++;
  if (chars[j] === '.' && isDigit(chars[j + 1])) {
    isFloat = true;
    j++;
    while (isDigit(chars[j])) j++;
  }
  if (chars[j] === 'e' || chars[j] === 'E') {
    let k = j + 1;
    if (chars[k] === '+' || chars[k] === '-') k++;
    if (isDigit(chars[k])) {
      isFloat = true;
      j = k;
      while (isDigit(chars[j])) j++;
    }
  }
  if (!isFloat && (chars[j] === 'u' || chars[j] === 'U')) return { kind: 'UINT', end: j + 1 };
  return { kind: isFloat ? 'DOUBLE' : 'INT', end: j };
}

interface StringLex {
  end: number;
  error?: boolean;
  invalid?: string;
  str?: string;
  bytes?: Uint8Array;
}

/** Lexes a quoted literal starting at the quote; decodes escapes (cel-go's parser/unescape.go). */
function lexString(chars: readonly string[], q: number, raw: boolean, isBytes: boolean): StringLex {
  const quote = chars[q]!;
  const triple = chars[q + 1] === quote && chars[q + 2] === quote;
  let j = q + (triple ? 3 : 1);
  const bodyStart = j;
  const n = chars.length;
  for (;;) {
    if (j >= n) return { end: n, error: true };
    const c = chars[j]!;
    if (triple) {
      if (c === quote && chars[j + 1] === quote && chars[j + 2] === quote) break;
    } else {
      if (c === quote) break;
      if (c === '\n' || c === '\r') return { end: j + 1, error: true };
    }
    if (c === '\\' && j + 1 < n) {
      j += 2;
      continue;
    }
    j++;
  }
  const body = chars.slice(bodyStart, j);
  const end = j + (triple ? 3 : 1);
  const dec = raw ? { out: rawBytesOrString(body, isBytes) } : unescape(body, isBytes);
  if ('error' in dec) return { end, invalid: dec.error };
  if (isBytes) return { end, bytes: dec.out as Uint8Array };
  return { end, str: dec.out as string };
}

function rawBytesOrString(body: readonly string[], isBytes: boolean): string | Uint8Array {
  const s = body.join('');
  return isBytes ? new Uint8Array(Buffer.from(s, 'utf8')) : s;
}

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
  '`': 96,
  '?': 63,
};

function unescape(body: readonly string[], isBytes: boolean): { out: string | Uint8Array } | { error: string } {
  // strings collect code points; bytes collect raw bytes (\x and octal escapes are bytes, \u is UTF-8 encoded)
  const bytes: number[] = [];
  let str = '';
  const pushCodePoint = (cp: number) => {
    if (isBytes) bytes.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
    else str += String.fromCodePoint(cp);
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      if (isBytes) bytes.push(...Buffer.from(c, 'utf8'));
      else str += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return { error: 'unable to unescape string' };
    if (e in SIMPLE_ESCAPES) {
      const b = SIMPLE_ESCAPES[e]!;
      if (isBytes) bytes.push(b);
      else str += String.fromCharCode(b);
      continue;
    }
    if (e === 'x' || e === 'X' || e === 'u' || e === 'U') {
      const len = e === 'x' || e === 'X' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + len).join('');
      if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) return { error: 'unable to unescape string' };
      i += len;
      const v = parseInt(hex, 16);
      if (len === 2 && isBytes) {
        bytes.push(v);
        continue;
      }
      if (len === 2) {
        str += String.fromCodePoint(v);
        continue;
      }
      if (isBytes) return { error: 'unable to unescape string' };
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return { error: 'unable to unescape string' };
      pushCodePoint(v);
      continue;
    }
    if (e >= '0' && e <= '3') {
      const oct = body.slice(i, i + 3).join('');
      if (!/^[0-3][0-7][0-7]$/.test(oct)) return { error: 'unable to unescape string' };
      i += 2;
      const v = parseInt(oct, 8);
      if (isBytes) bytes.push(v);
      else str += String.fromCodePoint(v);
      continue;
    }
    return { error: 'unable to unescape string' };
  }
  return { out: isBytes ? new Uint8Array(bytes) : str };
}
