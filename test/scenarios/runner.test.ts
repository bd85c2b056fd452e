// `kah scenario run` end to end with real apiservers: passing and failing runs with their progress, summary and
// JUnit, --filter, --bail, --parallel, --keep, schema errors (exit 2), and runScenario() from TypeScript with a
// user process standing in for a webhook written in another language.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../harness/cli.js';
import { runScenarioCommand } from '../../harness/commands/scenario.js';
import { trackedResources } from '../../harness/cleanup.js';
import { runScenario, ScenarioValidationError } from '../../scenarios/index.js';
import { captureCliIO } from '../support/cli.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const fixtures = path.join(here, 'fixtures');

/** A scenario that fails at once without starting anything (no apiserver was started). */
const quickFailure = (name: string): string => `apiVersion: kah.scenarios/v1
kind: Scenario
name: ${name}
setup: { storage: memory }
steps:
  - expectReady: true
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kah-scenario-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('kah scenario run', () => {
  it('runs every example in parallel, prints a line per step and scenario, the summary and a JUnit file', async () => {
    const c = captureCliIO();
    const junit = path.join(dir, 'junit.xml');
    const code = await runScenarioCommand(['run', path.join(root, 'scenarios/examples'), '--parallel', '2', '--junit', junit], c);
    const out = c.out();
    // on failure, show the run's output: which scenario and step failed, and why
    expect({ code, err: c.err(), out: code === 0 ? '' : out }).toEqual({ code: 0, err: '', out: '' });
    expect(out).toMatch(/^  ✓ step 1 start apiserver \(\d.*\)$/m);
    expect(out).toMatch(/^  ✓ step 3 create ConfigMap\/default\/denied \(\d+ ms\)$/m);
    expect(out).toMatch(/^✓ webhook-denies-configmaps \(/m);
    expect(out).toMatch(/^✓ static-policy-active-at-startup \(/m);
    expect(out.trimEnd().split('\n').pop()).toBe('6 passed, 0 failed');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuite name="kah scenarios" tests="6" failures="0" errors="0" skipped="0" time="[\d.]+">/);
    expect(xml.match(/<testcase /g)).toHaveLength(6);
    expect(xml).toContain(`<testcase name="invalid-static-policy-fails-startup" classname="${path.join(root, 'scenarios/examples/startup-failure.yaml')}"`);
    // Everything the scenarios started is gone: no process, no temp dir.
    expect(trackedResources()).toEqual({ pids: [], tempDirs: [] });
  }, 180_000);

  it('exits 1 naming the failing step and why, in the output and the JUnit failure with the server log lines', async () => {
    const c = captureCliIO();
    const junit = path.join(dir, 'junit.xml');
    const code = await runScenarioCommand(['run', path.join(fixtures, 'failing.yaml'), '--parallel', '1', '--junit', junit], c);
    expect(code).toBe(1);
    const out = c.out();
    expect(out).toContain('▶ fixture-fails (');
    expect(out).toContain('  ✗ step 2 create Pod/default/p1 (');
    expect(out).toContain('    step 2 (create Pod/default/p1): expected code 422, got 201; expected reason Invalid, got none');
    expect(out).toMatch(/last log lines:\n.*--- apiserver stdout/);
    // The step after the failing one is not run.
    expect(out).not.toContain('step 3 expectReady');
    expect(out).toContain('Failed scenarios:\n  ✗ fixture-fails');
    expect(out.trimEnd().split('\n').pop()).toBe('1 passed, 1 failed');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="kah scenarios" tests="2" failures="1"');
    expect(xml).toContain('<failure message="step 2 (create Pod/default/p1): expected code 422, got 201; expected reason Invalid, got none" type="ScenarioStepFailed">');
    expect(xml).toMatch(/✗ step 2 create Pod\/default\/p1 \(\d+ ms\)/);
    expect(xml).toContain('Serving securely');
  }, 120_000);

  it('runs only the scenarios --filter matches, and --keep leaves the temp dir with the logs', async () => {
    const c = captureCliIO();
    const code = await runScenarioCommand(['run', path.join(fixtures, 'failing.yaml'), '--filter', '^fixture-passes$', '--keep'], c);
    expect(code).toBe(0);
    expect(c.out()).toContain('✓ fixture-passes');
    expect(c.out()).not.toContain('fixture-fails');
    expect(c.out().trimEnd().split('\n').pop()).toBe('1 passed, 0 failed');
    const kept = /temp dir kept: (\S+)/.exec(c.out())?.[1];
    expect(kept).toBeDefined();
    try {
      expect(readFileSync(path.join(kept!, 'logs', 'apiserver-apiserver.stdout.log'), 'utf8')).toContain('Serving securely');
    } finally {
      rmSync(kept!, { recursive: true, force: true });
    }
  }, 120_000);

  it('stops starting scenarios after the first failure with --bail and counts the rest as skipped', async () => {
    writeFileSync(path.join(dir, 'two.yaml'), `${quickFailure('first-fails')}---\n${quickFailure('second-fails')}`);
    const c = captureCliIO();
    const junit = path.join(dir, 'junit.xml');
    expect(await runScenarioCommand(['run', dir, '--bail', '--parallel', '1', '--junit', junit], c)).toBe(1);
    expect(c.out()).toContain('step 1 (expectReady true): expected ready, but apiserver apiserver is not running');
    expect(c.out()).not.toContain('second-fails (');
    expect(c.out().trimEnd().split('\n').pop()).toBe('0 passed, 1 failed, 1 skipped');
    expect(readFileSync(junit, 'utf8')).toContain('<testcase name="second-fails"');
    // Without --bail both run.
    const all = captureCliIO();
    expect(await runScenarioCommand(['run', dir, '--parallel', '1'], all)).toBe(1);
    expect(all.out().trimEnd().split('\n').pop()).toBe('0 passed, 2 failed');
  });

  it('exits 2 listing every problem of an invalid scenario file, and runs nothing', async () => {
    const c = captureCliIO();
    expect(await runScenarioCommand(['run', path.join(fixtures, 'invalid.yaml'), path.join(fixtures, 'failing.yaml')], c)).toBe(2);
    const file = path.join(fixtures, 'invalid.yaml');
    expect(c.err()).toContain(`${file}: setup.webhookz: unknown key "webhookz" (allowed here: `);
    expect(c.err()).toContain(`${file}: steps[1].apply: exactly one of manifest or file`);
    expect(c.err()).toContain(`${file}: steps[2].frobnicate: unknown key "frobnicate"`);
    expect(c.err()).not.toContain('needs one action');
    expect(c.err()).toContain('kah scenario: 3 problem(s) in scenario files; nothing was run');
    expect(c.out()).toBe('');
  });

  it('exits 2 on usage errors', async () => {
    const none = captureCliIO();
    expect(await runScenarioCommand(['run'], none)).toBe(2);
    expect(none.err()).toContain('name at least one scenario file or directory');
    const parallel = captureCliIO();
    expect(await runScenarioCommand(['run', fixtures, '--parallel', '0'], parallel)).toBe(2);
    expect(parallel.err()).toContain('--parallel must be a whole number of at least 1');
    const missing = captureCliIO();
    expect(await runScenarioCommand(['run', path.join(dir, 'nope.yaml')], missing)).toBe(2);
    expect(missing.err()).toContain('nope.yaml: no such file or directory');
    const filter = captureCliIO();
    expect(await runScenarioCommand(['run', path.join(fixtures, 'failing.yaml'), '--filter', 'nothing-matches'], filter)).toBe(2);
    expect(filter.err()).toContain('no scenario matches --filter nothing-matches');
  });

  it('is registered in kah as `scenario`', async () => {
    const c = captureCliIO();
    expect(await runCli(['scenario', 'validate', path.join(root, 'scenarios/examples')], c)).toBe(0);
    expect(c.out()).toBe('6 scenario(s) valid\n');
  });
});

describe('runScenario from TypeScript', () => {
  it('runs a scenario object whose webhook is a user process, with ports and TLS templates', async () => {
    const result = await runScenario(
      {
        apiVersion: 'kah.scenarios/v1',
        kind: 'Scenario',
        name: 'user-webhook-process',
        setup: {
          storage: 'memory',
          processes: [
            {
              name: 'label-webhook',
              command: [process.execPath, 'fixtures/label-webhook.mjs', '--port', '{{ports.hook}}', '--cert', '{{tls.certFile}}', '--key', '{{tls.keyFile}}'],
              readyURL: 'https://127.0.0.1:{{ports.hook}}/healthz',
            },
          ],
        },
        steps: [
          { start: 'apiserver' },
          {
            create: {
              manifest: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: { name: label-webhook }
webhooks:
  - name: label.example.com
    clientConfig: { url: "https://127.0.0.1:{{ports.hook}}/validate", caBundle: "{{tls.caBundle}}" }
    rules: [{ apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE] }]
    admissionReviewVersions: [v1]
    sideEffects: None
`,
            },
          },
          { create: { manifest: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: no, labels: { deny: "true" } }' }, expect: { allowed: false, code: 403, messageContains: 'label-webhook says no' } },
          { create: { manifest: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: yes }', namespace: 'kube-system' }, expect: { jsonPath: { '$.metadata.namespace': 'kube-system' } } },
          { get: { manifest: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: yes, namespace: kube-system }', user: 'jane', groups: ['system:masters'] }, expect: { code: 200 } },
        ],
      },
      { baseDir: here },
    );
    if (!result.passed) throw new Error(result.failure ? `${result.failure.message}\n${result.failure.logs}` : 'failed');
    expect(result.steps.map((s) => `${s.number} ${s.label} ${s.ok}`)).toEqual([
      '0 setup true',
      '1 start apiserver true',
      '2 create ValidatingWebhookConfiguration/label-webhook true',
      '3 create ConfigMap/default/no true',
      '4 create ConfigMap/kube-system/yes true',
      '5 get ConfigMap/kube-system/yes as jane true',
    ]);
    expect(trackedResources()).toEqual({ pids: [], tempDirs: [] });
  }, 120_000);

  it('reports a failing step with the process output and removes everything it started', async () => {
    const result = await runScenario(
      {
        apiVersion: 'kah.scenarios/v1',
        kind: 'Scenario',
        name: 'user-process-dies',
        setup: {
          storage: 'memory',
          processes: [
            {
              name: 'talker',
              command: [process.execPath, '-e', 'require("http").createServer((q, s) => s.end("ok")).listen({{ports.talk}}, "127.0.0.1", () => console.log("hello from talker"))'],
              readyURL: 'http://127.0.0.1:{{ports.talk}}/',
            },
          ],
        },
        steps: [{ kill: { target: 'process/talker', signal: 'SIGTERM' } }, { waitFor: { ready: true, timeout: '200ms' } }],
      },
      { baseDir: here },
    );
    expect(result.passed).toBe(false);
    expect(result.failure).toMatchObject({ step: 2, label: 'waitFor ready', message: 'waited 200ms for ready; last seen: apiserver apiserver is not running' });
    expect(result.failure!.logs).toContain('--- process talker');
    expect(result.failure!.logs).toContain('hello from talker');
    expect(trackedResources()).toEqual({ pids: [], tempDirs: [] });
  });

  it('runs API steps right after a start that does not wait for ready, retrying until the server listens', async () => {
    const result = await runScenario(
      {
        apiVersion: 'kah.scenarios/v1',
        kind: 'Scenario',
        name: 'no-wait-start',
        setup: { storage: 'memory' },
        steps: [
          { start: { target: 'apiserver', waitForReady: false } },
          // the process was only spawned: it has not even written its certificates yet
          { expectReady: false },
          { create: { manifest: 'apiVersion: v1\nkind: Namespace\nmetadata: { name: early }' }, expect: { code: 201 } },
          { waitFor: { ready: true } },
        ],
      },
      { baseDir: here },
    );
    if (!result.passed) throw new Error(`${result.failure!.message}\n${result.failure!.logs}`);
    expect(result.steps.map((s) => s.label)).toEqual(['setup', 'start apiserver (not waiting for ready)', 'expectReady false', 'create Namespace/early', 'waitFor ready']);
    expect(trackedResources()).toEqual({ pids: [], tempDirs: [] });
  }, 60_000);

  it('fails an API step at once, naming the exit, when an apiserver started without waiting cannot start', async () => {
    const result = await runScenario(
      {
        apiVersion: 'kah.scenarios/v1',
        kind: 'Scenario',
        name: 'no-wait-start-fails',
        setup: { storage: 'memory', flags: ['--no-such-flag'] },
        steps: [
          { start: { target: 'apiserver', waitForReady: false } },
          { create: { manifest: 'apiVersion: v1\nkind: Namespace\nmetadata: { name: never }' }, timeout: '1m' },
        ],
      },
      { baseDir: here },
    );
    expect(result.passed).toBe(false);
    expect(result.failure).toMatchObject({ step: 2, label: 'create Namespace/never', message: expect.stringMatching(/^the apiserver exited with code 1; last stderr lines:\n(.*\n)*.*unknown flag: --no-such-flag/) });
    // not the step's minute: the exit ends the wait
    expect(result.steps[2]!.durationMs).toBeLessThan(20_000);
    expect(trackedResources()).toEqual({ pids: [], tempDirs: [] });
  }, 60_000);

  it('throws on an invalid scenario object, listing its problems', async () => {
    await expect(runScenario({ apiVersion: 'kah.scenarios/v1', kind: 'Scenario', name: 'x', steps: [{ kill: 'apiserver/zz' }] })).rejects.toThrow(ScenarioValidationError);
    await expect(runScenario({ apiVersion: 'kah.scenarios/v1', kind: 'Scenario', name: 'x', steps: [{ kill: 'apiserver/zz' }] })).rejects.toThrow('steps[0].kill: no apiserver named "zz" in setup (have: apiserver)');
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });
});
