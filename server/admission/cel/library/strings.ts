// cel-go's strings extension (ext/strings.go) at the version Kubernetes enables: ext.StringsVersion(2) since 1.29
// (staging/src/k8s.io/apiserver/pkg/cel/environment/base.go). Version 0: charAt, indexOf, lastIndexOf, lowerAscii,
// replace, split, substring, trim, upperAscii; version 1: format, strings.quote; version 2: join. `reverse` is
// version 3 and so not available in kube-apiserver. Indexes count code points, as cel-go does ([]rune).
//
// Costs are kube's library.CostEstimator rules (cost.go), which cover these functions by name; format and
// strings.quote fall through to cel-go's own rules (a traversal of the receiver / argument).
import { CelError, CelUint, type CelResult, type CelValue } from '../engine/values.js';
import { T, type CallEstimateInput, type CallEstimate, type LibraryRegistration, type OverloadDecl, type SizeEstimate } from '../engine/functions.js';
import {
  STRING_TRAVERSAL_COST_FACTOR,
  U64_MAX,
  actualSize,
  addSize,
  byFactor,
  ceilFactor,
  multiplySize,
  sizeOf,
  stringTraversal,
  traversalCost,
} from './cost.js';
import { formatFloatG, goTrimSpace, runes, sanitizeUTF16 } from './go-text.js';
import { stringFormat } from './string-format.js';

const outOfRange = (i: bigint): CelError => new CelError(`index out of range: ${i}`);

export function charAt(s: string, i: bigint): CelResult {
  const r = runes(s);
  if (i < 0n || i > BigInt(r.length)) return outOfRange(i);
  if (i === BigInt(r.length)) return '';
  return r[Number(i)]!;
}

function matchesAt(r: readonly string[], sub: readonly string[], at: number): boolean {
  for (let j = 0; j < sub.length; j++) if (r[at + j] !== sub[j]) return false;
  return true;
}

export function indexOf(s: string, sub: string, offset = 0n): CelResult {
  if (sub === '') return offset;
  const r = runes(s);
  const sr = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) return outOfRange(offset);
  for (let i = Number(offset); i < r.length - (sr.length - 1); i++) if (matchesAt(r, sr, i)) return BigInt(i);
  return -1n;
}

export function lastIndexOf(s: string, sub: string, offset?: bigint): CelResult {
  const r = runes(s);
  if (offset === undefined) {
    if (sub === '') return BigInt(r.length);
    // cel-go's lastIndexOf compares Go byte lengths first: a longer substring is simply not there
    if (Buffer.byteLength(s, 'utf8') < Buffer.byteLength(sub, 'utf8')) return -1n;
    offset = BigInt(r.length - 1);
  }
  if (sub === '') return offset;
  const sr = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) return outOfRange(offset);
  let off = Number(offset);
  if (off > r.length - sr.length) off = r.length - sr.length;
  for (let i = off; i >= 0; i--) if (matchesAt(r, sr, i)) return BigInt(i);
  return -1n;
}

const mapAscii = (s: string, from: RegExp, f: (c: string) => string): string => s.replace(from, f);
export const lowerAscii = (s: string): string => mapAscii(s, /[A-Z]/g, (c) => c.toLowerCase());
export const upperAscii = (s: string): string => mapAscii(s, /[a-z]/g, (c) => c.toUpperCase());

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches before every code point and at the end. */
export function replace(s: string, old: string, repl: string, n = -1n): string {
  if (old === repl || n === 0n) return s;
  const positions: number[] = [];
  if (old === '') {
    for (let i = 0; i <= s.length; ) {
      positions.push(i);
      if (i === s.length) break;
      i += s.codePointAt(i)! > 0xffff ? 2 : 1;
    }
  } else {
    for (let i = s.indexOf(old); i >= 0; i = s.indexOf(old, i + old.length)) positions.push(i);
  }
  const count = n < 0n || BigInt(positions.length) < n ? positions.length : Number(n);
  let out = '';
  let start = 0;
  for (let k = 0; k < count; k++) {
    const j = positions[k]!;
    out += s.slice(start, j) + repl;
    start = j + old.length;
  }
  return out + s.slice(start);
}

/** Go's strings.SplitN (n < 0: all; n == 0: none; an empty separator splits into code points). */
export function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  if (sep === '') {
    const r = runes(s);
    const count = n < 0n || n > BigInt(r.length) ? r.length : Number(n);
    if (count === 0) return [];
    return [...r.slice(0, count - 1), r.slice(count - 1).join('')];
  }
  const out: string[] = [];
  let rest = s;
  const max = n < 0n ? Infinity : Number(n);
  while (out.length < max - 1) {
    const m = rest.indexOf(sep);
    if (m < 0) break;
    out.push(rest.slice(0, m));
    rest = rest.slice(m + sep.length);
  }
  out.push(rest);
  return out;
}

export function substring(s: string, start: bigint, end?: bigint): CelResult {
  const r = runes(s);
  const l = BigInt(r.length);
  if (end === undefined) {
    if (start < 0n || start > l) return outOfRange(start);
    return r.slice(Number(start)).join('');
  }
  if (start > end) return new CelError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > l) return outOfRange(start);
  if (end < 0n || end > l) return outOfRange(end);
  return r.slice(Number(start), Number(end)).join('');
}

/** strings.quote: CEL's escapes, invalid UTF-8 (lone surrogates here) as U+FFFD, nothing else escaped. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of sanitizeUTF16(s)) {
    switch (ch) {
      case '\x07':
        out += '\\a';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\v':
        out += '\\v';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += ch;
    }
  }
  return out + '"';
}

/** Go's %v of a scalar CEL value, for "join: invalid input: %v". */
function goValue(v: CelValue): string {
  if (typeof v === 'number') return formatFloatG(v);
  if (v instanceof CelUint) return v.value.toString();
  if (v === null) return 'NULL_VALUE';
  return String(v);
}

export function join(list: readonly CelValue[], sep = ''): CelResult {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!;
    if (typeof e !== 'string') return new CelError(`join: invalid input: ${goValue(e)}`);
    if (i > 0) out += sep;
    out += e;
  }
  return out;
}

// --- cost rules (cost.go) --------------------------------------------------------------------------------------

/** lowerAscii, upperAscii, substring, trim: one traversal of the receiver; the result is at most as long. */
const traversalOfReceiver = {
  cost: (args: readonly CelValue[]) => stringTraversal(args[0]!),
  estimate: (i: CallEstimateInput): CallEstimate => {
    const sz = sizeOf(i.receiver);
    return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
  },
};

/** indexOf / lastIndexOf on strings share kube's list rule: traversalCost of the receiver (UTF-8 bytes). */
const searchCost = {
  cost: (args: readonly CelValue[]) => traversalCost(args[0]!),
  estimate: (i: CallEstimateInput): CallEstimate => ({ cost: byFactor(sizeOf(i.receiver), STRING_TRAVERSAL_COST_FACTOR) }),
};

/** cost.go's "replace" estimate: the worst-case result size from the sizes of the search and replacement. */
function estimateReplace(i: CallEstimateInput): CallEstimate {
  const sz = sizeOf(i.receiver);
  const toReplace = sizeOf(i.args[0]);
  const replaceWith = sizeOf(i.args[1]);
  const count = { min: 0, max: 0 };
  const retained = { min: 0, max: 0 };
  if (toReplace.min === 0) {
    count.max = sz.max < U64_MAX ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    retained.max = sz.max;
  } else {
    count.max = Math.ceil(sz.max / toReplace.min);
  }
  if (toReplace.max === 0) {
    count.min = sz.min < U64_MAX ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    retained.min = sz.min;
  } else {
    count.min = Math.ceil(sz.min / toReplace.max);
  }
  return { cost: byFactor(sz, 2 * STRING_TRAVERSAL_COST_FACTOR), resultSize: addSize(multiplySize(count, replaceWith), retained) };
}

const replaceCost = {
  cost: (args: readonly CelValue[]) => ceilFactor(actualSize(args[0]), 2 * STRING_TRAVERSAL_COST_FACTOR),
  estimate: estimateReplace,
};

// Without the literal value of the limit argument the worst case is one element per character.
const splitCost = {
  cost: replaceCost.cost,
  estimate: (i: CallEstimateInput): CallEstimate => {
    const sz = sizeOf(i.receiver);
    return { cost: byFactor(sz, 2 * STRING_TRAVERSAL_COST_FACTOR), resultSize: { min: 0, max: sz.max } };
  },
};

/** The size of the joined string: every element at its largest (unknown here) plus the separators. */
function estimateJoin(i: CallEstimateInput): CallEstimate {
  const list = sizeOf(i.receiver);
  // the element size comes from the list's element node; without a SizeEstimator kube knows nothing about it
  let sz: SizeEstimate = multiplySize(list, { min: 0, max: U64_MAX });
  if (i.args.length > 0) {
    const sep = sizeOf(i.args[0]);
    sz = addSize(sz, multiplySize(sep, { min: list.min > 0 ? list.min - 1 : 0, max: list.max > 0 ? list.max - 1 : 0 }));
  }
  return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
}

const joinCost = {
  cost: (_args: readonly CelValue[], result: CelResult) => ceilFactor(actualSize(result), 2 * STRING_TRAVERSAL_COST_FACTOR),
  estimate: estimateJoin,
};

/** cel-go's own rule for string_format and strings_quote (interpreter/runtimecost.go, checker/cost.go). */
const formatCost = {
  cost: (args: readonly CelValue[]) => stringTraversal(args[0]!),
  estimate: (i: CallEstimateInput): CallEstimate => ({ cost: byFactor(sizeOf(i.receiver ?? i.args[0]), STRING_TRAVERSAL_COST_FACTOR) }),
};

const S = T.string;
const I = T.int;

const str = (v: CelValue): string => v as string;
const int = (v: CelValue): bigint => v as bigint;

const overloads: OverloadDecl[] = [
  { id: 'string_char_at_int', name: 'charAt', receiver: S, args: [I], result: S, impl: (s, i) => charAt(str(s), int(i)) },
  { id: 'string_index_of_string', name: 'indexOf', receiver: S, args: [S], result: I, impl: (s, x) => indexOf(str(s), str(x)), ...searchCost },
  {
    id: 'string_index_of_string_int',
    name: 'indexOf',
    receiver: S,
    args: [S, I],
    result: I,
    impl: (s, x, o) => indexOf(str(s), str(x), int(o)),
    ...searchCost,
  },
  { id: 'string_last_index_of_string', name: 'lastIndexOf', receiver: S, args: [S], result: I, impl: (s, x) => lastIndexOf(str(s), str(x)), ...searchCost },
  {
    id: 'string_last_index_of_string_int',
    name: 'lastIndexOf',
    receiver: S,
    args: [S, I],
    result: I,
    impl: (s, x, o) => lastIndexOf(str(s), str(x), int(o)),
    ...searchCost,
  },
  { id: 'string_lower_ascii', name: 'lowerAscii', receiver: S, args: [], result: S, impl: (s) => lowerAscii(str(s)), ...traversalOfReceiver },
  {
    id: 'string_replace_string_string',
    name: 'replace',
    receiver: S,
    args: [S, S],
    result: S,
    impl: (s, o, n) => replace(str(s), str(o), str(n)),
    ...replaceCost,
  },
  {
    id: 'string_replace_string_string_int',
    name: 'replace',
    receiver: S,
    args: [S, S, I],
    result: S,
    impl: (s, o, n, c) => replace(str(s), str(o), str(n), int(c)),
    ...replaceCost,
  },
  { id: 'string_split_string', name: 'split', receiver: S, args: [S], result: T.list(S), impl: (s, sep) => split(str(s), str(sep)), ...splitCost },
  {
    id: 'string_split_string_int',
    name: 'split',
    receiver: S,
    args: [S, I],
    result: T.list(S),
    impl: (s, sep, n) => split(str(s), str(sep), int(n)),
    ...splitCost,
  },
  { id: 'string_substring_int', name: 'substring', receiver: S, args: [I], result: S, impl: (s, a) => substring(str(s), int(a)), ...traversalOfReceiver },
  {
    id: 'string_substring_int_int',
    name: 'substring',
    receiver: S,
    args: [I, I],
    result: S,
    impl: (s, a, b) => substring(str(s), int(a), int(b)),
    ...traversalOfReceiver,
  },
  { id: 'string_trim', name: 'trim', receiver: S, args: [], result: S, impl: (s) => goTrimSpace(str(s)), ...traversalOfReceiver },
  { id: 'string_upper_ascii', name: 'upperAscii', receiver: S, args: [], result: S, impl: (s) => upperAscii(str(s)), ...traversalOfReceiver },
  // version 1
  {
    id: 'string_format',
    name: 'format',
    receiver: S,
    args: [T.list(T.dyn)],
    result: S,
    impl: (s, l) => stringFormat(str(s), l as readonly CelValue[]),
    ...formatCost,
  },
  { id: 'strings_quote', name: 'strings.quote', args: [S], result: S, impl: (s) => quote(str(s)), ...formatCost },
  // version 2
  { id: 'list_join', name: 'join', receiver: T.list(S), args: [], result: S, impl: (l) => join(l as readonly CelValue[]), ...joinCost },
  {
    id: 'list_join_string',
    name: 'join',
    receiver: T.list(S),
    args: [S],
    result: S,
    impl: (l, sep) => join(l as readonly CelValue[], str(sep)),
    ...joinCost,
  },
];

export const stringsLibrary: LibraryRegistration = {
  name: 'cel.lib.ext.strings',
  functions: overloads,
};
