import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadAdmissionConfiguration, validateStaticManifestsDir, type AdmissionConfig } from './admission-config.js';
import { defaultFeatureGates, parseFeatureGates, type FeatureGates } from './feature-gates.js';

let dir: string;
let caseNo = 0;
let gateOn: FeatureGates;
const gateOff = defaultFeatureGates();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kah-admission-config-'));
  // Shared fixtures: two manifest directories and a regular file where a directory is expected.
  await mkdir(join(dir, 'manifests', 'vwh'), { recursive: true });
  await mkdir(join(dir, 'manifests', 'mwh'), { recursive: true });
  await mkdir(join(dir, 'manifests', 'vap'), { recursive: true });
  await mkdir(join(dir, 'manifests', 'map'), { recursive: true });
  await writeFile(join(dir, 'manifests', 'a-file.yaml'), '');
  const r = parseFeatureGates('ManifestBasedAdmissionControlConfig=true');
  if (!r.ok) throw new Error(r.error);
  gateOn = r.gates;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes the files of one case under a fresh directory; `{dir}` in contents is the shared fixture directory. */
async function writeCase(files: Record<string, string>): Promise<string> {
  const caseDir = join(dir, `case-${++caseNo}`);
  for (const [name, content] of Object.entries(files)) {
    const p = join(caseDir, name);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, content.replaceAll('{dir}', dir));
  }
  return caseDir;
}

async function load(files: Record<string, string>, gates: FeatureGates, enabledPlugins?: string[]) {
  const caseDir = await writeCase(files);
  const file = join(caseDir, Object.keys(files)[0]!);
  const r = await loadAdmissionConfiguration(file, gates, enabledPlugins ? { enabledPlugins } : {});
  return { r, caseDir, file };
}

async function loadOk(files: Record<string, string>, gates: FeatureGates = gateOn, enabledPlugins?: string[]): Promise<{ config: AdmissionConfig; caseDir: string }> {
  const { r, caseDir } = await load(files, gates, enabledPlugins);
  if (!r.ok) throw new Error(`expected ok, got:\n${r.errors.join('\n')}`);
  return { config: r.config, caseDir };
}

async function loadErrors(files: Record<string, string>, gates: FeatureGates = gateOn): Promise<string[]> {
  const { r, caseDir } = await load(files, gates);
  if (r.ok) throw new Error('expected errors');
  return r.errors.map((e) => e.replaceAll(caseDir, '{case}').replaceAll(dir, '{dir}'));
}

const v1 = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n';
const webhookConf = (fields: string) => `    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n${fields}`;
const plugin = (name: string, configuration: string) => `- name: ${name}\n  configuration:\n${configuration}`;
const vwh = (fields: string) => `${v1}plugins:\n${plugin('ValidatingAdmissionWebhook', webhookConf(fields))}`;
const vap = (kind: string, fields: string) =>
  `${v1}plugins:\n${plugin('ValidatingAdmissionPolicy', `    apiVersion: apiserver.config.k8s.io/v1\n    kind: ${kind}\n${fields}`)}`;

describe('loadAdmissionConfiguration: accepted files', () => {
  it('reads all four dynamic plugins inline, with staticManifestsDir and kubeConfigFile (apiserver.config.k8s.io/v1)', async () => {
    const { config, caseDir } = await loadOk({
      'ac.yaml': `${v1}plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: /etc/kubernetes/webhook-kubeconfig.yaml
    staticManifestsDir: {dir}/manifests/vwh
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    staticManifestsDir: {dir}/manifests/mwh
- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: {dir}/manifests/vap
- name: MutatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: MutatingAdmissionPolicyConfiguration
    staticManifestsDir: {dir}/manifests/map
`,
    });
    expect(config).toEqual({
      path: join(caseDir, 'ac.yaml'),
      plugins: {
        ValidatingAdmissionWebhook: { kubeConfigFile: '/etc/kubernetes/webhook-kubeconfig.yaml', staticManifestsDir: join(dir, 'manifests/vwh') },
        MutatingAdmissionWebhook: { staticManifestsDir: join(dir, 'manifests/mwh') },
        ValidatingAdmissionPolicy: { staticManifestsDir: join(dir, 'manifests/vap') },
        MutatingAdmissionPolicy: { staticManifestsDir: join(dir, 'manifests/map') },
      },
      other: {},
      entryNames: ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'],
    });
  });

  it('hands out a frozen configuration', async () => {
    const { config } = await loadOk({ 'ac.yaml': vwh('    kubeConfigFile: /kc\n') });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.plugins)).toBe(true);
    expect(Object.isFrozen(config.plugins.ValidatingAdmissionWebhook)).toBe(true);
    expect(Object.isFrozen(config.other)).toBe(true);
  });

  it.each<[string, Record<string, string>, Partial<AdmissionConfig['plugins']>]>([
    [
      'the apiserver.k8s.io/v1alpha1 AdmissionConfiguration',
      { 'ac.yaml': `apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins:\n${plugin('ValidatingAdmissionWebhook', webhookConf('    staticManifestsDir: {dir}/manifests/vwh\n'))}` },
      { ValidatingAdmissionWebhook: { staticManifestsDir: '{dir}/manifests/vwh' } },
    ],
    [
      'a JSON file',
      {
        'ac.json': JSON.stringify({
          apiVersion: 'apiserver.config.k8s.io/v1',
          kind: 'AdmissionConfiguration',
          plugins: [{ name: 'MutatingAdmissionPolicy', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'MutatingAdmissionPolicyConfiguration', staticManifestsDir: '{dir}/manifests/map' } }],
        }),
      },
      { MutatingAdmissionPolicy: { staticManifestsDir: '{dir}/manifests/map' } },
    ],
    [
      'a relative plugin path, resolved against the configuration file directory',
      {
        'conf/ac.yaml': `${v1}plugins:\n- name: ValidatingAdmissionPolicy\n  path: policies/vap.yaml\n`,
        'conf/policies/vap.yaml': 'apiVersion: apiserver.config.k8s.io/v1\nkind: ValidatingAdmissionPolicyConfiguration\nstaticManifestsDir: {dir}/manifests/vap\n',
      },
      { ValidatingAdmissionPolicy: { staticManifestsDir: '{dir}/manifests/vap' } },
    ],
    [
      'a JSON plugin file by path',
      {
        'ac.yaml': `${v1}plugins:\n- name: MutatingAdmissionWebhook\n  path: mwh.json\n`,
        'mwh.json': '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmissionConfiguration","kubeConfigFile":"/kc"}',
      },
      { MutatingAdmissionWebhook: { kubeConfigFile: '/kc' } },
    ],
    [
      'inline configuration over path, as kube prefers it',
      { 'ac.yaml': `${v1}plugins:\n- name: ValidatingAdmissionWebhook\n  path: does-not-exist.yaml\n  configuration:\n${webhookConf('    kubeConfigFile: /inline\n')}` },
      { ValidatingAdmissionWebhook: { kubeConfigFile: '/inline' } },
    ],
    ['a plugin entry without configuration', { 'ac.yaml': `${v1}plugins:\n- name: ValidatingAdmissionPolicy\n` }, { ValidatingAdmissionPolicy: {} }],
    ['an empty staticManifestsDir with the gate off', { 'ac.yaml': vwh('    staticManifestsDir: ""\n') }, { ValidatingAdmissionWebhook: {} }],
    [
      'the first of two entries for one plugin, as ConfigFor picks it',
      { 'ac.yaml': `${vwh('    kubeConfigFile: /first\n')}${plugin('ValidatingAdmissionWebhook', webhookConf('    kubeConfigFile: relative-but-ignored\n'))}` },
      { ValidatingAdmissionWebhook: { kubeConfigFile: '/first' } },
    ],
    [
      'YAML 1.1 scalars as sigs.k8s.io/yaml reads them (quoted paths stay strings)',
      { 'ac.yaml': vwh("    kubeConfigFile: '/yes'\n") },
      { ValidatingAdmissionWebhook: { kubeConfigFile: '/yes' } },
    ],
  ])('accepts %s', async (_name, files, expected) => {
    const { config } = await loadOk(files, _name.includes('gate off') ? gateOff : gateOn);
    expect(config.plugins).toEqual(JSON.parse(JSON.stringify(expected).replaceAll('{dir}', dir)));
  });

  it("keeps other plugins' entries raw, with paths made absolute", async () => {
    const { config, caseDir } = await loadOk({
      'ac.yaml': `${v1}plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: baseline}
- name: EventRateLimit
  path: eventconfig.yaml
`,
    });
    expect(config.other).toEqual({
      PodSecurity: { configuration: { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline' } } },
      EventRateLimit: { path: join(caseDir, 'eventconfig.yaml') },
    });
    expect(config.plugins).toEqual({});
  });

  it('keeps keys such as __proto__ as plain data', async () => {
    const { config } = await loadOk({
      'ac.json': '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration","plugins":[{"name":"__proto__","configuration":{"__proto__":{"polluted":true}}}]}',
    });
    expect(Object.keys(config.other)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(config.other)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(config.other)).toBe('{"__proto__":{"configuration":{"__proto__":{"polluted":true}}}}');
  });

  it('returns an empty configuration for no file, as ReadAdmissionConfiguration does', async () => {
    expect(await loadAdmissionConfiguration('', gateOn)).toEqual({ ok: true, config: { path: '', plugins: {}, other: {}, entryNames: [] } });
  });

  it('does not read the configuration of a disabled plugin, as kube only reads enabled ones', async () => {
    const { config } = await loadOk({ 'ac.yaml': vwh('    kubeConfigFile: relative\n') }, gateOn, ['NamespaceLifecycle', 'MutatingAdmissionWebhook']);
    expect(config.plugins).toEqual({});
  });

  it('accepts the legacy (pre-AdmissionConfiguration) ImagePolicyWebhook file as that plugin’s configuration', async () => {
    const { config, caseDir } = await loadOk({ 'legacy.yaml': 'imagePolicy:\n  kubeConfigFile: /kc\n  allowTTL: 50\n' }, gateOn, ['NamespaceLifecycle', 'ImagePolicyWebhook']);
    expect(config.other).toEqual({ ImagePolicyWebhook: { path: join(caseDir, 'legacy.yaml') } });
  });
});

describe('loadAdmissionConfiguration: errors, with kube-apiserver texts', () => {
  it.each<[string, Record<string, string>, string[]]>([
    // --- the AdmissionConfiguration file itself
    ['an unknown field', { 'ac.yaml': `${v1}plugins:\n- name: ValidatingAdmissionPolicy\n  zzz: 1\n  paths: x\n` }, ['{case}/ac.yaml: strict decoding error: unknown field "plugins[0].paths", unknown field "plugins[0].zzz"']],
    ['an unknown top-level field', { 'ac.yaml': `${v1}metadata:\n  name: x\nplugins: []\n` }, ['{case}/ac.yaml: strict decoding error: unknown field "metadata"']],
    [
      'a duplicate key (YAML), reported at the line of the value, nested ones too',
      { 'ac.yaml': `${v1}plugins:\n- name: A\n  name: B\n  configuration:\n    kind: X\n    kind: Y\n` },
      ['{case}/ac.yaml: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map\n  line 8: key "kind" already set in map'],
    ],
    [
      'a duplicate field (JSON), with its path',
      { 'ac.json': '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration","plugins":[{"name":"A","name":"B","foo":1}]}' },
      ['{case}/ac.json: strict decoding error: duplicate field "plugins[0].name", unknown field "plugins[0].foo"'],
    ],
    ['an AdmissionConfiguration version kube does not have', { 'ac.yaml': 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AdmissionConfiguration\n' }, ['{case}/ac.yaml: no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/server/options/admission.go"']],
    ['a file without kind (not the legacy format)', { 'ac.yaml': 'apiVersion: apiserver.config.k8s.io/v1\nplugins: []\n' }, ["{case}/ac.yaml: Object 'Kind' is missing in 'apiVersion: apiserver.config.k8s.io/v1\nplugins: []\n'"]],
    ['an empty file', { 'ac.yaml': '' }, ["{case}/ac.yaml: Object 'Kind' is missing in ''"]],
    ['a kind that names an Object.prototype member', { 'ac.yaml': 'apiVersion: apiserver.config.k8s.io/v1\nkind: toString\n' }, ['{case}/ac.yaml: no kind "toString" is registered for version "apiserver.config.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/server/options/admission.go"']],
    ['a wrongly typed field', { 'ac.yaml': `${v1}plugins: all\n` }, ['{case}/ac.yaml: json: cannot unmarshal string into Go struct field AdmissionConfiguration.plugins of type []v1.AdmissionPluginConfiguration']],
    ['a wrongly typed plugin name', { 'ac.yaml': `${v1}plugins:\n- name: 3\n` }, ['{case}/ac.yaml: json: cannot unmarshal number into Go struct field AdmissionPluginConfiguration.plugins.name of type string']],
    ['a non-object document', { 'ac.yaml': '- a\n- b\n' }, ['{case}/ac.yaml: couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }']],
    [
      'unknown fields of a YAML plugin file, in the sorted order of the JSON kube converts it to',
      { 'ac.yaml': `${v1}plugins:\n- name: ValidatingAdmissionWebhook\n  path: vwh.yaml\n`, 'vwh.yaml': 'kind: WebhookAdmissionConfiguration\nzeta: 1\napiVersion: apiserver.config.k8s.io/v1\nalpha: 2\n' },
      ['{case}/vwh.yaml: couldn\'t init admission plugin "ValidatingAdmissionWebhook": strict decoding error: unknown field "alpha", unknown field "zeta"'],
    ],
    ['a missing plugin file', { 'ac.yaml': `${v1}plugins:\n- name: ValidatingAdmissionPolicy\n  path: nope.yaml\n` }, ["{case}/ac.yaml: Couldn't open admission plugin configuration {case}/nope.yaml: open {case}/nope.yaml: no such file or directory"]],

    // --- WebhookAdmissionConfiguration
    ['a relative kubeConfigFile', { 'ac.yaml': vwh('    kubeConfigFile: kubeconfig.yaml\n') }, ['{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionWebhook": kubeConfigFile: Invalid value: "kubeconfig.yaml": must be an absolute file path']],
    ['an unknown field in the webhook configuration', { 'ac.yaml': vwh('    kubeconfigFile: /kc\n') }, ['{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionWebhook": strict decoding error: unknown field "kubeconfigFile"']],
    [
      'a duplicate field in a JSON webhook configuration',
      { 'ac.json': '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration","plugins":[{"name":"MutatingAdmissionWebhook","configuration":{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmissionConfiguration","kubeConfigFile":"/a","kubeConfigFile":"/b"}}]}' },
      ['{case}/ac.json: couldn\'t init admission plugin "MutatingAdmissionWebhook": strict decoding error: duplicate field "kubeConfigFile"'],
    ],
    [
      'the v1alpha1 WebhookAdmission that Kubernetes 1.36 removed',
      { 'ac.yaml': `${v1}plugins:\n${plugin('ValidatingAdmissionWebhook', '    apiVersion: apiserver.config.k8s.io/v1alpha1\n    kind: WebhookAdmission\n    kubeConfigFile: /kc\n')}` },
      ['{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionWebhook": no kind "WebhookAdmission" is registered for version "apiserver.config.k8s.io/v1alpha1" in scheme "k8s.io/apiserver/pkg/admission/plugin/webhook/config/config.go" (apiserver.config.k8s.io/v1alpha1 WebhookAdmission was removed in Kubernetes 1.36: use apiVersion apiserver.config.k8s.io/v1, kind WebhookAdmissionConfiguration)'],
    ],
    [
      'a policy configuration kind for a webhook plugin',
      { 'ac.yaml': `${v1}plugins:\n${plugin('MutatingAdmissionWebhook', '    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n')}` },
      ['{case}/ac.yaml: couldn\'t init admission plugin "MutatingAdmissionWebhook": no kind "ValidatingAdmissionPolicyConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/webhook/config/config.go"'],
    ],
    [
      'an inline configuration without kind (the raw JSON kube hands the plugin)',
      { 'ac.yaml': `${v1}plugins:\n${plugin('ValidatingAdmissionWebhook', '    staticManifestsDir: /x\n    apiVersion: apiserver.config.k8s.io/v1\n')}` },
      ['{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionWebhook": Object \'Kind\' is missing in \'{"apiVersion":"apiserver.config.k8s.io/v1","staticManifestsDir":"/x"}\''],
    ],

    // --- policy configurations
    ['the mutating policy kind for ValidatingAdmissionPolicy', { 'ac.yaml': vap('MutatingAdmissionPolicyConfiguration', '') }, ['{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionPolicy": unexpected type: *policyconfig.MutatingAdmissionPolicyConfiguration']],
    ['the webhook kind for ValidatingAdmissionPolicy', { 'ac.yaml': vap('WebhookAdmissionConfiguration', '') }, ['{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionPolicy": no kind "WebhookAdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/policy/config/config.go"']],
    ['a field policies do not have', { 'ac.yaml': vap('ValidatingAdmissionPolicyConfiguration', '    kubeConfigFile: /kc\n') }, ['{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionPolicy": strict decoding error: unknown field "kubeConfigFile"']],
    [
      'an error in a plugin file named by path, reported against that file',
      { 'ac.yaml': `${v1}plugins:\n- name: MutatingAdmissionPolicy\n  path: map.yaml\n`, 'map.yaml': 'apiVersion: apiserver.config.k8s.io/v1\nkind: MutatingAdmissionPolicyConfiguration\nstaticManifestsDir: rel\n' },
      ['{case}/map.yaml: couldn\'t init admission plugin "MutatingAdmissionPolicy": staticManifestsDir: Invalid value: "rel": must be an absolute file path'],
    ],
    [
      'every plugin in error at once',
      { 'ac.yaml': `${vwh('    kubeConfigFile: kc\n    staticManifestsDir: rel\n')}${plugin('ValidatingAdmissionPolicy', '    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: {dir}/nope\n')}` },
      [
        '{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionWebhook": kubeConfigFile: Invalid value: "kc": must be an absolute file path',
        '{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionWebhook": staticManifestsDir: Invalid value: "rel": must be an absolute file path',
        '{case}/ac.yaml: couldn\'t init admission plugin "ValidatingAdmissionPolicy": staticManifestsDir: Invalid value: "{dir}/nope": unable to read: stat {dir}/nope: no such file or directory',
      ],
    ],
  ])('reports %s', async (_name, files, expected) => {
    expect(await loadErrors(files)).toEqual(expected);
  });

  it('reports a missing file as ReadAdmissionConfiguration does', async () => {
    const missing = join(dir, 'missing.yaml');
    expect(await loadAdmissionConfiguration(missing, gateOn)).toEqual({
      ok: false,
      errors: [`unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`],
    });
  });

  it('reports YAML syntax errors with a line', async () => {
    const errs = await loadErrors({ 'ac.yaml': `${v1}plugins:\n- name: a: b\n` });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^\{case\}\/ac\.yaml: yaml: line 4: /u);
  });
});

describe('staticManifestsDir (KEP-5793), for every plugin kind, gate on and off', () => {
  const forbidden = 'staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled';
  const kinds: Array<[string, string]> = [
    ['ValidatingAdmissionWebhook', 'WebhookAdmissionConfiguration'],
    ['MutatingAdmissionWebhook', 'WebhookAdmissionConfiguration'],
    ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyConfiguration'],
    ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyConfiguration'],
  ];
  const cases: Array<[string, string, 'on' | 'off', string | undefined]> = [
    ['an existing directory', '{dir}/manifests/vwh', 'on', undefined],
    ['an existing directory with the gate off', '{dir}/manifests/vwh', 'off', forbidden],
    ['a relative path with the gate off (the gate is checked first)', 'manifests/vwh', 'off', forbidden],
    ['a relative path', 'manifests/vwh', 'on', 'staticManifestsDir: Invalid value: "manifests/vwh": must be an absolute file path'],
    ['a missing directory', '{dir}/manifests/missing', 'on', 'staticManifestsDir: Invalid value: "{dir}/manifests/missing": unable to read: stat {dir}/manifests/missing: no such file or directory'],
    ['a regular file', '{dir}/manifests/a-file.yaml', 'on', 'staticManifestsDir: Invalid value: "{dir}/manifests/a-file.yaml": must be a directory'],
    ['a path through a regular file', '{dir}/manifests/a-file.yaml/sub', 'on', 'staticManifestsDir: Invalid value: "{dir}/manifests/a-file.yaml/sub": unable to read: stat {dir}/manifests/a-file.yaml/sub: not a directory'],
  ];
  const table = kinds.flatMap(([pluginName, kind]) => cases.map(([what, value, gate, err]) => [pluginName, kind, what, value, gate, err] as const));

  it.each(table)('%s (%s): %s (%s), gate %s', async (pluginName, kind, _what, value, gate, err) => {
    const files = { 'ac.yaml': `${v1}plugins:\n${plugin(pluginName, `    apiVersion: apiserver.config.k8s.io/v1\n    kind: ${kind}\n    staticManifestsDir: ${value}\n`)}` };
    const gates = gate === 'on' ? gateOn : gateOff;
    if (err === undefined) {
      const { config } = await loadOk(files, gates);
      expect(config.plugins).toEqual({ [pluginName]: { staticManifestsDir: value.replaceAll('{dir}', dir) } });
    } else {
      expect(await loadErrors(files, gates)).toEqual([`{case}/ac.yaml: couldn't init admission plugin "${pluginName}": ${err}`]);
    }
  });

  it('validateStaticManifestsDir accepts an empty value whatever the gate', async () => {
    expect(await validateStaticManifestsDir('', gateOff)).toEqual([]);
    expect(await validateStaticManifestsDir(undefined, gateOn)).toEqual([]);
  });
});
