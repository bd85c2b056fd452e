import { parseGoCsv, readFlagCsv } from './go-csv.js';
import { goQuote, parseGoBool, parseGoInt } from './go-strconv.js';
import { goPathErrorMessage } from './go-fs-errors.js';

describe('Go strconv', () => {
  it.each<[string, 0 | 10, 32 | 64, number | string]>([
    ['42', 0, 64, 42],
    ['-42', 0, 64, -42],
    ['+7', 0, 64, 7],
    ['0x1F', 0, 64, 31],
    ['0o17', 0, 64, 15],
    ['017', 0, 64, 15],
    ['0b101', 0, 64, 5],
    ['1_000', 0, 64, 1000],
    ['1__0', 0, 64, 'strconv.ParseInt: parsing "1__0": invalid syntax'],
    ['1_000', 10, 64, 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    ['08', 0, 64, 'strconv.ParseInt: parsing "08": invalid syntax'],
    ['0x', 0, 64, 'strconv.ParseInt: parsing "0x": invalid syntax'],
    ['2147483648', 10, 32, 'strconv.ParseInt: parsing "2147483648": value out of range'],
    ['-2147483648', 10, 32, -2147483648],
    [' 1', 10, 64, 'strconv.ParseInt: parsing " 1": invalid syntax'],
  ])('ParseInt(%j, %d, %d)', (s, base, bits, expected) => {
    const r = parseGoInt(s, base, bits);
    expect(r.ok ? r.value : r.error).toEqual(expected);
  });

  it.each<[string, boolean | string]>([
    ['true', true],
    ['T', true],
    ['1', true],
    ['False', false],
    ['0', false],
    ['yes', 'strconv.ParseBool: parsing "yes": invalid syntax'],
    ['tRuE', 'strconv.ParseBool: parsing "tRuE": invalid syntax'],
  ])('ParseBool(%j)', (s, expected) => {
    const r = parseGoBool(s);
    expect(r.ok ? r.value : r.error).toEqual(expected);
  });

  it.each<[string, string]>([
    ['plain', '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['tab\there\n', '"tab\\there\\n"'],
    ['\x00\x7f', '"\\x00\\x7f"'],
    ['<a&b>', '"<a&b>"'],
    ['héllo', '"héllo"'],
    ['\u2028', '"\\u2028"'],
  ])('Quote(%j)', (s, expected) => {
    expect(goQuote(s)).toBe(expected);
  });
});

describe('Go encoding/csv', () => {
  it.each<[string, string, string[][]]>([
    ['simple rows', 'a,b,c\nd,e,f\n', [['a', 'b', 'c'], ['d', 'e', 'f']]],
    ['no final newline, CRLF, blank lines skipped', 'a,b\r\n\r\n\nc,d', [['a', 'b'], ['c', 'd']]],
    ['quoted field with comma and doubled quote', 'tok,"bob ""b""","g1,g2"\n', [['tok', 'bob "b"', 'g1,g2']]],
    ['quoted field across lines', '"a\nb",c\n', [['a\nb', 'c']]],
    ['spaces are kept', ' a , b \n', [[' a ', ' b ']]],
    ['empty fields', ',,\n', [['', '', '']]],
    ['a line of spaces is a record', '   \n', [['   ']]],
  ])('%s', (_name, text, expected) => {
    const r = parseGoCsv(text);
    expect(r.ok && r.records.map((x) => x.fields)).toEqual(expected);
  });

  it('reports the line a record starts on', () => {
    const r = parseGoCsv('\n\na,b\n"x\ny",z\nlast\n');
    expect(r.ok && r.records.map((x) => x.line)).toEqual([3, 4, 6]);
  });

  it.each<[string, string, string]>([
    ['bare quote', 'a,b"c\n', 'parse error on line 1, column 4: bare " in non-quoted-field'],
    ['text after a closing quote, on a later line', 'ok,ok\nx,"y"z\n', 'parse error on line 2, column 5: extraneous or missing " in quoted-field'],
    ['column counts bytes', 'é,b"\n', 'parse error on line 1, column 5: bare " in non-quoted-field'],
    ['unterminated quote', '"abc\n', 'parse error on line 1, column 6: extraneous or missing " in quoted-field'],
    ['unterminated quote over lines', 'a\n"b\nc\n', 'record on line 2; parse error on line 3, column 3: extraneous or missing " in quoted-field'],
  ])('%s', (_name, text, error) => {
    const r = parseGoCsv(text);
    expect(r.ok ? 'ok' : r.error).toBe(error);
  });

  it('reads flag values as pflag does', () => {
    expect(readFlagCsv('')).toEqual({ ok: true, values: [] });
    expect(readFlagCsv('a,b')).toEqual({ ok: true, values: ['a', 'b'] });
    expect(readFlagCsv('"a,b",c')).toEqual({ ok: true, values: ['a,b', 'c'] });
  });
});

describe('Go path errors', () => {
  it.each<[string, string]>([
    ['ENOENT', 'open /x: no such file or directory'],
    ['EACCES', 'open /x: permission denied'],
    ['EISDIR', 'read /x: is a directory'],
  ])('%s', (code, expected) => {
    expect(goPathErrorMessage(Object.assign(new Error('node text'), { code }), '/x')).toBe(expected);
  });
});
