// CEL's standard definitions (cel-spec langdef "Standard Definitions", cel-go's checker/decls + interpreter
// functions), plus the optional-types library and the internal helpers of macros. Overload ids are cel-go's
// (common/overloads), because cost rules and kube's cost estimator key on them.
import { RE2JS } from 're2js';
import type { LibraryRegistration, OverloadDecl } from './functions.js';
import { T, type CelType } from './types.js';
import {
  CelDuration,
  CelError,
  CelMap,
  CelOptional,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  ObjectValue,
  INT64_MAX,
  INT64_MIN,
  UINT64_MAX,
  celCompare,
  addLists,
  celEquals,
  formatDuration,
  formatTimestamp,
  isValidMapKey,
  typeNameOf,
  type CelResult,
  type CelValue,
} from './values.js';
import { MIN_TIMESTAMP_SECONDS, calendarFields, checkedDuration, checkedTimestamp, parseDuration, parseTimestamp, type CalendarFields } from './time.js';

const A = T.param('A');
const B = T.param('B');
const NANOS = 1_000_000_000n;

export const errOverflow = () => new CelError('integer overflow');
export const errUintOverflow = () => new CelError('unsigned integer overflow');
export const noSuchOverload = (fn?: string) => new CelError(fn ? `no such overload: ${fn}` : 'no such overload');

const int = (v: bigint): CelResult => (v > INT64_MAX || v < INT64_MIN ? errOverflow() : v);
const uint = (v: bigint): CelResult => (v > UINT64_MAX || v < 0n ? errUintOverflow() : new CelUint(v));
const u = (v: CelValue): bigint => (v as CelUint).value;

function ov(id: string, name: string, args: CelType[], result: CelType, impl: (...a: CelValue[]) => CelResult, receiver?: CelType): OverloadDecl {
  const d: OverloadDecl = { id, name, args, result, impl };
  if (receiver) d.receiver = receiver;
  return d;
}

function arithmetic(): OverloadDecl[] {
  const o: OverloadDecl[] = [];
  o.push(
    ov('add_int64', '_+_', [T.int, T.int], T.int, (a, b) => int((a as bigint) + (b as bigint))),
    ov('add_uint64', '_+_', [T.uint, T.uint], T.uint, (a, b) => uint(u(a) + u(b))),
    ov('add_double', '_+_', [T.double, T.double], T.double, (a, b) => (a as number) + (b as number)),
    ov('add_string', '_+_', [T.string, T.string], T.string, (a, b) => (a as string) + (b as string)),
    ov('add_bytes', '_+_', [T.bytes, T.bytes], T.bytes, (a, b) => concatBytes(a as Uint8Array, b as Uint8Array)),
    ov('add_list', '_+_', [T.list(A), T.list(A)], T.list(A), (a, b) => addLists(a as CelValue[], b as CelValue[])),
    ov('add_timestamp_duration', '_+_', [T.timestamp, T.duration], T.timestamp, (a, b) =>
      checkedTimestamp((a as CelTimestamp).nanos + (b as CelDuration).nanos),
    ),
    ov('add_duration_timestamp', '_+_', [T.duration, T.timestamp], T.timestamp, (a, b) =>
      checkedTimestamp((b as CelTimestamp).nanos + (a as CelDuration).nanos),
    ),
    ov('add_duration_duration', '_+_', [T.duration, T.duration], T.duration, (a, b) => checkedDuration((a as CelDuration).nanos + (b as CelDuration).nanos)),
    ov('subtract_int64', '_-_', [T.int, T.int], T.int, (a, b) => int((a as bigint) - (b as bigint))),
    ov('subtract_uint64', '_-_', [T.uint, T.uint], T.uint, (a, b) => uint(u(a) - u(b))),
    ov('subtract_double', '_-_', [T.double, T.double], T.double, (a, b) => (a as number) - (b as number)),
    ov('subtract_timestamp_timestamp', '_-_', [T.timestamp, T.timestamp], T.duration, (a, b) =>
      checkedDuration((a as CelTimestamp).nanos - (b as CelTimestamp).nanos),
    ),
    ov('subtract_timestamp_duration', '_-_', [T.timestamp, T.duration], T.timestamp, (a, b) =>
      checkedTimestamp((a as CelTimestamp).nanos - (b as CelDuration).nanos),
    ),
    ov('subtract_duration_duration', '_-_', [T.duration, T.duration], T.duration, (a, b) =>
      checkedDuration((a as CelDuration).nanos - (b as CelDuration).nanos),
    ),
    ov('multiply_int64', '_*_', [T.int, T.int], T.int, (a, b) => int((a as bigint) * (b as bigint))),
    ov('multiply_uint64', '_*_', [T.uint, T.uint], T.uint, (a, b) => uint(u(a) * u(b))),
    ov('multiply_double', '_*_', [T.double, T.double], T.double, (a, b) => (a as number) * (b as number)),
    ov('divide_int64', '_/_', [T.int, T.int], T.int, (a, b) => {
      if (b === 0n) return new CelError('division by zero');
      return int((a as bigint) / (b as bigint));
    }),
    ov('divide_uint64', '_/_', [T.uint, T.uint], T.uint, (a, b) => (u(b) === 0n ? new CelError('division by zero') : new CelUint(u(a) / u(b)))),
    ov('divide_double', '_/_', [T.double, T.double], T.double, (a, b) => (a as number) / (b as number)),
    ov('modulo_int64', '_%_', [T.int, T.int], T.int, (a, b) => {
      if (b === 0n) return new CelError('modulus by zero');
      return (a as bigint) % (b as bigint);
    }),
    ov('modulo_uint64', '_%_', [T.uint, T.uint], T.uint, (a, b) => (u(b) === 0n ? new CelError('modulus by zero') : new CelUint(u(a) % u(b)))),
    ov('negate_int64', '-_', [T.int], T.int, (a) => int(-(a as bigint))),
    ov('negate_double', '-_', [T.double], T.double, (a) => -(a as number)),
    ov('logical_not', '!_', [T.bool], T.bool, (a) => !a),
  );
  return o;
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const ORDERED: [string, CelType][] = [
  ['bool', T.bool],
  ['int64', T.int],
  ['uint64', T.uint],
  ['double', T.double],
  ['string', T.string],
  ['bytes', T.bytes],
  ['timestamp', T.timestamp],
  ['duration', T.duration],
];
const NUMERIC: [string, CelType][] = [
  ['int64', T.int],
  ['uint64', T.uint],
  ['double', T.double],
];

function comparisons(): OverloadDecl[] {
  const o: OverloadDecl[] = [];
  const ops: [string, string, (c: number) => boolean][] = [
    ['_<_', 'less', (c) => c < 0],
    ['_<=_', 'less_equals', (c) => c <= 0],
    ['_>_', 'greater', (c) => c > 0],
    ['_>=_', 'greater_equals', (c) => c >= 0],
  ];
  for (const [fn, prefix, test] of ops) {
    const impl = (a: CelValue, b: CelValue): CelResult => {
      const c = celCompare(a, b);
      // NaN compares false with everything
      return c === undefined ? (typeof a === 'number' || typeof b === 'number' ? false : noSuchOverload(fn)) : test(c);
    };
    for (const [name, t] of ORDERED) o.push(ov(`${prefix}_${name}`, fn, [t, t], T.bool, impl));
    // kube enables cross-type numeric comparisons (cel.CrossTypeNumericComparisons, Kubernetes 1.28+)
    for (const [n1, t1] of NUMERIC) for (const [n2, t2] of NUMERIC) if (n1 !== n2) o.push(ov(`${prefix}_${n1}_${n2}`, fn, [t1, t2], T.bool, impl));
  }
  o.push(
    ov('equals', '_==_', [A, A], T.bool, (a, b) => celEquals(a, b)),
    ov('not_equals', '_!=_', [A, A], T.bool, (a, b) => !celEquals(a, b)),
  );
  return o;
}

function collections(): OverloadDecl[] {
  const size = (v: CelValue): CelResult => {
    if (typeof v === 'string') return BigInt(codePointLength(v));
    if (v instanceof Uint8Array) return BigInt(v.length);
    if (Array.isArray(v)) return BigInt(v.length);
    if (v instanceof CelMap) return BigInt(v.size);
    return noSuchOverload('size');
  };
  return [
    ov('index_list', '_[_]', [T.list(A), T.int], A, (l, i) => indexList(l as CelValue[], i)),
    { ...ov('index_list_uint64', '_[_]', [T.list(A), T.uint], A, (l, i) => indexList(l as CelValue[], i)), runtimeOnly: true },
    { ...ov('index_list_double', '_[_]', [T.list(A), T.double], A, (l, i) => indexList(l as CelValue[], i)), runtimeOnly: true },
    ov('index_map', '_[_]', [T.map(A, B), A], B, (m, k) => indexMap(m as CelMap, k)),
    ov('in_list', '@in', [A, T.list(A)], T.bool, (v, l) => (l as CelValue[]).some((x) => celEquals(v, x))),
    ov('in_map', '@in', [A, T.map(A, B)], T.bool, (k, m) => (m as CelMap).has(k)),
    ov('size_string', 'size', [T.string], T.int, size),
    ov('size_bytes', 'size', [T.bytes], T.int, size),
    ov('size_list', 'size', [T.list(A)], T.int, size),
    ov('size_map', 'size', [T.map(A, B)], T.int, size),
    ov('string_size', 'size', [], T.int, size, T.string),
    ov('bytes_size', 'size', [], T.int, size, T.bytes),
    ov('list_size', 'size', [], T.int, size, T.list(A)),
    ov('map_size', 'size', [], T.int, size, T.map(A, B)),
  ];
}

/** A string without a high surrogate has as many code points as UTF-16 units (most strings: cost is paid per call). */
const HIGH_SURROGATE = /[\ud800-\udbff]/;

export function codePointLength(s: string): number {
  if (!HIGH_SURROGATE.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    n++;
  }
  return n;
}

export function indexList(l: readonly CelValue[], i: CelValue): CelResult {
  let idx: bigint;
  if (typeof i === 'bigint') idx = i;
  else if (i instanceof CelUint) idx = i.value;
  else if (typeof i === 'number' && Number.isInteger(i)) idx = BigInt(i);
  else if (typeof i === 'number') return new CelError(`unsupported index value ${i} in list`);
  else return noSuchOverload('_[_]');
  if (idx < 0n || idx >= BigInt(l.length)) return new CelError(`index out of bounds: ${idx}`);
  return l[Number(idx)] as CelValue;
}

export function indexMap(m: CelMap, k: CelValue): CelResult {
  const v = m.get(k);
  if (v === undefined) {
    if (!isValidMapKey(k) && typeof k !== 'number') return new CelError(`unsupported key type: ${typeNameOf(k)}`);
    return new CelError(`no such key: ${formatKey(k)}`);
  }
  return v;
}

function formatKey(k: CelValue): string {
  if (k instanceof CelUint) return k.value.toString();
  return String(k);
}

const regexCache = new Map<string, RE2JS | CelError>();
export function compileRegex(pattern: string): RE2JS | CelError {
  let r = regexCache.get(pattern);
  if (!r) {
    try {
      r = RE2JS.compile(pattern);
    } catch (e) {
      // RE2JS words its syntax errors as Go's regexp does ("error parsing regexp: …"), which cel-go returns as is
      r = new CelError((e as Error).message);
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, r);
  }
  return r;
}

function strings(): OverloadDecl[] {
  const matches = (s: CelValue, p: CelValue): CelResult => {
    const re = compileRegex(p as string);
    if (re instanceof CelError) return re;
    return re.matcher(s as string).find();
  };
  return [
    ov('contains_string', 'contains', [T.string], T.bool, (s, x) => (s as string).includes(x as string), T.string),
    // lastIndexOf from position 0 matches only at 0: the same answer as startsWith, in about half its time (V8 11)
    ov('starts_with_string', 'startsWith', [T.string], T.bool, (s, x) => (s as string).lastIndexOf(x as string, 0) === 0, T.string),
    ov('ends_with_string', 'endsWith', [T.string], T.bool, (s, x) => (s as string).endsWith(x as string), T.string),
    ov('matches', 'matches', [T.string, T.string], T.bool, matches),
    ov('matches_string', 'matches', [T.string], T.bool, matches, T.string),
  ];
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which cel-go's string(double) uses. */
export function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return '+Inf';
  if (d === -Infinity) return '-Inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const exp = d.toExponential(); // shortest round-trip digits: "1.2345e+2"
  const [mant, e] = exp.split('e') as [string, string];
  const x = Number(e);
  if (x < -4 || x >= 21) {
    const ee = Math.abs(x) < 10 ? `0${Math.abs(x)}` : `${Math.abs(x)}`;
    return `${mant}e${x < 0 ? '-' : '+'}${ee}`;
  }
  const digits = mant.replace('-', '').replace('.', '');
  const neg = d < 0 ? '-' : '';
  if (x < 0) return `${neg}0.${'0'.repeat(-x - 1)}${digits}`;
  if (digits.length <= x + 1) return neg + digits + '0'.repeat(x + 1 - digits.length);
  return `${neg}${digits.slice(0, x + 1)}.${digits.slice(x + 1)}`;
}

function parseIntStrict(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  return BigInt(s);
}

function doubleToInt(d: number): CelResult {
  if (!Number.isFinite(d) || d >= 9223372036854775807 || d <= -9223372036854775808) return new CelError('integer overflow: range error');
  return BigInt(Math.trunc(d));
}

function conversions(): OverloadDecl[] {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  return [
    ov('int64_to_int64', 'int', [T.int], T.int, (v) => v),
    ov('uint64_to_int64', 'int', [T.uint], T.int, (v) => (u(v) > INT64_MAX ? new CelError('integer overflow: range error') : u(v))),
    ov('double_to_int64', 'int', [T.double], T.int, (v) => doubleToInt(v as number)),
    ov('string_to_int64', 'int', [T.string], T.int, (v) => {
      const n = parseIntStrict(v as string);
      if (n === undefined) return new CelError(`type conversion error: cannot convert "${v}" to int`);
      return n > INT64_MAX || n < INT64_MIN ? new CelError('integer overflow: range error') : n;
    }),
    ov('timestamp_to_int64', 'int', [T.timestamp], T.int, (v) => {
      const n = (v as CelTimestamp).nanos;
      return n >= 0n ? n / NANOS : -((-n + NANOS - 1n) / NANOS);
    }),
    ov('uint64_to_uint64', 'uint', [T.uint], T.uint, (v) => v),
    ov('int64_to_uint64', 'uint', [T.int], T.uint, (v) => ((v as bigint) < 0n ? new CelError('unsigned integer overflow: range error') : new CelUint(v as bigint))),
    ov('double_to_uint64', 'uint', [T.double], T.uint, (v) => {
      const d = v as number;
      if (!Number.isFinite(d) || d < 0 || d >= 18446744073709551615) return new CelError('unsigned integer overflow: range error');
      return new CelUint(BigInt(Math.trunc(d)));
    }),
    ov('string_to_uint64', 'uint', [T.string], T.uint, (v) => {
      const s = v as string;
      if (!/^\d+$/.test(s)) return new CelError(`type conversion error: cannot convert "${s}" to uint`);
      const n = BigInt(s);
      return n > UINT64_MAX ? new CelError('unsigned integer overflow: range error') : new CelUint(n);
    }),
    ov('double_to_double', 'double', [T.double], T.double, (v) => v),
    ov('int64_to_double', 'double', [T.int], T.double, (v) => Number(v as bigint)),
    ov('uint64_to_double', 'double', [T.uint], T.double, (v) => Number(u(v))),
    ov('string_to_double', 'double', [T.string], T.double, (v) => {
      const s = (v as string).trim();
      if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
      if (/^nan$/i.test(s)) return NaN;
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return new CelError(`type conversion error: cannot convert "${v}" to double`);
      return Number(s);
    }),
    ov('string_to_string', 'string', [T.string], T.string, (v) => v),
    ov('int64_to_string', 'string', [T.int], T.string, (v) => (v as bigint).toString()),
    ov('uint64_to_string', 'string', [T.uint], T.string, (v) => u(v).toString()),
    ov('double_to_string', 'string', [T.double], T.string, (v) => formatDouble(v as number)),
    ov('bytes_to_string', 'string', [T.bytes], T.string, (v) => {
      try {
        return utf8.decode(v as Uint8Array);
      } catch {
        return new CelError('invalid UTF-8 in bytes, cannot convert to string');
      }
    }),
    ov('bool_to_string', 'string', [T.bool], T.string, (v) => String(v)),
    ov('timestamp_to_string', 'string', [T.timestamp], T.string, (v) => formatTimestamp(v as CelTimestamp)),
    ov('duration_to_string', 'string', [T.duration], T.string, (v) => formatDuration(v as CelDuration)),
    ov('bytes_to_bytes', 'bytes', [T.bytes], T.bytes, (v) => v),
    ov('string_to_bytes', 'bytes', [T.string], T.bytes, (v) => new Uint8Array(Buffer.from(v as string, 'utf8'))),
    ov('bool_to_bool', 'bool', [T.bool], T.bool, (v) => v),
    ov('string_to_bool', 'bool', [T.string], T.bool, (v) => {
      const s = v as string;
      if (['1', 't', 'true', 'TRUE', 'True'].includes(s)) return true;
      if (['0', 'f', 'false', 'FALSE', 'False'].includes(s)) return false;
      return new CelError(`type conversion error: cannot convert "${s}" to bool`);
    }),
    ov('to_dyn', 'dyn', [A], T.dyn, (v) => v),
    ov('type', 'type', [A], T.type(A), (v) => new CelTypeValue(typeNameOf(v))),
    ov('string_to_timestamp', 'timestamp', [T.string], T.timestamp, (v) => parseTimestamp(v as string)),
    ov('int64_to_timestamp', 'timestamp', [T.int], T.timestamp, (v) => checkedTimestamp((v as bigint) * NANOS)),
    ov('timestamp_to_timestamp', 'timestamp', [T.timestamp], T.timestamp, (v) => v),
    ov('string_to_duration', 'duration', [T.string], T.duration, (v) => parseDuration(v as string)),
    ov('duration_to_duration', 'duration', [T.duration], T.duration, (v) => v),
    ov('int64_to_duration', 'duration', [T.int], T.duration, (v) => checkedDuration(v as bigint)),
  ];
}

function timeGetters(): OverloadDecl[] {
  const o: OverloadDecl[] = [];
  const getters: [string, string, (f: CalendarFields) => number][] = [
    ['getFullYear', 'timestamp_to_year', (f) => f.year],
    ['getMonth', 'timestamp_to_month', (f) => f.month - 1],
    ['getDayOfYear', 'timestamp_to_day_of_year', (f) => f.yearDay],
    ['getDayOfMonth', 'timestamp_to_day_of_month', (f) => f.day - 1],
    ['getDate', 'timestamp_to_day_of_month_1_based', (f) => f.day],
    ['getDayOfWeek', 'timestamp_to_day_of_week', (f) => f.weekday],
    ['getHours', 'timestamp_to_hours', (f) => f.hours],
    ['getMinutes', 'timestamp_to_minutes', (f) => f.minutes],
    ['getSeconds', 'timestamp_to_seconds', (f) => f.seconds],
    ['getMilliseconds', 'timestamp_to_milliseconds', (f) => f.millis],
  ];
  for (const [name, id, get] of getters) {
    o.push(
      ov(id, name, [], T.int, (t) => {
        const f = calendarFields(t as CelTimestamp);
        return f instanceof CelError ? f : BigInt(get(f));
      }, T.timestamp),
      ov(`${id}_with_tz`, name, [T.string], T.int, (t, z) => {
        const f = calendarFields(t as CelTimestamp, z as string);
        return f instanceof CelError ? f : BigInt(get(f));
      }, T.timestamp),
    );
  }
  const dur: [string, string, bigint][] = [
    ['getHours', 'duration_to_hours', 3600n * NANOS],
    ['getMinutes', 'duration_to_minutes', 60n * NANOS],
    ['getSeconds', 'duration_to_seconds', NANOS],
  ];
  for (const [name, id, div] of dur) o.push(ov(id, name, [], T.int, (d) => (d as CelDuration).nanos / div, T.duration));
  o.push(ov('duration_to_milliseconds', 'getMilliseconds', [], T.int, (d) => ((d as CelDuration).nanos % NANOS) / 1_000_000n, T.duration));
  return o;
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in nanoseconds since the Unix epoch. */
const GO_ZERO_TIME_NANOS = MIN_TIMESTAMP_SECONDS * NANOS;

/**
 * traits.Zeroer's IsZeroValue (optional.ofNonZeroValue): a timestamp is zero when it is Go's zero time.Time
 * (time.Time.IsZero), not the Unix epoch; a duration when it is 0; kube's mutation objects (dynamic.ObjectVal)
 * when they set no field. Values without IsZeroValue (optionals, types, library values) are never zero.
 */
export function isZeroValue(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (v instanceof CelUint) return v.value === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof CelMap) return v.size === 0;
  if (v instanceof CelTimestamp) return v.nanos === GO_ZERO_TIME_NANOS;
  if (v instanceof CelDuration) return v.nanos === 0n;
  if (v instanceof ObjectValue) return !v.lazyField && v.fields.size === 0;
  return false;
}

function optionals(): OverloadDecl[] {
  const OPT = T.optional(A);
  return [
    ov('optional_of', 'optional.of', [A], OPT, (v) => CelOptional.of(v)),
    ov('optional_ofNonZeroValue', 'optional.ofNonZeroValue', [A], OPT, (v) => (isZeroValue(v) ? CelOptional.none : CelOptional.of(v))),
    ov('optional_none', 'optional.none', [], OPT, () => CelOptional.none),
    ov('optional_hasValue', 'hasValue', [], T.bool, (o) => (o as CelOptional).hasValue(), OPT),
    ov('optional_value', 'value', [], A, (o) => {
      const opt = o as CelOptional;
      return opt.hasValue() ? opt.value : new CelError('optional.none() dereference');
    }, OPT),
    ov('optional_or_optional', 'or', [OPT], OPT, (a, b) => ((a as CelOptional).hasValue() ? a : b), OPT),
    ov('optional_orValue_value', 'orValue', [A], A, (a, b) => {
      const opt = a as CelOptional;
      return opt.hasValue() ? opt.value : b;
    }, OPT),
    // the select and index forms are evaluated by the interpreter (they need the field name and absence)
    ov('select_optional_field', '_?._', [T.dyn, T.string], T.optional(T.dyn), () => noSuchOverload('_?._')),
    ov('list_optindex_optional_int', '_[?_]', [T.list(A), T.int], OPT, (l, i) => {
      const r = indexList(l as CelValue[], i);
      return r instanceof CelError ? CelOptional.none : CelOptional.of(r);
    }),
    ov('optional_list_optindex_optional_int', '_[?_]', [T.optional(T.list(A)), T.int], OPT, (o, i) => {
      const opt = o as CelOptional;
      if (!opt.hasValue()) return CelOptional.none;
      const r = indexList(opt.value as CelValue[], i);
      return r instanceof CelError ? CelOptional.none : CelOptional.of(r);
    }),
    ov('map_optindex_optional_value', '_[?_]', [T.map(A, B), A], T.optional(B), (m, k) => {
      const v = (m as CelMap).get(k);
      return v === undefined ? CelOptional.none : CelOptional.of(v);
    }),
    ov('optional_map_optindex_optional_value', '_[?_]', [T.optional(T.map(A, B)), A], T.optional(B), (o, k) => {
      const opt = o as CelOptional;
      if (!opt.hasValue()) return CelOptional.none;
      const v = (opt.value as CelMap).get(k);
      return v === undefined ? CelOptional.none : CelOptional.of(v);
    }),
    ov('optional_list_index_int', '_[_]', [T.optional(T.list(A)), T.int], OPT, (o, i) => {
      const opt = o as CelOptional;
      if (!opt.hasValue()) return CelOptional.none;
      const r = indexList(opt.value as CelValue[], i);
      return r instanceof CelError ? CelOptional.none : CelOptional.of(r);
    }),
    ov('optional_map_index_value', '_[_]', [T.optional(T.map(A, B)), A], T.optional(B), (o, k) => {
      const opt = o as CelOptional;
      if (!opt.hasValue()) return CelOptional.none;
      const v = (opt.value as CelMap).get(k);
      return v === undefined ? CelOptional.none : CelOptional.of(v);
    }),
  ];
}

function internals(): OverloadDecl[] {
  return [
    // operators the interpreter evaluates itself (non-strict); declared for the checker
    ov('logical_and', '_&&_', [T.bool, T.bool], T.bool, (a, b) => (a as boolean) && (b as boolean)),
    ov('logical_or', '_||_', [T.bool, T.bool], T.bool, (a, b) => (a as boolean) || (b as boolean)),
    ov('conditional', '_?_:_', [T.bool, A, A], A, (c, a, b) => (c ? a : b)),
    ov('not_strictly_false', '@not_strictly_false', [T.bool], T.bool, (a) => a !== false),
    ov('cel_map_insert_key_value', 'cel.@mapInsert', [T.map(A, B), A, B], T.map(A, B), (m, k, v) => mapInsert(m as CelMap, k, v)),
    ov('cel_map_insert_map', 'cel.@mapInsert', [T.map(A, B), T.map(A, B)], T.map(A, B), (m, other) => {
      let out: CelResult = m;
      for (const [k, v] of (other as CelMap).entries()) {
        out = mapInsert(out as CelMap, k, v);
        if (out instanceof CelError) return out;
      }
      return out;
    }),
  ];
}

function mapInsert(m: CelMap, k: CelValue, v: CelValue): CelResult {
  if (m.has(k)) return new CelError(`insert failed: key ${formatKey(k)} already exists`);
  if (!isValidMapKey(k)) return new CelError(`unsupported key type: ${typeNameOf(k)}`);
  const out = new CelMap(m.entries());
  out.set(k, v);
  return out;
}

export const standardLibrary: LibraryRegistration = {
  name: 'cel.stdlib',
  types: [{ name: 'optional_type', params: 1 }],
  functions: [...arithmetic(), ...comparisons(), ...collections(), ...strings(), ...conversions(), ...timeGetters(), ...optionals(), ...internals()],
};

/** Functions the interpreter evaluates without evaluating all arguments first. */
export const NON_STRICT_FUNCTIONS = new Set(['_&&_', '_||_', '_?_:_', '@not_strictly_false', '_?._']);
