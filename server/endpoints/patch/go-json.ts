// What Go says about JSON, so that patch errors read as kube-apiserver's do: encoding/json's syntax errors
// ("invalid character 'x' looking for beginning of value", "unexpected end of JSON input"), its
// UnmarshalTypeError, and fmt's %v / reflect type names for the values strategic merge patch errors print.
// Decoded JSON follows kube's PreserveInts decoding: whole numbers are int64, the rest float64.

/** Go's json.Unmarshal kinds, as UnmarshalTypeError names them. */
export type GoJsonKind = 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';

type Step = (c: number) => number; // returns a scan code
const SCAN_CONTINUE = 0;
const SCAN_ERROR = 1;
const SCAN_END = 2;

type ParseState = 'objectKey' | 'objectValue' | 'arrayValue';

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

// strconv.Quote of a one-byte string, inside single quotes: encoding/json's quoteChar.
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const escapes: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 92: '\\\\' };
  if (escapes[c] !== undefined) return `'${escapes[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // A byte of a multi-byte UTF-8 sequence: Go converts the byte to the rune of the same number.
  if (c >= 0x80 && c < 0xa0) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  if (c === 0xa0 || c === 0xad) return `'\\u00${c.toString(16)}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** encoding/json scanner.go maxNestingDepth */
const goMaxNestingDepth = 10000;

/** encoding/json's scanner (checkValid): the syntax error message for the input, or undefined if it is valid JSON. */
export function goJsonSyntaxError(input: Uint8Array): string | undefined {
  const stack: ParseState[] = [];
  let err: string | undefined;
  let endTop = false;
  let step: Step;

  const error = (c: number, context: string): number => {
    step = () => SCAN_ERROR;
    err = `invalid character ${quoteChar(c)} ${context}`;
    return SCAN_ERROR;
  };

  const stateEndTop: Step = (c) => {
    if (!isSpace(c)) error(c, 'after top-level value');
    return SCAN_END;
  };
  const stateEndValue: Step = (c) => {
    const n = stack.length;
    if (n === 0) {
      step = stateEndTop;
      endTop = true;
      return stateEndTop(c);
    }
    if (isSpace(c)) {
      step = stateEndValue;
      return SCAN_CONTINUE;
    }
    switch (stack[n - 1]) {
      case 'objectKey':
        if (c === 0x3a) {
          stack[n - 1] = 'objectValue';
          step = stateBeginValue;
          return SCAN_CONTINUE;
        }
        return error(c, 'after object key');
      case 'objectValue':
        if (c === 0x2c) {
          stack[n - 1] = 'objectKey';
          step = stateBeginString;
          return SCAN_CONTINUE;
        }
        if (c === 0x7d) {
          stack.pop();
          step = stack.length === 0 ? ((endTop = true), stateEndTop) : stateEndValue;
          return SCAN_CONTINUE;
        }
        return error(c, 'after object key:value pair');
      case 'arrayValue':
      default:
        if (c === 0x2c) {
          step = stateBeginValue;
          return SCAN_CONTINUE;
        }
        if (c === 0x5d) {
          stack.pop();
          step = stack.length === 0 ? ((endTop = true), stateEndTop) : stateEndValue;
          return SCAN_CONTINUE;
        }
        return error(c, 'after array element');
    }
  };
  // scanner.pushParseState: Go's decoder refuses nesting beyond maxNestingDepth (this server's own, lower limit is
  // checked before any body reaches a decoder; see api/nesting-depth.ts).
  const pushParseState = (c: number, state: ParseState): number => {
    stack.push(state);
    return stack.length <= goMaxNestingDepth ? SCAN_CONTINUE : error(c, 'exceeded max depth');
  };
  const literal = (rest: string, name: string, next: Step): Step => {
    const states: Step[] = [];
    for (let i = 0; i < rest.length; i++) {
      const expect = rest.charCodeAt(i);
      states.push((c) => {
        if (c === expect) {
          step = i + 1 < rest.length ? states[i + 1]! : next;
          return SCAN_CONTINUE;
        }
        return error(c, `in literal ${name} (expecting '${rest[i]}')`);
      });
    }
    return states[0]!;
  };
  const stateInString: Step = (c) => {
    if (c === 0x22) {
      step = stateEndValue;
      return SCAN_CONTINUE;
    }
    if (c === 0x5c) {
      step = stateInStringEsc;
      return SCAN_CONTINUE;
    }
    if (c < 0x20) return error(c, 'in string literal');
    return SCAN_CONTINUE;
  };
  const hexStep = (remaining: number): Step => (c) => {
    if (!isHex(c)) return error(c, 'in \\u hexadecimal character escape');
    step = remaining === 1 ? stateInString : hexStep(remaining - 1);
    return SCAN_CONTINUE;
  };
  const stateInStringEsc: Step = (c) => {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c)) && c !== 0) {
      step = stateInString;
      return SCAN_CONTINUE;
    }
    if (c === 0x75) {
      step = hexStep(4);
      return SCAN_CONTINUE;
    }
    return error(c, 'in string escape code');
  };
  const stateE0: Step = (c) => {
    if (isDigit(c)) return SCAN_CONTINUE;
    return stateEndValue(c);
  };
  const stateESign: Step = (c) => {
    if (isDigit(c)) {
      step = stateE0;
      return SCAN_CONTINUE;
    }
    return error(c, 'in exponent of numeric literal');
  };
  const stateE: Step = (c) => {
    if (c === 0x2b || c === 0x2d) {
      step = stateESign;
      return SCAN_CONTINUE;
    }
    return stateESign(c);
  };
  const stateDot0: Step = (c) => {
    if (isDigit(c)) return SCAN_CONTINUE;
    if (c === 0x65 || c === 0x45) {
      step = stateE;
      return SCAN_CONTINUE;
    }
    return stateEndValue(c);
  };
  const stateDot: Step = (c) => {
    if (isDigit(c)) {
      step = stateDot0;
      return SCAN_CONTINUE;
    }
    return error(c, 'after decimal point in numeric literal');
  };
  const state0: Step = (c) => {
    if (c === 0x2e) {
      step = stateDot;
      return SCAN_CONTINUE;
    }
    if (c === 0x65 || c === 0x45) {
      step = stateE;
      return SCAN_CONTINUE;
    }
    return stateEndValue(c);
  };
  const state1: Step = (c) => {
    if (isDigit(c)) return SCAN_CONTINUE;
    return state0(c);
  };
  const stateNeg: Step = (c) => {
    if (c === 0x30) {
      step = state0;
      return SCAN_CONTINUE;
    }
    if (c >= 0x31 && c <= 0x39) {
      step = state1;
      return SCAN_CONTINUE;
    }
    return error(c, 'in numeric literal');
  };
  const stateBeginValue: Step = (c) => {
    if (isSpace(c)) return SCAN_CONTINUE;
    switch (c) {
      case 0x7b:
        step = stateBeginStringOrEmpty;
        return pushParseState(c, 'objectKey');
      case 0x5b:
        step = stateBeginValueOrEmpty;
        return pushParseState(c, 'arrayValue');
      case 0x22:
        step = stateInString;
        return SCAN_CONTINUE;
      case 0x2d:
        step = stateNeg;
        return SCAN_CONTINUE;
      case 0x30:
        step = state0;
        return SCAN_CONTINUE;
      case 0x74:
        step = literal('rue', 'true', stateEndValue);
        return SCAN_CONTINUE;
      case 0x66:
        step = literal('alse', 'false', stateEndValue);
        return SCAN_CONTINUE;
      case 0x6e:
        step = literal('ull', 'null', stateEndValue);
        return SCAN_CONTINUE;
    }
    if (c >= 0x31 && c <= 0x39) {
      step = state1;
      return SCAN_CONTINUE;
    }
    return error(c, 'looking for beginning of value');
  };
  const stateBeginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return SCAN_CONTINUE;
    if (c === 0x5d) return stateEndValue(c);
    return stateBeginValue(c);
  };
  const stateBeginString: Step = (c) => {
    if (isSpace(c)) return SCAN_CONTINUE;
    if (c === 0x22) {
      step = stateInString;
      return SCAN_CONTINUE;
    }
    return error(c, 'looking for beginning of object key string');
  };
  const stateBeginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return SCAN_CONTINUE;
    if (c === 0x7d) {
      stack[stack.length - 1] = 'objectValue';
      return stateEndValue(c);
    }
    return stateBeginString(c);
  };

  step = stateBeginValue;
  for (const c of input) {
    step(c);
    if (err !== undefined) return err;
  }
  // scanner.eof(): a pending number ends at EOF; anything else unfinished is an unexpected end.
  if (endTop) return undefined;
  step(0x20);
  if (err !== undefined) return err;
  if (endTop) return undefined;
  return 'unexpected end of JSON input';
}

export type GoJsonDecode = { ok: true; value: unknown } | { ok: false; message: string };

/** Parses JSON bytes, failing with Go's syntax error message where Go would fail. */
export function decodeGoJson(body: Uint8Array | string): GoJsonDecode {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) return { ok: false, message: syntax };
  return { ok: true, value: JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown };
}

/** The JSON kind Go's decoder reports for a value. */
export function goJsonKind(v: unknown): GoJsonKind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'null';
  }
}

/** json.UnmarshalTypeError.Error() for a top-level or element value. */
export function goUnmarshalTypeError(kind: GoJsonKind, goType: string): string {
  return `json: cannot unmarshal ${kind} into Go value of type ${goType}`;
}

/** json.UnmarshalTypeError.Error() for a struct field. */
export function goUnmarshalFieldTypeError(kind: GoJsonKind, struct: string, field: string, goType: string): string {
  return `json: cannot unmarshal ${kind} into Go struct field ${struct}.${field} of type ${goType}`;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses for float64.
function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  const [mant, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** fmt's %v of a decoded JSON value: maps with sorted keys, slices space-separated, nil as <nil>. */
export function goFormatV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormatV).join(' ')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormatV(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  return String(v);
}

/** Go's %T of a decoded JSON value (nil prints as <nil>), as in "invalid metadata of type <nil> in converted object". */
export function goDynamicTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'object':
      return 'map[string]interface {}';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    default:
      return '<nil>';
  }
}

/** reflect.TypeOf(v).String() for a decoded JSON value, as %s prints it (nil prints as %!s(<nil>)). */
export function goTypeName(v: unknown): string {
  const t = goDynamicTypeName(v);
  return t === '<nil>' ? '%!s(<nil>)' : t;
}
