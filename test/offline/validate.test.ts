// `kah validate`: kube-apiserver's startup checks of the admission configuration without serving. Its error output
// is compared with what a real `kah serve` prints when it refuses to start on the same files, so the two cannot drift.
import { runCli } from '../../harness/cli.js';
import { expectStartupFailure } from '../../harness/startup-failure.js';
import { loadManifestDir } from '../../server/admission/manifest/load.js';
import { admissionConfiguration, binding, defaultFlagsWarning, gateOn, maxReplicasPolicy, TempDir } from './support.js';
import { captureCliIO as capture } from '../support/cli.js';

let tmp: TempDir;
beforeEach(() => {
  tmp = new TempDir();
});
afterEach(() => tmp.cleanup());

const webhookConfiguration = (name: string, hookNames: string[]) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks: hookNames.map((n) => ({
    name: n,
    clientConfig: { url: 'https://127.0.0.1:9443/validate' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  })),
});

async function validate(...args: string[]) {
  const io = capture();
  const code = await runCli(['validate', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** Writes a policy directory and a config naming it; returns the config file. */
function policyDirConfig(files: Record<string, string | object | object[]>): string {
  const dir = tmp.dir('policies');
  for (const [name, content] of Object.entries(files)) tmp.write(`policies/${name}`, content);
  return tmp.write('admission.yaml', admissionConfiguration({ ValidatingAdmissionPolicy: dir }));
}

/** The same flags to `kah serve`: it must refuse to start, and print exactly what `kah validate` printed. */
async function expectSameAsStartup(flags: string[], validateErr: string): Promise<void> {
  const failed = await expectStartupFailure({ storage: 'memory', flags });
  expect(failed.exitCode).toBe(1);
  expect(validateErr).toBe(failed.stderr);
}

describe('kah validate', () => {
  it('prints what would load — counts per plugin, names, hashes, in the file’s plugin order — and exits 0 for a valid configuration', async () => {
    const policies = tmp.dir('policies');
    const webhooks = tmp.dir('webhooks');
    tmp.write('policies/replicas.yaml', [maxReplicasPolicy('max-replicas.static.k8s.io', 3), binding('ValidatingAdmissionPolicyBinding', 'max-replicas-binding.static.k8s.io', 'max-replicas.static.k8s.io')]);
    tmp.write('webhooks/guard.yaml', webhookConfiguration('guard.static.k8s.io', ['a.example.com', 'b.example.com']));
    const config = tmp.write('admission.yaml', admissionConfiguration({ ValidatingAdmissionPolicy: policies, ValidatingAdmissionWebhook: webhooks }));

    const r = await validate(`--admission-control-config-file=${config}`, gateOn);
    expect(r.err).toBe(defaultFlagsWarning);
    expect(r.code).toBe(0);
    const policyHash = await loadManifestDir(policies, 'ValidatingAdmissionPolicy');
    const webhookHash = await loadManifestDir(webhooks, 'ValidatingAdmissionWebhook');
    if (!policyHash.ok || !webhookHash.ok) throw new Error('fixture did not load');
    expect(r.out.split('\n')).toEqual([
      `${config}: valid`,
      `  ValidatingAdmissionPolicy: staticManifestsDir ${policies}: 1 policies, 1 bindings (hash ${policyHash.hash})`,
      '    ValidatingAdmissionPolicy/max-replicas.static.k8s.io',
      '    ValidatingAdmissionPolicyBinding/max-replicas-binding.static.k8s.io',
      `  ValidatingAdmissionWebhook: staticManifestsDir ${webhooks}: 1 configurations, 2 webhooks (hash ${webhookHash.hash})`,
      '    ValidatingWebhookConfiguration/guard.static.k8s.io (webhooks: a.example.com, b.example.com)',
      '',
    ]);
    expect(policyHash.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('prints no flag warning when anonymous authentication is already off under AlwaysAllow', async () => {
    const config = policyDirConfig({ 'p.yaml': [maxReplicasPolicy('p.static.k8s.io', 3)] });
    const r = await validate(`--admission-control-config-file=${config}`, gateOn, '--anonymous-auth=false');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
  });

  it('gives the same summary as JSON with -o json', async () => {
    const config = policyDirConfig({ 'p.yaml': [maxReplicasPolicy('p.static.k8s.io', 3), binding('ValidatingAdmissionPolicyBinding', 'b.static.k8s.io', 'p.static.k8s.io')] });
    const r = await validate(`--admission-control-config-file=${config}`, gateOn, '-o', 'json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { valid: boolean; plugins: Array<{ plugin: string; counts: Record<string, number>; objects: Array<{ kind: string; name: string }> }> };
    expect(json.valid).toBe(true);
    expect(json.plugins).toEqual([
      expect.objectContaining({
        plugin: 'ValidatingAdmissionPolicy',
        counts: { policies: 1, bindings: 1 },
        objects: [
          { kind: 'ValidatingAdmissionPolicy', name: 'p.static.k8s.io' },
          { kind: 'ValidatingAdmissionPolicyBinding', name: 'b.static.k8s.io' },
        ],
      }),
    ]);
  });

  it('reports an unknown field exactly as startup does, and exits 1', async () => {
    const policy = maxReplicasPolicy('p.static.k8s.io', 3) as { spec: Record<string, unknown> };
    policy.spec['failurePolicyy'] = 'Fail';
    const config = policyDirConfig({ 'p.yaml': policy });
    const flags = [`--admission-control-config-file=${config}`, gateOn];
    const r = await validate(...flags);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `${defaultFlagsWarning}Error: failed to initialize admission plugin "ValidatingAdmissionPolicy": failed to load static policy manifests from "${tmp.path}/policies": error loading ${tmp.path}/policies/p.yaml: strict decoding error: unknown field "spec.failurePolicyy"\n`,
    );
    await expectSameAsStartup(flags, r.err);
  });

  it('reports a name defined in two files exactly as startup does', async () => {
    const config = policyDirConfig({
      'a.yaml': maxReplicasPolicy('p.static.k8s.io', 3),
      'b.yaml': [maxReplicasPolicy('p.static.k8s.io', 4), binding('ValidatingAdmissionPolicyBinding', 'b.static.k8s.io', 'p.static.k8s.io')],
    });
    const flags = [`--admission-control-config-file=${config}`, gateOn];
    const r = await validate(...flags);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`error loading ${tmp.path}/policies/b.yaml: duplicate name "p.static.k8s.io" found in file "${tmp.path}/policies/b.yaml" (previously seen in "${tmp.path}/policies/a.yaml")`);
    await expectSameAsStartup(flags, r.err);
  });

  it('reports staticManifestsDir without the feature gate exactly as startup does', async () => {
    const config = policyDirConfig({ 'p.yaml': maxReplicasPolicy('p.static.k8s.io', 3) });
    const flags = [`--admission-control-config-file=${config}`];
    const r = await validate(...flags);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `${defaultFlagsWarning}Error: ${config}: couldn't init admission plugin "ValidatingAdmissionPolicy": staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled\n`,
    );
    await expectSameAsStartup(flags, r.err);
  });

  it('reports a relative staticManifestsDir exactly as startup does', async () => {
    const config = tmp.write('admission.yaml', admissionConfiguration({ ValidatingAdmissionWebhook: 'relative/webhooks' }));
    const flags = [`--admission-control-config-file=${config}`, gateOn];
    const r = await validate(...flags);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`${defaultFlagsWarning}Error: ${config}: couldn't init admission plugin "ValidatingAdmissionWebhook": staticManifestsDir: Invalid value: "relative/webhooks": must be an absolute file path\n`);
    await expectSameAsStartup(flags, r.err);
  });

  it('prints kube\'s first problem as startup does, then every other one marked as beyond kube, one line each', async () => {
    const config = policyDirConfig({
      'a-broken.yaml': 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: [unclosed\n',
      'b-plain.yaml': maxReplicasPolicy('plain-name', 3),
    });
    const r = await validate(`--admission-control-config-file=${config}`, gateOn);
    expect(r.code).toBe(1);
    const lines = r.err.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(`${lines[0]}\n`).toBe(defaultFlagsWarning);
    expect(lines[1]).toBe(
      `Error: failed to initialize admission plugin "ValidatingAdmissionPolicy": failed to load static policy manifests from "${tmp.path}/policies": error loading ${tmp.path}/policies/a-broken.yaml: yaml: line 3: did not find expected ',' or ']'`,
    );
    expect(lines[2]).toBe(
      `Error: (beyond kube-apiserver, which stops at the first problem) ${tmp.path}/policies/b-plain.yaml: ValidatingAdmissionPolicy/plain-name: metadata.name: "plain-name" in file "${tmp.path}/policies/b-plain.yaml" must have a name ending with ".static.k8s.io"`,
    );
  });

  it('exits 1 with the server’s text on an unknown flag, and 2 without a configuration file', async () => {
    const bad = await validate('--no-such-flag');
    expect(bad.code).toBe(1);
    expect(bad.err).toBe('Error: unknown flag: --no-such-flag\n');
    const none = await validate(gateOn);
    expect(none.code).toBe(2);
    expect(none.err).toContain('--admission-control-config-file is required');
    expect(none.err).toContain('usage: kah validate');
  });
});

describe('kah validate warns, beyond kube-apiserver, about plugins entries kube ignores', () => {
  it('names a misspelled plugin, a repeated one and a disabled one; the file stays valid, as kube reads past them', async () => {
    const policies = tmp.dir('policies');
    tmp.write('policies/p.yaml', [maxReplicasPolicy('p.static.k8s.io', 3)]);
    const policyConfig = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ValidatingAdmissionPolicyConfiguration', staticManifestsDir: policies };
    const config = tmp.write('admission.yaml', {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        { name: 'ValidatingAdmissionPolicy', configuration: policyConfig },
        { name: 'ValidatingAdmissionWebhok', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration' } },
        { name: 'ValidatingAdmissionPolicy', configuration: policyConfig },
        { name: 'AlwaysPullImages', path: 'pull.yaml' },
      ],
    });
    const r = await validate(`--admission-control-config-file=${config}`, gateOn, '--anonymous-auth=false', '-o', 'json');
    expect(r.code).toBe(0);
    const beyond = 'Warning (beyond kube-apiserver, which ignores this silently)';
    const expected = [
      `${beyond}: ${config}: plugins[1].name: "ValidatingAdmissionWebhok" is not an admission plugin: its configuration is ignored (did you mean "ValidatingAdmissionWebhook"?)`,
      `${beyond}: ${config}: plugins[2].name: "ValidatingAdmissionPolicy" is configured again: only the first entry, plugins[0], is read and this one is ignored`,
      `${beyond}: ${config}: plugins[3].name: "AlwaysPullImages" is not enabled (--enable-admission-plugins, --disable-admission-plugins): its configuration is ignored`,
    ];
    expect(r.err).toBe(`${expected.join('\n')}\n`);
    const json = JSON.parse(r.out) as { valid: boolean; warnings: string[] };
    expect(json.valid).toBe(true);
    expect(json.warnings).toEqual(expected);

    // A real server starts on the same file without a word about them: these warnings go beyond kube.
    const { startApiServer } = await import('../../harness/apiserver-process.js');
    const server = await startApiServer({ storage: 'memory', flags: [`--admission-control-config-file=${config}`, gateOn, '--anonymous-auth=false'] });
    try {
      expect(server.stderr()).not.toContain('ValidatingAdmissionWebhok');
    } finally {
      await server.cleanup();
    }
  });

  it('says nothing when every entry is read', async () => {
    const config = policyDirConfig({ 'p.yaml': [maxReplicasPolicy('p.static.k8s.io', 3)] });
    const r = await validate(`--admission-control-config-file=${config}`, gateOn, '--enable-admission-plugins=AlwaysPullImages', '--anonymous-auth=false');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
  });
});
