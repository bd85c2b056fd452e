// The manifest loader (KEP-5793 "Loading"): which files, which documents, which kinds, strict decoding, the REST
// API's defaulting and validation, and the static rules, each with kube-apiserver's text.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import type { FieldError } from '../../server/api/field.js';
import { loadManifestDir, type ManifestLoadResult } from '../../server/admission/manifest/load.js';
import { formatManifestError, type ManifestError } from '../../server/admission/manifest/manifest-error.js';
import type { ManifestKindHandlers, ManifestPlugin } from '../../server/admission/manifest/plugins.js';
import { docs, ManifestDir, mapbYaml, mapYaml, mutatingWebhookYaml, validatingWebhookYaml, vapbYaml, vapYaml } from './support.js';

let dir: ManifestDir;
beforeEach(() => {
  dir = new ManifestDir();
});
afterEach(() => dir.cleanup());

const names = (r: ManifestLoadResult): string[] => {
  if (!r.ok) throw new Error(`load failed:\n${r.errors.map(formatManifestError).join('\n')}`);
  return r.objects.map((o) => `${o.kind}/${o.metadata?.name}`);
};

const errorLines = (r: ManifestLoadResult): string[] => {
  if (r.ok) throw new Error(`load succeeded with ${r.objects.length} objects`);
  return r.errors.map(formatManifestError);
};

describe('loadManifestDir reads', () => {
  it('only direct .yaml, .yml and .json files, skipping subdirectories, other extensions and empty files', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    dir.write('b.yml', validatingWebhookYaml('b.static.k8s.io'));
    dir.write('c.json', JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c.static.k8s.io' } }));
    dir.write('D.YAML', validatingWebhookYaml('d.static.k8s.io'));
    dir.write('README.md', 'not: [a manifest');
    dir.write('e.yaml.swp', 'garbage: [');
    dir.write('sub/f.yaml', 'garbage: [');
    dir.write('sub.yaml/g.yaml', validatingWebhookYaml('g.static.k8s.io'));
    writeFileSync(dir.file('empty.yaml'), '');
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook');
    expect(names(r)).toEqual([
      'ValidatingWebhookConfiguration/a.static.k8s.io',
      'ValidatingWebhookConfiguration/b.static.k8s.io',
      'ValidatingWebhookConfiguration/c.static.k8s.io',
      'ValidatingWebhookConfiguration/d.static.k8s.io',
    ]);
  });

  it('files through symbolic links, as a mounted ConfigMap has them', async () => {
    const data = new ManifestDir();
    try {
      data.write('vwc.yaml', validatingWebhookYaml('linked.static.k8s.io'));
      symlinkSync(data.file('vwc.yaml'), dir.file('vwc.yaml'));
      expect(names(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'))).toEqual(['ValidatingWebhookConfiguration/linked.static.k8s.io']);
    } finally {
      data.cleanup();
    }
  });

  it('an empty directory as no configurations with the empty hash', async () => {
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionPolicy');
    expect(r).toEqual({ ok: true, objects: [], hash: '' });
  });

  it('configurations sorted by name whatever file they are in, as kube sorts them', async () => {
    dir.write('1.yaml', validatingWebhookYaml('zeta.static.k8s.io'));
    dir.write('2.yaml', validatingWebhookYaml('alpha.static.k8s.io'));
    expect(names(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'))).toEqual([
      'ValidatingWebhookConfiguration/alpha.static.k8s.io',
      'ValidatingWebhookConfiguration/zeta.static.k8s.io',
    ]);
  });

  // kube's Test_splitYAMLDocuments ("empty document between separators is skipped", "leading separator",
  // "trailing separator"; k8s.io/apiserver/pkg/admission/plugin/manifest/loader_test.go)
  it('multi-document YAML with leading, trailing and repeated separators and empty documents', async () => {
    dir.write('multi.yaml', `---\n---\n${validatingWebhookYaml('one.static.k8s.io')}---\n\n   \n--- # a comment after the separator\n${validatingWebhookYaml('two.static.k8s.io')}---\n---\n`);
    expect(names(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'))).toEqual([
      'ValidatingWebhookConfiguration/one.static.k8s.io',
      'ValidatingWebhookConfiguration/two.static.k8s.io',
    ]);
  });

  // A document of only comments is not empty after TrimSpace, so kube's decoder gets it: YAMLToJSON makes it null,
  // meta.Interpret finds no kind, and Decode fails with NewMissingKindErr(string(originalData)).
  it('fails on a document of only comments, quoting it as kube does', async () => {
    dir.write('multi.yaml', `${validatingWebhookYaml('one.static.k8s.io')}---\n# nothing here yet\n# (to do)\n---\n`);
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook');
    expect(r.ok ? 'loaded' : r.kubeError).toBe(`error loading ${dir.file('multi.yaml')}: Object 'Kind' is missing in '# nothing here yet\n# (to do)'`);
  });

  it('a v1 List in YAML and in JSON, and the typed …List kinds', async () => {
    dir.write(
      'list.yaml',
      `apiVersion: v1
kind: List
items:
- ${validatingWebhookYaml('from-yaml-list.static.k8s.io').replace(/\n/g, '\n  ')}`,
    );
    dir.write(
      'list.json',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [{ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'from-json-list.static.k8s.io' } }],
      }),
    );
    dir.write(
      'typed.yaml',
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfigurationList
items:
- metadata:
    name: from-typed-list.static.k8s.io
`,
    );
    expect(names(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'))).toEqual([
      'ValidatingWebhookConfiguration/from-json-list.static.k8s.io',
      'ValidatingWebhookConfiguration/from-typed-list.static.k8s.io',
      'ValidatingWebhookConfiguration/from-yaml-list.static.k8s.io',
    ]);
  });

  it('policies then bindings for a policy plugin, each sorted by name, from one file or several', async () => {
    dir.write('b.yaml', docs(vapbYaml('z-binding.static.k8s.io', 'p.static.k8s.io'), vapYaml('p.static.k8s.io')));
    dir.write('a.yaml', docs(vapbYaml('a-binding.static.k8s.io', 'p.static.k8s.io'), vapYaml('o.static.k8s.io')));
    expect(names(await loadManifestDir(dir.path, 'ValidatingAdmissionPolicy'))).toEqual([
      'ValidatingAdmissionPolicy/o.static.k8s.io',
      'ValidatingAdmissionPolicy/p.static.k8s.io',
      'ValidatingAdmissionPolicyBinding/a-binding.static.k8s.io',
      'ValidatingAdmissionPolicyBinding/z-binding.static.k8s.io',
    ]);
  });

  it('MutatingAdmissionPolicy and its binding for the MutatingAdmissionPolicy plugin', async () => {
    dir.write('add-label.yaml', docs(mapYaml('add-label.static.k8s.io'), mapbYaml('add-label-binding.static.k8s.io', 'add-label.static.k8s.io')));
    expect(names(await loadManifestDir(dir.path, 'MutatingAdmissionPolicy'))).toEqual([
      'MutatingAdmissionPolicy/add-label.static.k8s.io',
      'MutatingAdmissionPolicyBinding/add-label-binding.static.k8s.io',
    ]);
  });

  it('MutatingWebhookConfigurations for the MutatingAdmissionWebhook plugin', async () => {
    dir.write('m.yaml', mutatingWebhookYaml('m.static.k8s.io'));
    expect(names(await loadManifestDir(dir.path, 'MutatingAdmissionWebhook'))).toEqual(['MutatingWebhookConfiguration/m.static.k8s.io']);
  });
});

describe('loadManifestDir defaults', () => {
  it('webhooks as the REST API does (SetDefaults_ValidatingWebhook, SetDefaults_Rule)', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook');
    if (!r.ok) throw new Error('load failed');
    expect(r.objects[0]!['webhooks']).toEqual([
      {
        name: 'check.example.com',
        clientConfig: { url: 'https://127.0.0.1:9443/validate' },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: 'None',
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
      },
    ]);
  });

  it('policies and bindings as the REST API does (failurePolicy, matchResources, rule scope)', async () => {
    dir.write('p.yaml', docs(vapYaml('p.static.k8s.io').replace('  failurePolicy: Fail\n', ''), vapbYaml('b.static.k8s.io', 'p.static.k8s.io', '  matchResources: {}\n')));
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionPolicy');
    if (!r.ok) throw new Error(r.errors.map(formatManifestError).join('\n'));
    expect(r.objects[0]!['spec']).toMatchObject({
      failurePolicy: 'Fail',
      matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: '*' }] },
    });
    expect(r.objects[1]!['spec']).toMatchObject({ matchResources: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} } });
  });

  it('mutating webhooks with reinvocationPolicy Never', async () => {
    dir.write('m.yaml', mutatingWebhookYaml('m.static.k8s.io'));
    const r = await loadManifestDir(dir.path, 'MutatingAdmissionWebhook');
    if (!r.ok) throw new Error('load failed');
    expect((r.objects[0]!['webhooks'] as Array<Record<string, unknown>>)[0]!['reinvocationPolicy']).toBe('Never');
  });

  it('and hands out deep-frozen objects', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook');
    if (!r.ok) throw new Error('load failed');
    expect(Object.isFrozen(r.objects)).toBe(true);
    expect(Object.isFrozen((r.objects[0]!['webhooks'] as unknown[])[0])).toBe(true);
  });
});

describe('loadManifestDir uses the per-kind handlers it is given', () => {
  it('runs setDefaults before validate and reports validate errors with their field paths', async () => {
    dir.write('p.yaml', docs(vapYaml('p.static.k8s.io'), vapbYaml('b.static.k8s.io', 'p.static.k8s.io')));
    const seen: unknown[] = [];
    const handlers: ManifestKindHandlers = {
      ValidatingAdmissionPolicy: {
        setDefaults: (o) => {
          (o['spec'] as Record<string, unknown>)['matchConditions'] = [];
        },
        validate: (o) => {
          seen.push((o['spec'] as Record<string, unknown>)['matchConditions']);
          return [{ type: 'Required', field: 'spec.validations[0].message', detail: 'stand-in rule' } satisfies FieldError];
        },
      },
      ValidatingAdmissionPolicyBinding: { validate: () => [] },
    };
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionPolicy', { handlers });
    expect(seen).toEqual([[]]);
    expect(errorLines(r)).toEqual([`${dir.file('p.yaml')}: ValidatingAdmissionPolicy/p.static.k8s.io: spec.validations[0].message: Required value: stand-in rule`]);
  });
});

interface ErrorCase {
  name: string;
  plugin: ManifestPlugin;
  files: Record<string, string>;
  /** every problem (stopAtFirstError: false, what kah validate lists), one formatted line each, with $DIR for the directory */
  errors: string[];
  /** the error kube's loader returns (it stops at the first problem), with $DIR for the directory */
  kube: string;
}

const vwcJson = (metadata: string, extra = ''): string =>
  `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":${metadata}${extra}}`;

const errorCases: ErrorCase[] = [
  // ---- strict decoding
  {
    name: 'an unknown field',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io').replace('  sideEffects: None', '  sideEffects: None\n  sideEffect: None') },
    errors: ['$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: strict decoding error: unknown field "webhooks[0].sideEffect"'],
    kube: 'error loading $DIR/a.yaml: strict decoding error: unknown field "webhooks[0].sideEffect"',
  },
  {
    name: 'an unknown top-level and metadata field',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'p.yaml': vapYaml('p.static.k8s.io').replace('metadata:\n', 'metadata:\n  labelz: {}\n') + 'status2: {}\n' },
    errors: ['$DIR/p.yaml: ValidatingAdmissionPolicy/p.static.k8s.io: strict decoding error: unknown field "metadata.labelz", unknown field "status2"'],
    kube: 'error loading $DIR/p.yaml: strict decoding error: unknown field "metadata.labelz", unknown field "status2"',
  },
  {
    name: 'a duplicate key in YAML',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io').replace('  sideEffects: None', '  sideEffects: None\n  sideEffects: NoneOnDryRun') },
    errors: ['$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: strict decoding error: yaml: unmarshal errors: line 15: key "sideEffects" already set in map'],
    kube: 'error loading $DIR/a.yaml: strict decoding error: yaml: unmarshal errors: line 15: key "sideEffects" already set in map',
  },
  {
    name: 'a duplicate field in JSON',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.json': vwcJson('{"name":"a.static.k8s.io","name":"b.static.k8s.io"}') },
    errors: ['$DIR/a.json: ValidatingWebhookConfiguration/b.static.k8s.io: strict decoding error: duplicate field "metadata.name"'],
    kube: 'error loading $DIR/a.json: strict decoding error: duplicate field "metadata.name"',
  },
  {
    name: 'a value of the wrong type',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io', undefined, '  timeoutSeconds: "5"\n') },
    errors: ['$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32'],
    kube: 'error loading $DIR/a.yaml: json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32',
  },
  {
    name: 'a caBundle that is not base64',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io').replace('    url:', '    caBundle: "not*base64"\n    url:') },
    errors: ['$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: illegal base64 data at input byte 3'],
    kube: 'error loading $DIR/a.yaml: illegal base64 data at input byte 3',
  },
  {
    name: 'a document without kind',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.json': '{"apiVersion":"admissionregistration.k8s.io/v1","metadata":{"name":"a.static.k8s.io"}}' },
    errors: [`$DIR/a.json: Object 'Kind' is missing in '{"apiVersion":"admissionregistration.k8s.io/v1","metadata":{"name":"a.static.k8s.io"}}'`],
    kube: `error loading $DIR/a.json: Object 'Kind' is missing in '{"apiVersion":"admissionregistration.k8s.io/v1","metadata":{"name":"a.static.k8s.io"}}'`,
  },
  {
    name: 'a bad document separator',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': `${validatingWebhookYaml('a.static.k8s.io')}--- not a comment\n` },
    errors: ['$DIR/a.yaml: failed to split YAML documents in file "$DIR/a.yaml": invalid Yaml document separator: not a comment'],
    kube: 'failed to split YAML documents in file "$DIR/a.yaml": invalid Yaml document separator: not a comment',
  },
  // ---- kinds
  {
    name: 'a ValidatingAdmissionPolicy in a webhook directory',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'p.yaml': vapYaml('p.static.k8s.io') },
    errors: ['$DIR/p.yaml: ValidatingAdmissionPolicy/p.static.k8s.io: unsupported resource type *v1.ValidatingAdmissionPolicy'],
    kube: 'error loading $DIR/p.yaml: unsupported resource type *v1.ValidatingAdmissionPolicy',
  },
  {
    name: 'a MutatingWebhookConfiguration in the validating webhook directory',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'm.yaml': mutatingWebhookYaml('m.static.k8s.io') },
    errors: ['$DIR/m.yaml: MutatingWebhookConfiguration/m.static.k8s.io: unsupported resource type *v1.MutatingWebhookConfiguration'],
    kube: 'error loading $DIR/m.yaml: unsupported resource type *v1.MutatingWebhookConfiguration',
  },
  {
    name: 'a v1beta1 ValidatingWebhookConfiguration',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io').replace('admissionregistration.k8s.io/v1', 'admissionregistration.k8s.io/v1beta1') },
    errors: ['$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: unsupported resource type *v1beta1.ValidatingWebhookConfiguration'],
    kube: 'error loading $DIR/a.yaml: unsupported resource type *v1beta1.ValidatingWebhookConfiguration',
  },
  {
    name: 'a ConfigMap in a webhook directory',
    plugin: 'MutatingAdmissionWebhook',
    files: { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' },
    errors: ['$DIR/cm.yaml: no kind "ConfigMap" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/manifest"'],
    kube: 'error loading $DIR/cm.yaml: no kind "ConfigMap" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/manifest"',
  },
  {
    name: 'a ConfigMap in a policy directory',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' },
    errors: ['$DIR/cm.yaml: no kind "ConfigMap" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/manifest"'],
    kube: 'error loading $DIR/cm.yaml: no kind "ConfigMap" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/manifest"',
  },
  {
    name: 'a ValidatingWebhookConfiguration in a policy directory',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io') },
    errors: ['$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: unsupported resource type *v1.ValidatingWebhookConfiguration'],
    kube: 'error loading $DIR/a.yaml: unsupported resource type *v1.ValidatingWebhookConfiguration',
  },
  {
    name: 'a MutatingAdmissionPolicy in the ValidatingAdmissionPolicy directory',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'm.yaml': mapYaml('m.static.k8s.io') },
    errors: ['$DIR/m.yaml: MutatingAdmissionPolicy/m.static.k8s.io: unsupported resource type *v1.MutatingAdmissionPolicy'],
    kube: 'error loading $DIR/m.yaml: unsupported resource type *v1.MutatingAdmissionPolicy',
  },
  {
    name: 'a foreign kind inside a v1 List of a policy directory',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'l.json': JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b.static.k8s.io' } }] }) },
    errors: ['$DIR/l.json: MutatingAdmissionPolicyBinding/b.static.k8s.io: items[0]: unsupported resource type *v1.MutatingAdmissionPolicyBinding'],
    kube: 'error loading $DIR/l.json: unsupported resource type *v1.MutatingAdmissionPolicyBinding',
  },
  {
    name: 'an unregistered kind inside a v1 List',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'l.json': JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }] }) },
    errors: ['$DIR/l.json: items[0]: failed to decode list item: no kind "Secret" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/manifest"'],
    kube: 'error loading $DIR/l.json: failed to decode list item: no kind "Secret" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/manifest"',
  },
  {
    name: 'an unknown field inside a v1 List item',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'l.json': JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'a.static.k8s.io' }, spec: {} }] }) },
    errors: ['$DIR/l.json: ValidatingWebhookConfiguration/a.static.k8s.io: items[0]: failed to decode list item: strict decoding error: unknown field "spec"'],
    kube: 'error loading $DIR/l.json: failed to decode list item: strict decoding error: unknown field "spec"',
  },
  // ---- names
  {
    name: 'a name without the reserved suffix',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('deny-all') },
    errors: ['$DIR/a.yaml: ValidatingWebhookConfiguration/deny-all: metadata.name: "deny-all" in file "$DIR/a.yaml" must have a name ending with ".static.k8s.io"'],
    kube: 'error loading $DIR/a.yaml: "deny-all" in file "$DIR/a.yaml" must have a name ending with ".static.k8s.io"',
  },
  {
    name: 'no name',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'p.yaml': vapYaml('""') },
    errors: [
      '$DIR/p.yaml: ValidatingAdmissionPolicy: metadata.name: Required value: name or generateName is required',
      '$DIR/p.yaml: ValidatingAdmissionPolicy: metadata.name: resource in file "$DIR/p.yaml" must have a name',
    ],
    kube: 'error loading $DIR/p.yaml: ValidatingAdmissionPolicy "": metadata.name: Required value: name or generateName is required',
  },
  {
    name: 'a name ObjectMeta validation rejects',
    plugin: 'MutatingAdmissionWebhook',
    files: { 'm.yaml': mutatingWebhookYaml('Bad_Name.static.k8s.io') },
    errors: [
      "$DIR/m.yaml: MutatingWebhookConfiguration/Bad_Name.static.k8s.io: metadata.name: Invalid value: \"Bad_Name.static.k8s.io\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    kube: `error loading $DIR/m.yaml: MutatingWebhookConfiguration "Bad_Name.static.k8s.io": metadata.name: Invalid value: "Bad_Name.static.k8s.io": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  },
  {
    name: 'the same name twice in one type, across files',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('same.static.k8s.io'), 'b.yaml': validatingWebhookYaml('same.static.k8s.io') },
    errors: ['$DIR/b.yaml: ValidatingWebhookConfiguration/same.static.k8s.io: metadata.name: duplicate name "same.static.k8s.io" found in file "$DIR/b.yaml" (previously seen in "$DIR/a.yaml")'],
    kube: 'error loading $DIR/b.yaml: duplicate name "same.static.k8s.io" found in file "$DIR/b.yaml" (previously seen in "$DIR/a.yaml")',
  },
  {
    name: 'the same name twice in one file',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'p.yaml': docs(vapYaml('p.static.k8s.io'), vapYaml('p.static.k8s.io')) },
    errors: ['$DIR/p.yaml: ValidatingAdmissionPolicy/p.static.k8s.io: metadata.name: duplicate name "p.static.k8s.io" found in file "$DIR/p.yaml" (previously seen in "$DIR/p.yaml")'],
    kube: 'error loading $DIR/p.yaml: duplicate name "p.static.k8s.io" found in file "$DIR/p.yaml" (previously seen in "$DIR/p.yaml")',
  },
  // ---- webhooks
  {
    name: 'a webhook with a service reference',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io').replace('    url: https://127.0.0.1:9443/validate', '    service:\n      namespace: default\n      name: hook') },
    errors: [
      '$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: webhooks[0].clientConfig.service: webhook "check.example.com" in "a.static.k8s.io" (file "$DIR/a.yaml"): clientConfig.service is not supported for static manifests; use clientConfig.url instead',
    ],
    kube: 'error loading $DIR/a.yaml: webhook "check.example.com" in "a.static.k8s.io" (file "$DIR/a.yaml"): clientConfig.service is not supported for static manifests; use clientConfig.url instead',
  },
  {
    name: 'a webhook without url',
    plugin: 'MutatingAdmissionWebhook',
    files: { 'm.yaml': mutatingWebhookYaml('m.static.k8s.io').replace('    url: https://127.0.0.1:9443/mutate\n', '    caBundle: ""\n') },
    errors: [
      '$DIR/m.yaml: MutatingWebhookConfiguration/m.static.k8s.io: webhooks[0].clientConfig: Required value: exactly one of url or service is required',
      '$DIR/m.yaml: MutatingWebhookConfiguration/m.static.k8s.io: webhooks[0].clientConfig.url: webhook "mutate.example.com" in "m.static.k8s.io" (file "$DIR/m.yaml"): clientConfig.url is required for static manifests',
    ],
    kube: 'error loading $DIR/m.yaml: MutatingWebhookConfiguration "m.static.k8s.io": webhooks[0].clientConfig: Required value: exactly one of url or service is required',
  },
  {
    name: 'a webhook the REST API would refuse',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a.static.k8s.io', 'http://127.0.0.1:9443/validate').replace('sideEffects: None', 'sideEffects: Some') },
    errors: [
      '$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      "$DIR/a.yaml: ValidatingWebhookConfiguration/a.static.k8s.io: webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    ],
    kube: `error loading $DIR/a.yaml: ValidatingWebhookConfiguration "a.static.k8s.io": [webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun", webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]]`,
  },
  // ---- policies and bindings
  {
    name: 'a policy with paramKind',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'p.yaml': vapYaml('p.static.k8s.io', '  paramKind:\n    apiVersion: v1\n    kind: ConfigMap\n') },
    errors: ['$DIR/p.yaml: ValidatingAdmissionPolicy/p.static.k8s.io: spec.paramKind: ValidatingAdmissionPolicy "p.static.k8s.io": spec.paramKind is not supported for static manifests'],
    kube: 'error loading $DIR/p.yaml: ValidatingAdmissionPolicy "p.static.k8s.io": spec.paramKind is not supported for static manifests',
  },
  {
    name: 'a policy the REST API would refuse',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'p.yaml': vapYaml('p.static.k8s.io').replace('failurePolicy: Fail', 'failurePolicy: Sometimes') },
    errors: ['$DIR/p.yaml: ValidatingAdmissionPolicy/p.static.k8s.io: spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"'],
    kube: 'error loading $DIR/p.yaml: ValidatingAdmissionPolicy "p.static.k8s.io": spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
  },
  {
    name: 'a binding with paramRef',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'p.yaml': docs(vapYaml('p.static.k8s.io'), vapbYaml('b.static.k8s.io', 'p.static.k8s.io', '  paramRef:\n    name: params\n')) },
    errors: [
      '$DIR/p.yaml: ValidatingAdmissionPolicyBinding/b.static.k8s.io: spec.paramRef.parameterNotFoundAction: Required value',
      '$DIR/p.yaml: ValidatingAdmissionPolicyBinding/b.static.k8s.io: spec.paramRef: binding "b.static.k8s.io": spec.paramRef is not supported for static manifests',
    ],
    kube: 'error loading $DIR/p.yaml: ValidatingAdmissionPolicyBinding "b.static.k8s.io": spec.paramRef.parameterNotFoundAction: Required value',
  },
  {
    name: 'a binding to a policy that is not in the directory',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'b.yaml': vapbYaml('b.static.k8s.io', 'missing.static.k8s.io') },
    errors: ['$DIR/b.yaml: ValidatingAdmissionPolicyBinding/b.static.k8s.io: spec.policyName: binding "b.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory'],
    kube: 'binding "b.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory',
  },
  {
    name: 'a binding to a REST policy (no suffix)',
    plugin: 'MutatingAdmissionPolicy',
    files: { 'b.yaml': mapbYaml('b.static.k8s.io', 'rest-policy') },
    errors: [
      '$DIR/b.yaml: MutatingAdmissionPolicyBinding/b.static.k8s.io: spec.policyName: binding "b.static.k8s.io": spec.policyName "rest-policy" must end with ".static.k8s.io"',
      '$DIR/b.yaml: MutatingAdmissionPolicyBinding/b.static.k8s.io: spec.policyName: binding "b.static.k8s.io" references policy "rest-policy" which does not exist in the manifest directory',
    ],
    kube: 'error loading $DIR/b.yaml: binding "b.static.k8s.io": spec.policyName "rest-policy" must end with ".static.k8s.io"',
  },
  {
    name: 'a binding without policyName',
    plugin: 'ValidatingAdmissionPolicy',
    files: { 'b.yaml': vapbYaml('b.static.k8s.io', '""') },
    errors: [
      '$DIR/b.yaml: ValidatingAdmissionPolicyBinding/b.static.k8s.io: spec.policyName: Required value',
      '$DIR/b.yaml: ValidatingAdmissionPolicyBinding/b.static.k8s.io: spec.policyName: binding "b.static.k8s.io" must reference a policy (spec.policyName)',
    ],
    kube: 'error loading $DIR/b.yaml: ValidatingAdmissionPolicyBinding "b.static.k8s.io": spec.policyName: Required value',
  },
  {
    name: 'problems in several files, all of them',
    plugin: 'ValidatingAdmissionWebhook',
    files: { 'a.yaml': validatingWebhookYaml('a'), 'b.yaml': validatingWebhookYaml('b') },
    errors: [
      '$DIR/a.yaml: ValidatingWebhookConfiguration/a: metadata.name: "a" in file "$DIR/a.yaml" must have a name ending with ".static.k8s.io"',
      '$DIR/b.yaml: ValidatingWebhookConfiguration/b: metadata.name: "b" in file "$DIR/b.yaml" must have a name ending with ".static.k8s.io"',
    ],
    kube: 'error loading $DIR/a.yaml: "a" in file "$DIR/a.yaml" must have a name ending with ".static.k8s.io"',
  },
];

describe('loadManifestDir refuses', () => {
  it.each(errorCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    for (const [file, content] of Object.entries(c.files)) dir.write(file, content);
    expect(errorLines(await loadManifestDir(dir.path, c.plugin, { stopAtFirstError: false }))).toEqual(c.errors.map((e) => e.replaceAll('$DIR', dir.path)));
    const first = await loadManifestDir(dir.path, c.plugin);
    expect(first.ok ? 'loaded' : first.kubeError).toEqual(c.kube.replaceAll('$DIR', dir.path));
  });

  // kube's LoadManifests returns at the first failing document: nothing after it is looked at
  it('stops at the first failing file, as kube does', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a'));
    dir.write('b.yaml', validatingWebhookYaml('b'));
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook');
    expect(errorLines(r)).toEqual([`${dir.file('a.yaml')}: ValidatingWebhookConfiguration/a: metadata.name: "a" in file "${dir.file('a.yaml')}" must have a name ending with ".static.k8s.io"`]);
  });

  // manifest.LoadFiles splits every file before LoadManifests decodes any document
  it('reports a later file that cannot be split before an earlier document that cannot be decoded', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a'));
    dir.write('b.yaml', `${validatingWebhookYaml('b.static.k8s.io')}--- x\n`);
    const r = await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook');
    expect(r.ok ? 'loaded' : r.kubeError).toBe(`failed to split YAML documents in file "${dir.file('b.yaml')}": invalid Yaml document separator: x`);
  });

  it('a YAML syntax error with the line of the document', async () => {
    dir.write('a.yaml', `${validatingWebhookYaml('a.static.k8s.io')}---\nkind: [\n`);
    // yaml.v2's words; parser errors name the 0-based line of the offending token within the document.
    expect(errorLines(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'))).toEqual([`${dir.file('a.yaml')}: yaml: line 1: did not find expected node content`]);
  });

  it('a YAML syntax error worded as kube-apiserver words it', async () => {
    dir.write('a.yaml', 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: a.static.k8s.io\n  labels: team: a\n');
    expect(errorLines(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'))).toEqual([
      `${dir.file('a.yaml')}: yaml: line 5: mapping values are not allowed in this context`,
    ]);
  });

  it('a directory that does not exist', async () => {
    const missing = dir.file('nope');
    expect(errorLines(await loadManifestDir(missing, 'ValidatingAdmissionWebhook'))).toEqual([
      `${missing}: failed to read manifest directory "${missing}": open ${missing}: no such file or directory`,
    ]);
  });

  it('a manifest name that cannot be read', async () => {
    mkdirSync(dir.file('real-dir'));
    symlinkSync(dir.file('real-dir'), dir.file('linked.yaml'));
    const file = dir.file('linked.yaml');
    expect(errorLines(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'))).toEqual([`${file}: failed to read file "${file}": read ${file}: is a directory`]);
  });

  it('with every error on one line', async () => {
    dir.write('a.yaml', `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: a\n  name: b\nwebhooks:\n- name: x\n  name: y\n`);
    const lines = errorLines(await loadManifestDir(dir.path, 'ValidatingAdmissionWebhook'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain('\n');
  });
});

describe('formatManifestError', () => {
  it.each<[ManifestError, string]>([
    [{ file: '/d/a.yaml', kind: 'ValidatingAdmissionPolicy', name: 'p.static.k8s.io', field: 'spec.paramKind', reason: 'nope' }, '/d/a.yaml: ValidatingAdmissionPolicy/p.static.k8s.io: spec.paramKind: nope'],
    [{ file: '/d/a.yaml', kind: 'ValidatingAdmissionPolicy', reason: 'nope' }, '/d/a.yaml: ValidatingAdmissionPolicy: nope'],
    [{ file: '/d', reason: 'cannot read' }, '/d: cannot read'],
  ])('%j → %s', (e, line) => {
    expect(formatManifestError(e)).toBe(line);
  });
});
