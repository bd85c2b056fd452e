// The admission coverage report through a real server: real HTTPS webhook servers and policies (REST-registered
// and a static manifest), one decision kind per case, read live through the harness (GET
// /debug/admission-coverage) and from the file the server writes.
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, deny, httpError, patch, startWebhookServer, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { parseCoverageReport } from '../../server/admission/coverage/report-schema.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { arPath, caseSelector, configMap, configuration, created, registerWebhook, untestedCells } from './support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;
let dir: string;
let coverageFile: string;

function route(r: ReceivedReview): WebhookReply {
  const name = (r.request.object as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? '';
  switch (r.path) {
    case '/deny':
      return name.startsWith('forbidden') ? deny(`configmap ${name} is not allowed here`) : allow();
    case '/patch':
      return name.startsWith('patch') ? patch([{ op: 'add', path: '/data', value: { patched: 'yes' } }]) : allow();
    case '/error':
      return httpError(500, 'webhook is broken');
    default:
      return allow();
  }
}

const staticPolicy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'cov-static.static.k8s.io' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { objectSelector: caseSelector('static'), resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'DELETE'] }] },
    validations: [{ expression: 'object.metadata.name != "static-denied"', message: 'static policy says no' }],
  },
};
const staticBinding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'cov-static-binding.static.k8s.io' }, spec: { policyName: 'cov-static.static.k8s.io', validationActions: ['Deny'] } };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-coverage-'));
  const manifests = path.join(dir, 'vap');
  mkdirSync(manifests);
  writeFileSync(path.join(manifests, '.policy.tmp'), [staticPolicy, staticBinding].map((o) => stringify(o)).join('---\n'));
  renameSync(path.join(manifests, '.policy.tmp'), path.join(manifests, 'policy.yaml'));
  coverageFile = path.join(dir, 'out', 'coverage.json');
  webhook = await startWebhookServer({ handler: route });
  server = await startApiServer({ storage: 'memory', staticManifestDirs: { ValidatingAdmissionPolicy: manifests }, coverage: { file: coverageFile, printSummary: false } });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
  rmSync(dir, { recursive: true, force: true });
});

const createCm = (name: string, testCase: string) => api(server, 'POST', '/api/v1/namespaces/default/configmaps', configMap(name, testCase));

describe('admission coverage: webhooks', () => {
  it('counts an allowing webhook call as allowed, with the operation and resource it matched', async () => {
    await registerWebhook(server, webhook, 'validating', 'cov-allow', { path: '/allow' });
    expect((await createCm('a1', 'cov-allow')).status).toBe(201);
    expect((await createCm('a2', 'cov-allow')).status).toBe(201);
    // not a call: the rules select configmaps, this is a secret
    expect((await api(server, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'cov-allow-secret', labels: { 'coverage-case': 'cov-allow' } } })).status).toBe(201);
    const c = configuration(await server.coverage(), 'ValidatingWebhook/api/cov-allow/cov-allow.example.com');
    expect(c).toMatchObject({ kind: 'ValidatingWebhook', source: 'api', configuration: 'cov-allow', name: 'cov-allow.example.com', failurePolicy: 'Fail', present: true, calls: 2 });
    expect(c.decisions).toEqual({ allowed: 2, denied: 0, patched: 0, warned: 0, audited: 0, errored: 0, skippedByMatchConditions: 0 });
    expect(c.requests).toEqual([{ operation: 'CREATE', group: '', version: 'v1', resource: 'configmaps', subresource: '', namespaced: true, count: 2 }]);
    expect(webhook.reviews.filter((r) => r.path === '/allow')).toHaveLength(2);
  });

  it('counts a denial with the webhook’s message', async () => {
    await registerWebhook(server, webhook, 'validating', 'cov-deny', { path: '/deny' });
    const denied = await createCm('forbidden-1', 'cov-deny');
    expect(denied.status).toBe(403);
    expect(denied.json['message']).toBe('admission webhook "cov-deny.example.com" denied the request: configmap forbidden-1 is not allowed here');
    expect((await createCm('forbidden-2', 'cov-deny')).status).toBe(403);
    expect((await createCm('forbidden-2', 'cov-deny')).status).toBe(403);
    expect((await createCm('fine', 'cov-deny')).status).toBe(201);
    const c = configuration(await server.coverage(), 'ValidatingWebhook/api/cov-deny/cov-deny.example.com');
    expect(c.calls).toBe(4);
    expect(c.decisions).toMatchObject({ allowed: 1, denied: 3 });
    expect(c.denials).toEqual([
      { message: 'configmap forbidden-1 is not allowed here', count: 1 },
      { message: 'configmap forbidden-2 is not allowed here', count: 2 },
    ]);
  });

  it('counts a mutating webhook whose patch changed the object as patched, one that answered without a patch as allowed', async () => {
    await registerWebhook(server, webhook, 'mutating', 'cov-patch', { path: '/patch' });
    const patched = await createCm('patch-me', 'cov-patch');
    expect(patched.status).toBe(201);
    expect(patched.json['data']).toEqual({ patched: 'yes' });
    expect((await createCm('leave-me', 'cov-patch')).status).toBe(201);
    const c = configuration(await server.coverage(), 'MutatingWebhook/api/cov-patch/cov-patch.example.com');
    expect(c.kind).toBe('MutatingWebhook');
    expect(c.decisions).toMatchObject({ patched: 1, allowed: 1, errored: 0 });
    expect(c.calls).toBe(2);
  });

  it('counts a failing call under failurePolicy Fail as an error that failed closed', async () => {
    await registerWebhook(server, webhook, 'validating', 'cov-fail', { path: '/error', failurePolicy: 'Fail' });
    const r = await createCm('c1', 'cov-fail');
    expect(r.status).toBe(500);
    const c = configuration(await server.coverage(), 'ValidatingWebhook/api/cov-fail/cov-fail.example.com');
    expect(c.decisions).toMatchObject({ errored: 1, allowed: 0, denied: 0 });
    // the request's Status wraps the call error in an internal error; the report keeps the call error
    const callError = 'failed calling webhook "cov-fail.example.com": failed to call webhook: an error on the server ("webhook is broken") has prevented the request from succeeding';
    expect(r.json['message']).toBe(`Internal error occurred: ${callError}`);
    expect(c.errors).toEqual([{ message: callError, count: 1, failurePolicy: 'Fail', outcome: 'failedClosed' }]);
  });

  it('counts a failing call under failurePolicy Ignore as an error that failed open', async () => {
    await registerWebhook(server, webhook, 'validating', 'cov-ignore', { path: '/error', failurePolicy: 'Ignore' });
    expect((await createCm('i1', 'cov-ignore')).status).toBe(201);
    const c = configuration(await server.coverage(), 'ValidatingWebhook/api/cov-ignore/cov-ignore.example.com');
    expect(c.failurePolicy).toBe('Ignore');
    expect(c.decisions).toMatchObject({ errored: 1, allowed: 0 });
    expect(c.errors).toHaveLength(1);
    expect(c.errors[0]).toMatchObject({ count: 1, failurePolicy: 'Ignore', outcome: 'failedOpen' });
    expect(c.errors[0]!.message).toMatch(/^failed calling webhook "cov-ignore.example.com": /);
  });

  it('counts a request its matchConditions excluded as skipped, not as a call', async () => {
    await registerWebhook(server, webhook, 'validating', 'cov-mc', { path: '/mc', matchConditions: [{ name: 'not-skip', expression: 'object.metadata.name != "skip-me"' }] });
    const before = webhook.reviews.filter((r) => r.path === '/mc').length;
    expect((await createCm('skip-me', 'cov-mc')).status).toBe(201);
    expect(webhook.reviews.filter((r) => r.path === '/mc').length).toBe(before);
    expect((await createCm('call-me', 'cov-mc')).status).toBe(201);
    const c = configuration(await server.coverage(), 'ValidatingWebhook/api/cov-mc/cov-mc.example.com');
    expect(c.calls).toBe(1);
    expect(c.decisions).toMatchObject({ skippedByMatchConditions: 1, allowed: 1 });
    // the rules matched both: both count as matched requests (and hit the rule cell)
    expect(c.requests[0]!.count).toBe(2);
    expect(c.rules).toEqual([{ ruleSet: 'rules', rule: 0, operation: 'CREATE', apiGroup: '', resource: 'configmaps', apiVersions: ['v1'], scope: '*', hits: 2 }]);
  });

  it('lists the rule cells no request matched', async () => {
    await registerWebhook(server, webhook, 'validating', 'cov-rules', {
      path: '/allow',
      rules: [
        { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'secrets'], operations: ['CREATE', 'UPDATE', 'DELETE'] },
        { apiGroups: ['apps'], apiVersions: ['*'], resources: ['deployments', 'deployments/scale'], operations: ['*'] },
      ],
    });
    expect((await createCm('r1', 'cov-rules')).status).toBe(201);
    expect((await api(server, 'DELETE', '/api/v1/namespaces/default/configmaps/r1')).status).toBe(200);
    const report = await server.coverage();
    const c = configuration(report, 'ValidatingWebhook/api/cov-rules/cov-rules.example.com');
    // CONNECT only for the entry that names a subresource: kube serves CONNECT on subresources alone
    expect(c.rules).toHaveLength(6 + 3 + 4);
    expect(c.rules.filter((r) => r.hits > 0).map((r) => `${r.operation} ${r.resource} ${r.hits}`)).toEqual(['CREATE configmaps 1', 'DELETE configmaps 1']);
    expect(untestedCells(c)).toEqual([
      'UPDATE core/configmaps',
      'CREATE core/secrets',
      'UPDATE core/secrets',
      'DELETE core/secrets',
      'CREATE apps/deployments',
      'UPDATE apps/deployments',
      'DELETE apps/deployments',
      'CREATE apps/deployments/scale',
      'UPDATE apps/deployments/scale',
      'DELETE apps/deployments/scale',
      'CONNECT apps/deployments/scale',
    ]);
    expect(report.totals.untestedRuleCells).toBe(report.configurations.reduce((n, x) => n + x.rules.filter((r) => r.hits === 0).length, 0));
  });
});

describe('admission coverage: policies', () => {
  const vap = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
  const vapBinding = (name: string, policyName: string, actions: string[]) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: actions } });
  const constraints = (testCase: string) => ({ objectSelector: caseSelector(testCase), resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }] });

  it('records a REST ValidatingAdmissionPolicy per binding: allowed, denied with its message, skipped by matchConditions', async () => {
    await created(
      api(server, 'POST', `${arPath}/validatingadmissionpolicies`, vap('cov-vap', {
        failurePolicy: 'Fail',
        matchConstraints: constraints('cov-vap'),
        matchConditions: [{ name: 'not-exempt', expression: 'object.metadata.name != "exempt"' }],
        validations: [{ expression: '!object.metadata.name.startsWith("bad")', message: 'names starting with bad are refused' }],
      })),
    );
    await created(api(server, 'POST', `${arPath}/validatingadmissionpolicybindings`, vapBinding('cov-vap-deny', 'cov-vap', ['Deny'])));
    // in force for the next request: the API source sees this server's own writes
    expect((await createCm('bad-0', 'cov-vap')).status).toBe(422);
    expect((await createCm('good', 'cov-vap')).status).toBe(201);
    expect((await createCm('exempt', 'cov-vap')).status).toBe(201);
    const c = configuration(await server.coverage(), 'ValidatingAdmissionPolicy/api/cov-vap');
    expect(c.calls).toBe(2);
    expect(c.decisions).toEqual({ allowed: 1, denied: 1, patched: 0, warned: 0, audited: 0, errored: 0, skippedByMatchConditions: 1 });
    expect(c.denials).toEqual([{ message: 'names starting with bad are refused', count: 1 }]);
    expect(c.bindings).toEqual([expect.objectContaining({ name: 'cov-vap-deny', calls: c.calls, decisions: c.decisions })]);
    expect(c.rules.map((r) => `${r.ruleSet} ${r.operation} ${r.resource} ${r.hits > 0}`)).toEqual(['matchConstraints CREATE configmaps true', 'matchConstraints UPDATE configmaps false']);
  });

  it('records an evaluation error under failurePolicy Ignore as failed open and under Fail as failed closed', async () => {
    for (const fp of ['Ignore', 'Fail'] as const) {
      const name = `cov-vap-${fp.toLowerCase()}`;
      await created(
        api(server, 'POST', `${arPath}/validatingadmissionpolicies`, vap(name, {
          failurePolicy: fp,
          matchConstraints: constraints(name),
          // no such key: an evaluation error
          validations: [{ expression: 'object.data["missing"] == "x"' }],
        })),
      );
      await created(api(server, 'POST', `${arPath}/validatingadmissionpolicybindings`, vapBinding(`${name}-binding`, name, ['Deny'])));
    }
    expect((await createCm('e1', 'cov-vap-fail')).status).toBe(422);
    expect((await createCm('e2', 'cov-vap-ignore')).status).toBe(201);
    const report = await server.coverage();
    const ignore = configuration(report, 'ValidatingAdmissionPolicy/api/cov-vap-ignore');
    expect(ignore.decisions).toMatchObject({ errored: 1, allowed: 0 });
    const evaluationError = `expression 'object.data["missing"] == "x"' resulted in error: no such key: missing`;
    expect(ignore.errors).toEqual([{ message: evaluationError, count: 1, failurePolicy: 'Ignore', outcome: 'failedOpen' }]);
    const fail = configuration(report, 'ValidatingAdmissionPolicy/api/cov-vap-fail');
    expect(fail.errors[0]).toMatchObject({ message: evaluationError, failurePolicy: 'Fail', outcome: 'failedClosed' });
  });

  it('records a static-manifest policy as source static', async () => {
    expect((await createCm('static-denied', 'static')).status).toBe(422);
    expect((await createCm('static-ok', 'static')).status).toBe(201);
    const c = configuration(await server.coverage(), 'ValidatingAdmissionPolicy/static/cov-static.static.k8s.io');
    expect(c).toMatchObject({ source: 'static', decisions: { denied: 1, allowed: 1 }, denials: [{ message: 'static policy says no', count: 1 }] });
    expect(c.bindings?.map((b) => b.name)).toEqual(['cov-static-binding.static.k8s.io']);
    expect(untestedCells(c)).toEqual(['DELETE core/configmaps']);
  });

  it('records a MutatingAdmissionPolicy that changed the object as patched', async () => {
    await created(
      api(server, 'POST', `${arPath}/mutatingadmissionpolicies`, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicy',
        metadata: { name: 'cov-map' },
        spec: {
          matchConstraints: constraints('cov-map'),
          reinvocationPolicy: 'Never',
          matchConditions: [{ name: 'not-exempt', expression: 'object.metadata.name != "exempt-from-map"' }],
          mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{data: {"mutated": "by-policy"}}' } }],
        },
      }),
    );
    await created(api(server, 'POST', `${arPath}/mutatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'cov-map-binding' }, spec: { policyName: 'cov-map' } }));
    const r = await createCm('m1', 'cov-map');
    expect(r.status).toBe(201);
    expect(r.json['data']).toEqual({ mutated: 'by-policy' });
    expect((await createCm('exempt-from-map', 'cov-map')).status).toBe(201);
    const c = configuration(await server.coverage(), 'MutatingAdmissionPolicy/api/cov-map');
    expect(c.decisions).toMatchObject({ patched: 1, skippedByMatchConditions: 1, errored: 0 });
    expect(c.calls).toBe(1);
  });
});

describe('admission coverage: where it is read', () => {
  it('is written to the file while the server runs, and its configurations are the ones served live', async () => {
    const runFile = server.args.find((a) => a.startsWith('--admission-coverage='))!.slice('--admission-coverage='.length);
    // the periodic write (every 2 s while something changed) catches up with what was recorded
    const live = await server.coverage();
    await eventually(() => {
      const written = parseCoverageReport(readFileSync(runFile, 'utf8'));
      expect(written.totals.calls).toBe(live.totals.calls);
    }, 15_000, 100);
    const res = await server.request('/debug/admission-coverage');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const served = parseCoverageReport(res.body);
    expect(served.schemaVersion).toBe('kah.admission-coverage/v1');
    expect(served.configurations.map((c) => c.id)).toEqual(live.configurations.map((c) => c.id));
  });
});
