// kube's Regex library (staging/src/k8s.io/apiserver/pkg/cel/library/regex.go): `find` and `findAll` with Go's
// RE2 semantics (re2js is a port of the same engine, with Go's syntax-error messages). findAll follows Go's
// Regexp.FindAllString, which skips an empty match right after the previous match — not RE2J's Java-style loop.
import { RE2JS } from 're2js';
import { CelError, type CelResult, type CelValue } from '../engine/values.js';
import { T, type CallEstimate, type CallEstimateInput, type LibraryRegistration } from '../engine/functions.js';
import { REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, actualSize, addSize, byFactor, ceilFactor, multiplyCost, sizeOf } from './cost.js';

const cache = new Map<string, RE2JS | CelError>();

/** Compiles a pattern once; an invalid one is the error kube returns from find/findAll. */
export function compilePattern(pattern: string): RE2JS | CelError {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      re = new CelError(`Illegal regex: ${(e as Error).message}`);
    }
    if (cache.size >= 1000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

/** Regexp.FindString: the leftmost-first match, "" when there is none. */
export function find(s: string, pattern: string): CelResult {
  const re = compilePattern(pattern);
  if (re instanceof CelError) return re;
  const m = re.matcher(s);
  return m.find() ? (m.group() ?? '') : '';
}

/** Regexp.FindAllString(s, n): n < 0 for all matches. */
export function findAll(s: string, pattern: string, limit = -1n): CelResult {
  const re = compilePattern(pattern);
  if (re instanceof CelError) return re;
  const out: string[] = [];
  const n = limit < 0n ? Infinity : Number(limit);
  const m = re.matcher(s);
  let pos = 0;
  let prevMatchEnd = -1;
  while (out.length < n && pos <= s.length) {
    if (!m.find(pos)) break;
    const start = m.start();
    const end = m.end();
    let accept = true;
    if (end === pos) {
      // an empty match: never right after the previous match; step over one code point
      if (start === prevMatchEnd) accept = false;
      pos += pos < s.length && s.codePointAt(pos)! > 0xffff ? 2 : 1;
    } else {
      pos = end;
    }
    prevMatchEnd = end;
    if (accept) out.push(s.slice(start, end));
  }
  return out;
}

const findCost = {
  // (1 + len(str)) * 0.1 for the string, len(regex) * 0.25 as a guess at the regex's number of states
  cost: (args: readonly CelValue[]) =>
    ceilFactor(1 + actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR) * ceilFactor(actualSize(args[1]), REGEX_STRING_LENGTH_COST_FACTOR),
  estimate: (i: CallEstimateInput): CallEstimate => {
    const sz = sizeOf(i.receiver);
    const strCost = byFactor(addSize(sz, { min: 1, max: 1 }), STRING_TRAVERSAL_COST_FACTOR);
    const regexCost = byFactor(sizeOf(i.args[0]), REGEX_STRING_LENGTH_COST_FACTOR);
    return { cost: multiplyCost(strCost, regexCost), resultSize: { min: 0, max: sz.max } };
  },
};

const S = T.string;

export const regexLibrary: LibraryRegistration = {
  name: 'kubernetes.regex',
  // FindRegexOptimization / FindAllRegexOptimization: a constant pattern is compiled when the program is built
  regexArguments: [
    { function: 'find', regexIndex: 1 },
    { function: 'findAll', regexIndex: 1 },
  ],
  functions: [
    { id: 'string_find_string', name: 'find', receiver: S, args: [S], result: S, impl: (s, p) => find(s as string, p as string), ...findCost },
    {
      id: 'string_find_all_string',
      name: 'findAll',
      receiver: S,
      args: [S],
      result: T.list(S),
      impl: (s, p) => findAll(s as string, p as string),
      ...findCost,
    },
    {
      id: 'string_find_all_string_int',
      name: 'findAll',
      receiver: S,
      args: [S, T.int],
      result: T.list(S),
      impl: (s, p, n) => findAll(s as string, p as string, n as bigint),
      ...findCost,
    },
  ],
};
