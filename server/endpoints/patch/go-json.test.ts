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

// The webhook client parses a review response with JSON.parse first and asks goJsonSyntaxError only when that
// fails (server/admission/webhook/response-body.ts): sound only if every text JSON.parse accepts, Go's scanner
// accepts as well. Checked on a review body and on every one- and two-byte mutation of it drawn from JSON's
// structural characters, whitespace, a BOM, non-ASCII and control bytes.
describe('every body JSON.parse accepts, Go accepts', () => {
  const review = Buffer.from('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":true,"warnings":["é\\u2028"],"n":-1.5e3,"z":0,"b":[true,false,null]}}');
  const alphabet = ['{', '}', '[', ']', ':', ',', '"', '\\', ' ', '\t', '\n', '\r', '\f', '\v', '0', '-', '+', '.', 'e', 'E', 'u', 'n', 't', '\u00a0', '\ufeff', '\u2028', '\u0000', '\u001f', 'é'].map((c) => Buffer.from(c, 'utf8'));
  alphabet.push(Buffer.from([0xff]), Buffer.from([0xc3]));

  const agree = (body: Buffer): void => {
    let parses = true;
    try {
      JSON.parse(body.toString('utf8'));
    } catch {
      parses = false;
    }
    if (parses) expect([body.toString('utf8'), goJsonSyntaxError(body)]).toEqual([body.toString('utf8'), undefined]);
  };

  test('replacing, inserting or deleting one byte anywhere', () => {
    for (let i = 0; i <= review.length; i++) {
      agree(Buffer.concat([review.subarray(0, i), review.subarray(i + 1)]));
      for (const c of alphabet) {
        agree(Buffer.concat([review.subarray(0, i), c, review.subarray(i + 1)]));
        agree(Buffer.concat([review.subarray(0, i), c, review.subarray(i)]));
      }
    }
  });

  test('a leading and a trailing character', () => {
    for (const a of alphabet) for (const b of alphabet) agree(Buffer.concat([a, review, b]));
  });
});
