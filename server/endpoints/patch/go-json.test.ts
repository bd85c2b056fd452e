import { decodeGoJson, goFormatV, goJsonSyntaxError, goTypeName } from './go-json.js';

const syntax = (s: string) => goJsonSyntaxError(Buffer.from(s, 'utf8'));

describe('encoding/json syntax errors', () => {
  it.each([
    ['{}', undefined],
    [' [1, 2.5e-3, -0, "a\\u00e9\\n", true, false, null, {"k": {}}] ', undefined],
    ['12', undefined],
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['"abc', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', 'invalid character \'"\' after object key:value pair'],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['trUe', "invalid character 'U' in literal true (expecting 'u')"],
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['fals', "invalid character ' ' in literal false (expecting 'e')"],
    ['-', "invalid character ' ' in numeric literal"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1e', "invalid character ' ' in exponent of numeric literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"a\u0001b"', "invalid character '\\x01' in string literal"],
    ['\ufeff{}', "invalid character 'ï' looking for beginning of value"],
  ])('%j → %j', (input, expected) => {
    expect(syntax(input)).toBe(expected);
  });

  it('decodes valid JSON and reports invalid JSON with Go’s message', () => {
    expect(decodeGoJson('{"a":[1]}')).toEqual({ ok: true, value: { a: [1] } });
    expect(decodeGoJson(Buffer.from('{"a":'))).toEqual({ ok: false, message: 'unexpected end of JSON input' });
  });
});

describe('fmt %v and reflect type names', () => {
  it.each<[unknown, string]>([
    [null, '<nil>'],
    ['s', 's'],
    [5, '5'],
    [1.5, '1.5'],
    [0.00001, '1e-05'],
    [1234567.5, '1.2345675e+06'],
    [true, 'true'],
    [['a', 1], '[a 1]'],
    [{ b: 1, a: { c: null } }, 'map[a:map[c:<nil>] b:1]'],
  ])('%j → %s', (value, expected) => {
    expect(goFormatV(value)).toBe(expected);
  });

  it.each<[unknown, string]>([
    [{}, 'map[string]interface {}'],
    [[], '[]interface {}'],
    ['', 'string'],
    [1, 'int64'],
    [1.5, 'float64'],
    [false, 'bool'],
    [null, '%!s(<nil>)'],
  ])('type of %j is %s', (value, expected) => {
    expect(goTypeName(value)).toBe(expected);
  });
});

describe("goJsonSyntaxError: Go's maxNestingDepth (encoding/json decode_test.go)", () => {
  it.each([
    ['array at max depth', '{"a":' + '['.repeat(10000 - 1) + ']'.repeat(10000 - 1) + '}', undefined],
    ['array over max depth', '{"a":' + '['.repeat(10000) + ']'.repeat(10000) + '}', "invalid character '[' exceeded max depth"],
    ['object at max depth', '{"a":' + '{"a":'.repeat(10000 - 1) + '0' + '}'.repeat(10000 - 1) + '}', undefined],
    ['object over max depth', '{"a":' + '{"a":'.repeat(10000) + '0' + '}'.repeat(10000) + '}', "invalid character '{' exceeded max depth"],
  ])('%s', (_name, text, want) => {
    expect(goJsonSyntaxError(Buffer.from(text))).toBe(want);
  });
});
