// go-yaml's own limit tests (yaml.v2 limit_test.go), with its depth of 10000 replaced by this server's limit.
import { parseDocument } from 'yaml';
import { maxNestingDepth } from './nesting-depth.js';
import { yamlAliasingError, yamlDocumentToJS, yamlNestingError } from './yaml-limits.js';

const depthError = `yaml: exceeded max depth of ${maxNestingDepth}`;
const aliasingError = 'yaml: document contains excessive aliasing';
const aliasing = (text: string) => yamlAliasingError(parseDocument(text, { uniqueKeys: false }));

describe('yamlNestingError (yaml.v2 max_flow_level / max_indents)', () => {
  it.each([
    ['1000kb of deeply nested slices', '['.repeat(1000 * 1024)],
    ['1000kb of deeply nested maps', 'x: ' + '{'.repeat(1000 * 1024)],
    ['1000kb of deeply nested indents', '- '.repeat(1000 * 1024)],
    ['nested flow maps with keys', '{a: '.repeat(maxNestingDepth + 1) + '1' + '}'.repeat(maxNestingDepth + 1)],
    ['mixed flow sequences and maps', '[{a: '.repeat(maxNestingDepth) + '1' + '}]'.repeat(maxNestingDepth)],
  ])('%s: %s', (_name, text) => {
    expect(yamlNestingError(text)).toBe(depthError);
  });

  it('refuses block nesting by indentation, naming the line as yaml.v2 does', () => {
    let text = '';
    for (let i = 0; i <= maxNestingDepth; i++) text += `${' '.repeat(i)}a:\n`;
    text += `${' '.repeat(maxNestingDepth + 1)}b: 1\n`;
    expect(yamlNestingError(text)).toBe(`yaml: line ${maxNestingDepth + 1}: ${depthError.slice('yaml: '.length)}`);
  });

  it('refuses a deep body as soon as it is too deep, not after parsing all of it', () => {
    const best = (text: string): number => {
      let t = Infinity;
      for (let run = 0; run < 3; run++) {
        const start = performance.now();
        expect(yamlNestingError(text)).toBe(depthError);
        t = Math.min(t, performance.now() - start);
      }
      return t;
    };
    best('['.repeat(10_000));
    // 100 times the body, about the same work (a full parse first would cost 100 times as much)
    expect(best('['.repeat(3_000_000)) / best('['.repeat(30_000))).toBeLessThan(10);
  });

  it.each([
    ['1000kb of 1000-indent lines', ('- '.repeat(Math.min(1000, maxNestingDepth)) + '\n').repeat(512)],
    ['1000kb slice nested at max-depth', '['.repeat(maxNestingDepth) + '1' + ',1'.repeat(100_000) + ']'.repeat(maxNestingDepth)],
    [
      '1000kb slice nested in maps at max-depth',
      '{a,b:\n' + ' {a,b:'.repeat(maxNestingDepth - 2) + ' [1' + ',1'.repeat(100_000) + ']' + '}'.repeat(maxNestingDepth - 1),
    ],
    ['lines nested to max-depth', ('- ' + '['.repeat(maxNestingDepth - 1) + ']'.repeat(maxNestingDepth - 1) + '\n').repeat(50)],
    ['brackets in quoted strings and comments', `a: "${'['.repeat(5000)}"\nb: '${'{'.repeat(5000)}'\n# ${'['.repeat(5000)}\n`],
  ])('%s is accepted', (_name, text) => {
    expect(yamlNestingError(text)).toBeUndefined();
  });
});

describe('yamlAliasingError (yaml.v2 allowedAliasRatio)', () => {
  it('refuses 1000kb of maps with 100 aliases', () => {
    const text = '{a: &a [{a}' + ',{a}'.repeat((1000 * 1024) / 4 - 100) + '], b: &b [*a' + ',*a'.repeat(99) + ']}';
    expect(aliasing(text)).toBe(aliasingError);
  });

  it('refuses a billion laughs', () => {
    let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    let prev = 'a';
    for (const n of 'bcdefghi') {
      text += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
      prev = n;
    }
    expect(aliasing(text)).toBe(aliasingError);
  });

  it.each([
    ['1kb of maps', 'a: &a [{a}' + ',{a}'.repeat(1024 / 4 - 1) + ']'],
    ['100kb of maps', 'a: &a [{a}' + ',{a}'.repeat((100 * 1024) / 4 - 1) + ']'],
    ['a few aliases', 'a: &x {k: v}\nb: *x\nc: *x\n'],
    ['100 aliases of a small anchor', 'a: &x [1, 2, 3]\nb: [' + Array(100).fill('*x').join(', ') + ']\n'],
  ])('%s is accepted', (_name, text) => {
    expect(aliasing(text)).toBeUndefined();
  });
});

describe('yamlNestingError on JSON text (what kubectl sends as an apply patch)', () => {
  it.each([
    ['an array nested past the limit', '['.repeat(maxNestingDepth + 1) + ']'.repeat(maxNestingDepth + 1), depthError],
    ['maps nested past the limit, on line 2', '{\n"a":' + '{"a":'.repeat(maxNestingDepth) + '1' + '}'.repeat(maxNestingDepth + 1), `yaml: line 2: exceeded max depth of ${maxNestingDepth}`],
    ['maps at the limit', '{"a":'.repeat(maxNestingDepth) + '1' + '}'.repeat(maxNestingDepth), undefined],
    // not JSON (single quotes): the YAML parser counts, and the brackets in quotes are text
    ["flow YAML whose quotes hide brackets", `{a: '"', b: ${'['.repeat(maxNestingDepth)}${']'.repeat(maxNestingDepth)}}`, depthError],
  ])('%s', (_name, text, want) => {
    expect(yamlNestingError(text)).toBe(want);
  });
});

describe('yaml.v2 decoding: merge keys and self-containing anchors', () => {
  const toJS = (text: string) => yamlDocumentToJS(parseDocument(text, { uniqueKeys: false, merge: true }));

  it.each([
    ['a: &a [*a]\n', 'a'],
    ['x: &d {k: *d}\n', 'd'],
    ['x: &d {k: [1, {j: *d}]}\n', 'd'],
  ])('refuses %j: anchor value contains itself', (text, name) => {
    expect(toJS(text)).toEqual({ ok: false, error: `yaml: anchor '${name}' value contains itself` });
  });

  it.each([
    ['a: &a [1]\nb: [*a, *a]\n', { a: [1], b: [[1], [1]] }],
    // the inner &x redefines the anchor: *x is that scalar, not its ancestor
    ['a: &x [&x 1, *x]\n', { a: [1, 1] }],
    ['a: &b {p: 1, q: 2}\nc:\n  <<: *b\n  q: 3\n', { a: { p: 1, q: 2 }, c: { p: 1, q: 3 } }],
    ['a: &b {p: 1}\nd: &e {p: 2, s: 1}\nc:\n  <<: [*b, *e]\n', { a: { p: 1 }, d: { p: 2, s: 1 }, c: { p: 1, s: 1 } }],
  ])('decodes %j', (text, value) => {
    expect(toJS(text)).toEqual({ ok: true, value });
  });

  it.each(['b:\n  <<: 1\n', 'a: &x 1\nb:\n  <<: *x\n'])('refuses a merge of a non-map %j with yaml.v2\'s error', (text) => {
    expect(toJS(text)).toEqual({ ok: false, error: 'yaml: map merge requires map or sequence of maps as the value' });
  });
});
