// KEP-5793 for webhooks, end to end with real processes: kube-apiserver's TestStaticWebhookBlocksAPICreation and the
// subtests of TestStaticWebhookComprehensive (test/integration/apiserver/admissionwebhook/static_manifest_test.go),
// the bootstrap guarantee, reload with metrics, and startup failures with kube's texts.
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { expectStartupFailure } from '../../harness/startup-failure.js';
import { allow, deny, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { api, registerValidating, vwcPath } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

let root: string;
let webhook: WebhookServer;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'kah-static-wh-'));
  webhook = await startWebhookServer({ handler: (r) => (r.path.startsWith('/deny') ? deny(`denied by ${r.path.slice(1)}`) : allow()) });
});
afterAll(async () => {
  await webhook?.close();
  rmSync(root, { recursive: true, force: true });
});

function vwc(name: string, opts: { path: string; label: string; resources?: string[]; apiGroups?: string[]; operations?: string[] }) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: `hook.${name}`,
        clientConfig: { url: webhook.url(opts.path), caBundle: webhook.caBundle },
        rules: [{ apiGroups: opts.apiGroups ?? [''], apiVersions: ['v1'], resources: opts.resources ?? ['configmaps'], operations: opts.operations ?? ['CREATE'] }],
        objectSelector: { matchLabels: { [opts.label]: 'enabled' } },
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
      },
    ],
  };
}

/** Atomic write: a temp file outside the loaded extensions, then rename. */
function writeManifest(dir: string, file: string, objects: object[]): void {
  const tmp = path.join(dir, `.${file}.tmp`);
  writeFileSync(tmp, objects.map((o) => stringify(o)).join('---\n'));
  renameSync(tmp, path.join(dir, file));
}

async function reloads(server: ApiServerHandle, status: 'success' | 'failure'): Promise<number> {
  const m = (await server.request('/metrics')).body;
  const line = m.split('\n').find((l) => l.startsWith('apiserver_manifest_admission_config_controller_automatic_reloads_total{') && l.includes('plugin="ValidatingAdmissionWebhook"') && l.includes(`status="${status}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const cm = (name: string, label: string) => ({ metadata: { name, labels: { [label]: 'enabled' } } });
const create = (server: ApiServerHandle, name: string, label: string, query = '') => api(server, 'POST', `/api/v1/namespaces/default/configmaps${query}`, cm(name, label));

describe('static webhook manifests (TestStaticWebhookComprehensive)', () => {
  let dir: string;
  let server: ApiServerHandle;

  beforeAll(async () => {
    dir = path.join(root, 'comprehensive');
    mkdirSync(dir);
    writeManifest(dir, 'a-startup.yaml', [vwc('startup.static.k8s.io', { path: '/deny-startup', label: 'startup' })]);
    writeManifest(dir, 'b-list.json', [{ apiVersion: 'v1', kind: 'List', items: [vwc('from-list.static.k8s.io', { path: '/deny-list', label: 'list' })] }]);
    writeManifest(dir, 'c-protect.yaml', [vwc('protect.static.k8s.io', { path: '/deny-protect', label: 'protected', apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], operations: ['CREATE', 'DELETE'] })]);
    writeManifest(dir, 'd-auth.yaml', [vwc('auth.static.k8s.io', { path: '/deny-auth', label: 'x', apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] })]);
    server = await startApiServer({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionWebhook: dir }, env: { KAH_MANIFEST_POLL_INTERVAL: '250ms' } });
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
  });

  it('is active at startup and logs what it loaded with the hash', async () => {
    const r = await create(server, 'startup', 'startup');
    expect(r.status).toBe(403);
    expect(r.json['message']).toBe('admission webhook "hook.startup.static.k8s.io" denied the request: denied by deny-startup');
    expect(server.stdout()).toMatch(/"msg":"Loaded 4 manifest-based webhook configurations".*"hash":"sha256:[0-9a-f]{64}"/);
    const info = (await server.request('/metrics')).body.split('\n').find((l) => l.startsWith('apiserver_manifest_admission_config_controller_last_config_info{'));
    expect(info).toMatch(/plugin="ValidatingAdmissionWebhook"/);
    expect(info).toMatch(/hash="sha256:[0-9a-f]{64}"/);
    expect(info).toMatch(/apiserver_id_hash="sha256:[0-9a-f]{64}"/);
  });

  it('loads configurations from a v1.List', async () => {
    expect((await create(server, 'list', 'list')).status).toBe(403);
  });

  it('is not visible through the API', async () => {
    const list = await api(server, 'GET', vwcPath);
    expect((list.json['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).not.toContain('startup.static.k8s.io');
    expect((await api(server, 'GET', `${vwcPath}/startup.static.k8s.io`)).status).toBe(404);
  });

  it('protects admission configuration resources (a static webhook sees VWC creation)', async () => {
    const r = await api(server, 'POST', vwcPath, { metadata: { name: 'guarded.example.com', labels: { protected: 'enabled' } }, webhooks: [] });
    expect(r.status).toBe(403);
    expect(r.json['message']).toContain('denied by deny-protect');
  });

  it('skips the excluded auth resources', async () => {
    const r = await api(server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { labels: { x: 'enabled' } } });
    expect(r.status).toBe(201);
    expect(webhook.reviews.some((x) => x.path === '/deny-auth')).toBe(false);
  });

  it('coexists with API-based configurations', async () => {
    await registerValidating(server, webhook, 'api-based.example.com', [{ name: 'api-based.example.com', path: '/deny-api', objectSelector: { matchLabels: { api: 'enabled' } } }]);
    expect((await create(server, 'api', 'api')).status).toBe(403);
    expect((await create(server, 'startup2', 'startup')).status).toBe(403);
  });

  it('adds a configuration on hot reload, and keeps the old set when a reload is invalid', async () => {
    const before = await reloads(server, 'success');
    writeManifest(dir, 'e-reloaded.yaml', [vwc('reloaded.static.k8s.io', { path: '/deny-reloaded', label: 'reloaded' })]);
    await eventually(async () => expect(await reloads(server, 'success')).toBeGreaterThan(before));
    expect((await create(server, 'reloaded', 'reloaded')).status).toBe(403);
    const failures = await reloads(server, 'failure');
    writeManifest(dir, 'f-broken.yaml', [{ ...vwc('broken', { path: '/deny-broken', label: 'broken' }) }]);
    await eventually(async () => expect(await reloads(server, 'failure')).toBeGreaterThan(failures));
    // the previous snapshot stays in force
    expect((await create(server, 'still', 'reloaded')).status).toBe(403);
    unlinkSync(path.join(dir, 'f-broken.yaml'));
  });

  it('stops enforcing a removed file while the others still enforce', async () => {
    const before = await reloads(server, 'success');
    unlinkSync(path.join(dir, 'e-reloaded.yaml'));
    await eventually(async () => expect(await reloads(server, 'success')).toBeGreaterThan(before));
    await eventually(async () => expect((await create(server, `gone-${Date.now()}`, 'reloaded')).status).toBe(201));
    expect((await create(server, 'startup3', 'startup')).status).toBe(403);
  });
});

describe('reserved names (TestStaticWebhookBlocksAPICreation)', () => {
  const body = { metadata: { name: 'mine.static.k8s.io' }, webhooks: [] };

  it('refuses REST creation of a .static.k8s.io name while the gate is on', async () => {
    const server = await startApiServer({ storage: 'memory', featureGates: { ManifestBasedAdmissionControlConfig: true } });
    try {
      const r = await api(server, 'POST', vwcPath, body);
      expect(r.status).toBe(422);
      expect(String(r.json['message'])).toContain('metadata.name: Invalid value: "mine.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API');
    } finally {
      await server.cleanup();
    }
  });

  it('allows it with a warning while the gate is off', async () => {
    const server = await startApiServer({ storage: 'memory' });
    try {
      const r = await api(server, 'POST', vwcPath, body);
      expect(r.status).toBe(201);
      expect(r.warnings.join('\n')).toContain('.static.k8s.io');
    } finally {
      await server.cleanup();
    }
  });
});

// kube loads the static manifests while it initializes its admission plugins, before it serves: the port opens with
// the configuration in force, and /readyz has no check for it.
describe('bootstrap: nothing is admitted before the static configuration is in force', () => {
  it('opens the port only after the load, so the very first request is judged by the static webhook', async () => {
    const dir = path.join(root, 'gated');
    mkdirSync(dir);
    // namespaces: cluster-scoped, so the first request does not depend on the system namespaces existing yet
    writeManifest(dir, 'gate.yaml', [vwc('gate.static.k8s.io', { path: '/deny-gate', label: 'gate', resources: ['namespaces'] })]);
    const server = await startApiServer({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionWebhook: dir }, env: { KAH_MANIFEST_LOAD_DELAY_MS: '2000' }, waitForReady: false });
    try {
      // sent while the load (delayed 2 s) runs: refused connections until the port opens, then the first answer
      const r = await eventually(() => api(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'first', labels: { gate: 'enabled' } } }), 20_000, 10);
      expect(r.status).toBe(403);
      expect(r.json['message']).toContain('denied by deny-gate');
      await server.waitReady();
      const readyz = await server.request('/readyz?verbose');
      expect(readyz.status).toBe(200);
      expect(readyz.body).not.toContain('static');
    } finally {
      await server.cleanup();
    }
  });
});

describe('startup failures', () => {
  // The whole line kube-apiserver reports: InitPlugin's and the webhook plugin's wrapping (k8s.io/apiserver
  // pkg/admission/plugins.go, pkg/admission/plugin/webhook/generic/webhook.go) around the loader's error
  // (webhook/manifest/loader/loader.go); the cases are kube's TestLoadManifests ones.
  const head = (dir: string): string => `Error: failed to initialize admission plugin "ValidatingAdmissionWebhook": failed to load static webhook manifests from "${dir}": `;
  const cases: Array<[string, (dir: string) => void, string]> = [
    ['bad YAML', (d) => writeFileSync(path.join(d, 'bad.yaml'), 'apiVersion: [unclosed\n'), "error loading $DIR/bad.yaml: yaml: line 1: did not find expected ',' or ']'"],
    ['an unknown field', (d) => writeFileSync(path.join(d, 'x.yaml'), stringify({ ...vwc('x.static.k8s.io', { path: '/x', label: 'x' }), bogus: 1 })), 'error loading $DIR/x.yaml: strict decoding error: unknown field "bogus"'],
    ['a missing suffix', (d) => writeManifest(d, 'x.yaml', [vwc('plain.example.com', { path: '/x', label: 'x' })]), 'error loading $DIR/x.yaml: "plain.example.com" in file "$DIR/x.yaml" must have a name ending with ".static.k8s.io"'],
    // the REST API's validation runs first (acceptObject), then the static name rules
    ['a webhook name the REST API refuses, besides a missing suffix', (d) => writeManifest(d, 'x.yaml', [vwc('plain', { path: '/x', label: 'x' })]), 'error loading $DIR/x.yaml: ValidatingWebhookConfiguration "plain": webhooks[0].name: Invalid value: "hook.plain": should be a domain with at least three segments separated by dots'],
    ['a duplicate name across files', (d) => { writeManifest(d, 'a.yaml', [vwc('dup.static.k8s.io', { path: '/x', label: 'x' })]); writeManifest(d, 'b.yaml', [vwc('dup.static.k8s.io', { path: '/x', label: 'x' })]); }, 'error loading $DIR/b.yaml: duplicate name "dup.static.k8s.io" found in file "$DIR/b.yaml" (previously seen in "$DIR/a.yaml")'],
    ['a service reference', (d) => { const o = vwc('svc.static.k8s.io', { path: '/x', label: 'x' }); (o.webhooks[0] as Record<string, unknown>)['clientConfig'] = { service: { namespace: 'a', name: 'b' } }; writeManifest(d, 'x.yaml', [o]); }, 'error loading $DIR/x.yaml: webhook "hook.svc.static.k8s.io" in "svc.static.k8s.io" (file "$DIR/x.yaml"): clientConfig.service is not supported for static manifests; use clientConfig.url instead'],
    ['a policy in the webhook directory', (d) => writeManifest(d, 'x.yaml', [{ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p.static.k8s.io' }, spec: {} }]), 'error loading $DIR/x.yaml: unsupported resource type *v1.ValidatingAdmissionPolicy'],
    // stops at the first failing file: b.yaml is never looked at
    ['two bad files', (d) => { writeManifest(d, 'a.yaml', [vwc('first.example.com', { path: '/x', label: 'x' })]); writeManifest(d, 'b.yaml', [vwc('second.example.com', { path: '/x', label: 'x' })]); }, 'error loading $DIR/a.yaml: "first.example.com" in file "$DIR/a.yaml" must have a name ending with ".static.k8s.io"'],
  ];
  it.each(cases)('exits 1 with kube\'s error for %s', async (_name, setup, expected) => {
    const dir = mkdtempSync(path.join(root, 'fail-'));
    setup(dir);
    const failed = await expectStartupFailure({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionWebhook: dir } });
    expect(failed.exitCode).toBe(1);
    const errors = failed.stderr.split('\n').filter((l) => l.startsWith('Error: '));
    expect(errors).toEqual([head(dir) + expected.replaceAll('$DIR', dir)]);
  });

  it('exits 1 when the feature gate is off', async () => {
    const dir = mkdtempSync(path.join(root, 'gateoff-'));
    const failed = await expectStartupFailure({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionWebhook: dir }, featureGates: { ManifestBasedAdmissionControlConfig: false } });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain('staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled');
  });

  it.each([
    ['relative', 'relative/dir', 'must be an absolute file path'],
    ['missing', '/nonexistent/kah-dir', 'unable to read'],
  ])('exits 1 for a %s directory', async (_n, dir, expected) => {
    const failed = await expectStartupFailure({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionWebhook: dir } });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain(expected);
  });

  it('exits 1 when the directory is a file', async () => {
    const file = path.join(root, 'not-a-dir.yaml');
    writeFileSync(file, '');
    const failed = await expectStartupFailure({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionWebhook: file } });
    expect(failed.stderr).toContain('must be a directory');
  });
});
