// The pure parts of the scenario runner: strict validation with field paths, templates, durations, Prometheus
// selectors, expectations over API answers, and the report/JUnit rendering.
import { parseScenarioText, formatFileProblem } from '../../scenarios/runner/load-scenarios.js';
import { parseDuration } from '../../scenarios/runner/duration.js';
import { compareExpect } from '../../scenarios/runner/expectations.js';
import { parseMetricSelector, parsePrometheusText, selectMetric } from '../../scenarios/runner/prometheus.js';
import { junitXml, formatSummary } from '../../scenarios/runner/report.js';
import { parseTemplateRef, resolveTemplates, TemplateError } from '../../scenarios/runner/templates.js';
import { validateScenario } from '../../scenarios/runner/validate-scenario.js';
import type { ApiExpect } from '../../scenarios/runner/scenario-types.js';
import { describeStep } from '../../scenarios/runner/run-step.js';
import { isNotServingYet, untilServing } from '../../scenarios/runner/until-serving.js';
import type { ApiServerExit } from '../../harness/apiserver-process.js';

const source = { document: 0, dir: '/tmp' };
const base = { apiVersion: 'kah.scenarios/v1', kind: 'Scenario', name: 's' };

function problemsOf(doc: unknown): string[] {
  const r = validateScenario(doc, source);
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
}

describe('scenario validation', () => {
  it('accepts a complete scenario and applies the defaults', () => {
    const r = validateScenario(
      {
        ...base,
        setup: { webhooks: [{ name: 'guard', respond: { allowed: false, message: 'no', code: 403 } }], env: { KAH_MANIFEST_LOAD_DELAY_MS: 800 } },
        steps: [
          { start: 'apiserver' },
          { create: { manifest: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}' }, expect: { code: 422 } },
          { waitFor: { metric: 'x_total{a="b"}', atLeast: 2, timeout: '500ms' } },
          { kill: { target: 'etcd', signal: 'SIGTERM' }, timeout: '1m' },
          { expectWebhookCalls: { webhook: 'guard', count: 1, operation: 'CREATE' } },
        ],
      },
      source,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const s = r.scenario;
    expect(s.setup.storage).toBe('etcd');
    expect(s.setup.apiservers).toEqual([{ name: 'apiserver', featureGates: {}, flags: [], env: { KAH_MANIFEST_LOAD_DELAY_MS: '800' }, staticManifests: {} }]);
    expect(s.steps[0]).toMatchObject({ action: 'start', target: { type: 'apiserver', name: 'apiserver' }, timeoutMs: 30_000 });
    // A code under 300 is an allow, above it a denial, when allowed is not given.
    expect(s.steps[1]).toMatchObject({ action: 'api', verb: 'create', expect: { allowed: false, code: 422 } });
    expect(s.steps[2]).toMatchObject({ action: 'waitFor', waitTimeoutMs: 500, condition: { type: 'metric', atLeast: 2, selector: { name: 'x_total', labels: { a: 'b' } } } });
    expect(s.steps[3]).toMatchObject({ action: 'kill', target: { type: 'etcd' }, signal: 'SIGTERM', timeoutMs: 60_000 });
  });

  it('names an unknown key with its path', () => {
    expect(problemsOf({ ...base, setup: { webhookz: [] }, steps: [{ start: 'apiserver' }] })).toEqual([expect.stringMatching(/^setup\.webhookz: unknown key "webhookz" \(allowed here: storage, /)]);
    expect(problemsOf({ ...base, steps: [{ start: 'apiserver', colour: 'red' }] })).toEqual([expect.stringMatching(/^steps\[0\]\.colour: unknown key "colour"/)]);
  });

  it('reports every bad step with its index and action', () => {
    const problems = problemsOf({
      ...base,
      steps: [{ start: 'apiserver' }, { apply: { namespace: 'x' } }, { frobnicate: true }, { start: 'apiserver', kill: 'etcd' }, { start: 'apiserver/nope' }, { expectReady: true, expect: { code: 200 } }],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'steps[1].apply: exactly one of manifest or file',
        expect.stringMatching(/^steps\[2\]\.frobnicate: unknown key "frobnicate"/),
        expect.stringMatching(/^steps\[3\]: has several actions \(start, kill\)/),
        'steps[4].start: no apiserver named "nope" in setup (have: apiserver)',
        'steps[5].expect: only API steps (create, apply, update, patch, delete, get) take expect',
      ]),
    );
  });

  it('checks types, durations, references and contradictions', () => {
    const problems = problemsOf({
      ...base,
      timeout: 10,
      setup: { storage: 'disk', files: { '../escape.yaml': 'x' }, webhooks: [{ name: 'w', respond: { code: 403 } }] },
      steps: [
        { waitFor: { ready: true, timeout: 'soon' } },
        { expectWebhookCalls: { webhook: 'other', count: 1 } },
        { create: { manifest: 'x', patchType: 'merge' }, expect: { allowed: true, code: 403 } },
        { writeFile: { path: 'a', content: '{{webhooks.missing.url}} {{nonsense}}' } },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'timeout: must be a duration such as "10s", "500ms" or "1m30s", got number 10',
        'setup.storage: must be "etcd" or "memory", got string "disk"',
        'setup.files[../escape.yaml]: "../escape.yaml" must be a relative path inside the scenario\'s temp dir (no leading "/" or "..")',
        'setup.webhooks[0].respond: code and reason describe a denial: set allowed: false',
        'steps[0].waitFor.timeout: must be a duration such as "10s", "500ms" or "1m30s", got string "soon"',
        'steps[1].expectWebhookCalls.webhook: no webhook named "other" in setup.webhooks',
        'steps[2].create.patchType: only patch takes patchType',
        'steps[2].expect.code: 403 contradicts allowed: true',
        'steps[3].writeFile.content: {{webhooks.missing.url}}: no webhook named "missing" in setup.webhooks',
        expect.stringMatching(/^steps\[3\]\.writeFile\.content: \{\{nonsense\}\}: unknown template/),
      ]),
    );
  });

  it('folds top-level setup into each named apiserver; steps address them with on and apiserver/NAME', () => {
    const r = validateScenario(
      {
        ...base,
        setup: { featureGates: { A: true }, flags: ['--v=2'], env: { X: '1' }, apiservers: [{ name: 'a' }, { name: 'b', featureGates: { B: true }, flags: [], env: { Y: '2' } }] },
        steps: [{ start: 'apiserver/b' }, { get: { manifest: 'x' }, on: 'b' }, { expectStartupFailure: { on: 'a', stderrContains: 'boom' } }, { start: 'apiserver' }],
      },
      source,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.scenario.setup.apiservers).toEqual([
      { name: 'a', featureGates: { A: true }, flags: ['--v=2'], env: { X: '1' }, staticManifests: {} },
      { name: 'b', featureGates: { A: true, B: true }, flags: [], env: { X: '1', Y: '2' }, staticManifests: {} },
    ]);
    expect(r.scenario.steps.map((s) => ('on' in s ? s.on : 'target' in s ? s.target : undefined))).toEqual([{ type: 'apiserver', name: 'b' }, 'b', 'a', { type: 'apiserver', name: 'a' }]);
    expect(r.scenario.steps[2]).toMatchObject({ stderrContains: ['boom'] });
  });

  it('loads several documents per file, skips non-scenario YAML in directories and names the document of a problem', () => {
    const two = parseScenarioText(`${JSON.stringify({ ...base, name: 'a', steps: [{ start: 'apiserver' }] })}\n---\n${JSON.stringify({ ...base, name: 'b', steps: [{ start: 'etcd', extra: 1 }] })}\n`, 'f.yaml');
    expect(two.scenarios.map((s) => s.name)).toEqual(['a']);
    expect(two.problems.map((p) => formatFileProblem(p))).toEqual([expect.stringMatching(/^f\.yaml \(document 2\): steps\[0\]\.extra: unknown key "extra"/)]);
    expect(parseScenarioText('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 'm.yaml', { fromDirectory: true })).toEqual({ scenarios: [], problems: [] });
    expect(parseScenarioText('apiVersion: v1\nkind: ConfigMap\n', 'm.yaml').problems.map((p) => p.path)).toEqual(['apiVersion', 'kind', 'name', 'steps']);
    expect(parseScenarioText('a: 1\na: 2\n', 'dup.yaml').problems[0]!.message).toMatch(/^invalid YAML: Map keys must be unique/);
    const dupNames = parseScenarioText(`${JSON.stringify({ ...base, steps: [{ start: 'apiserver' }] })}\n---\n${JSON.stringify({ ...base, steps: [{ start: 'apiserver' }] })}\n`, 'd.yaml');
    expect(dupNames.problems.map((p) => p.message)).toEqual(['duplicate scenario name "s" (also document 1)']);
  });
});

describe('start without waiting for ready', () => {
  it('reads start: { target, waitForReady: false } for apiservers; every other start form waits', () => {
    const r = validateScenario(
      {
        ...base,
        setup: { apiservers: [{ name: 'a' }, { name: 'b' }], processes: [{ name: 'p', command: ['x'] }] },
        steps: [
          { start: { target: 'apiserver', waitForReady: false } },
          { start: { target: 'apiserver/b', waitForReady: false }, timeout: '5s' },
          { start: 'apiserver/b' },
          { start: { target: 'apiserver/a' } },
          { start: { target: 'process/p', waitForReady: true } },
        ],
      },
      source,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.scenario.steps.map((s) => (s.action === 'start' ? [s.target, s.waitForReady] : undefined))).toEqual([
      [{ type: 'apiserver', name: 'a' }, false],
      [{ type: 'apiserver', name: 'b' }, false],
      [{ type: 'apiserver', name: 'b' }, true],
      [{ type: 'apiserver', name: 'a' }, true],
      [{ type: 'process', name: 'p' }, true],
    ]);
    expect(r.scenario.steps.map(describeStep)).toEqual([
      'start apiserver/a (not waiting for ready)',
      'start apiserver/b (not waiting for ready)',
      'start apiserver/b',
      'start apiserver/a',
      'start process/p',
    ]);
  });

  it('names each problem of the mapping form with its path', () => {
    expect(
      problemsOf({
        ...base,
        setup: { webhooks: [{ name: 'w' }] },
        steps: [
          { start: { waitForReady: false } },
          { start: { target: 'apiserver', waitForReady: 'no' } },
          { start: { target: 'apiserver', wait: false } },
          { start: { target: 'etcd', waitForReady: false } },
          { start: { target: 'webhook/w', waitForReady: false } },
          { start: { target: 'apiserver/x', waitForReady: false } },
          { start: ['apiserver'] },
        ],
      }),
    ).toEqual([
      'steps[0].start.target: is required',
      'steps[1].start.waitForReady: must be true or false, got string "no"',
      'steps[2].start.wait: unknown key "wait" (allowed here: target, waitForReady)',
      'steps[3].start.waitForReady: only an apiserver start can skip waiting for ready, not etcd',
      'steps[4].start.waitForReady: only an apiserver start can skip waiting for ready, not webhook',
      'steps[5].start.target: no apiserver named "x" in setup (have: apiserver)',
      'steps[6].start: must be a mapping, got a list',
    ]);
  });
});

describe('waiting for a starting apiserver to accept connections', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

  it('counts refused and reset connections as not serving yet, and nothing else', () => {
    expect(isNotServingYet(refused)).toBe(true);
    expect(isNotServingYet(reset)).toBe(true);
    expect(isNotServingYet(new AggregateError([refused, reset], 'all failed'))).toBe(true);
    expect(isNotServingYet(new AggregateError([refused, new Error('x')], 'mixed'))).toBe(false);
    expect(isNotServingYet(new Error('request to /api/v1 timed out'))).toBe(false);
    expect(isNotServingYet(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe(false);
    expect(isNotServingYet('ECONNREFUSED')).toBe(false);
  });

  /** A server probe whose certificates appear after `credentialsAfter` checks; `exit` ends it. */
  function fakeServer(opts: { credentialsAfter?: number; exit?: ApiServerExit } = {}) {
    let probes = 0;
    return {
      get running() {
        return opts.exit === undefined;
      },
      exited: Promise.resolve(opts.exit ?? { code: null, signal: null, stderr: '' }),
      get caPem() {
        if (++probes <= (opts.credentialsAfter ?? 0)) throw new Error('caPem is not known yet');
        return 'CA';
      },
    };
  }

  it('calls once the certificates exist and retries while connections are refused or reset', async () => {
    const failures = [refused, reset];
    let calls = 0;
    const r = await untilServing(
      fakeServer({ credentialsAfter: 2 }),
      async () => {
        calls++;
        const f = failures.shift();
        if (f) throw f;
        return 201;
      },
      { deadline: Date.now() + 5000, intervalMs: 1 },
    );
    expect(r).toEqual({ ok: true, value: 201 });
    expect(calls).toBe(3);
  });

  it('gives up at the deadline with the last connection error', async () => {
    const r = await untilServing(fakeServer(), () => Promise.reject(refused), { deadline: Date.now() + 50, intervalMs: 5 });
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/^the apiserver did not accept connections within \d+ms; last error: connect ECONNREFUSED 127\.0\.0\.1:1$/) });
  });

  it('says the certificates are missing when the server never wrote them', async () => {
    const r = await untilServing(fakeServer({ credentialsAfter: Infinity }), () => Promise.resolve(1), { deadline: Date.now() + 20, intervalMs: 5 });
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/last error: the apiserver has not written its certificates yet$/) });
  });

  it('stops at once when the server exited, with its exit and last stderr lines', async () => {
    let calls = 0;
    const exit: ApiServerExit = { code: 1, signal: null, stderr: 'E0101 line one\nfailed to listen on 127.0.0.1:1\n' };
    const r = await untilServing(fakeServer({ exit }), async () => ++calls, { deadline: Date.now() + 60_000 });
    expect(r).toEqual({ ok: false, message: 'the apiserver exited with code 1; last stderr lines:\nE0101 line one\nfailed to listen on 127.0.0.1:1' });
    expect(calls).toBe(0);
  });

  it('passes any other error through: it is not a server that is still starting', async () => {
    await expect(untilServing(fakeServer(), () => Promise.reject(new Error('request to /api/v1 timed out')), { deadline: Date.now() + 5000, intervalMs: 1 })).rejects.toThrow('timed out');
  });
});

describe('templates', () => {
  const lookup = (ref: ReturnType<typeof parseTemplateRef>): string => {
    if ('error' in ref) throw new Error(ref.error);
    if (ref.kind === 'webhook') return `https://127.0.0.1:1234#${ref.field}`;
    if (ref.kind === 'port') return '4321';
    if (ref.kind === 'dir') return `/tmp/x/${ref.name}`;
    throw new TemplateError(`cannot resolve ${ref.kind}`);
  };

  it('resolves references in strings, lists and keys, with or without spaces', () => {
    expect(
      resolveTemplates({ url: '{{webhooks.guard.url}}/validate', cmd: ['--port', '{{ ports.my-hook }}'], files: { '{{dirs.policies}}/a.yaml': 'x' }, n: 3 }, (r) => lookup(r)),
    ).toEqual({ url: 'https://127.0.0.1:1234#url/validate', cmd: ['--port', '4321'], files: { '/tmp/x/policies/a.yaml': 'x' }, n: 3 });
  });

  it('parses each documented reference and rejects malformed ones', () => {
    expect(parseTemplateRef('webhooks.guard.caBundle')).toEqual({ kind: 'webhook', name: 'guard', field: 'caBundle' });
    expect(parseTemplateRef('tls.certFile')).toEqual({ kind: 'tls', field: 'certFile' });
    expect(parseTemplateRef('apiservers.a.url')).toEqual({ kind: 'apiserver', name: 'a', field: 'url' });
    expect(parseTemplateRef('apiserver.kubeconfig')).toEqual({ kind: 'apiserver', name: undefined, field: 'kubeconfig' });
    expect(parseTemplateRef('env.HOME')).toEqual({ kind: 'env', name: 'HOME' });
    expect(parseTemplateRef('webhooks.guard.cert')).toEqual({ error: '{{webhooks.guard.cert}}: unknown field "cert"; expected one of url, caBundle, port, host' });
    expect(() => resolveTemplates('{{tempDir}}', (r) => lookup(r))).toThrow('cannot resolve tempDir');
  });
});

describe('durations and metrics', () => {
  it('parses Go-style durations', () => {
    expect([parseDuration('10s'), parseDuration('500ms'), parseDuration('1m30s'), parseDuration('1.5s'), parseDuration('10'), parseDuration('')]).toEqual([10_000, 500, 90_000, 1500, undefined, undefined]);
  });

  it('matches a selector against the series with those label values, summing them', () => {
    const text = [
      '# HELP reloads_total reloads',
      '# TYPE reloads_total counter',
      'reloads_total{plugin="ValidatingAdmissionPolicy",status="success",apiserver_id_hash="sha256:1"} 2',
      'reloads_total{plugin="ValidatingAdmissionPolicy",status="failure",apiserver_id_hash="sha256:1"} 1',
      'reloads_total{plugin="ValidatingAdmissionWebhook",status="success",apiserver_id_hash="sha256:1"} 5',
      'up 1 1700000000000',
      'quoted{msg="a \\"b\\", c"} 7',
    ].join('\n');
    const samples = parsePrometheusText(text);
    const sel = (s: string) => {
      const p = parseMetricSelector(s);
      if ('error' in p) throw new Error(p.error);
      return selectMetric(samples, p);
    };
    expect(sel('reloads_total{plugin="ValidatingAdmissionPolicy",status="success"}')).toEqual({ value: 2, series: 1 });
    expect(sel('reloads_total{status="success"}')).toEqual({ value: 7, series: 2 });
    expect(sel('reloads_total{plugin="MutatingAdmissionPolicy"}')).toEqual({ value: 0, series: 0 });
    expect(sel('up')).toEqual({ value: 1, series: 1 });
    expect(sel('quoted{msg="a \\"b\\", c"}')).toEqual({ value: 7, series: 1 });
    expect(parseMetricSelector('reloads_total{plugin=ValidatingAdmissionPolicy}')).toEqual({ error: 'reloads_total{plugin=ValidatingAdmissionPolicy}: expected a quoted value for label plugin' });
  });
});

describe('expectations', () => {
  const expectOf = (e: Partial<ApiExpect>): ApiExpect => ({ allowed: true, messageContains: [], warningsContain: [], noWarnings: false, jsonPath: {}, ...e });
  const denied = { status: 422, body: { kind: 'Status', code: 422, reason: 'Invalid', message: 'configmaps "x" is forbidden: denied' }, warnings: ['careful'] };

  it('is satisfied by a matching answer', () => {
    expect(compareExpect(expectOf({ allowed: false, code: 422, reason: 'Invalid', messageContains: ['is forbidden'], warningsContain: ['care'] }), denied)).toEqual([]);
  });

  it('says every way an answer differs', () => {
    expect(compareExpect(expectOf({ allowed: false, code: 403, reason: 'Forbidden', messageContains: ['nope'], noWarnings: true }), denied)).toEqual([
      'expected code 403, got 422 Invalid: configmaps "x" is forbidden: denied',
      'expected reason Forbidden, got Invalid',
      'expected the message to contain "nope", got "configmaps \\"x\\" is forbidden: denied"',
      'expected no warnings, got ["careful"]',
    ]);
    expect(compareExpect(expectOf({}), denied)).toEqual(['expected the request to be allowed, got 422 Invalid: configmaps "x" is forbidden: denied']);
  });

  it('compares JSONPath selections over the returned object', () => {
    const created = { status: 201, body: { metadata: { name: 'x', labels: { team: 'a' } }, data: { k: 'v' }, items: [{ n: 1 }, { n: 2 }] }, warnings: [] };
    expect(compareExpect(expectOf({ jsonPath: { '$.metadata.labels.team': 'a', '$.data': { k: 'v' }, '$.items[*].n': [1, 2] } }), created)).toEqual([]);
    expect(compareExpect(expectOf({ jsonPath: { '$.metadata.labels.team': 'b', '$.metadata.labels.missing': 'x' } }), created)).toEqual([
      'jsonPath $.metadata.labels.team: expected b, got a',
      'jsonPath $.metadata.labels.missing: expected x, but it matches nothing',
    ]);
  });
});

describe('report', () => {
  it('renders JUnit with one testcase per scenario, the failing step and escaped logs', () => {
    const summary = {
      durationMs: 2500,
      skipped: [{ name: 'later', file: 'b.yaml' }],
      results: [
        { name: 'ok', file: 'a.yaml', passed: true, durationMs: 1000, steps: [] },
        {
          name: 'bad <one>',
          file: 'a.yaml',
          passed: false,
          durationMs: 1500,
          steps: [{ number: 1, label: 'start apiserver', ok: true, durationMs: 900 }, { number: 2, label: 'apply Pod/default/p1', ok: false, durationMs: 20, message: 'expected code 422, got 201' }],
          failure: { step: 2, label: 'apply Pod/default/p1', message: 'expected code 422, got 201', logs: '{"msg":"a & b"}\u001b[0m' },
        },
      ],
    };
    const xml = junitXml(summary);
    expect(xml).toContain('<testsuite name="kah scenarios" tests="3" failures="1" errors="0" skipped="1" time="2.500">');
    expect(xml).toContain('<testcase name="ok" classname="a.yaml" time="1.000"/>');
    expect(xml).toContain('<testcase name="bad &lt;one&gt;" classname="a.yaml" time="1.500">');
    expect(xml).toContain('<failure message="step 2 (apply Pod/default/p1): expected code 422, got 201" type="ScenarioStepFailed">');
    expect(xml).toContain('{"msg":"a &amp; b"}[0m');
    expect(xml).not.toContain('\u001b');
    expect(xml).toContain('<skipped message="not run: --bail after a failure"/>');
    expect(formatSummary(summary).split('\n').pop()).toBe('1 passed, 1 failed, 1 skipped');
  });
});
