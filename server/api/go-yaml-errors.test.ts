import { goYamlSyntaxError } from './go-yaml-errors.js';
import { parseJsonOrYamlDocument } from './go-json-document.js';

// Each row: a malformed input users write, the text yaml.v2 (go.yaml.in/yaml/v2, which sigs.k8s.io/yaml and so
// kube-apiserver use) returns for it, and where that text comes from. Scanner errors print the 1-based line the
// scanner stood on; parser errors print the offending token's 0-based line (one less than an editor shows);
// "line N: " is left out when that line is 0 (decode.go parser.fail).
const manifestHead = 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n';
const malformed: Array<[name: string, input: string, expected: string, source: string]> = [
  [
    'an unclosed flow sequence at the end of a document',
    `${manifestHead}metadata:\n  name: [unclosed`,
    "yaml: line 4: did not find expected ',' or ']'",
    'parserc.go parse_flow_sequence_entry; the STREAM-END token sits on a line of its own (fetch_stream_end)',
  ],
  [
    'an unclosed flow sequence inside a flow mapping',
    'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: [unclosed\n',
    "yaml: line 3: did not find expected ',' or ']'",
    'parserc.go parse_flow_sequence_entry',
  ],
  ['an unclosed flow mapping', 'a: b\nmetadata: {name: x\n', "yaml: line 2: did not find expected ',' or '}'", 'parserc.go parse_flow_mapping_key'],
  ['a key indented less than its siblings', 'a:\n  b: 1\n c: 2\n', 'yaml: line 2: did not find expected key', 'parserc.go parse_block_mapping_key (BLOCK-MAPPING-START at column 1)'],
  ['a nested key dedented into no level', 'metadata:\n    name: a\n  labels: x\n', 'yaml: line 2: did not find expected key', 'parserc.go parse_block_mapping_key'],
  ['a second ": " in a value', 'a: b\nc: d: e\n', 'yaml: line 2: mapping values are not allowed in this context', 'scannerc.go fetch_value (no simple key allowed after a value)'],
  ['a second ": " on the first line', 'c: d: e\n', 'yaml: mapping values are not allowed in this context', 'scannerc.go fetch_value; line 0 is not printed'],
  ['a "- " item among mapping keys', 'metadata:\n  name: x\n  - foo\n', 'yaml: line 2: did not find expected key', 'parserc.go parse_block_mapping_key (BLOCK-ENTRY token)'],
  ['a "- " item right after a key', 'a: b\nc: - d\n', 'yaml: line 2: block sequence entries are not allowed in this context', 'scannerc.go fetch_block_entry'],
  ['a key without a colon at the end', 'a: b\nc\n', "yaml: line 3: could not find expected ':'", 'scannerc.go remove_simple_key at stream end (required simple key)'],
  ['a key without a colon at the end of a trimmed document', 'a: b\nc', "yaml: line 3: could not find expected ':'", 'scannerc.go fetch_stream_end moves to a new line first'],
  ['a key without a colon before a comment', 'a: b\nc\n\n# x\nd: e\n', "yaml: line 4: could not find expected ':'", 'scannerc.go simple_key_is_valid, where the scalar scan stopped'],
  ['a top-level line without a colon before a mapping', 'c\nd: e\n', 'yaml: line 2: mapping values are not allowed in this context', 'scannerc.go fetch_value (the plain scalar "c d" spans two lines)'],
  ['an unclosed double quote', 'a: "abc\nb: c\n', 'yaml: line 3: found unexpected end of stream', 'scannerc.go scan_flow_scalar'],
  ['an unclosed double quote on the only line', 'a: "abc', 'yaml: found unexpected end of stream', 'scannerc.go scan_flow_scalar; line 0 is not printed'],
  ['an unclosed single quote', "x: y\na: 'abc\n", 'yaml: line 3: found unexpected end of stream', 'scannerc.go scan_flow_scalar'],
  ["a quote inside a single-quoted value ('it's')", "metadata:\n  name: 'it's'\n", 'yaml: line 1: did not find expected key', 'parserc.go parse_block_mapping_key (SCALAR token)'],
  ['a value starting with @', 'a: b\nc: @d\n', 'yaml: line 2: found character that cannot start any token', 'scannerc.go fetch_next_token'],
  ['a value starting with a backtick', 'a: `d`\n', 'yaml: found character that cannot start any token', 'scannerc.go fetch_next_token'],
  ['a tab indenting a nested key', 'a:\n\tb: c\n', 'yaml: line 2: found character that cannot start any token', 'scannerc.go scan_to_next_token keeps a tab where a key may start'],
  ['a tab indenting the line after a plain value', 'key: value\n\tother: x\n', 'yaml: line 2: found a tab character that violates indentation', 'scannerc.go scan_plain_scalar'],
  ['a tab indenting a block scalar', 'a: |\n\tfoo\n', 'yaml: line 2: found a tab character where an indentation space is expected', 'scannerc.go scan_block_scalar_breaks'],
  ['a control character', 'a: b\u0001\n', 'yaml: control characters are not allowed', 'readerc.go update_buffer (reader errors have no mark)'],
  ['a DEL character', 'a: b\u007f\n', 'yaml: control characters are not allowed', 'readerc.go update_buffer'],
  ['a closing bracket as a value', 'a: b\nc: ]\n', 'yaml: line 1: did not find expected node content', 'parserc.go parse_node'],
  ['a comma as a value', 'a: ,\n', 'yaml: did not find expected node content', 'parserc.go parse_node'],
  ['a key among sequence items', 'items:\n  - a\n  b: c\n', "yaml: line 2: did not find expected '-' indicator", 'parserc.go parse_block_sequence_entry'],
  ['two flow items without a comma', 'a: b\nc: ["x" "y"]\n', "yaml: line 1: did not find expected ',' or ']'", 'parserc.go parse_flow_sequence_entry'],
  ['an unknown escape in a double-quoted value', 'a: b\nc: "\\q"\n', 'yaml: line 2: found unknown escape character', 'scannerc.go scan_flow_scalar'],
  ['an alias without a name', 'a: b\nc: *\n', 'yaml: line 2: did not find expected alphabetic or numeric character', 'scannerc.go scan_anchor'],
  ['a document marker inside a quoted value', 'a: "x\n---\ny"\n', 'yaml: line 2: found unexpected document indicator', 'scannerc.go scan_flow_scalar'],
  ['a "..." document end at the start', '...\na: b\n', 'yaml: did not find expected node content', 'parserc.go parse_node (implicit document holding DOCUMENT-END)'],
  ['an undefined tag handle', 'a: !x!y b\n', 'yaml: found undefined tag handle', 'parserc.go parse_node'],
  ['an unknown anchor', 'a: b\nc: *nope\n', "yaml: unknown anchor 'nope' referenced", 'decode.go parser.alias (failf, no line)'],
  ['an indentation indicator of 0', 'a: |0\n  x\n', 'yaml: found an indentation indicator equal to 0', 'scannerc.go scan_block_scalar'],
];

describe('goYamlSyntaxError words malformed YAML as yaml.v2 does', () => {
  it.each(malformed)('%s', (_name, input, expected) => {
    expect(goYamlSyntaxError(input)).toBe(expected);
  });
});

// go-yaml v2's own decode_test.go unmarshalErrorTests (syntax rows), which pin the lines fail() prints.
describe('goYamlSyntaxError on yaml.v2 decode_test.go error vectors', () => {
  it.each<[string, string]>([
    ['v: [A,', 'yaml: line 1: did not find expected node content'],
    ['v:\n- [A,', 'yaml: line 2: did not find expected node content'],
    ['a:\n- b: *,', 'yaml: line 2: did not find expected alphabetic or numeric character'],
    ['a: *b\n', "yaml: unknown anchor 'b' referenced"],
    ['value: -', 'yaml: block sequence entries are not allowed in this context'],
    ['b: *a\na: &a {c: 1}', "yaml: unknown anchor 'a' referenced"],
    ["%TAG !%79! tag:yaml.org,2002:\n---\nv: !%79!int '1'", 'yaml: did not find expected whitespace'],
  ])('%j', (input, expected) => {
    expect(goYamlSyntaxError(input)).toBe(expected);
  });

  it("reports a key without ':' on the line where the scan stopped (yaml.v2 prints the problem mark, yaml.v3 the key's)", () => {
    expect(goYamlSyntaxError('a:\n  1:\nb\n  2:')).toBe("yaml: line 4: could not find expected ':'");
    expect(goYamlSyntaxError('a: 1\nb: 2\nc 2\nd: 3\n')).toBe("yaml: line 4: could not find expected ':'");
  });
});

describe('goYamlSyntaxError accepts what yaml.v2 reads', () => {
  it.each<[string, string]>([
    ['a manifest', `${manifestHead}metadata:\n  name: a.static.k8s.io\nwebhooks:\n- name: a.example.com\n  rules: [{operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}]\n`],
    ['block scalars, quoting and complex keys', "a: |-\n  x\n\n  y\nb: >\n   folded\n   text\n\nc: [a, {b: c}, 'd''e', \"f\\u00e9\"]\n? complex\n: value\n"],
    ['anchors, aliases and merge keys', 'x: &x {a: 1}\ny:\n  <<: *x\n  !!merge "<<": [*x]\n  !<tag:yaml.org,2002:merge> "<<": [*x]\n'],
    ['a leading byte order mark', '\uFEFFa: b\n'],
    ['comments and CRLF line ends', '# c\r\na: b # c\r\nl:\r\n- 1\r\n'],
    ['an empty document', ''],
    ['only a comment', '# nothing\n'],
    ['a later document yaml.v2 never reads', 'a: b\n---\n]: [\n'],
  ])('%s', (_name, input) => {
    expect(goYamlSyntaxError(input)).toBeUndefined();
  });
});

describe('yaml.v2 reads 512 bytes at a time, so a control character fails the read only once the scanner gets there', () => {
  const padding = `${'# padding\n'.repeat(60)}`; // 600 bytes of comments

  it('a syntax error in an earlier chunk wins', () => {
    expect(goYamlSyntaxError(`a: b\nc: d: e\n${padding}x: "\u0001"\n`)).toBe('yaml: line 2: mapping values are not allowed in this context');
  });

  it('a control character in the first chunk wins over a later syntax error', () => {
    expect(goYamlSyntaxError(`a: "\u0001"\n${padding}c: d: e\n`)).toBe('yaml: control characters are not allowed');
  });
});

describe('parseJsonOrYamlDocument reports YAML syntax errors in yaml.v2 words', () => {
  it('the scenario file: an unclosed flow sequence', () => {
    expect(parseJsonOrYamlDocument(`${manifestHead}metadata:\n  name: [unclosed`)).toEqual({ ok: false, error: "yaml: line 4: did not find expected ',' or ']'" });
  });

  it('refuses control characters the yaml package would accept', () => {
    expect(parseJsonOrYamlDocument('a: "b\u0007"\n')).toEqual({ ok: false, error: 'yaml: control characters are not allowed' });
  });

  it('still reads valid YAML', () => {
    const r = parseJsonOrYamlDocument('a: [1, {b: c}]\n');
    expect(r.ok && r.node.value).toEqual({ a: [1, { b: 'c' }] });
  });
});
