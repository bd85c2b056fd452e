// `<string>.format(<list>)` of cel-go's strings extension at version 1-3 (ext/formatting.go), the version
// Kubernetes enables (ext.StringsVersion(2)). %f and %e go through golang.org/x/text's en_US printer, so they
// group thousands and print "×10ⁿ" exponents; %e ignores the precision (cel-go builds "%<prec>e", a width).
import {
  CelDuration,
  CelError,
  CelMap,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  typeNameOf,
  type CelResult,
  type CelValue,
} from '../engine/values.js';
import {
  formatDurationSeconds,
  formatFixed,
  formatFixedLocalized,
  formatFloatG,
  formatRFC3339Nano,
  formatScientificLocalized,
  goQuote,
} from './go-text.js';
import { runeCount } from './cost.js';

class FormatError extends Error {}

const fail = (msg: string): never => {
  throw new FormatError(msg);
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** ConvertToType(StringType) of the scalar kinds %s accepts. */
function scalarToString(v: CelValue): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  if (typeof v === 'number') return formatFloatG(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof CelTimestamp) return formatRFC3339Nano(v);
  if (v instanceof CelDuration) return formatDurationSeconds(v);
  if (v instanceof CelTypeValue) return v.name;
  if (v instanceof Uint8Array) {
    try {
      return utf8.decode(v);
    } catch {
      return fail('could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string');
    }
  }
  return undefined;
}

/** FormatString: the %s clause. */
function formatString(v: CelValue): string {
  if (Array.isArray(v)) return formatList(v);
  if (v instanceof CelMap) return formatMap(v);
  if (v === null) return 'null';
  const s = scalarToString(v);
  if (s !== undefined) return s;
  return fail(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeNameOf(v)}`,
  );
}

function formatDecimal(v: CelValue): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  return fail(`decimal clause can only be used on integers, was given ${typeNameOf(v)}`);
}

/** clauseForType: how a list element or map value is printed inside %s. */
function formatMember(v: CelValue): string {
  if (typeof v === 'bigint' || v instanceof CelUint) return formatDecimal(v);
  if (typeof v === 'string' || v instanceof Uint8Array || typeof v === 'boolean' || v === null || v instanceof CelTypeValue) return formatString(v);
  if (v instanceof CelTimestamp) return `timestamp(${goQuote(formatRFC3339Nano(v))})`;
  if (v instanceof CelDuration) return `duration(${goQuote(formatDurationSeconds(v))})`;
  if (Array.isArray(v)) return formatList(v);
  if (v instanceof CelMap) return formatMap(v);
  // doubles avoid the localized printer so the output stays a CEL literal
  if (typeof v === 'number') return formatFixed(v, 6);
  return fail(`no formatting function for ${typeNameOf(v)}`);
}

/** quoteForCEL */
function quoteForCEL(v: CelValue, unquoted: string): string {
  if (typeof v === 'string') return goQuote(unquoted);
  if (v instanceof Uint8Array) return 'b' + goQuote(unquoted);
  if (typeof v === 'number' && !Number.isFinite(v)) return goQuote(unquoted);
  return unquoted;
}

function formatList(l: readonly CelValue[]): string {
  return '[' + l.map((m) => quoteForCEL(m, formatMember(m))).join(', ') + ']';
}

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

function formatMap(m: CelMap): string {
  const pairs: [string, string][] = [];
  for (const [k, v] of m.entries()) {
    let key: string;
    if (typeof k === 'string' || typeof k === 'boolean') key = formatString(k);
    else if (typeof k === 'bigint' || k instanceof CelUint) key = formatDecimal(k);
    else key = fail(`no formatting function for map key of type ${typeNameOf(k)}`);
    pairs.push([quoteForCEL(k, key), quoteForCEL(v, formatMember(v))]);
  }
  pairs.sort((a, b) => byteOrder(a[0], b[0]));
  return '{' + pairs.map(([k, v]) => `${k}:${v}`).join(', ') + '}';
}

/** The double a %f / %e clause formats: doubles, and the strings "NaN", "Infinity", "-Infinity". */
function floatArg(v: CelValue, clause: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return fail(`${clause} clause can only be used on doubles, was given ${typeNameOf(v)}`);
}

const utf8Hex = (bytes: Uint8Array, upper: boolean): string => {
  const h = Buffer.from(bytes).toString('hex');
  return upper ? h.toUpperCase() : h;
};

function formatInteger(v: CelValue, radix: number, what: () => string, upper = false): string {
  let s: string;
  if (typeof v === 'bigint') s = v.toString(radix);
  else if (v instanceof CelUint) s = v.value.toString(radix);
  else return fail(what());
  return upper ? s.toUpperCase() : s;
}

type Clause = (v: CelValue) => string;

function clauseFor(verb: string, precision: number | undefined): Clause {
  switch (verb) {
    case 's':
      return formatString;
    case 'd':
      return formatDecimal;
    case 'f':
      return (v) => formatFixedLocalized(floatArg(v, 'fixed-point'), precision ?? 6);
    case 'e':
      return (v) => {
        const out = formatScientificLocalized(floatArg(v, 'scientific'));
        // cel-go passes the precision as a width ("%6e"): pad on the left when the number is shorter
        const width = precision ?? 6;
        const n = runeCount(out);
        return n < width ? ' '.repeat(width - n) + out : out;
      };
    case 'b':
      return (v) => {
        if (typeof v === 'boolean') return v ? '1' : '0';
        return formatInteger(v, 2, () => `only integers and bools can be formatted as binary, was given ${typeNameOf(v)}`);
      };
    case 'x':
    case 'X': {
      const upper = verb === 'X';
      return (v) => {
        if (typeof v === 'string') return utf8Hex(Buffer.from(v, 'utf8'), upper);
        if (v instanceof Uint8Array) return utf8Hex(v, upper);
        return formatInteger(v, 16, () => `only integers, byte buffers, and strings can be formatted as hex, was given ${typeNameOf(v)}`, upper);
      };
    }
    case 'o':
      return (v) => formatInteger(v, 8, () => `octal clause can only be used on integers, was given ${typeNameOf(v)}`);
    default:
      throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

/** Parses the clause after a '%': an optional ".N" precision, then the verb. Returns the consumed length. */
function parseClause(rest: string): { read: number; clause: Clause } {
  let i = 0;
  let precision: number | undefined;
  if (rest[0] === '.') {
    i = 1;
    let digits = '';
    for (;;) {
      if (i >= rest.length) throw new FormatError('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
      const c = rest[i]!;
      if (c < '0' || c > '9') break;
      digits += c;
      i++;
    }
    if (digits === '') {
      throw new FormatError(
        'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
      );
    }
    precision = Number(digits);
  }
  const verb = String.fromCodePoint(rest.codePointAt(i)!);
  return { read: i + verb.length, clause: clauseFor(verb, precision) };
}

/** `<string>.format(<list>)`: the result, or the error kube-apiserver reports. */
export function stringFormat(format: string, args: readonly CelValue[]): CelResult {
  let out = '';
  let argIndex = 0;
  let i = 0;
  try {
    while (i < format.length) {
      const c = format[i]!;
      if (c !== '%') {
        out += c;
        i++;
        continue;
      }
      if (format[i + 1] === '%') {
        out += '%';
        i += 2;
        continue;
      }
      if (argIndex >= args.length) return new CelError(`index ${argIndex} out of range`);
      if (i + 1 >= format.length) return new CelError('unexpected end of string');
      const { read, clause } = parseClause(format.slice(i + 1));
      let formatted: string;
      try {
        formatted = clause(args[argIndex]!);
      } catch (e) {
        if (e instanceof FormatError) return new CelError(`error during formatting: ${e.message}`);
        throw e;
      }
      out += formatted;
      i += 1 + read;
      argIndex++;
    }
  } catch (e) {
    if (e instanceof FormatError) return new CelError(e.message);
    throw e;
  }
  return out;
}
