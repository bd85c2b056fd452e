// The value checks of the custom JSON decoders kube's types use, with their exact error texts:
// - resource.Quantity (k8s.io/apimachinery/pkg/api/resource/quantity.go ParseQuantity, suffix.go interpret);
// - metav1.Time (time.Parse with time.RFC3339, Go's time/format.go ParseError texts);
// - []byte (encoding/json decodes a string with base64.StdEncoding: "illegal base64 data at input byte N").
import { goQuote } from '../../options/go-strconv.js';

// ---- resource.Quantity -------------------------------------------------------------------------------------

const splitREString = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const quantityFormatWrong = `quantities must match the regular expression '${splitREString}'`;
export const quantitySuffixWrong = "unable to parse quantity's suffix";

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const decimalSuffixes = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E']);
const binarySuffixes = new Set(['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);

/** parseQuantityString's suffix, or the format error; the number part is only scanned, as kube does. */
function quantitySuffix(str: string): string | undefined {
  let pos = 0;
  const end = str.length;
  if (str[0] === '-' || str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return '';
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return '';
  if (str[pos] === '.') {
    pos++;
    while (pos < end && isDigit(str[pos])) pos++;
    if (pos >= end) return '';
  }
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos >= end) return str.slice(suffixStart);
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  // a non-decimal after the suffix letters: not a valid exponent
  return pos >= end ? str.slice(suffixStart) : undefined;
}

/** suffixHandler.interpret: a decimal or binary SI suffix, or an exponent e/E followed by a 64-bit integer. */
function knownSuffix(s: string): boolean {
  if (decimalSuffixes.has(s) || binarySuffixes.has(s)) return true;
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) return /^[+-]?\d+$/.test(s.slice(1)) && Math.abs(Number(s.slice(1))) <= 9223372036854775807;
  return false;
}

/** resource.ParseQuantity's error for a string, undefined when it parses. */
export function quantityError(str: string): string | undefined {
  if (str.length === 0) return quantityFormatWrong;
  if (str === '0') return undefined;
  const suffix = quantitySuffix(str);
  if (suffix === undefined) return quantityFormatWrong;
  return knownSuffix(suffix) ? undefined : quantitySuffixWrong;
}

/**
 * Quantity.UnmarshalJSON's error for a JSON value given by its text: null is the zero quantity, a string is parsed
 * without its quotes, anything else as its JSON text (so 1.5 is a quantity and true is not).
 */
export function quantityJsonError(jsonText: string, str: string | undefined): string | undefined {
  if (jsonText === 'null') return undefined;
  return quantityError((str ?? jsonText).trim());
}

// ---- metav1.Time: time.Parse(time.RFC3339, s) -----------------------------------------------------------------

const rfc3339 = '2006-01-02T15:04:05Z07:00';

const parseError = (value: string, valueElem: string, layoutElem: string): string =>
  `parsing time ${goQuote(value)} as ${goQuote(rfc3339)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`;
const rangeError = (value: string, what: string): string => `parsing time ${goQuote(value)}: ${what} out of range`;

/** time's getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | undefined {
  if (!isDigit(s[0])) return undefined;
  if (!isDigit(s[1])) return fixed ? undefined : { n: Number(s[0]), rest: s.slice(1) };
  return { n: Number(s.slice(0, 2)), rest: s.slice(2) };
}

const daysIn = (month: number, year: number): number => {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** time.Parse(time.RFC3339, value)'s error text, undefined when it parses: Go's general layout parser, step by step. */
export function rfc3339Error(value: string): string | undefined {
  let rest = value;
  const literal = (prefix: string): boolean => {
    if (!rest.startsWith(prefix)) return false;
    rest = rest.slice(prefix.length);
    return true;
  };
  // 2006
  if (rest.length < 4 || !/^\d{4}/.test(rest)) return parseError(value, rest, '2006');
  const year = Number(rest.slice(0, 4));
  rest = rest.slice(4);
  const fields: Array<{ prefix: string; layout: string; fixed: boolean; max: number; name: string }> = [
    { prefix: '-', layout: '01', fixed: true, max: 12, name: 'month' },
    { prefix: '-', layout: '02', fixed: true, max: 31, name: 'day' },
    { prefix: 'T', layout: '15', fixed: false, max: 23, name: 'hour' },
    { prefix: ':', layout: '04', fixed: true, max: 59, name: 'minute' },
    { prefix: ':', layout: '05', fixed: true, max: 59, name: 'second' },
  ];
  const got: Record<string, number> = {};
  for (const f of fields) {
    if (!literal(f.prefix)) return parseError(value, rest, f.prefix);
    const hold = rest;
    const num = getnum(rest, f.fixed);
    if (!num) return parseError(value, hold, f.layout);
    rest = num.rest;
    // the day is checked against the month once everything is parsed
    if (f.name !== 'day' && (num.n > f.max || (f.name === 'month' && num.n === 0))) return rangeError(value, f.name);
    got[f.name] = num.n;
    // fractional seconds are accepted after the seconds even though the layout has none
    if (f.name === 'second' && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest[1])) {
      let n = 2;
      while (n < rest.length && isDigit(rest[n])) n++;
      rest = rest.slice(n);
    }
  }
  // Z07:00
  const hold = rest;
  if (rest[0] === 'Z') rest = rest.slice(1);
  else if (rest.length < 6 || rest[3] !== ':' || (rest[0] !== '+' && rest[0] !== '-') || !/^\d\d$/.test(rest.slice(1, 3)) || !/^\d\d$/.test(rest.slice(4, 6))) {
    return parseError(value, hold, 'Z07:00');
  } else {
    if (Number(rest.slice(1, 3)) > 24) return rangeError(value, 'time zone offset hour');
    if (Number(rest.slice(4, 6)) > 60) return rangeError(value, 'time zone offset minute');
    rest = rest.slice(6);
  }
  if (rest.length > 0) return `parsing time ${goQuote(value)}: extra text: ${goQuote(rest)}`;
  if (got['day']! < 1 || got['day']! > daysIn(got['month']!, year)) return rangeError(value, 'day');
  return undefined;
}

// ---- []byte: base64.StdEncoding.Decode ------------------------------------------------------------------------

const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const base64Value = new Int16Array(256).fill(-1);
for (let i = 0; i < base64Alphabet.length; i++) base64Value[base64Alphabet.charCodeAt(i)] = i;

/**
 * base64.StdEncoding.Decode's CorruptInputError for a string's UTF-8 bytes ("illegal base64 data at input byte N"),
 * undefined when it decodes. \r and \n are skipped anywhere; padding is required.
 */
export function base64Error(s: string): string | undefined {
  const src = Buffer.from(s, 'utf8');
  const corrupt = (at: number): string => `illegal base64 data at input byte ${at}`;
  const isNewline = (b: number | undefined): boolean => b === 0x0a || b === 0x0d;
  let si = 0;
  while (si < src.length) {
    // decodeQuantum
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return corrupt(si - j);
      }
      const c = src[si]!;
      si++;
      if (base64Value[c]! >= 0) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d) return corrupt(si - 1);
      // padding: '=' after two or three symbols ends the input
      if (j === 0 || j === 1) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== 0x3d) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) return corrupt(si);
      return undefined;
    }
  }
  return undefined;
}
