import {
  decodeListOptions,
  metricsDryRun,
  parseGoDuration,
  parseGoQuery,
  prettyPrint,
  requestTimeout,
  sliceToBool,
  sliceToInt64,
  sliceToOptionalBool,
  tableIncludeObject,
  validateListOptions,
  type ListOptions,
} from './query-options.js';

describe('Convert_Slice_string_To_bool (k8s.io/apimachinery/pkg/runtime conversion tests)', () => {
  // kube's TestStringMapConversion cases, then the case-insensitive "false" and "0" of conversion.go
  it.each<[string, string[] | undefined, boolean]>([
    ['parses boolean true', ['true'], true],
    ['parses boolean any value', ['foo'], true],
    ['parses boolean false', ['false'], false],
    ['parses boolean empty value', [''], true],
    ['parses boolean no value', [], false],
    ['absent', undefined, false],
    ['Python True', ['True'], true],
    ['yes', ['yes'], true],
    ['1', ['1'], true],
    ['0', ['0'], false],
    ['FALSE in any case', ['FaLsE'], false],
    ['only the first value counts', ['false', 'true'], false],
    ['only the first value counts (true first)', ['true', 'false'], true],
    [' false (not trimmed)', [' false'], true],
    ['00 is not 0', ['00'], true],
  ])('%s', (_name, values, want) => {
    expect(sliceToBool(values)).toBe(want);
  });

  it('Convert_Slice_string_To_Pointer_bool is nil when absent', () => {
    expect(sliceToOptionalBool(undefined)).toBeUndefined();
    expect(sliceToOptionalBool([])).toBeUndefined();
    expect(sliceToOptionalBool([''])).toBe(true);
    expect(sliceToOptionalBool(['False'])).toBe(false);
  });
});

describe('Convert_Slice_string_To_int64', () => {
  it.each<[string, string[] | undefined, number | undefined | string]>([
    ['parses int64', ['-1'], -1],
    ['returns error on bad int64', ['a'], 'strconv.ParseInt: parsing "a": invalid syntax'],
    ['empty value is an error', [''], 'strconv.ParseInt: parsing "": invalid syntax'],
    ['absent', undefined, undefined],
    ['first value', ['5', 'x'], 5],
    ['plus sign', ['+7'], 7],
    ['no base prefixes', ['0x10'], 'strconv.ParseInt: parsing "0x10": invalid syntax'],
    ['out of range', ['9223372036854775808'], 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['fraction', ['1.5'], 'strconv.ParseInt: parsing "1.5": invalid syntax'],
  ])('%s', (_name, values, want) => {
    const got = sliceToInt64(values);
    if (typeof want === 'string') expect(got).toEqual({ ok: false, error: want });
    else expect(got).toEqual({ ok: true, value: want });
  });
});

describe("Go's time.ParseDuration", () => {
  const s = 1_000_000_000n;
  it.each<[string, bigint]>([
    ['0', 0n],
    ['-0', 0n],
    ['5s', 5n * s],
    ['30s', 30n * s],
    ['1478s', 1478n * s],
    ['-5s', -5n * s],
    ['+5s', 5n * s],
    ['5.0s', 5n * s],
    ['5.6s', 5n * s + 600_000_000n],
    ['5.s', 5n * s],
    ['.5s', 500_000_000n],
    ['1.0s', s],
    ['1.004s', s + 4_000_000n],
    ['100.00100s', 100n * s + 1_000_000n],
    ['10ns', 10n],
    ['11us', 11_000n],
    ['12µs', 12_000n],
    ['12μs', 12_000n],
    ['13ms', 13_000_000n],
    ['14s', 14n * s],
    ['15m', 15n * 60n * s],
    ['16h', 16n * 3600n * s],
    ['3h30m', (3n * 3600n + 30n * 60n) * s],
    ['10.5s4m', 4n * 60n * s + 10n * s + 500_000_000n],
    ['-2m3.4s', -(2n * 60n * s + 3n * s + 400_000_000n)],
    ['1h2m3s4ms5us6ns', 3723004005006n],
    ['39h9m14.425s', 140954425000000n],
    ['52763797000ns', 52763797000n],
    ['0.3333333333333333333h', 1200000000000n],
    ['9007199254740993ns', 9007199254740993n],
    ['9223372036854775807ns', 9223372036854775807n],
    ['-9223372036854775808ns', -9223372036854775808n],
  ])('%s', (input, want) => {
    expect(parseGoDuration(input)).toEqual({ ok: true, value: want });
  });

  it.each<[string, string]>([
    ['', 'time: invalid duration ""'],
    ['3', 'time: missing unit in duration "3"'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.', 'time: invalid duration "."'],
    ['-.', 'time: invalid duration "-."'],
    ['.s', 'time: invalid duration ".s"'],
    ['+.s', 'time: invalid duration "+.s"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['10x', 'time: unknown unit "x" in duration "10x"'],
    ['\x85\x85', 'time: invalid duration "\\xc2\\x85\\xc2\\x85"'],
    ['\xffff', 'time: invalid duration "\\xc3\\xbfff"'],
    ['hello \xffff world', 'time: invalid duration "hello \\xc3\\xbfff world"'],
    ['9223372036854775810ns', 'time: invalid duration "9223372036854775810ns"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['-9223372036854775809ns', 'time: invalid duration "-9223372036854775809ns"'],
    ['9223372036854776us', 'time: invalid duration "9223372036854776us"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['1s"', 'time: unknown unit "s\\"" in duration "1s\\""'],
  ])('%j fails as Go does', (input, error) => {
    expect(parseGoDuration(input)).toEqual({ ok: false, error });
  });
});

describe('the timeout parameter (WithRequestDeadline)', () => {
  it.each<[string, bigint | undefined | string]>([
    ['', undefined],
    ['timeout=', undefined],
    ['timeout=10s', 10_000_000_000n],
    ['timeout=0s', 0n],
    ['timeout=foo', 'invalid timeout specified in the request URL - time: invalid duration "foo"'],
    ['timeout=10x', 'invalid timeout specified in the request URL - time: unknown unit "x" in duration "10x"'],
    ['timeout=1s&timeout=bad', 1_000_000_000n],
  ])('?%s', (query, want) => {
    const got = requestTimeout(parseGoQuery(query));
    if (typeof want === 'string') expect(got).toEqual({ ok: false, error: want });
    else expect(got).toEqual({ ok: true, value: want });
  });
});

describe("Go's url.ParseQuery", () => {
  it('keeps every value of a key in order, decodes + and escapes, and drops what Go drops', () => {
    expect(parseGoQuery('a=1&b=2&a=3')).toEqual({ a: ['1', '3'], b: ['2'] });
    expect(parseGoQuery('watch&x=')).toEqual({ watch: [''], x: [''] });
    expect(parseGoQuery('q=a+b%20c&%6Bey=v')).toEqual({ q: ['a b c'], key: ['v'] });
    // a pair with ";" or a bad escape is dropped, the rest kept
    expect(parseGoQuery('a=1;b=2&c=3&d=%zz&e=%4')).toEqual({ c: ['3'] });
    expect(parseGoQuery('&&a=1&')).toEqual({ a: ['1'] });
    expect(parseGoQuery('x[y]=1')).toEqual({ 'x[y]': ['1'] });
    expect(parseGoQuery('a==b')).toEqual({ a: ['=b'] });
  });
});

describe('Convert_url_Values_To_v1_ListOptions', () => {
  const list = (query: string) => decodeListOptions(parseGoQuery(query));
  it.each<[string, Partial<ListOptions>]>([
    ['watch=True', { watch: true }],
    ['watch=yes', { watch: true }],
    ['watch=', { watch: true }],
    ['watch', { watch: true }],
    ['watch=false', { watch: false }],
    ['watch=0', { watch: false }],
    ['watch=FALSE', { watch: false }],
    ['', { watch: false, limit: 0, resourceVersion: '' }],
    ['allowWatchBookmarks=True&watch=1', { watch: true, allowWatchBookmarks: true }],
    ['sendInitialEvents=', { sendInitialEvents: true }],
    ['sendInitialEvents=False', { sendInitialEvents: false }],
    ['limit=10&timeoutSeconds=-1', { limit: 10, timeoutSeconds: -1 }],
    ['labelSelector=a%3Db&labelSelector=c&fieldSelector=metadata.name%3Dx', { labelSelector: 'a=b', fieldSelector: 'metadata.name=x' }],
    ['resourceVersion=5&resourceVersionMatch=Exact&continue=abc', { resourceVersion: '5', resourceVersionMatch: 'Exact', continue: 'abc' }],
    ['unknown=1&pretty=x', { watch: false }],
  ])('?%s', (query, want) => {
    const got = list(query);
    expect(got.ok).toBe(true);
    if (got.ok) expect(got.value).toMatchObject(want);
  });

  it.each<[string, string]>([
    ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['limit=', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['timeoutSeconds=1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
  ])('?%s does not convert', (query, error) => {
    expect(list(query)).toEqual({ ok: false, error });
  });

  it('validates as ValidateListOptions', () => {
    const opts = (query: string): ListOptions => {
      const got = list(query);
      if (!got.ok) throw new Error(got.error);
      return got.value;
    };
    expect(validateListOptions(opts('resourceVersionMatch=Exact'))).toEqual([
      { type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided' },
    ]);
    expect(validateListOptions(opts('resourceVersion=0&resourceVersionMatch=Exact'))).toEqual([
      { type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' },
    ]);
    expect(validateListOptions(opts('resourceVersion=1&resourceVersionMatch=Bad'))).toEqual([
      { type: 'NotSupported', field: 'resourceVersionMatch', badValue: 'Bad', detail: 'supported values: "Exact", "NotOlderThan", ""' },
    ]);
    expect(validateListOptions(opts('sendInitialEvents=true'))).toEqual([{ type: 'Forbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for list' }]);
    expect(validateListOptions(opts('watch=1&sendInitialEvents=true'))).toEqual([
      { type: 'Forbidden', field: 'resourceVersionMatch', detail: 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' },
    ]);
    expect(validateListOptions(opts('watch=1&resourceVersionMatch=NotOlderThan'))).toEqual([
      { type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' },
    ]);
    expect(validateListOptions(opts('watch=1&sendInitialEvents=1&resourceVersionMatch=NotOlderThan'))).toEqual([]);
    expect(validateListOptions(opts('resourceVersion=1&resourceVersionMatch=NotOlderThan'))).toEqual([]);
  });
});

describe('TableOptions and pretty', () => {
  it('reads includeObject as optionsForTransform validates it', () => {
    expect(tableIncludeObject(parseGoQuery(''))).toEqual({ ok: true, value: 'Metadata' });
    expect(tableIncludeObject(parseGoQuery('includeObject='))).toEqual({ ok: true, value: 'Metadata' });
    expect(tableIncludeObject(parseGoQuery('includeObject=None'))).toEqual({ ok: true, value: 'None' });
    expect(tableIncludeObject(parseGoQuery('includeObject=Object&includeObject=None'))).toEqual({ ok: true, value: 'Object' });
    expect(tableIncludeObject(parseGoQuery('includeObject=object'))).toEqual({
      ok: false,
      error: `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`,
    });
  });

  // kube's TestPrettyPrint cases (endpoints/apiserver_test.go)
  it('labels request metrics with dry_run as cleanDryRun does', () => {
    expect(metricsDryRun(parseGoQuery(''))).toBe('');
    expect(metricsDryRun(parseGoQuery('dryRun=All&dryRun=All'))).toBe('All');
    expect(metricsDryRun(parseGoQuery('dryRun=All&dryRun=foo'))).toBe('invalid');
    expect(metricsDryRun(parseGoQuery('dryRun='))).toBe('invalid');
  });

  it.each<[string, string | undefined, boolean]>([
    ['', undefined, false],
    ['', 'kubectl', false],
    ['pretty=0', undefined, false],
    ['', 'curl', true],
    ['', 'Mozilla/5.0', true],
    ['', 'Wget', true],
    ['pretty=1', undefined, true],
    ['pretty=true', undefined, true],
    ['pretty=yes', 'curl', false],
    ['pretty=', 'curl', true],
  ])('?%s with User-Agent %s', (query, ua, want) => {
    expect(prettyPrint(parseGoQuery(query), ua)).toBe(want);
  });
});
