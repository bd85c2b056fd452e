// Deterministic reload waits (issue #18): writeManifestsAndWait returns only once the server reports, in
// apiserver_manifest_admission_config_controller_last_config_info, the hash of exactly the files written (computed
// as kube's manifest.LoadFiles computes it), so the very next request is judged by that content; a refused content
// fails at once, naming the file. One server for the whole file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { fileOfLoaderError, hashInForce, manifestDirHash, ManifestReloadError, writeManifestsAndWait } from '../../harness/manifest-reload.js';
import { api } from '../admission/support.js';

const group = 'admissionregistration.k8s.io';
let root: string;
let dir: string;
let server: ApiServerHandle;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'kah-reload-wait-'));
  dir = path.join(root, 'policies');
  mkdirSync(dir);
  // the default polling interval (1 minute): the waits rely on the file watch, as users' tests do
  server = await startApiServer({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionPolicy: dir } });
});
afterAll(async () => {
  await server?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

/** A policy (and its binding) denying ConfigMaps labelled `label`, with a message naming `version`. */
function denyLabel(name: string, label: string, version: number): string {
  const policy = {
    apiVersion: `${group}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: `${name}.static.k8s.io` },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: `!has(object.metadata.labels) || !('${label}' in object.metadata.labels)`, message: `${label} denied by version ${version}` }],
    },
  };
  const binding = { apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `${name}-binding.static.k8s.io` }, spec: { policyName: `${name}.static.k8s.io`, validationActions: ['Deny'] } };
  return `${stringify(policy)}---\n${stringify(binding)}`;
}

const dryRunCreate = (label: string) => api(server, 'POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { generateName: 'probe-', labels: { [label]: 'x' } } });

describe('writeManifestsAndWait', () => {
  it('returns only once exactly the written content is in force: 50 of 50 repeats', async () => {
    for (let i = 1; i <= 50; i++) {
      // every repeat changes a policy; every other one also adds or removes a second file
      const changes: Record<string, string | null> = { 'a.yaml': denyLabel('a', 'team-a', i) };
      changes['b.yaml'] = i % 2 === 0 ? denyLabel('b', 'team-b', i) : null;
      const inForce = await writeManifestsAndWait(server, 'ValidatingAdmissionPolicy', dir, changes, { timeoutMs: 15_000 });
      expect(inForce.hash).toBe(await manifestDirHash(dir));
      // the next request, at once, is judged by this very content
      const a = await dryRunCreate('team-a');
      expect([i, a.status, String(a.json['message']).endsWith(`team-a denied by version ${i}`)]).toEqual([i, 422, true]);
      const b = await dryRunCreate('team-b');
      if (i % 2 === 0) expect([i, b.status, String(b.json['message']).endsWith(`team-b denied by version ${i}`)]).toEqual([i, 422, true]);
      else expect([i, b.status]).toEqual([i, 201]);
    }
  }, 180_000);

  it('fails at once, naming the file the server refused, and keeps the previous content in force', async () => {
    const before = await writeManifestsAndWait(server, 'ValidatingAdmissionPolicy', dir, { 'a.yaml': denyLabel('a', 'team-a', 100), 'b.yaml': null });
    const bad = path.join(dir, 'c.yaml');
    const started = Date.now();
    const err = await writeManifestsAndWait(server, 'ValidatingAdmissionPolicy', dir, { 'c.yaml': 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: { name: no-suffix }\nspec: { failurePolicyy: Fail }\n' }, { timeoutMs: 30_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManifestReloadError);
    const e = err as ManifestReloadError;
    expect(e.file).toBe(bad);
    expect(e.serverError).toBe(`error loading ${bad}: strict decoding error: unknown field "spec.failurePolicyy"`);
    expect(e.message).toContain(`(${bad} failed to load)`);
    // refused as soon as the server logged it, not after the timeout
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(hashInForce((await server.request('/metrics')).body, 'ValidatingAdmissionPolicy')).toBe(before.hash);
    // fixing the file is waited for like any other change
    await writeManifestsAndWait(server, 'ValidatingAdmissionPolicy', dir, { 'c.yaml': null });
    expect((await dryRunCreate('team-a')).status).toBe(422);
  });

  it('times out with what the server reports when the content is not loaded', async () => {
    // a directory no plugin of this server reads: its hash never shows up
    const other = path.join(root, 'unwatched');
    const err = await writeManifestsAndWait(server, 'ValidatingAdmissionPolicy', other, { 'x.yaml': denyLabel('x', 'team-x', 1) }, { timeoutMs: 300 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ManifestReloadError);
    expect(err!.message).toMatch(/^the apiserver did not put the ValidatingAdmissionPolicy manifests in .*unwatched in force within 300 ms: expected hash "sha256:[0-9a-f]{64}", it reports "sha256:[0-9a-f]{64}"$/u);
  });
});

describe('the hash and file helpers', () => {
  it('read the hash per plugin from the exposition', () => {
    const text = [
      '# TYPE apiserver_manifest_admission_config_controller_last_config_info gauge',
      'apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="sha256:1",hash="sha256:aa",plugin="ValidatingAdmissionWebhook"} 1',
      'apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="sha256:1",hash="",plugin="ValidatingAdmissionPolicy"} 1',
    ].join('\n');
    expect(hashInForce(text, 'ValidatingAdmissionWebhook')).toBe('sha256:aa');
    expect(hashInForce(text, 'ValidatingAdmissionPolicy')).toBe('');
    expect(hashInForce(text, 'MutatingAdmissionPolicy')).toBeUndefined();
  });

  it('hash a directory as the server does: manifest files only, empty ones left out', async () => {
    const d = mkdtempSync(path.join(root, 'hash-'));
    expect(await manifestDirHash(d)).toBe('');
    writeFileSync(path.join(d, 'notes.txt'), 'ignored');
    writeFileSync(path.join(d, 'empty.yaml'), '');
    expect(await manifestDirHash(d)).toBe('');
    writeFileSync(path.join(d, 'a.yaml'), 'x');
    expect(await manifestDirHash(d)).toMatch(/^sha256:[0-9a-f]{64}$/u);
  });

  it.each([
    ['error loading /d/a.yaml: strict decoding error: unknown field "x"', '/d/a.yaml'],
    ['failed to split YAML documents in file "/d/b.yaml": invalid Yaml document separator: x', '/d/b.yaml'],
    ['failed to read file "/d/c.yaml": open /d/c.yaml: permission denied', '/d/c.yaml'],
    ['binding "b.static.k8s.io" references policy "p.static.k8s.io" which does not exist in the manifest directory', undefined],
  ])('find the file in %s', (err, file) => {
    expect(fileOfLoaderError(err)).toBe(file);
  });
});
