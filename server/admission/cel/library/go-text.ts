// Go's text primitives the libraries' messages and results depend on: strconv.Quote, unicode.IsSpace,
// strconv.FormatFloat, time.RFC3339Nano, and the number forms golang.org/x/text/message prints for en_US (which
// cel-go's string.format uses for %f and %e). Kept exact so results compare equal to kube-apiserver's byte for byte.
import { CelDuration, CelTimestamp } from '../engine/values.js';

/** Splits a string into code points (Go ranges over runes). */
export const runes = (s: string): string[] => Array.from(s);

/** unicode.IsSpace: the Unicode White_Space property minus nothing, as strings.TrimSpace uses it. */
export function isGoSpace(cp: number): boolean {
  switch (cp) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return true;
  }
  return cp >= 0x2000 && cp <= 0x200a;
}

/** strings.TrimSpace. JS's String.prototype.trim differs (it trims U+FEFF, keeps U+0085). */
export function goTrimSpace(s: string): string {
  const cps = runes(s);
  let start = 0;
  let end = cps.length;
  while (start < end && isGoSpace(cps[start]!.codePointAt(0)!)) start++;
  while (end > start && isGoSpace(cps[end - 1]!.codePointAt(0)!)) end--;
  return cps.slice(start, end).join('');
}

/** Replaces lone surrogates (JS's stand-in for Go's invalid UTF-8) with U+FFFD, as Go's range over a string does. */
export function sanitizeUTF16(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

// strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** strconv.Quote: double-quoted, Go escapes, non-printable runes as \x, \u or \U. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of sanitizeUTF16(s)) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') {
      out += '\\' + ch;
      continue;
    }
    if (printable.test(ch)) {
      out += ch;
      continue;
    }
    switch (ch) {
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2);
    else if (cp < 0x10000) out += '\\u' + hex(cp, 4);
    else out += '\\U' + hex(cp, 8);
  }
  return out + '"';
}

/** The shortest round-trip digits of a finite non-zero double and its decimal exponent (d.ddd × 10^exp). */
function shortestDigits(x: number): { digits: string; exp: number } {
  const [mant, e] = Math.abs(x).toExponential().split('e') as [string, string];
  return { digits: mant.replace('.', ''), exp: Number(e) };
}

const goExponent = (e: number): string => (e < 0 ? '-' : '+') + String(Math.abs(e)).padStart(2, '0');

/** strconv.FormatFloat(x, 'g', -1, 64), what fmt's %g and cel-go's string(double) print. */
export function formatFloatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const neg = x < 0 ? '-' : '';
  const { digits, exp } = shortestDigits(x);
  // %e when the exponent is < -4 or >= the precision, which is 6 for the shortest form
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${neg}${m}e${goExponent(exp)}`;
  }
  return neg + fixedFromDigits(digits, exp);
}

/** strconv.FormatFloat(x, 'f', -1, 64): shortest digits, never an exponent. */
export function formatFloatFShortest(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, exp } = shortestDigits(x);
  return (x < 0 ? '-' : '') + fixedFromDigits(digits, exp);
}

function fixedFromDigits(digits: string, exp: number): string {
  if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return digits + '0'.repeat(exp + 1 - digits.length);
  return `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** A finite double as an exact fraction num / 2^shift. */
function exactFraction(x: number): { num: bigint; shift: bigint } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (biased === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = biased - 1075;
  }
  if (e >= 0) return { num: mant << BigInt(e), shift: 0n };
  return { num: mant, shift: BigInt(-e) };
}

/** round(num / den) with ties to even, as strconv rounds an exact decimal expansion. */
function divRoundHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) return q + 1n;
  return q;
}

/** The digits of |x| with exactly `prec` fraction digits, correctly rounded: fmt's %.Nf without the sign. */
function fixedDigits(x: number, prec: number): string {
  const { num, shift } = exactFraction(x);
  const scaled = divRoundHalfEven(num * 10n ** BigInt(prec), 1n << shift);
  let s = scaled.toString().padStart(prec + 1, '0');
  if (prec > 0) s = `${s.slice(0, s.length - prec)}.${s.slice(s.length - prec)}`;
  return s;
}

/** fmt.Sprintf("%.Nf", x). */
export function formatFixed(x: number, prec: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  return (x < 0 || Object.is(x, -0) ? '-' : '') + fixedDigits(x, prec);
}

const groupThousands = (int: string): string => int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** x/text/message's en_US %.Nf: grouped integer digits, ∞ for infinities. */
export function formatFixedLocalized(x: number, prec: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  const digits = fixedDigits(x, prec);
  const dot = digits.indexOf('.');
  const int = dot < 0 ? digits : digits.slice(0, dot);
  const frac = dot < 0 ? '' : digits.slice(dot);
  return (x < 0 ? '-' : '') + groupThousands(int) + frac;
}

const SUPERSCRIPT = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/**
 * x/text/message's en_US %e: six fraction digits and a superscript exponent of at least two digits,
 * "2.718280\u202f×\u202f10⁰⁰".
 */
export function formatScientificLocalized(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  const sign = x < 0 ? '-' : '';
  let mantissa: bigint;
  let exp = 0;
  if (x === 0) mantissa = 0n;
  else {
    const { num, shift } = exactFraction(x);
    const den = 1n << shift;
    exp = Math.floor(Math.log10(Math.abs(x)));
    // correct the float estimate of the exponent against the exact value
    const pow = (e: number): [bigint, bigint] => (e >= 0 ? [num, den * 10n ** BigInt(e)] : [num * 10n ** BigInt(-e), den]);
    for (;;) {
      const [n, d] = pow(exp);
      if (n < d) exp--;
      else if (n >= d * 10n) exp++;
      else break;
    }
    const [n, d] = pow(exp - 6);
    mantissa = divRoundHalfEven(n, d);
    if (mantissa >= 10_000_000n) {
      exp++;
      const [n2, d2] = pow(exp - 6);
      mantissa = divRoundHalfEven(n2, d2);
    }
  }
  const m = mantissa.toString().padStart(7, '0');
  const expDigits = String(Math.abs(exp)).padStart(2, '0');
  const sup = [...expDigits].map((c) => SUPERSCRIPT[Number(c)]).join('');
  return `${sign}${m[0]}.${m.slice(1)}\u202f×\u202f10${exp < 0 ? '⁻' : ''}${sup}`;
}

const NANOS = 1_000_000_000n;

/** time.Time.Format(time.RFC3339Nano) in UTC: fraction digits without trailing zeros. */
export function formatRFC3339Nano(t: CelTimestamp): string {
  let secs = t.nanos / NANOS;
  let frac = t.nanos % NANOS;
  if (frac < 0n) {
    frac += NANOS;
    secs -= 1n;
  }
  const days = Number(secs >= 0n ? secs / 86400n : -((-secs + 86399n) / 86400n));
  const sod = Number(secs - BigInt(days) * 86400n);
  const d = new Date(Date.UTC(1970, 0, 1) + days * 86_400_000);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(Math.floor(sod / 3600))}:${pad(Math.floor((sod % 3600) / 60))}:${pad(sod % 60)}`;
  const f = frac === 0n ? '' : '.' + frac.toString().padStart(9, '0').replace(/0+$/, '');
  return `${date}T${time}${f}Z`;
}

/** cel-go's string(duration): strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s". */
export function formatDurationSeconds(d: CelDuration): string {
  const sec = d.nanos / NANOS;
  const nsec = d.nanos % NANOS;
  return formatFloatFShortest(Number(sec) + Number(nsec) / 1e9) + 's';
}
