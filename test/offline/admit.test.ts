// `kah admit`: one request through the admission chain without a server — static policies from an admission
// configuration, REST-style policies and webhooks from --manifests, real HTTPS webhooks, namespace labels, the text
// and JSON outputs, and the input errors. Run through the CLI's exported function, and once as the built `kah` bin.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { runCli } from '../../harness/cli.js';
import { defaultServerEntry } from '../../harness/apiserver-process.js';
import { deny, patch, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { admissionConfiguration, binding, deployment, gateOn, maxReplicasPolicy, TempDir } from './support.js';
import { captureCliIO as capture } from '../support/cli.js';


let tmp: TempDir;
beforeEach(() => {
  tmp = new TempDir();
});
afterEach(() => tmp.cleanup());

interface AdmitJson {
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
  decidedBy?: { plugin: string; kind?: string; name?: string; binding?: string; configuration?: string; origin?: string; source?: string; description: string };
  warnings: string[];
  auditAnnotations: Record<string, string>;
  object: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: { replicas?: number } } | null;
  patch: Array<{ op: string; path: string; value?: unknown }>;
}

async function admit(...args: string[]) {
  const io = capture();
  const code = await runCli(['admit', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function admitJson(...args: string[]): Promise<{ code: number | 'serving'; json: AdmitJson; err: string }> {
  const r = await admit(...args, '-o', 'json');
  if (r.out === '') throw new Error(`no output; stderr: ${r.err}`);
  return { code: r.code, json: JSON.parse(r.out) as AdmitJson, err: r.err };
}

/** A static VAP (replicas ≤ 3) in a staticManifestsDir, named by an AdmissionConfiguration. */
function staticReplicasConfig(): string {
  const dir = tmp.dir('policies');
  tmp.write('policies/replicas.yaml', [maxReplicasPolicy('deny-replicas.static.k8s.io', 3), binding('ValidatingAdmissionPolicyBinding', 'deny-replicas-binding.static.k8s.io', 'deny-replicas.static.k8s.io')]);
  return tmp.write('admission.yaml', admissionConfiguration({ ValidatingAdmissionPolicy: dir }));
}

const denialText =
  `DENIED (422 Invalid): deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'deny-replicas.static.k8s.io' with binding ` +
  `'deny-replicas-binding.static.k8s.io' denied request: replicas must be at most 3, got 5`;

describe('kah admit with policies', () => {
  it('denies a Deployment over the static policy’s replica limit with the API’s 422 message and names the deciding policy', async () => {
    const config = staticReplicasConfig();
    const object = tmp.write('web.yaml', deployment('web', 5));
    const r = await admit(`--admission-control-config-file=${config}`, gateOn, '--object', object);
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out.split('\n')).toEqual([
      denialText,
      'decided by: ValidatingAdmissionPolicy deny-replicas.static.k8s.io (binding deny-replicas-binding.static.k8s.io, static)',
      '',
    ]);
  });

  it('allows a Deployment within the limit and exits 0', async () => {
    const config = staticReplicasConfig();
    const r = await admit(`--admission-control-config-file=${config}`, gateOn, `--object=${tmp.write('web.yaml', deployment('web', 2))}`);
    expect(r.code).toBe(0);
    expect(r.out).toBe('ALLOWED\n');
  });

  it('gives the decision as one JSON object with -o json', async () => {
    const config = staticReplicasConfig();
    const r = await admitJson(`--admission-control-config-file=${config}`, gateOn, '--object', tmp.write('web.yaml', deployment('web', 5)));
    expect(r.code).toBe(1);
    expect(r.json.allowed).toBe(false);
    expect(r.json.status).toMatchObject({ kind: 'Status', status: 'Failure', code: 422, reason: 'Invalid', message: denialText.replace(/^DENIED \(422 Invalid\): /, '') });
    expect(r.json.decidedBy).toEqual({
      plugin: 'ValidatingAdmissionPolicy',
      kind: 'ValidatingAdmissionPolicy',
      name: 'deny-replicas.static.k8s.io',
      binding: 'deny-replicas-binding.static.k8s.io',
      origin: 'static',
      source: path.join(tmp.path, 'policies'),
      description: 'ValidatingAdmissionPolicy deny-replicas.static.k8s.io (binding deny-replicas-binding.static.k8s.io, static)',
    });
    expect(r.json.warnings).toEqual([]);
    expect(r.json.auditAnnotations).toEqual({});
    expect(r.json.object?.spec?.replicas).toBe(5);
    expect(r.json.patch).toEqual([]);
  });

  it('turns a Warn binding’s failure into a warning and allows the request', async () => {
    const manifests = tmp.write('manifests/warn.yaml', [
      maxReplicasPolicy('warn-replicas', 3),
      binding('ValidatingAdmissionPolicyBinding', 'warn-replicas-binding', 'warn-replicas', { validationActions: ['Warn'] }),
    ]);
    const r = await admit('--manifests', path.dirname(manifests), '--object', tmp.write('web.yaml', deployment('web', 5)));
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toEqual([
      'ALLOWED',
      'warnings:',
      "  Validation failed for ValidatingAdmissionPolicy 'warn-replicas' with binding 'warn-replicas-binding': replicas must be at most 3, got 5",
      '',
    ]);
  });

  it('records an Audit binding’s failure as the validation_failure audit annotation', async () => {
    const manifests = tmp.write('audit.yaml', [
      maxReplicasPolicy('audit-replicas', 3),
      binding('ValidatingAdmissionPolicyBinding', 'audit-replicas-binding', 'audit-replicas', { validationActions: ['Audit'] }),
    ]);
    const r = await admitJson('--manifests', manifests, '--object', tmp.write('web.yaml', deployment('web', 5)));
    expect(r.code).toBe(0);
    expect(r.json.allowed).toBe(true);
    expect(r.json.auditAnnotations).toEqual({
      'validation.policy.admission.k8s.io/validation_failure':
        '[{"message":"replicas must be at most 3, got 5","policy":"audit-replicas","binding":"audit-replicas-binding","expressionIndex":0,"validationActions":["Audit"]}]',
    });
  });

  it('shows a MutatingAdmissionPolicy’s mutation as the final object and the JSON patch to it', async () => {
    const manifests = tmp.write('map.yaml', [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicy',
        metadata: { name: 'stamp' },
        spec: {
          failurePolicy: 'Fail',
          reinvocationPolicy: 'Never',
          matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }] },
          mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"stamped": "yes"}}, spec: Object.spec{replicas: 2}}' } }],
        },
      },
      binding('MutatingAdmissionPolicyBinding', 'stamp-binding', 'stamp'),
    ]);
    const object = tmp.write('web.yaml', deployment('web', 5));
    const json = await admitJson('--manifests', manifests, '--object', object);
    expect(json.code).toBe(0);
    expect(json.json.object?.metadata?.labels).toEqual({ stamped: 'yes' });
    expect(json.json.patch).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/spec/replicas', value: 2 },
        { op: 'add', path: '/metadata/labels', value: { stamped: 'yes' } },
      ]),
    );
    expect(json.json.patch).toHaveLength(2);

    const text = await admit('--manifests', manifests, '--object', object);
    expect(text.code).toBe(0);
    const lines = text.out.split('\n');
    expect(lines[0]).toBe('ALLOWED');
    expect(lines[1]).toBe('final object:');
    expect(lines).toContain('      stamped: "yes"');
    expect(lines).toContain('    replicas: 2');
    const patchAt = lines.indexOf('patch:');
    expect(patchAt).toBeGreaterThan(1);
    expect(lines.slice(patchAt + 1).filter(Boolean).sort()).toEqual(['  {"op":"add","path":"/metadata/labels","value":{"stamped":"yes"}}', '  {"op":"replace","path":"/spec/replicas","value":2}'].sort());
  });
});

describe('kah admit with webhooks', () => {
  let webhook: WebhookServer;
  beforeAll(async () => {
    webhook = await startWebhookServer({
      handler: ({ path: p }) => (p === '/deny' ? deny('five replicas is too many', 403) : p === '/patch' ? patch([{ op: 'add', path: '/metadata/annotations', value: { 'patched-by': 'webhook' } }]) : { allowed: true }),
    });
  });
  afterAll(async () => {
    await webhook?.close();
  });
  beforeEach(() => webhook.reset());

  const webhookConfiguration = (kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration', name: string, hook: string, urlPath: string, extra: object = {}) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: [
      {
        name: hook,
        clientConfig: { url: webhook.url(urlPath), caBundle: webhook.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        ...extra,
      },
    ],
  });

  it('calls a validating webhook over HTTPS and reports its denial and the webhook that decided', async () => {
    const manifests = tmp.write('guard.yaml', webhookConfiguration('ValidatingWebhookConfiguration', 'guard', 'guard.example.com', '/deny'));
    const r = await admitJson('--manifests', manifests, '--object', tmp.write('web.yaml', deployment('web', 5)), '--user', 'alice', '--groups', 'dev,system:authenticated');
    expect(r.code).toBe(1);
    expect(r.json.status).toMatchObject({ code: 403, message: 'admission webhook "guard.example.com" denied the request: five replicas is too many' });
    expect(r.json.decidedBy).toMatchObject({ plugin: 'ValidatingAdmissionWebhook', kind: 'ValidatingWebhook', name: 'guard.example.com', configuration: 'guard', origin: 'manifests', source: manifests });
    expect(r.json.decidedBy?.description).toBe(`ValidatingWebhook guard.example.com in ValidatingWebhookConfiguration guard (--manifests ${manifests})`);
    expect(webhook.reviews).toHaveLength(1);
    expect(webhook.reviews[0]!.request).toMatchObject({ operation: 'CREATE', namespace: 'default', name: 'web', userInfo: { username: 'alice', groups: ['dev', 'system:authenticated'] } });
  });

  it('applies a mutating webhook’s patch and shows it', async () => {
    const manifests = tmp.write('stamp.yaml', webhookConfiguration('MutatingWebhookConfiguration', 'stamp', 'stamp.example.com', '/patch'));
    const r = await admitJson('--manifests', manifests, '--object', tmp.write('web.yaml', deployment('web', 1)));
    expect(r.code).toBe(0);
    expect(r.json.object?.metadata?.annotations).toEqual({ 'patched-by': 'webhook' });
    expect(r.json.patch).toEqual([{ op: 'add', path: '/metadata/annotations', value: { 'patched-by': 'webhook' } }]);
    expect(r.json.auditAnnotations).toMatchObject({ 'mutation.webhook.admission.k8s.io/round_0_index_0': expect.stringContaining('"mutated":true') });
  });

  it('matches a namespaceSelector against --namespace-labels of the object’s namespace', async () => {
    const manifests = tmp.write(
      'prod-guard.yaml',
      webhookConfiguration('ValidatingWebhookConfiguration', 'prod-guard', 'prod.example.com', '/deny', { namespaceSelector: { matchLabels: { env: 'prod' } } }),
    );
    const object = tmp.write('web.yaml', deployment('web', 5, { namespace: 'team-a' }));
    const unlabelled = await admit('--manifests', manifests, '--object', object);
    expect(unlabelled.code).toBe(0);
    expect(unlabelled.out).toBe('ALLOWED\n');
    expect(webhook.reviews).toHaveLength(0);

    const prod = await admit('--manifests', manifests, '--object', object, '--namespace-labels', 'env=prod,team=a');
    expect(prod.code).toBe(1);
    expect(prod.out).toContain('DENIED (403): admission webhook "prod.example.com" denied the request: five replicas is too many');
    expect(webhook.reviews).toHaveLength(1);
    expect(webhook.reviews[0]!.request.namespace).toBe('team-a');
  });
});

describe('kah admit input errors (exit 2)', () => {
  const policyManifests = () => tmp.write('p.yaml', [maxReplicasPolicy('p', 3), binding('ValidatingAdmissionPolicyBinding', 'b', 'p')]);

  it('requires --object', async () => {
    const r = await admit('--manifests', policyManifests());
    expect(r.code).toBe(2);
    expect(r.err).toContain('kah admit: --object is required');
    expect(r.err).toContain('usage: kah admit');
  });

  it('refuses an object file that does not parse', async () => {
    const object = tmp.write('broken.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [unclosed\n');
    const r = await admit('--manifests', policyManifests(), '--object', object);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^Error: --object ${object}: yaml: line \\d+: `));
  });

  it('refuses UPDATE without --old-object', async () => {
    const r = await admit('--manifests', policyManifests(), '--object', tmp.write('web.yaml', deployment('web', 1)), '--operation', 'UPDATE');
    expect(r.code).toBe(2);
    expect(r.err).toContain('kah admit: --operation=UPDATE needs --old-object');
  });

  it('reports an invalid --manifests object with its file, kind/name and field, as the REST API validates it', async () => {
    const bad = maxReplicasPolicy('bad', 3) as { spec: Record<string, unknown> };
    bad.spec['failurePolicy'] = 'Sometimes';
    const manifests = tmp.write('bad.yaml', bad);
    const r = await admit('--manifests', manifests, '--object', tmp.write('web.yaml', deployment('web', 1)));
    expect(r.code).toBe(2);
    expect(r.err).toBe(`Error: ${manifests}: ValidatingAdmissionPolicy/bad: spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"\n`);
  });

  it('reports a bad admission configuration as startup would', async () => {
    const r = await admit(`--admission-control-config-file=${staticReplicasConfig()}`, '--object', tmp.write('web.yaml', deployment('web', 1)));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`couldn't init admission plugin "ValidatingAdmissionPolicy": staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled`);
  });
});

describe('kah admit as a process', () => {
  it('prints the denial and exits 1 when run as the built bin', async () => {
    const cli = path.join(path.dirname(defaultServerEntry()), '..', 'harness', 'cli.js');
    const config = staticReplicasConfig();
    const object = tmp.write('web.yaml', deployment('web', 5));
    const child = spawn(process.execPath, [cli, 'admit', `--admission-control-config-file=${config}`, gateOn, '--object', object], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(err).toBe('');
    expect(code).toBe(1);
    expect(out.split('\n')[0]).toBe(denialText);
  });
});
