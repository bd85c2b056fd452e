import { evalError, evalValue, evaluateExpression } from './library-test-env.js';
import { evaluateInBaseEnvironment } from './library-test-env.js';
import { formatScientificLocalized } from './go-text.js';

// cel-go ext/strings_test.go (stringTests): each expression evaluates to true
const trueExpressions = [
  `'tacocat'.charAt(3) == 'o'`,
  `'tacocat'.charAt(7) == ''`,
  `'©αT'.charAt(0) == '©' && '©αT'.charAt(1) == 'α' && '©αT'.charAt(2) == 'T'`,
  `'tacocat'.indexOf('') == 0`,
  `'tacocat'.indexOf('ac') == 1`,
  `'tacocat'.indexOf('none') == -1`,
  `'tacocat'.indexOf('', 3) == 3`,
  `'tacocat'.indexOf('a', 3) == 5`,
  `'tacocat'.indexOf('at', 3) == 5`,
  `'ta©o©αT'.indexOf('©') == 2`,
  `'ta©o©αT'.indexOf('©', 3) == 4`,
  `'ta©o©αT'.indexOf('©αT', 3) == 4`,
  `'ta©o©αT'.indexOf('©α', 5) == -1`,
  `'ijk'.indexOf('k') == 2`,
  `'hello wello'.indexOf('hello wello') == 0`,
  `'hello wello'.indexOf('ello', 6) == 7`,
  `'hello wello'.indexOf('elbo room!!') == -1`,
  `'hello wello'.indexOf('elbo room!!!') == -1`,
  `'tacocat'.lastIndexOf('') == 7`,
  `'tacocat'.lastIndexOf('at') == 5`,
  `'tacocat'.lastIndexOf('none') == -1`,
  // cel-spec string_ext last_index_of/empty_string: a substring longer than the string is absent, not an error
  `''.lastIndexOf('@@') == -1`,
  `'tacocat'.lastIndexOf('', 3) == 3`,
  `'tacocat'.lastIndexOf('a', 3) == 1`,
  `'ta©o©αT'.lastIndexOf('©') == 4`,
  `'ta©o©αT'.lastIndexOf('©', 3) == 2`,
  `'ta©o©αT'.lastIndexOf('©α', 4) == 4`,
  `'hello wello'.lastIndexOf('ello', 6) == 1`,
  `'hello wello'.lastIndexOf('low') == -1`,
  `'hello wello'.lastIndexOf('elbo room!!') == -1`,
  `'hello wello'.lastIndexOf('elbo room!!!') == -1`,
  `'hello wello'.lastIndexOf('hello wello') == 0`,
  `'bananananana'.lastIndexOf('nana', 8) == 8`,
  `'TacoCat'.lowerAscii() == 'tacocat'`,
  `'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'`,
  `'TacoCat'.upperAscii() == 'TACOCAT'`,
  `'TacoCÆt Xii'.upperAscii() == 'TACOCÆT XII'`,
  `"12 days 12 hours".replace("{0}", "2") == "12 days 12 hours"`,
  `"{0} days {0} hours".replace("{0}", "2") == "2 days 2 hours"`,
  `"{0} days {0} hours".replace("{0}", "2", 1).replace("{0}", "23") == "2 days 23 hours"`,
  `"1 ©αT taco".replace("αT", "o©α") == "1 ©o©α taco"`,
  `'hello hello'.replace('he', 'we', -1) == 'wello wello'`,
  `'hello hello'.replace('he', 'we', 0) == 'hello hello'`,
  `'abc'.replace('', '_') == '_a_b_c_'`,
  `"hello world".split(" ") == ["hello", "world"]`,
  `"hello world events!".split(" ", 0) == []`,
  `"hello world events!".split(" ", 1) == ["hello world events!"]`,
  `"hello world events!".split(" ", 2) == ["hello", "world events!"]`,
  `"o©o©o©o".split("©", -1) == ["o", "o", "o", "o"]`,
  `"a©c".split("") == ["a", "©", "c"]`,
  `"".split("") == []`,
  `"".split(",") == [""]`,
  `"tacocat".substring(4) == "cat"`,
  `"tacocat".substring(7) == ""`,
  `"tacocat".substring(0, 4) == "taco"`,
  `"tacocat".substring(4, 4) == ""`,
  `'ta©o©αT'.substring(2, 6) == "©o©α"`,
  `'ta©o©αT'.substring(7, 7) == ""`,
  `" \\f\\n\\r\\t\\vtext  ".trim() == "text"`,
  `"\\u0085\\u00a0\\u1680text".trim() == "text"`,
  `"text\\u2000\\u2001\\u2002\\u2003\\u2004\\u2004\\u2006\\u2007\\u2008\\u2009".trim() == "text"`,
  `"\\u200atext\\u2028\\u2029\\u202F\\u205F\\u3000".trim() == "text"`,
  `"\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff".trim() == "\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff"`,
  `['hello', 'mellow'].join() == 'hellomellow'`,
  `['hello', 'mellow'].join(' ') == 'hello mellow'`,
  `[].join() == ''`,
  `[].join('/') == ''`,
];

describe('strings extension (version 2)', () => {
  it.each(trueExpressions)('%s', (expr) => {
    expect(evalValue(expr)).toBe(true);
  });

  it.each([
    [`'tacocat'.charAt(30) == ''`, 'index out of range: 30'],
    [`'tacocat'.indexOf('a', 30) == -1`, 'index out of range: 30'],
    [`'tacocat'.lastIndexOf('a', -1) == -1`, 'index out of range: -1'],
    [`'tacocat'.lastIndexOf('a', 30) == -1`, 'index out of range: 30'],
    [`"tacocat".substring(40) == "cat"`, 'index out of range: 40'],
    [`"tacocat".substring(-1) == "cat"`, 'index out of range: -1'],
    [`"tacocat".substring(1, 50) == "cat"`, 'index out of range: 50'],
    [`"tacocat".substring(49, 50) == "cat"`, 'index out of range: 49'],
    [`"tacocat".substring(4, 3) == ""`, 'invalid substring range. start: 4, end: 3'],
    [`dyn(['a', 1]).join()`, 'join: invalid input: 1'],
  ])('%s fails with %j', (expr, msg) => {
    expect(evalError(expr)).toBe(msg);
  });

  it('quotes strings with CEL escapes only', () => {
    expect(evalValue(`strings.quote('single-quote with "double quote"')`)).toBe('"single-quote with \\"double quote\\""');
    expect(evalValue(`strings.quote("two escape sequences \\a\\n")`)).toBe('"two escape sequences \\a\\n"');
    expect(evalValue(`strings.quote("printable unicode😀")`)).toBe('"printable unicode😀"');
  });

  it('does not offer reverse, which is strings version 3', () => {
    expect(evaluateExpression(`'abc'.reverse()`).compileError).toMatch(/undeclared reference to 'reverse'|found no matching overload/);
  });
});

// cel-go ext/strings_test.go TestStringFormat, the version-1 formatter kube-apiserver runs (locale en_US)
describe('string.format', () => {
  const sci = formatScientificLocalized;
  it.each([
    [`"no substitution".format([])`, 'no substitution'],
    [`"str is %s and some more".format(["filler"])`, 'str is filler and some more'],
    [`"%% and also %%".format([])`, '% and also %'],
    [`"%%%s%%".format(["text"])`, '%text%'],
    [`"%s%%".format(["percent on the right"])`, 'percent on the right%'],
    [`"%%%s".format(["percent on the left"])`, '%percent on the left'],
    [`"%d %d %d, %s %s %s, %d %d %d, %s %s %s".format([1, 2, 3, "A", "B", "C", 4, 5, 6, "D", "E", "F"])`, '1 2 3, A B C, 4 5 6, D E F'],
    [`"%.3f".format([1.2345])`, '1.234'],
    [`"this is 5 in binary: %b".format([5])`, 'this is 5 in binary: 101'],
    [`"unsigned 64 in binary: %b".format([uint(64)])`, 'unsigned 64 in binary: 1000000'],
    [`"bit set from bool: %b".format([true])`, 'bit set from bool: 1'],
    [`"%o".format([11])`, '13'],
    [`"this is an unsigned octal: %o".format([uint(65535)])`, 'this is an unsigned octal: 177777'],
    [`"%x is 20 in hexadecimal".format([30])`, '1e is 20 in hexadecimal'],
    [`"%X is 20 in hexadecimal".format([30])`, '1E is 20 in hexadecimal'],
    [`"%X is 6000 in hexadecimal".format([uint(6000)])`, '1770 is 6000 in hexadecimal'],
    [`"%x".format(["Hello world!"])`, '48656c6c6f20776f726c6421'],
    [`"%X".format(["Hello world!"])`, '48656C6C6F20776F726C6421'],
    [`"%x".format([b"byte string"])`, '6279746520737472696e67'],
    [`"%X".format([b"byte string"])`, '6279746520737472696E67'],
    [`"%.6e".format([1052.032911275])`, '1.052033\u202f×\u202f10\u2070\u00b3'],
    [`"%f".format([2.71828])`, '2.718280'],
    [`"%e".format([2.71828])`, '2.718280\u202f\u00d7\u202f10\u2070\u2070'],
    [`"%f".format(["NaN"])`, 'NaN'],
    [`"%f".format(["Infinity"])`, '∞'],
    [`"%f".format(["-Infinity"])`, '-∞'],
    [`"%d".format([uint(64)])`, '64'],
    [`"null: %s".format([null])`, 'null: null'],
    [`"some bytes: %s".format([b"xyz"])`, 'some bytes: xyz'],
    [`"type is %s".format([type("test string")])`, 'type is string'],
    [`"%s".format([timestamp("2023-02-03T23:31:20+00:00")])`, '2023-02-03T23:31:20Z'],
    [`"%s".format([duration("1h45m47s")])`, '6347s'],
    [`"%s".format([["abc", 3.14, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]])`, '["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]'],
    [
      `"%s".format([{"key1": b"xyz", "key5": null, "key2": duration("2h"), "key4": true, "key3": 2.71828}])`,
      '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
    ],
    [`"map with multiple key types: %s".format([{1: "value1", uint(2): "value2", true: double("NaN")}])`, 'map with multiple key types: {1:"value1", 2:"value2", true:"NaN"}'],
    [`"true bool: %s, false bool: %s".format([true, false])`, 'true bool: true, false bool: false'],
    [`"dynIntStr: %s dynDoubleStr: %s".format([dyn(32), dyn(56.8)])`, 'dynIntStr: 32 dynDoubleStr: 56.8'],
    [`"dynamic double: %.3f".format([dyn(4.5)])`, 'dynamic double: 4.500'],
    [`"NaN: %f, infinity: %f".format([double("NaN"), double("Infinity")])`, 'NaN: NaN, infinity: ∞'],
    [`"dyntype list: %s".format([dyn([6, 4.2, "a string"])])`, 'dyntype list: [6, 4.200000, "a string"]'],
    [`"dyntype map: %s".format([dyn({"strKey": "x", true: 42, 6: duration("7m2s")})])`, 'dyntype map: {"strKey":"x", 6:duration("422s"), true:42}'],
    // the en_US printer groups thousands; %.0f rounds half to even like Go's strconv
    [`"%.2f".format([1234567.891])`, '1,234,567.89'],
    [`"%.0f".format([2.5])`, '2'],
    [`"%.0f".format([3.5001])`, '4'],
    [`"%e".format([0.000123])`, '1.230000\u202f×\u202f10⁻⁰⁴'],
    [`"%s".format([1e6])`, '1e+06'],
  ])('%s', (expr, want) => {
    expect(evalValue(expr)).toBe(want);
  });

  it.each([
    [`"%a".format([1])`, 'could not parse formatting clause: unrecognized formatting clause "a"'],
    [`"%d %d %d".format([0, 1])`, 'index 2 out of range'],
    [`"string is %b".format(["abc"])`, 'error during formatting: only integers and bools can be formatted as binary, was given string'],
    [`"%d".format([duration("30m2s")])`, 'error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration'],
    [`"octal: %o".format(["a string"])`, 'error during formatting: octal clause can only be used on integers, was given string'],
    [`"double is %x".format([0.5])`, 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double'],
    [`"double is %E".format([0.5])`, 'could not parse formatting clause: unrecognized formatting clause "E"'],
    [`"null: %d".format([null])`, 'error during formatting: decimal clause can only be used on integers, was given null_type'],
    [`"null: %e".format([null])`, 'error during formatting: scientific clause can only be used on doubles, was given null_type'],
    [`"null: %f".format([null])`, 'error during formatting: fixed-point clause can only be used on doubles, was given null_type'],
    [`"null: %x".format([null])`, 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type'],
    [`"null: %b".format([null])`, 'error during formatting: only integers and bools can be formatted as binary, was given null_type'],
    [`"null: %o".format([null])`, 'error during formatting: octal clause can only be used on integers, was given null_type'],
    [`"%s".format([optional.none()])`, 'error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type'],
    [`"%s".format([[1, optional.none()]])`, 'error during formatting: no formatting function for optional_type'],
  ])('%s fails with %j', (expr, msg) => {
    expect(evalError(expr)).toBe(msg);
  });

  it('formats scientific notation of exact values with half-even rounding', () => {
    expect(sci(0)).toBe('0.000000\u202f×\u202f10⁰⁰');
    expect(sci(-1e100)).toBe('-1.000000\u202f×\u202f10¹⁰⁰');
  });

  // cel-go ext/formatting.go (strings version < 4) prints %e through golang.org/x/text/message for en_US, passing
  // the clause's precision as a width ("%<prec>e"): six fraction digits always, left-padded to the width in runes
  // (x/text's Formatter.Render pads NaN and ∞ too, so the default width 6 shows on them)
  it('prints %e as x/text does: ∞ and NaN, the precision taken as a width', () => {
    expect(evalValue(`"%e".format([double("NaN")])`)).toBe('   NaN');
    expect(evalValue(`"%e".format(["Infinity"])`)).toBe('     ∞');
    expect(evalValue(`"%e".format([double("-Infinity")])`)).toBe('    -∞');
    expect(evalValue(`"%.1e".format([double("NaN")])`)).toBe('NaN');
    expect(evalValue(`"%.20e".format([2.71828])`)).toBe('     2.718280\u202f×\u202f10⁰⁰');
    expect(evalValue(`"%.0e".format([2.71828])`)).toBe('2.718280\u202f×\u202f10⁰⁰');
    expect(evalValue(`"%e".format([-0.0])`)).toBe('0.000000\u202f×\u202f10⁰⁰');
    expect(evalValue(`"%e".format([9.9999999])`)).toBe('1.000000\u202f×\u202f10⁰¹');
  });

  // kube's base environment validates homogeneous literals (cel.HomogeneousAggregateLiterals): format's argument
  // list is not exempt, so mixed arguments need dyn() there
  it('rejects a format argument list of mixed types in the base environment', () => {
    expect(evaluateInBaseEnvironment(`"%s is %d".format(["a", 1])`).compileError).toBe(
      `ERROR: <input>:1:25: expected type 'string' but found 'int'\n | "%s is %d".format(["a", 1])\n | ........................^`,
    );
    expect(evaluateInBaseEnvironment(`"%s is %d".format([dyn("a"), dyn(1)])`).value).toBe('a is 1');
  });

  it('prints timestamps in RFC 3339 with trailing zeros trimmed', () => {
    expect(evalValue(`"%s".format([timestamp("2023-02-03T23:31:20.120Z")])`)).toBe('2023-02-03T23:31:20.12Z');
  });
});
