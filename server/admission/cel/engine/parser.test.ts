// Syntax errors read as cel-go prints them (ANTLR's wording, the source line and a caret under the column).
import { formatIssues } from './ast.js';
import { parse } from './parser.js';

const errorOf = (expr: string): string => {
  const r = parse(expr);
  if (r.ok) throw new Error(`parsed: ${expr}`);
  return formatIssues(r.source, r.issues);
};

const EXPECTING = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

describe('parser errors', () => {
  it.each([
    ['x + ', `ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting ${EXPECTING}\n | x + \n | ....^`],
    ['1 + +', `ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting ${EXPECTING}\n | 1 + +\n | ....^`],
    ['TestAllTypes(){}', "ERROR: <input>:1:15: Syntax error: mismatched input '{' expecting <EOF>\n | TestAllTypes(){}\n | ..............^"],
    [
      'a | b',
      "ERROR: <input>:1:3: Syntax error: token recognition error at: '| '\n | a | b\n | ..^\nERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>\n | a | b\n | ....^",
    ],
    ['as', 'ERROR: <input>:1:1: reserved identifier: as\n | as\n | ^'],
    ['has(m)', 'ERROR: <input>:1:5: invalid argument to has() macro\n | has(m)\n | ....^'],
    ['1.all(2, 3)', 'ERROR: <input>:1:7: argument must be a simple name\n | 1.all(2, 3)\n | ......^'],
    ['m.filter(a.b, false)', 'ERROR: <input>:1:11: argument is not an identifier\n | m.filter(a.b, false)\n | ..........^'],
    ['0xFFFFFFFFFFFFFFFFF', 'ERROR: <input>:1:1: invalid int literal\n | 0xFFFFFFFFFFFFFFFFF\n | ^'],
    ['{', `ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | {\n | .^`],
  ])('reports %j as cel-go does', (expr, want) => {
    expect(errorOf(expr)).toBe(want);
  });

  it('points at the right line of a multi-line expression and widens the caret under wide characters', () => {
    expect(errorOf("'😁' in ['😁']\n && in.x")).toBe(
      `ERROR: <input>:2:5: Syntax error: extraneous input 'in' expecting ${EXPECTING}\n |  && in.x\n | ....^`,
    );
    expect(errorOf('"😁" + $')).toContain(' | .．....^');
  });
});

describe('parser', () => {
  it('keeps -9223372036854775808 a single int literal', () => {
    const r = parse('-9223372036854775808');
    expect(r.ok && r.parsed.expr).toMatchObject({ kind: 'const', value: -9223372036854775808n });
  });

  it('parses struct literals with qualified names (ApplyConfiguration)', () => {
    const r = parse('Object{spec: Object.spec{replicas: 3}}');
    expect(r.ok && r.parsed.expr).toMatchObject({
      kind: 'struct',
      typeName: 'Object',
      fields: [{ field: 'spec', value: { kind: 'struct', typeName: 'Object.spec' } }],
    });
  });

  it('parses the optional syntax into cel-go calls', () => {
    const r = parse('a.?b[?0]');
    expect(r.ok && r.parsed.expr).toMatchObject({ kind: 'call', fn: '_[?_]', args: [{ kind: 'call', fn: '_?._' }, { kind: 'const' }] });
    const m = parse('{?"k": v}');
    expect(m.ok && m.parsed.expr).toMatchObject({ kind: 'map', entries: [{ optional: true }] });
  });

  it('expands macros into comprehensions, including two-variable ones', () => {
    for (const e of ['l.all(x, x > 0)', 'l.exists_one(x, x)', 'l.map(x, x + 1)', 'l.map(x, x > 0, x)', 'l.filter(x, x)', 'm.all(k, v, v > 0)', 'l.transformList(i, v, v)', 'm.transformMap(k, v, v)', 'm.transformMapEntry(k, v, {k: v})', 'l.existsOne(i, v, v)']) {
      const r = parse(e);
      expect(r.ok && r.parsed.expr.kind).toBe('comprehension');
    }
  });

  it('decodes string and bytes escapes', () => {
    const r = parse(String.raw`"\x41\101\u00e9\U0001F600" + r"\n"`);
    expect(r.ok && r.parsed.expr).toMatchObject({ args: [{ value: 'AAé😀' }, { value: '\\n' }] });
    const b = parse(String.raw`b"\xff\000"`);
    expect(b.ok && b.parsed.expr).toMatchObject({ value: new Uint8Array([255, 0]) });
  });
});
