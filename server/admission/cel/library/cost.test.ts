import { T } from '../engine/types.js';
import { CelMap, CelUint, type CelValue } from '../engine/values.js';
import type { CallEstimateInput, OverloadDecl, SizeEstimate } from '../engine/functions.js';
import { evaluateExpression } from './library-test-env.js';
import { AUTHORIZER_TYPE, authorizerValue } from './authz.js';
import { kubernetesLibraries } from './index.js';

const ctx = {
  object: null,
  oldObject: null,
  request: {},
  authorizer: {
    check: () => ({ decision: 'allow' as const, reason: '' }),
    requestResource: { group: '', version: '', resource: '', subresource: '', namespace: '', name: '' },
  },
};
const vars = { authorizer: { value: authorizerValue(ctx), type: T.opaque(AUTHORIZER_TYPE) } };

const runtimeCost = (expr: string): number | undefined => {
  const r = evaluateExpression(expr, vars);
  if (r.compileError) throw new Error(r.compileError);
  return r.cost;
};
const estimate = (expr: string) => evaluateExpression(expr, vars).estimate;

const intList = '[1, 2, 3, 4, 5]';
const uintList = '[uint(1), uint(2), uint(3), uint(4), uint(5)]';
const doubleList = '[1.0, 2.0, 3.0, 4.0, 5.0]';
const boolList = '[false, true, false, true, false]';
const stringList = "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']";
const bytesList = "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')]";
const durationList = "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]";
const timestampList =
  "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), timestamp('2011-01-05T00:00:00.000+01:00')]";
const stringLiteral = "'01234567890123456789012345678901234567890123456789'";

// The runtime costs of kube's library/cost_test.go, through the engine's cost tracking.
describe('runtime costs match kube’s cost_test.go', () => {
  it.each([
    [intList + '.sum()', 15],
    [uintList + '.sum()', 20],
    [doubleList + '.sum()', 15],
    [durationList + '.sum()', 20],
    ...['.isSorted()', '.max()', '.min()'].flatMap((op): [string, number][] => [
      [intList + op, 15],
      [uintList + op, 20],
      [doubleList + op, 15],
      [boolList + op, 15],
      [stringList + op, 15],
      [bytesList + op, 25],
      [durationList + op, 20],
      [timestampList + op, 20],
    ]),
    ...['indexOf', 'lastIndexOf'].flatMap((fn): [string, number][] => [
      [`${intList}.${fn}(3)`, 15],
      [`${uintList}.${fn}(uint(3))`, 21],
      [`${doubleList}.${fn}(3.0)`, 15],
      [`${boolList}.${fn}(true)`, 15],
      [`${stringList}.${fn}('x')`, 15],
      [`${bytesList}.${fn}(bytes('x'))`, 26],
      [`${durationList}.${fn}(duration('3s'))`, 21],
      [`${timestampList}.${fn}(timestamp('2011-01-03T00:00:00.000+01:00'))`, 21],
      [`${stringLiteral}.${fn}('123')`, 5],
    ]),
    ...['.getScheme()', '.getHostname()', '.getHost()', '.getPort()', '.getEscapedPath()', '.getQuery()'].map((op): [string, number] => [
      `url('https:://kubernetes.io/')${op}`,
      4,
    ]),
    ["ip('192.168.0.1')", 2],
    ["ip('2001:db8:3333:4444:5555:6666:7777:8888')", 4],
    ...['.family()', '.isUnspecified()', '.isLoopback()', '.isLinkLocalMulticast()', '.isLinkLocalUnicast()', '.isGlobalUnicast()'].flatMap(
      (op): [string, number][] => [
        [`ip('192.168.0.1')${op}`, 3],
        [`ip('2001:db8:3333:4444:5555:6666:7777:8888')${op}`, 5],
      ],
    ),
    ["ip.isCanonical('192.168.0.1')", 3],
    ["ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8],
    ["ip.isCanonical('2001:db8::abcd')", 3],
    ["cidr('192.168.0.0/16')", 2],
    ["cidr('2001:db8::/32')", 2],
    ...['.ip()', '.prefixLength()', '.masked()'].flatMap((op): [string, number][] => [
      [`cidr('192.168.0.0/16')${op}`, 3],
      [`cidr('2001:db8::/32')${op}`, 3],
    ]),
    ["cidr('192.168.0.0/16').containsCIDR(cidr('192.0.0.0/30'))", 7],
    ["cidr('192.168.0.0/16').containsCIDR(cidr('192.168.0.0/16'))", 7],
    ["cidr('192.168.0.0/16').containsCIDR('192.0.0.0/30')", 7],
    ["cidr('192.168.0.0/16').containsCIDR('192.168.0.0/16')", 7],
    ["cidr('192.168.0.0/16').containsIP(ip('192.0.0.1'))", 4],
    ["cidr('192.168.0.0/16').containsIP(ip('192.169.0.1'))", 5],
    ["cidr('192.168.0.0/16').containsIP(ip('192.169.169.250'))", 5],
    ["cidr('192.168.0.0/16').containsIP('192.0.0.1')", 4],
    ["cidr('192.168.0.0/16').containsIP('192.169.0.1')", 5],
    ["cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/126'))", 7],
    ["cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/32'))", 7],
    ["cidr('2001:db8::/32').containsCIDR('2001:db8::/126')", 7],
    ["cidr('2001:db8::/32').containsCIDR('2001:db8::/32')", 7],
    ["cidr('2001:db8::/32').containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", 7],
    ["cidr('2001:db8::/32').containsIP(ip('2001:db8::1'))", 5],
    ["cidr('2001:db8::/32').containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", 7],
    ["cidr('2001:db8::/32').containsIP('2001:db8::1')", 5],
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3],
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9],
    ["'ABCDEFGHIJ abcdefghij'.upperAscii()", 3],
    ["'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", 9],
    ["strings.quote('ABCDEFGHIJ abcdefghij')", 3],
    ["strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", 9],
    ["'abc 123 def 123'.replace('123', '456')", 3],
    ["'abc 123 def 123'.replace('', 'x')", 3],
    ["'abc 123 def 123'.replace('123', '')", 3],
    ["'abc 123 def 123'.replace('123', '456', 1)", 3],
    ["'abc 123 def 123'.split(' ')", 3],
    ["'abc 123 def 123'.split(' ', 1)", 3],
    ["'abc 123 def 123'.substring(5)", 2],
    ["'abc 123 def 123'.substring(5, 8)", 2],
    ["'  abc 123 def 123  '.trim()", 2],
    ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 15],
    ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 13],
    ["'abc 123 def 123'.find('123')", 2],
    ["'abc 123 def 123'.findAll('123')", 2],
    ["'abc 123 def 123'.findAll('123', 1)", 2],
    ["authorizer.path('/healthz')", 2],
    ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')", 6],
    ["authorizer.path('/healthz').check('get').allowed()", 350003],
    ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()", 350007],
    ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').errored()", 350007],
    ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').error()", 350007],
    ['quantity("12Mi")', 1],
    ['isQuantity("20")', 1],
    ['isQuantity("20M")', 1],
    ['quantity("200M") == quantity("200M")', 3],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', 6],
    ['quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', 9],
    ['quantity("50M").isLessThan(quantity("50Mi"))', 3],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', 3],
    ['quantity("200M").compareTo(quantity("0.2G")) > 0', 4],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', 5],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', 5],
    ['quantity("50k").sub(20) == quantity("49980")', 4],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', 6],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', 7],
    ['quantity("50k").asInteger() > 0', 3],
    ['quantity("50").isInteger()', 2],
    ['quantity("50.703k").asApproximateFloat() > 0.0', 3],
    ['sets.contains([], [])', 21],
    ['sets.contains([1], [])', 21],
    ['sets.contains([1], [1])', 22],
    ['sets.contains([1], [1, 1])', 23],
    ['sets.contains([1, 1], [1])', 23],
    ['sets.contains([1, 2, 3, 4], [2, 3])', 29],
    ['sets.contains([1, 2.0, 3u], [1.0, 2u, 3])', 30],
    ['sets.contains([[1], [2, 3]], [[2, 3.0]])', 53],
    ['!sets.contains([1], [2])', 23],
    ['!sets.contains([1], [1, 2])', 24],
    ['sets.equivalent([], [])', 21],
    ['sets.equivalent([1], [1])', 23],
    ['sets.equivalent([1], [1, 1])', 25],
    ['sets.equivalent([1, 2, 3], [3u, 2.0, 1])', 39],
    ['sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])', 69],
    ['!sets.equivalent([1, 2], [2u, 2, 2.0])', 34],
    ['sets.intersects([1], [1])', 22],
    ['sets.intersects([1, 2], [2u, 2, 2.0])', 27],
    ['sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])', 65],
    ['!sets.intersects([], [])', 22],
    ['!sets.intersects([1], [1.1, 2u])', 24],
    // kube's TestValidationExpressions cost cases (without its constant folding of list literals)
    ["size('abc 123 def 123'.split(' ')) > 0", 5],
  ])('%s costs %d', (expr, cost) => {
    expect(runtimeCost(expr)).toBe(cost);
  });
});

const overload = (id: string): OverloadDecl => {
  for (const lib of kubernetesLibraries) for (const o of lib.functions ?? []) if (o.id === id) return o;
  throw new Error(`no overload ${id}`);
};
const fixed = (n: number): SizeEstimate => ({ min: n, max: n });
const est = (id: string, input: CallEstimateInput) => overload(id).estimate!(input).cost;

// The static estimates of kube's cost.go for the library calls, given the sizes the checker would pass in.
describe('static estimates follow cost.go', () => {
  it.each([
    ['string_lower_ascii', { receiver: fixed(21), args: [] }, { min: 3, max: 3 }],
    ['string_replace_string_string', { receiver: fixed(15), args: [fixed(3), fixed(3)] }, { min: 3, max: 3 }],
    ['string_split_string', { receiver: fixed(15), args: [fixed(1)] }, { min: 3, max: 3 }],
    ['string_substring_int', { receiver: fixed(15), args: [fixed(1)] }, { min: 2, max: 2 }],
    ['string_trim', { receiver: fixed(19), args: [] }, { min: 2, max: 2 }],
    ['string_find_string', { receiver: fixed(15), args: [fixed(3)] }, { min: 2, max: 2 }],
    ['string_find_all_string_int', { receiver: fixed(15), args: [fixed(3), fixed(1)] }, { min: 2, max: 2 }],
    ['strings_quote', { args: [fixed(21)] }, { min: 3, max: 3 }],
    ['string_index_of_string', { receiver: fixed(50), args: [fixed(3)] }, { min: 5, max: 5 }],
    ['list_int_sum_int', { receiver: fixed(5), args: [] }, { min: 5, max: 5 }],
    ['list_a_index_of_int', { receiver: fixed(5), args: [fixed(1)] }, { min: 5, max: 5 }],
    ['string_to_ip', { args: [fixed(11)] }, { min: 2, max: 2 }],
    ['ip_is_canonical', { args: [fixed(39)] }, { min: 8, max: 8 }],
    ['cidr_contains_cidr', { receiver: fixed(1), args: [fixed(1)] }, { min: 3, max: 7 }],
    ['cidr_contains_cidr_string', { receiver: fixed(1), args: [fixed(12)] }, { min: 5, max: 9 }],
    ['cidr_contains_ip_ip', { receiver: fixed(1), args: [fixed(1)] }, { min: 1, max: 4 }],
    ['cidr_contains_ip_string', { receiver: fixed(1), args: [fixed(11)] }, { min: 3, max: 6 }],
    ['string_to_url', { args: [fixed(22)] }, { min: 3, max: 3 }],
    ['url_get_hostname', { receiver: fixed(1), args: [] }, { min: 1, max: 1 }],
    ['string_to_quantity', { args: [fixed(4)] }, { min: 1, max: 1 }],
    ['quantity_add_int', { receiver: fixed(1), args: [fixed(1)] }, { min: 1, max: 1 }],
    ['list_sets_contains_list', { args: [fixed(4), fixed(2)] }, { min: 9, max: 9 }],
    ['list_sets_equivalent_list', { args: [fixed(3), fixed(3)] }, { min: 19, max: 19 }],
    ['resourcecheck_check', { receiver: fixed(1), args: [fixed(6)] }, { min: 350000, max: 350000 }],
    ['authorizer_path', { receiver: fixed(1), args: [fixed(8)] }, { min: 1, max: 1 }],
    ['authorizer_fieldselector', { receiver: fixed(1), args: [fixed(20)] }, { min: 512, max: 512 }],
    // 10 * ceil(ceil(10 * 0.1) * 32)
    ['format-validate', { receiver: fixed(1), args: [fixed(10)] }, { min: 32, max: 32 }],
    ['semver_major', { receiver: fixed(1), args: [] }, { min: 1, max: 1 }],
  ])('%s', (id, input, cost) => {
    expect(est(id, input as CallEstimateInput)).toEqual(cost);
  });

  it('sizes replace results as cost.go does (kube TestSize)', () => {
    const size = (target: SizeEstimate, args: SizeEstimate[]) => overload('string_replace_string_string').estimate!({ receiver: target, args }).resultSize;
    expect(size(fixed(3), [fixed(0), fixed(1)])).toEqual(fixed(7));
    expect(size(fixed(3), [fixed(1), fixed(0)])).toEqual({ min: 0, max: 3 });
    expect(size(fixed(4), [fixed(2), fixed(4)])).toEqual({ min: 4, max: 8 });
    expect(size(fixed(4), [{ min: 0, max: 1 }, { min: 0, max: 2 }])).toEqual({ min: 0, max: 14 });
    expect(size(fixed(4), [fixed(1), { min: 1, max: 2 }])).toEqual({ min: 4, max: 8 });
    expect(size(fixed(4), [{ min: 1, max: 2 }, fixed(1)])).toEqual({ min: 2, max: 4 });
  });

  it('estimates through the engine for expressions without unknown sizes', () => {
    expect(estimate("ip('192.168.0.1').family()")).toEqual({ min: 3, max: 3 });
    expect(estimate("ip.isCanonical('2001:db8::abcd')")).toEqual({ min: 3, max: 3 });
    expect(estimate("cidr('192.168.0.0/16').containsCIDR(cidr('192.0.0.0/30'))")).toEqual({ min: 7, max: 11 });
    expect(estimate("'abc 123 def 123'.findAll('123', 1)")).toEqual({ min: 2, max: 2 });
    expect(estimate('quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0')).toEqual({ min: 6, max: 6 });
    expect(estimate("authorizer.path('/healthz').check('get').allowed()")).toEqual({ min: 350003, max: 350003 });
    expect(estimate('sets.contains([1, 2, 3, 4], [2, 3])')).toEqual({ min: 29, max: 29 });
  });
});

// A hook declared callCostOpaqueOnly is skipped by compiled programs when a call's first argument is not a library
// value; that is only right if the hook itself never prices such a call.
describe('callCost hooks that price library values only', () => {
  const nonOpaque: CelValue[] = ['a', '', 1n, new CelUint(1n), 1.5, true, null, new Uint8Array([1]), ['a'], new CelMap([['a', 1n]])];
  const opaqueOnly = kubernetesLibraries.filter((l) => l.callCostOpaqueOnly);

  it('are declared by the libraries that price == and != on their own types', () => {
    expect(opaqueOnly.map((l) => l.name).length).toBeGreaterThanOrEqual(7);
  });

  it.each(opaqueOnly.map((l) => [l.name, l] as const))('%s prices no call whose first argument is not a library value', (_name, lib) => {
    for (const fn of lib.callCostFunctions ?? ['_==_', '_!=_']) {
      for (const a of nonOpaque) {
        for (const b of nonOpaque) expect(lib.callCost!(fn, 'equals', [a, b], true)).toBeUndefined();
      }
    }
  });
});
