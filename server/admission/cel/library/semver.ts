// kube's Semver library (staging/src/k8s.io/apiserver/pkg/cel/library/semverlib.go) at version 1, the one
// kube-apiserver enables since 1.33: semver(), isSemver() (both with an optional `normalize` flag), major, minor,
// patch, compareTo, isGreaterThan, isLessThan. Parsing is blang/semver/v4's Parse, with its error messages.
import { CelError, CelOpaque, type CelValue } from '../engine/values.js';
import { T, type CallEstimateInput, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import { NOMINAL, STRING_TRAVERSAL_COST_FACTOR, byFactor, equalityCost, EQUALITY_COST_FUNCTIONS, sizeOf, stringTraversal } from './cost.js';
import { goQuote } from './go-text.js';

export const SEMVER_TYPE = 'kubernetes.Semver';

type PRVersion = { num: bigint } | { str: string };

export interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: PRVersion[];
  build: string[];
}

const UINT64_MAX = 2n ** 64n - 1n;
const onlyDigits = (s: string): boolean => /^[0-9]*$/.test(s);
const onlyAlphanum = (s: string): boolean => /^[0-9A-Za-z-]*$/.test(s);
const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s[0] === '0';

class SemverError extends Error {}

/** strconv.ParseUint(s, 10, 64) for a string of digits */
function parseUint(s: string): bigint {
  if (s === '') throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return v;
}

function parseNumber(s: string, what: string): bigint {
  if (!onlyDigits(s)) throw new SemverError(`Invalid character(s) found in ${what} number ${goQuote(s)}`);
  if (hasLeadingZeroes(s)) throw new SemverError(`${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${goQuote(s)}`);
  return parseUint(s);
}

function parsePR(s: string): PRVersion {
  if (s === '') throw new SemverError('Prerelease is empty');
  if (onlyDigits(s)) {
    if (hasLeadingZeroes(s)) throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}`);
    return { num: parseUint(s) };
  }
  if (onlyAlphanum(s)) return { str: s };
  throw new SemverError(`Invalid character(s) found in prerelease ${goQuote(s)}`);
}

/** semver.Parse */
export function parseSemver(s: string): Version | string {
  try {
    if (s.length === 0) throw new SemverError('Version string empty');
    const parts = splitN(s, '.', 3);
    if (parts.length !== 3) throw new SemverError('No Major.Minor.Patch elements found');
    const major = parseNumber(parts[0]!, 'major');
    const minor = parseNumber(parts[1]!, 'minor');
    let patchStr = parts[2]!;
    let build: string[] = [];
    let pre: string[] = [];
    const plus = patchStr.indexOf('+');
    if (plus !== -1) {
      build = patchStr.slice(plus + 1).split('.');
      patchStr = patchStr.slice(0, plus);
    }
    const dash = patchStr.indexOf('-');
    if (dash !== -1) {
      pre = patchStr.slice(dash + 1).split('.');
      patchStr = patchStr.slice(0, dash);
    }
    const patch = parseNumber(patchStr, 'patch');
    const prVersions = pre.map(parsePR);
    for (const b of build) {
      if (b === '') throw new SemverError('Build meta data is empty');
      if (!onlyAlphanum(b)) throw new SemverError(`Invalid character(s) found in build meta data ${goQuote(b)}`);
    }
    return { major, minor, patch, pre: prVersions, build };
  } catch (e) {
    if (e instanceof SemverError) return e.message;
    throw e;
  }
}

/** strings.SplitN */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** kube's normalizeAndParse: drop a "v", strip leading zeros, fill in a missing minor and patch. */
export function normalizeAndParse(s: string): Version | string {
  if (s.startsWith('v')) s = s.slice(1);
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    let t = p.replace(/^0+/, '');
    if (t.length === 0 || !'0123456789'.includes(t[0]!)) t = '0' + t;
    return t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) return 'short version cannot contain PreRelease/Build meta data';
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

function comparePR(a: PRVersion, b: PRVersion): number {
  if ('num' in a && 'num' in b) return cmp(a.num, b.num);
  if ('num' in a) return -1;
  if ('num' in b) return 1;
  return a.str < b.str ? -1 : a.str > b.str ? 1 : 0;
}

/** Version.Compare: build metadata is ignored; a prerelease sorts before its release. */
export function compareVersions(v: Version, o: Version): number {
  const c = cmp(v.major, o.major) || cmp(v.minor, o.minor) || cmp(v.patch, o.patch);
  if (c !== 0) return c;
  if (v.pre.length === 0 && o.pre.length === 0) return 0;
  if (v.pre.length === 0) return 1;
  if (o.pre.length === 0) return -1;
  let i = 0;
  for (; i < v.pre.length && i < o.pre.length; i++) {
    const r = comparePR(v.pre[i]!, o.pre[i]!);
    if (r !== 0) return r;
  }
  if (i === v.pre.length && i === o.pre.length) return 0;
  return i === v.pre.length ? -1 : 1;
}

export class SemverValue extends CelOpaque {
  readonly typeName = SEMVER_TYPE;
  constructor(readonly version: Version) {
    super();
  }
  override equals(other: CelOpaque): boolean {
    return other instanceof SemverValue && compareVersions(this.version, other.version) === 0;
  }
  override toString(): string {
    const v = this.version;
    let s = `${v.major}.${v.minor}.${v.patch}`;
    if (v.pre.length) s += '-' + v.pre.map((p) => ('num' in p ? p.num.toString() : p.str)).join('.');
    if (v.build.length) s += '+' + v.build.join('.');
    return s;
  }
  override toJSON(): unknown {
    return this.toString();
  }
}

const SV = T.opaque(SEMVER_TYPE);
const ver = (v: CelValue): Version => (v as SemverValue).version;

function toSemver(s: string, normalize: boolean): SemverValue | CelError {
  const v = normalize ? normalizeAndParse(s) : parseSemver(s);
  return typeof v === 'string' ? new CelError(v) : new SemverValue(v);
}

const parseCost = {
  cost: (args: readonly CelValue[]) => stringTraversal(args[0]!),
  estimate: (i: CallEstimateInput) => ({ cost: byFactor(sizeOf(i.args[0]), STRING_TRAVERSAL_COST_FACTOR) }),
};
const nominal = { cost: () => 1, estimate: () => NOMINAL };
/** Go's types.Int(uint64): values above int64 wrap */
const asInt = (v: bigint): bigint => BigInt.asIntN(64, v);

const overloads: OverloadDecl[] = [
  { id: 'string_to_semver', name: 'semver', args: [T.string], result: SV, impl: (s) => toSemver(s as string, false), ...parseCost },
  { id: 'string_bool_to_semver', name: 'semver', args: [T.string, T.bool], result: SV, impl: (s, n) => toSemver(s as string, n as boolean), ...parseCost },
  { id: 'is_semver_string', name: 'isSemver', args: [T.string], result: T.bool, impl: (s) => typeof parseSemver(s as string) !== 'string', ...parseCost },
  {
    id: 'is_semver_string_bool',
    name: 'isSemver',
    args: [T.string, T.bool],
    result: T.bool,
    impl: (s, n) => typeof (n ? normalizeAndParse(s as string) : parseSemver(s as string)) !== 'string',
    ...parseCost,
  },
  { id: 'semver_is_greater_than', name: 'isGreaterThan', receiver: SV, args: [SV], result: T.bool, impl: (a, b) => compareVersions(ver(a), ver(b)) === 1, ...nominal },
  { id: 'semver_is_less_than', name: 'isLessThan', receiver: SV, args: [SV], result: T.bool, impl: (a, b) => compareVersions(ver(a), ver(b)) === -1, ...nominal },
  { id: 'semver_compare_to', name: 'compareTo', receiver: SV, args: [SV], result: T.int, impl: (a, b) => BigInt(compareVersions(ver(a), ver(b))), ...nominal },
  { id: 'semver_major', name: 'major', receiver: SV, args: [], result: T.int, impl: (a) => asInt(ver(a).major), ...nominal },
  { id: 'semver_minor', name: 'minor', receiver: SV, args: [], result: T.int, impl: (a) => asInt(ver(a).minor), ...nominal },
  { id: 'semver_patch', name: 'patch', receiver: SV, args: [], result: T.int, impl: (a) => asInt(ver(a).patch), ...nominal },
];

export const semverLibrary: LibraryRegistration = {
  name: 'kubernetes.Semver',
  types: [{ name: SEMVER_TYPE }],
  functions: overloads,
  callCost: equalityCost((v) => v instanceof SemverValue),
  callCostFunctions: EQUALITY_COST_FUNCTIONS,
  callCostOpaqueOnly: true,
};
