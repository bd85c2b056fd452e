import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { goJsonMarshal, parseJsonOrYamlDocument, plainNodeFromLines, setMember, type JsonNode } from './go-json-document.js';

function parsed(text: string): { node: JsonNode; yamlDuplicateKeys: string[] } {
  const r = parseJsonOrYamlDocument(text);
  if (!r.ok) throw new Error(r.error);
  return r;
}

describe('parseJsonOrYamlDocument over YAML', () => {
  it('builds Go-map members sorted by key, last duplicate winning, with each duplicate reported on its value line', () => {
    const { node, yamlDuplicateKeys } = parsed('b: 1\na:\n  k: 1\n  k: 2\nb: 3\n');
    expect(node.type).toBe('object');
    if (node.type !== 'object') return;
    expect(node.members.map((m) => m.key)).toEqual(['a', 'b']);
    expect(node.value).toEqual({ b: 3, a: { k: 2 } });
    expect(Object.keys(node.value)).toEqual(['b', 'a']);
    expect(yamlDuplicateKeys).toEqual(['line 4: key "k" already set in map', 'line 5: key "b" already set in map']);
  });

  it('keeps each value identical between the members and the parent value', () => {
    const { node } = parsed('a:\n  - x: 1\n');
    if (node.type !== 'object') throw new Error('object expected');
    expect(node.members[0]!.node.value).toBe(node.value['a']);
  });

  it('gives every node the JSON text Go would marshal, at every depth', () => {
    const { node } = parsed('z: "<&>"\na:\n  - {q: true, p: null}\n  - 1.5\n');
    expect(node.raw).toBe('{"a":[{"p":null,"q":true},1.5],"z":"\\u003c\\u0026\\u003e"}');
    if (node.type !== 'object') throw new Error('object expected');
    expect(node.members[0]!.node.raw).toBe('[{"p":null,"q":true},1.5]');
    expect(node).toEqual(expect.objectContaining({ raw: goJsonMarshal(node.value) }));
  });

  it('reads YAML 1.1 scalars and non-string keys as yaml.v2 does', () => {
    const { node } = parsed('on: yes\n1: 0777\nt: 2001-12-14\n');
    expect(node.value).toEqual({ true: true, '1': 511, t: '2001-12-14' });
  });

  it('resolves aliases and merge keys, and still reports duplicates, through the general path', () => {
    const { node, yamlDuplicateKeys } = parsed('base: &b {x: 1, k: 2}\nm:\n  <<: *b\n  k: 3\nd: 1\nd: 2\n');
    expect(node.value).toEqual({ base: { x: 1, k: 2 }, m: { x: 1, k: 3 }, d: 2 });
    expect(node.raw).toBe('{"base":{"k":2,"x":1},"d":2,"m":{"k":3,"x":1}}');
    expect(yamlDuplicateKeys).toEqual(['line 6: key "d" already set in map']);
  });

  it('reads a null key as the empty string, as toJS does', () => {
    expect(parsed('~: 1\n').node.value).toEqual({ '': 1 });
  });

  it('reads an empty document as null', () => {
    expect(parsed('# only a comment\n').node).toEqual({ type: 'null', value: null, raw: 'null' });
  });
});

// The direct CST walk (plainNodeFromCst) must give exactly what composing the yaml Document gives, or step aside.
const directWalkCases: string[] = [
'a: 1\nb: two\nc: 3.5\nd: ~\ne: null\nf:\ng: ""\n',
    'yes: no\non: off\ny: n\nTrue: FALSE\n',
    'octal: 0777\nhex: 0x1F\nexp: 1e3\nneg: -12\nsep: 1_000\ninf: .inf\nnan: .NaN\nbig: 123456789012345678901234567890\n',
    'date: 2024-01-02\ntime: 2001-12-14t21:59:43.10-05:00\nversion: 1.20\n',
    "sq: 'it''s'\ndq: \"tab\\tnew\\nline \\u00e9\"\nplain: has # not a comment\n# a comment\nx: y # trailing\n",
    'lit: |\n  line 1\n  line 2\nfold: >-\n  folded\n  text\n\n  para\nkeep: |+\n  kept\n\n',
    'list:\n- a\n- - nested\n  - more\n- k: v\n  k2: v2\n-\n- ""\nempty: []\n',
    'metadata:\n  name: x.static.k8s.io\n  labels:\n    "quoted key": v\n    1: numeric key\n    true: bool key\nspec:\n  rules:\n  - apiGroups: [""]\n',
    'multi: this is\n  a plain scalar\n  over lines\n',
    'anchored: &a 1\nalias: *a\n',
    'merge:\n  <<: {a: 1}\n  b: 2\n',
    'dup: 1\ndup: 2\n',
    '!!str tagged: x\n',
    '? explicit\n: key\n',
    '- top\n- level\n- seq\n',
    'just a scalar',
    '',
    '# only a comment',
    'a: b: c\n',
    'key: - a\n',
    'a:\n  b: 1\n c: 2\n',
    'a:\n- x\n- y\nb: 1\n',
    '- a: 1\n  b: 2\n- c: 3\n',
    "a: 'multi\n  line quoted'\nb: \"x\" # c\n",
    'a:    \n  - 1\n  - 2\n',
    'a  : 1\n',
    'a: b\n  c\n',
    'a: |\n   deeper\n  less\n',
    'a: 1\r\nb: 2\r\n',
    '\uFEFFa: 1\n',
    'a: 1\n...\n',
    '%YAML 1.1\n---\na: 1\n',
    '"a\nb": 1\n',
    'a: [1, 2]\nb: {c: d}\n',
    'a: "unterminated\n',
    'a:\n  - b\n - c\n',
    'x: -\n',
    '- \n- a\n',
  // the line walk's own edges
  'a:\n- x\nb:\n  - y\n  - z: 1\n    w:\n    - 2\n    v: 3\nc: 4\n',
  'a: b\n  c\n  d\ne: f\n',
  '- a\n  b\n- c\n',
  'a: -1\nb: -x\nc: ""\nd: \'\'\ne: \'it\'\'s\'\nf: "a\\\\b"\n',
  'a: {}\nb: []\nc:\n  - {}\n  - []\n',
  'url: https://127.0.0.1:9/x\nk8s.io/label-key: v\n1_000: 0x10\nyes: ~\n',
  'a:\n    b: 1\n  c: 2\n',
  'a: 1\n- b\n',
  '- a\nb: 1\n',
  '-   a: 1\n    b: 2\n',
  'a: "x"\n  y\n',
  'a: b\n\nc: d\n',
  'a: x\u2028y\n',
  'a:\n-\n  b\n',
  'a: b\u00a0\nc:\u3000d\n\u00a0e: f\n',
  'a: \u00a0\nb:\n  - \u2003x\n',
];

const strip = (n: JsonNode): unknown => ({ value: n.value, raw: n.raw, members: n.type === 'object' ? n.members.map((m) => [m.key, strip(m.node)]) : undefined, items: n.type === 'array' ? n.items.map(strip) : undefined });

describe('the direct CST walk agrees with the composed Document', () => {
  const cases = directWalkCases;
  it.each(cases)('%j', (text) => {
    const direct = parseJsonOrYamlDocument(text);
    const composed = parseJsonOrYamlDocument(text, { composeAlways: true });
    expect(direct.ok).toBe(composed.ok);
    if (direct.ok && composed.ok) {
      expect(strip(direct.node)).toEqual(strip(composed.node));
      expect(direct.yamlDuplicateKeys).toEqual(composed.yamlDuplicateKeys);
    } else if (!direct.ok && !composed.ok) {
      expect(direct.error).toBe(composed.error);
    }
  });
});

// Every document of the scenario files, which hold what users write: both paths agree on each.
describe('the direct CST walk agrees with the composed Document on the scenario corpus', () => {
  const root = new URL('../../scenarios/', import.meta.url).pathname;
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.ya?ml$/u.test(f));
  it('over every document', () => {
    let documents = 0;
    for (const f of files) {
      const outer = parseJsonOrYamlDocument(readFileSync(path.join(root, f), 'utf8').split(/^---$/mu)[0]!);
      const texts = [readFileSync(path.join(root, f), 'utf8')];
      if (outer.ok) for (const s of JSON.stringify(outer.node.value).match(/"(?:[^"\\]|\\.)*"/gu) ?? []) {
        const v = JSON.parse(s) as string;
        if (v.includes('\n') && v.includes(': ')) texts.push(v);
      }
      for (const t of texts) {
        for (const doc of t.split(/^---.*$/mu)) {
          const direct = parseJsonOrYamlDocument(doc);
          const composed = parseJsonOrYamlDocument(doc, { composeAlways: true });
          expect([f, direct.ok ? JSON.stringify(direct.node.value) : direct.error]).toEqual([f, composed.ok ? JSON.stringify(composed.node.value) : composed.error]);
          documents++;
        }
      }
    }
    expect(documents).toBeGreaterThan(100);
  });
});

// The line walk (plainNodeFromLines) must give exactly what the CST walk and the composer give, or step aside.
describe('the line walk agrees with the CST walk and the composed Document', () => {
  const agree = (text: string): void => {
    const lines = parseJsonOrYamlDocument(text);
    const cst = parseJsonOrYamlDocument(text, { cstAlways: true });
    const composed = parseJsonOrYamlDocument(text, { composeAlways: true });
    for (const other of [cst, composed]) {
      expect(lines.ok).toBe(other.ok);
      if (lines.ok && other.ok) {
        expect(strip(lines.node)).toEqual(strip(other.node));
        expect(lines.yamlDuplicateKeys).toEqual(other.yamlDuplicateKeys);
      } else if (!lines.ok && !other.ok) expect(lines.error).toBe(other.error);
    }
  };

  it.each(directWalkCases)('%j', agree);

  // Pseudo-random objects as yaml.stringify writes them (deterministic seed): strings that need quoting, fold over
  // lines or look like YAML 1.1 numbers and booleans, nested maps and sequences, empty collections.
  it('on 400 generated documents, over a hundred of which it reads itself', () => {
    let seed = 19;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const words = ['a', 'yes', 'No', 'on', '1', '0777', '0x1F', '1e3', '-2', '.inf', '~', 'null', '', ' lead', 'trail ', 'x: y', 'x #y', "it's", 'say "hi"', 'back\\slash', '- dash', '[a]', '{b}', '&anchor', '*alias', '!tag', '|', '>', '%', '@', '`', 'https://example.com:8443/p', 'bench.kah.dev/forbidden-1', '2001-12-14', '1_000', 'ünïcode', 'tab\there', 'new\nline'];
    const text = (): string => Array.from({ length: 1 + rand(12) }, () => words[rand(words.length)]).join(rand(3) === 0 ? '' : ' ');
    const value = (depth: number): unknown => {
      const k = rand(depth > 3 ? 4 : 7);
      if (k === 0) return text();
      if (k === 1) return rand(1000) - 500;
      if (k === 2) return rand(2) === 0;
      if (k === 3) return rand(4) === 0 ? null : text();
      if (k === 4) return Array.from({ length: rand(4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = rand(5); i > 0; i--) o[rand(4) === 0 ? text() : (['apiVersion', 'kind', 'metadata', 'name', 'spec', 'rules', 'app.kubernetes.io/name', 'yes', '1'] as const)[rand(9)]!] = value(depth + 1);
      return o;
    };
    let read = 0;
    for (let i = 0; i < 400; i++) {
      const root = { kind: 'Doc', spec: value(0) };
      const doc = stringify(root, { lineWidth: rand(2) === 0 ? 40 : 80 }).trim();
      agree(doc);
      if (plainNodeFromLines(doc)) read++;
    }
    expect(read).toBeGreaterThan(100);
  });

  it('reads the manifests the startup benchmark writes (a policy, its binding, a webhook configuration)', () => {
    const policy = stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'bench-policy-0.static.k8s.io' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }] },
        validations: [{ expression: "object.metadata.name.size() < 64 && (!has(object.metadata.labels) || !('bench.kah.dev/forbidden-0' in object.metadata.labels))", message: 'the label bench.kah.dev/forbidden-0 is not allowed on ConfigMaps' }],
      },
    }).trim();
    const webhook = stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bench-webhook-0.static.k8s.io' },
      webhooks: [{ name: 'validate-0.bench.kah.dev', clientConfig: { url: 'https://127.0.0.1:9/validate/0', caBundle: 'LS0t'.repeat(200) }, rules: [{ operations: ['CREATE'], apiGroups: ['bench.kah.dev'], apiVersions: ['v1'], resources: ['widgets0'], scope: 'Namespaced' }], sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5 }],
    }).trim();
    for (const doc of [policy, webhook]) {
      expect(plainNodeFromLines(doc)).toBeDefined();
      agree(doc);
    }
  });
});

describe('setMember: document keys are data', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'plain'])('makes %s an own enumerable data property, leaving the prototype alone', (key) => {
    const obj: { [key: string]: unknown } = {};
    setMember(obj, key, 1);
    setMember(obj, key, 2);
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(obj, key)).toEqual({ value: 2, enumerable: true, writable: true, configurable: true });
    expect(Object.keys(obj)).toEqual([key]);
  });

  it('keeps a __proto__ key of a YAML and a JSON document as a member', () => {
    for (const text of ['__proto__:\n  polluted: true\na: 1\n', '{"__proto__": {"polluted": true}, "a": 1}']) {
      const r = parseJsonOrYamlDocument(text);
      if (!r.ok) throw new Error(r.error);
      expect(Object.keys(r.node.value as object)).toEqual(['__proto__', 'a']);
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    }
  });
});
