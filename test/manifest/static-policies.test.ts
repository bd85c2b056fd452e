// KEP-5793 for ValidatingAdmissionPolicy, end to end: kube-apiserver's TestStaticPolicyBlocksAPICreation and the
// subtests of TestStaticPolicyComprehensive (test/integration/apiserver/cel/static_policy_test.go), startup failures,
// and enforcement while etcd is down.
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { expectStartupFailure } from '../../harness/startup-failure.js';
import { api, vwcPath } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'kah-static-vap-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const group = 'admissionregistration.k8s.io';
function policy(name: string, expression: string, resources = ['configmaps'], apiGroups = [''], operations = ['CREATE']) {
  return {
    apiVersion: `${group}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups, apiVersions: ['*'], resources, operations }] },
      validations: [{ expression, message: `denied by ${name}` }],
    },
  };
}
const binding = (name: string, policyName: string) => ({ apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: ['Deny'] } });

function writeManifest(dir: string, file: string, objects: object[]): void {
  const tmp = path.join(dir, `.${file}.tmp`);
  writeFileSync(tmp, objects.map((o) => stringify(o)).join('---\n'));
  renameSync(tmp, path.join(dir, file));
}

async function reloads(server: ApiServerHandle, status: 'success' | 'failure'): Promise<number> {
  const m = (await server.request('/metrics')).body;
  const line = m.split('\n').find((l) => l.startsWith('apiserver_manifest_admission_config_controller_automatic_reloads_total{') && l.includes('plugin="ValidatingAdmissionPolicy"') && l.includes(`status="${status}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const createCm = (server: ApiServerHandle, name: string, labels: Record<string, string> = {}, query = '') => api(server, 'POST', `/api/v1/namespaces/default/configmaps${query}`, { metadata: { name, labels } });

describe('static policies (TestStaticPolicyComprehensive)', () => {
  let dir: string;
  let server: ApiServerHandle;

  beforeAll(async () => {
    dir = path.join(root, 'comprehensive');
    mkdirSync(dir);
    writeManifest(dir, 'a-startup.yaml', [policy('no-bad.static.k8s.io', '!has(object.metadata.labels) || !("bad" in object.metadata.labels)'), binding('no-bad-binding.static.k8s.io', 'no-bad.static.k8s.io')]);
    writeManifest(dir, 'b-list.yaml', [{ apiVersion: 'v1', kind: 'List', items: [policy('no-ugly.static.k8s.io', '!has(object.metadata.labels) || !("ugly" in object.metadata.labels)'), binding('no-ugly-binding.static.k8s.io', 'no-ugly.static.k8s.io')] }]);
    writeManifest(dir, 'c-protect.yaml', [
      policy('protect.static.k8s.io', '!has(oldObject.metadata.labels) || oldObject.metadata.labels.?protected.orValue("") != "true"', ['validatingwebhookconfigurations'], [group], ['DELETE']),
      binding('protect-binding.static.k8s.io', 'protect.static.k8s.io'),
    ]);
    writeManifest(dir, 'd-auth.yaml', [policy('no-reviews.static.k8s.io', 'false', ['selfsubjectreviews'], ['authentication.k8s.io']), binding('no-reviews-binding.static.k8s.io', 'no-reviews.static.k8s.io')]);
    server = await startApiServer({ storage: 'etcd3', staticManifestDirs: { ValidatingAdmissionPolicy: dir }, env: { KAH_MANIFEST_POLL_INTERVAL: '250ms' } });
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
  });

  it('is active at startup', async () => {
    const r = await createCm(server, 'bad', { bad: 'x' });
    expect(r.status).toBe(422);
    // kube builds the denial as a Forbidden and sets reason and code to Invalid/422
    expect(r.json).toMatchObject({ reason: 'Invalid', code: 422, message: 'configmaps "bad" is forbidden: ValidatingAdmissionPolicy \'no-bad.static.k8s.io\' with binding \'no-bad-binding.static.k8s.io\' denied request: denied by no-bad.static.k8s.io' });
    expect((await createCm(server, 'fine')).status).toBe(201);
    expect(server.stdout()).toMatch(/"msg":"Loaded \d+ manifest-based admission policy configurations".*"hash":"sha256:[0-9a-f]{64}"/);
  });

  it('loads policies and bindings from a v1.List, both enforcing', async () => {
    expect((await createCm(server, 'ugly', { ugly: 'x' })).status).toBe(422);
    expect((await createCm(server, 'bad2', { bad: 'x' })).status).toBe(422);
  });

  it('is not visible through the API', async () => {
    expect((await api(server, 'GET', `/apis/${group}/v1/validatingadmissionpolicies/no-bad.static.k8s.io`)).status).toBe(404);
  });

  it('protects REST-registered admission configuration from DELETE', async () => {
    const vwc = { metadata: { name: 'guarded.example.com', labels: { protected: 'true' } }, webhooks: [] };
    expect((await api(server, 'POST', vwcPath, vwc)).status).toBe(201);
    const del = await api(server, 'DELETE', `${vwcPath}/guarded.example.com`);
    expect(del.status).toBe(422);
    expect(String(del.json['message'])).toContain("ValidatingAdmissionPolicy 'protect.static.k8s.io'");
    // unprotected ones can go
    expect((await api(server, 'POST', vwcPath, { metadata: { name: 'free.example.com' }, webhooks: [] })).status).toBe(201);
    expect((await api(server, 'DELETE', `${vwcPath}/free.example.com`)).status).toBe(200);
  });

  it('skips the excluded auth resources', async () => {
    expect((await api(server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status).toBe(201);
  });

  it('coexists with API-based policies', async () => {
    expect((await api(server, 'POST', `/apis/${group}/v1/validatingadmissionpolicies`, policy('no-odd.example.com', '!has(object.metadata.labels) || !("odd" in object.metadata.labels)'))).status).toBe(201);
    expect((await api(server, 'POST', `/apis/${group}/v1/validatingadmissionpolicybindings`, binding('no-odd-binding.example.com', 'no-odd.example.com'))).status).toBe(201);
    expect((await createCm(server, 'odd', { odd: 'x' })).status).toBe(422);
    expect((await createCm(server, 'bad3', { bad: 'x' })).status).toBe(422);
  });

  it('keeps enforcing on dry-run creates while etcd is down, and recovers', async () => {
    await server.etcd!.kill();
    try {
      const r = await createCm(server, 'bad-offline', { bad: 'x' }, '?dryRun=All');
      expect(r.status).toBe(422);
      expect(String(r.json['message'])).toContain('no-bad.static.k8s.io');
      await eventually(async () => expect((await server.request('/readyz')).status).toBe(500));
    } finally {
      await server.etcd!.restart();
    }
    await server.waitReady();
  });

  it('adds a policy on hot reload; an invalid reload keeps the old set and counts a failure', async () => {
    const before = await reloads(server, 'success');
    writeManifest(dir, 'e-reloaded.yaml', [policy('no-new.static.k8s.io', '!has(object.metadata.labels) || !("new" in object.metadata.labels)'), binding('no-new-binding.static.k8s.io', 'no-new.static.k8s.io')]);
    await eventually(async () => expect(await reloads(server, 'success')).toBeGreaterThan(before));
    expect((await createCm(server, 'new', { new: 'x' })).status).toBe(422);
    const failures = await reloads(server, 'failure');
    writeManifest(dir, 'f-broken.yaml', [policy('broken.static.k8s.io', 'object.metadata.name +')]);
    await eventually(async () => expect(await reloads(server, 'failure')).toBeGreaterThan(failures));
    expect((await createCm(server, 'new2', { new: 'x' })).status).toBe(422);
    unlinkSync(path.join(dir, 'f-broken.yaml'));
  });

  it('stops enforcing a removed file while the others still enforce', async () => {
    const before = await reloads(server, 'success');
    unlinkSync(path.join(dir, 'e-reloaded.yaml'));
    await eventually(async () => expect(await reloads(server, 'success')).toBeGreaterThan(before));
    await eventually(async () => expect((await createCm(server, `new-${Date.now()}`, { new: 'x' })).status).toBe(201));
    expect((await createCm(server, 'bad4', { bad: 'x' })).status).toBe(422);
  });
});

describe('reserved names (TestStaticPolicyBlocksAPICreation)', () => {
  it('refuses REST creation of .static.k8s.io policies and bindings while the gate is on', async () => {
    const server = await startApiServer({ storage: 'memory', featureGates: { ManifestBasedAdmissionControlConfig: true } });
    try {
      const p = await api(server, 'POST', `/apis/${group}/v1/validatingadmissionpolicies`, policy('mine.static.k8s.io', 'true'));
      expect(p.status).toBe(422);
      expect(String(p.json['message'])).toContain('names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API');
      const b = await api(server, 'POST', `/apis/${group}/v1/validatingadmissionpolicybindings`, binding('b.example.com', 'mine.static.k8s.io'));
      expect(b.status).toBe(422);
    } finally {
      await server.cleanup();
    }
  });
});

// The whole line kube-apiserver reports: InitPlugin's and the policy plugin's wrapping (k8s.io/apiserver
// pkg/admission/plugins.go, pkg/admission/plugin/policy/generic/plugin.go) around the loader's error
// (policy/manifest/loader/loader.go; kube's TestLoadValidatingManifestsFromDirectory cases). The missing-policy
// error comes after every file is read, unwrapped by "error loading".
describe('startup failures', () => {
  const head = (dir: string): string => `Error: failed to initialize admission plugin "ValidatingAdmissionPolicy": failed to load static policy manifests from "${dir}": `;
  const cases: Array<[string, object[], string]> = [
    ['a policy with paramKind', [{ ...policy('p.static.k8s.io', 'true'), spec: { ...policy('p.static.k8s.io', 'true').spec, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } }], 'error loading $DIR/x.yaml: ValidatingAdmissionPolicy "p.static.k8s.io": spec.paramKind is not supported for static manifests'],
    ['a binding with paramRef', [policy('p.static.k8s.io', 'true'), { ...binding('b.static.k8s.io', 'p.static.k8s.io'), spec: { policyName: 'p.static.k8s.io', validationActions: ['Deny'], paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } } }], 'error loading $DIR/x.yaml: binding "b.static.k8s.io": spec.paramRef is not supported for static manifests'],
    ['a binding to a missing policy', [binding('b.static.k8s.io', 'nowhere.static.k8s.io')], 'binding "b.static.k8s.io" references policy "nowhere.static.k8s.io" which does not exist in the manifest directory'],
    ['an expression that does not compile', [policy('p.static.k8s.io', 'object.metadata.name +')], 'error loading $DIR/x.yaml: ValidatingAdmissionPolicy "p.static.k8s.io": spec.validations[0].expression: Invalid value: "object.metadata.name +": compilation failed: '],
  ];
  it.each(cases)('exits 1 with kube\'s error for %s', async (_n, objects, expected) => {
    const dir = mkdtempSync(path.join(root, 'fail-'));
    writeManifest(dir, 'x.yaml', objects);
    const failed = await expectStartupFailure({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionPolicy: dir } });
    expect(failed.exitCode).toBe(1);
    const errors = failed.stderr.split('\n').filter((l) => l.startsWith('Error: '));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.startsWith(head(dir) + expected.replaceAll('$DIR', dir))).toBe(true);
  });

  // kube initializes its admission plugins in its recommended order and stops at the first that fails
  it('reports only the first failing plugin, in kube\'s admission order', async () => {
    const policies = mkdtempSync(path.join(root, 'fail-'));
    const webhooks = mkdtempSync(path.join(root, 'fail-'));
    writeManifest(policies, 'x.yaml', [binding('b.static.k8s.io', 'nowhere.static.k8s.io')]);
    writeManifest(webhooks, 'y.yaml', [{ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p.static.k8s.io' }, spec: {} }]);
    const failed = await expectStartupFailure({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionWebhook: webhooks, ValidatingAdmissionPolicy: policies } });
    expect(failed.stderr.split('\n').filter((l) => l.startsWith('Error: '))).toEqual([
      `${head(policies)}binding "b.static.k8s.io" references policy "nowhere.static.k8s.io" which does not exist in the manifest directory`,
    ]);
  });
});
