// resource.Quantity of k8s.io/apimachinery/pkg/api/resource (quantity.go, amount.go, suffix.go), as the CEL
// library sees it: ParseQuantity, Add, Sub, Cmp, Sign, AsInt64, AsApproximateFloat64 and String.
//
// The representation matters, not only the value: a Quantity is either an int64Amount (value × 10^scale, what
// parsing produces for up to 18 significant digits) or an inf.Dec (arbitrary precision). AsInt64 succeeds only for
// the former, so `quantity("1.5Gi").isInteger()` is false in kube-apiserver although 1.5Gi is a whole number.
import { CelOpaque } from '../engine/values.js';

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/** int64Amount: value × 10^scale, value within int64 */
interface IntAmount {
  readonly kind: 'int';
  readonly value: bigint;
  readonly scale: number;
}

/** inf.Dec: unscaled × 10^-scale */
interface DecAmount {
  readonly kind: 'dec';
  readonly unscaled: bigint;
  readonly scale: number;
}

type Amount = IntAmount | DecAmount;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const inInt64 = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;
const wrapInt64 = (v: bigint): bigint => BigInt.asIntN(64, v);

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ErrFormatWrong = `quantities must match the regular expression '${SPLIT_RE}'`;
export const ErrNumeric = "unable to parse quantity's numeric part";
export const ErrSuffix = "unable to parse quantity's suffix";

/** The value as an exact decimal: digits × 10^exp. */
function exact(a: Amount): { digits: bigint; exp: number } {
  return a.kind === 'int' ? { digits: a.value, exp: a.scale } : { digits: a.unscaled, exp: -a.scale };
}

function cmpExact(x: Amount, y: Amount): number {
  const a = exact(x);
  const b = exact(y);
  const e = Math.min(a.exp, b.exp);
  const av = a.digits * 10n ** BigInt(a.exp - e);
  const bv = b.digits * 10n ** BigInt(b.exp - e);
  return av < bv ? -1 : av > bv ? 1 : 0;
}

/** AsDec: an int64Amount as an inf.Dec. */
function asDec(a: Amount): DecAmount {
  return a.kind === 'dec' ? a : { kind: 'dec', unscaled: a.value, scale: -a.scale };
}

function decAdd(x: DecAmount, y: DecAmount): DecAmount {
  const scale = Math.max(x.scale, y.scale);
  const xs = x.unscaled * 10n ** BigInt(scale - x.scale);
  const ys = y.unscaled * 10n ** BigInt(scale - y.scale);
  return { kind: 'dec', unscaled: xs + ys, scale };
}

/** positiveScaleInt64: base × 10^scale if it fits int64. */
function positiveScaleInt64(base: bigint, scale: number): bigint | undefined {
  const v = base * 10n ** BigInt(scale);
  return inInt64(v) ? v : undefined;
}

/** int64Amount.Add: undefined when the sum does not fit, so the caller falls back to inf.Dec. */
function intAdd(a: IntAmount, b: IntAmount): IntAmount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  if (a.scale === b.scale) {
    const c = a.value + b.value;
    return inInt64(c) ? { kind: 'int', value: c, scale: a.scale } : undefined;
  }
  if (a.scale > b.scale) {
    const c = positiveScaleInt64(a.value, a.scale - b.scale);
    if (c === undefined || !inInt64(c + b.value)) return undefined;
    return { kind: 'int', value: c + b.value, scale: b.scale };
  }
  const c = positiveScaleInt64(b.value, b.scale - a.scale);
  if (c === undefined || !inInt64(a.value + c)) return undefined;
  return { kind: 'int', value: a.value + c, scale: a.scale };
}

// Go's math.Pow10, whose rounding AsApproximateFloat64 inherits.
const POW10 = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)]! * POW10[n % 32]!;
  if (n <= 0 && n >= -323) return POW10_NEG32[Math.floor(-n / 32)]! / POW10[-n % 32]!;
  return n > 0 ? Infinity : 0;
}

// suffix.go: the decimal SI, binary SI and exponent suffixes
const DEC_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIXES).map(([s, e]) => [e, s]));
const BIN_BY_EXP = new Map([['', 0], ...Object.entries(BIN_SUFFIXES)].map(([s, e]) => [e as number, s as string]));

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  if (Object.hasOwn(DEC_SUFFIXES, suffix)) return { base: 10, exponent: DEC_SUFFIXES[suffix]!, format: 'DecimalSI' };
  if (Object.hasOwn(BIN_SUFFIXES, suffix)) return { base: 2, exponent: BIN_SUFFIXES[suffix]!, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'E' || suffix[0] === 'e')) {
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const parsed = BigInt(rest);
    if (!inInt64(parsed)) return undefined;
    // int32(parsed): Go truncates the exponent to 32 bits
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

interface ParsedString {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString: a hand-written scan equivalent to the splitRE regular expression. */
function parseQuantityString(str: string): ParsedString | string {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  // strip leading zeros; all zeros is the value 0
  for (;;) {
    if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[pos] !== '0') break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (num.length === 0) num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  for (i = pos; i < end; i++) if (!isDigit(str[i])) return ErrFormatWrong;
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** inf.Dec.SetString of the numeric part ("-1.5", "12.", ".5"). */
function parseDec(value: string): DecAmount | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = m[3] ?? '';
  const unscaled = BigInt((m[1] === '-' ? '-' : '') + (m[2]! + frac || '0'));
  return { kind: 'dec', unscaled, scale: frac.length };
}

/** inf.Dec.Round(x, 9, inf.RoundUp) for a non-negative x: away from zero to nanos, rescaled to scale 9. */
function roundUpToNanos(d: DecAmount): DecAmount {
  if (d.scale <= 9) return { kind: 'dec', unscaled: d.unscaled * 10n ** BigInt(9 - d.scale), scale: 9 };
  const div = 10n ** BigInt(d.scale - 9);
  const q = d.unscaled / div;
  return { kind: 'dec', unscaled: d.unscaled % div === 0n ? q : q + 1n, scale: 9 };
}

export const QUANTITY_TYPE = 'kubernetes.Quantity';

export class Quantity extends CelOpaque {
  readonly typeName = QUANTITY_TYPE;

  private constructor(
    readonly amount: Amount,
    readonly format: QuantityFormat,
    /** the original string, kept when it already was in canonical form (Quantity.s) */
    private readonly cached?: string,
  ) {
    super();
  }

  /** resource.ParseQuantity: a Quantity, or the error message kube returns. */
  static parse(str: string): Quantity | string {
    if (str.length === 0) return ErrFormatWrong;
    if (str === '0') return new Quantity({ kind: 'int', value: 0n, scale: 0 }, 'DecimalSI', str);
    const p = parseQuantityString(str);
    if (typeof p === 'string') return p;
    const sfx = interpretSuffix(p.suffix);
    if (!sfx) return ErrSuffix;
    const { base, exponent } = sfx;
    let format = sfx.format;

    let precision: number;
    let scale = 0;
    let mantissa = 1n;
    if (format === 'BinarySI') {
      if (exponent >= 0 && p.denom.length === 0) {
        mantissa = 1n << BigInt(exponent);
        // 1Mi (2^20) has ~6 digits of decimal precision, so exponent*3/10 - 1 is roughly the precision
        precision = 15 - p.num.length - Math.trunc(Math.fround(Math.fround(Math.fround(exponent) * 3) / 10)) - 1;
      } else precision = -1;
    } else {
      scale = exponent;
      precision = 18 - (p.num.length + p.denom.length);
    }

    if (precision >= 0) {
      scale -= p.denom.length;
      if (scale >= -9) {
        const shifted = p.num + p.denom;
        const value = BigInt(shifted);
        if (!inInt64(value)) return ErrNumeric;
        const product = value * mantissa;
        if (inInt64(product)) {
          const result = p.positive ? product : -product;
          const amount: IntAmount = { kind: 'int', value: result, scale };
          // when the input is in canonical form, String() returns it unchanged
          const canonical =
            format === 'BinarySI'
              ? exponent % 10 === 0 && (value & 7n) !== 0n
              : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
          return new Quantity(amount, format, canonical ? str : undefined);
        }
      }
    }

    let amount = parseDec(p.value);
    if (!amount) return ErrNumeric;
    if (base === 10) amount = { kind: 'dec', unscaled: amount.unscaled, scale: amount.scale - exponent };
    else amount = { kind: 'dec', unscaled: amount.unscaled << BigInt(exponent), scale: amount.scale };
    const negative = amount.unscaled < 0n;
    if (negative) amount = { kind: 'dec', unscaled: -amount.unscaled, scale: amount.scale };
    // non-zero values round up to the smallest representable value (1n) rather than to zero
    if (amount.unscaled !== 0n) amount = roundUpToNanos(amount);
    const MAX: DecAmount = { kind: 'dec', unscaled: INT64_MAX, scale: 0 };
    if (format === 'BinarySI' && cmpExact(amount, MAX) > 0) amount = MAX;
    if (format === 'BinarySI' && cmpExact(amount, { kind: 'int', value: 1n, scale: 0 }) < 0 && amount.unscaled > 0n) format = 'DecimalSI';
    if (negative) amount = { kind: 'dec', unscaled: -amount.unscaled, scale: amount.scale };
    return new Quantity(amount, format);
  }

  /** resource.NewQuantity(v, DecimalExponent), what `add(int)` and `sub(int)` convert their argument with. */
  static fromInt64(v: bigint): Quantity {
    return new Quantity({ kind: 'int', value: v, scale: 0 }, 'DecimalExponent');
  }

  isZero(): boolean {
    return this.amount.kind === 'int' ? this.amount.value === 0n : this.amount.unscaled === 0n;
  }

  sign(): number {
    const v = this.amount.kind === 'int' ? this.amount.value : this.amount.unscaled;
    return v > 0n ? 1 : v < 0n ? -1 : 0;
  }

  cmp(other: Quantity): number {
    return cmpExact(this.amount, other.amount);
  }

  override equals(other: CelOpaque): boolean {
    return other instanceof Quantity && this.cmp(other) === 0;
  }

  add(y: Quantity): Quantity {
    let format = this.format;
    if (this.amount.kind === 'int' && y.amount.kind === 'int') {
      if (this.amount.value === 0n) format = y.format;
      const sum = intAdd(this.amount, y.amount);
      if (sum) return new Quantity(sum, format);
    } else if (this.isZero()) format = y.format;
    return new Quantity(decAdd(asDec(this.amount), asDec(y.amount)), format);
  }

  sub(y: Quantity): Quantity {
    const format = this.isZero() ? y.format : this.format;
    if (this.amount.kind === 'int' && y.amount.kind === 'int') {
      // int64Amount.Sub negates with Go's wrapping arithmetic
      const diff = intAdd(this.amount, { kind: 'int', value: wrapInt64(-y.amount.value), scale: y.amount.scale });
      if (diff) return new Quantity(diff, format);
    }
    const neg = asDec(y.amount);
    return new Quantity(decAdd(asDec(this.amount), { kind: 'dec', unscaled: -neg.unscaled, scale: neg.scale }), format);
  }

  /** AsInt64: only an int64Amount with a non-negative scale that fits. */
  asInt64(): bigint | undefined {
    const a = this.amount;
    if (a.kind === 'dec') return undefined;
    if (a.scale === 0) return a.value;
    if (a.scale < 0) return undefined;
    return positiveScaleInt64(a.value, a.scale);
  }

  asApproximateFloat64(): number {
    const a = this.amount;
    const base = Number(a.kind === 'int' ? a.value : a.unscaled);
    const exponent = a.kind === 'int' ? a.scale : -a.scale;
    if (exponent === 0) return base;
    return base * goPow10(exponent);
  }

  /** Quantity.String(): the canonical form (CanonicalizeBytes), or the original input when it already was. */
  override toString(): string {
    if (this.cached !== undefined) return this.cached;
    if (this.isZero()) return '0';
    let format = this.format;
    const { digits, exp } = exact(this.amount);
    if (format === 'BinarySI') {
      const abs = this.cmp(Quantity.fromInt64(-1024n)) > 0 && this.cmp(Quantity.fromInt64(1024n)) < 0;
      if (abs || (exp < 0 && digits % 10n ** BigInt(-exp) !== 0n)) format = 'DecimalSI';
    }
    if (format === 'BinarySI') {
      let value = exp >= 0 ? digits * 10n ** BigInt(exp) : digits / 10n ** BigInt(-exp);
      let e = 0;
      while (value !== 0n && value % 1024n === 0n) {
        value /= 1024n;
        e++;
      }
      return value.toString() + (BIN_BY_EXP.get(e * 10) ?? '');
    }
    // move the factors of 10 into the exponent, then make the exponent a multiple of 3
    let mant = digits;
    let e = exp;
    while (mant !== 0n && mant % 10n === 0n) {
      mant /= 10n;
      e++;
    }
    while (e % 3 !== 0) {
      mant *= 10n;
      e--;
    }
    if (format === 'DecimalExponent') return mant.toString() + (e === 0 ? '' : `e${e}`);
    return mant.toString() + (DEC_BY_EXP.get(e) ?? '');
  }

  override toJSON(): unknown {
    return this.toString();
  }
}
