// One step against a scenario's environment. Expected outcomes (a denial that should have been an allow, a metric
// that never got there) are returned as a failure message; exceptions are for I/O failures and end as one too.
import { readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ManifestReloadError, writeManifestsAndWait } from '../../harness/manifest-reload.js';
import { expectStartupFailure } from '../../harness/startup-failure.js';
import { describeObject, parseManifest, runApiVerb, type ManifestObject } from './api-call.js';
import { formatDuration } from './duration.js';
import { describeAnswer, compareExpect } from './expectations.js';
import { parsePrometheusText, selectMetric } from './prometheus.js';
import type { ScenarioEnvironment } from './scenario-environment.js';
import type { Step, StepOf, Target, WaitCondition, WebhookCallsSpec } from './scenario-types.js';
import { untilServing } from './until-serving.js';

export type StepOutcome = { ok: true } | { ok: false; message: string };

/** A step's running name; API steps learn the object's name once the manifest is read. */
export interface StepProgress {
  label: string;
}

const ok: StepOutcome = { ok: true };
const fail = (message: string): StepOutcome => ({ ok: false, message });

export function describeTarget(t: Target): string {
  return t.type === 'etcd' ? 'etcd' : t.type === 'apiserver' && t.name === 'apiserver' ? 'apiserver' : `${t.type}/${t.name}`;
}

function describeCalls(c: WebhookCallsSpec): string {
  const what = [c.operation, c.resource].filter(Boolean).join(' ');
  return `webhook ${c.webhook}${what ? ` ${what}` : ''} ${c.count !== undefined ? `= ${c.count}` : `>= ${c.atLeast}`}`;
}

function describeCondition(c: WaitCondition): string {
  if (c.type === 'metric') return `${c.selector.text} ${c.equals !== undefined ? `= ${c.equals}` : `>= ${c.atLeast}`}`;
  if (c.type === 'ready') return c.ready ? 'ready' : 'not ready';
  return `calls to ${describeCalls(c.calls)}`;
}

function onSuffix(on: string | undefined): string {
  return on === undefined ? '' : ` on ${on}`;
}

/** "apply ConfigMap/default/x", "kill apiserver/b", "waitFor ready": the step as progress lines name it. Pure. */
export function describeStep(step: Step): string {
  switch (step.action) {
    case 'start':
      return `start ${describeTarget(step.target)}${step.waitForReady ? '' : ' (not waiting for ready)'}`;
    case 'restart':
      return `restart ${describeTarget(step.target)}`;
    case 'kill':
      return `kill ${describeTarget(step.target)}${step.signal === 'SIGKILL' ? '' : ` (${step.signal})`}`;
    case 'api': {
      let what = step.file !== undefined ? `file ${step.file}` : 'manifest';
      if (step.manifest !== undefined) {
        const m = parseManifest(step.manifest);
        if (m.ok) what = describeObject(m.object, step.namespace ?? m.object.metadata.namespace);
      }
      return `${step.verb} ${what}${step.dryRun ? ' (dry run)' : ''}${step.user ? ` as ${step.user}` : ''}${onSuffix(step.on)}`;
    }
    case 'writeFile':
      return `writeFile ${step.path}`;
    case 'removeFile':
      return `removeFile ${step.path}`;
    case 'writeManifests':
      return `writeManifests ${step.plugin}: ${Object.entries(step.files).map(([n, c]) => (c === null ? `-${n}` : n)).join(', ')}${onSuffix(step.on)}`;
    case 'waitFor':
      return `waitFor ${describeCondition(step.condition)}${onSuffix(step.on)}`;
    case 'expectReady':
      return `expectReady ${step.ready}${onSuffix(step.on)}`;
    case 'expectStartupFailure':
      return `expectStartupFailure${onSuffix(step.on)}`;
    case 'expectWebhookCalls':
      return `expectWebhookCalls ${describeCalls(step.calls)}`;
  }
}

/**
 * Polls `check` until it reports done or the deadline passes; returns the last observation on timeout. The checks
 * come after 5, 10, 20, … ms, at most 100 ms apart: most conditions a scenario waits for hold within milliseconds.
 */
async function pollUntil(deadline: number, check: () => Promise<{ done: boolean; seen: string }>): Promise<{ done: boolean; seen: string }> {
  for (let interval = 5; ; interval = Math.min(interval * 2, 100)) {
    const r = await check();
    if (r.done || Date.now() >= deadline) return r;
    await new Promise((res) => setTimeout(res, interval));
  }
}

function countCalls(env: ScenarioEnvironment, c: WebhookCallsSpec): number {
  const server = env.webhooks.get(c.webhook);
  if (!server) throw new Error(`no webhook ${c.webhook}`);
  return server.reviews.filter((r) => (c.operation === undefined || r.request.operation === c.operation) && (c.resource === undefined || r.request.resource?.resource === c.resource)).length;
}

function callsMatch(c: WebhookCallsSpec, n: number): boolean {
  return c.count !== undefined ? n === c.count : n >= c.atLeast!;
}

// Not running, not reachable yet (no certificates written, connection refused) and any answer but 200 all count as
// not ready: what a readiness probe (kubelet, a load balancer) concludes from the same observations.
async function isReady(env: ScenarioEnvironment, on: string): Promise<{ ready: boolean; seen: string }> {
  const slot = env.slot(on);
  if (!slot.handle || !slot.handle.running) return { ready: false, seen: `apiserver ${on} is not running` };
  try {
    const res = await slot.handle.request('/readyz?verbose', { timeoutMs: 2000 });
    const failed = res.body.split('\n').filter((l) => l.startsWith('[-]')).join('; ');
    return { ready: res.status === 200, seen: `/readyz answered ${res.status}${failed ? `: ${failed}` : ''}` };
  } catch (err) {
    return { ready: false, seen: `/readyz: ${(err as Error).message}` };
  }
}

async function metricValue(env: ScenarioEnvironment, on: string, c: Extract<WaitCondition, { type: 'metric' }>): Promise<{ done: boolean; seen: string }> {
  const { handle } = env.running(on);
  let text: string;
  try {
    const res = await handle.request('/metrics', { timeoutMs: 2000 });
    if (res.status !== 200) return { done: false, seen: `/metrics answered ${res.status}` };
    text = res.body;
  } catch (err) {
    return { done: false, seen: `/metrics: ${(err as Error).message}` };
  }
  const { value, series } = selectMetric(parsePrometheusText(text), c.selector);
  const done = c.equals !== undefined ? series > 0 && value === c.equals : value >= c.atLeast!;
  return { done, seen: series === 0 ? 'no matching series' : `${value} (${series} series)` };
}

async function runWaitFor(env: ScenarioEnvironment, step: StepOf<'waitFor'>): Promise<StepOutcome> {
  const on = step.on ?? env.defaultApiServer;
  const deadline = Date.now() + step.waitTimeoutMs;
  const c = step.condition;
  const r = await pollUntil(deadline, async () => {
    if (c.type === 'ready') {
      const s = await isReady(env, on);
      return { done: s.ready === c.ready, seen: s.seen };
    }
    if (c.type === 'metric') return metricValue(env, on, c);
    const n = countCalls(env, c.calls);
    return { done: callsMatch(c.calls, n), seen: `${n} call(s)` };
  });
  if (r.done) return ok;
  const want = c.type === 'metric' ? (c.equals !== undefined ? `${c.selector.text} = ${c.equals}` : `${c.selector.text} >= ${c.atLeast}`) : describeCondition(c);
  return fail(`waited ${formatDuration(step.waitTimeoutMs)} for ${want}; last seen: ${r.seen}`);
}

async function manifestOf(env: ScenarioEnvironment, step: StepOf<'api'>): Promise<ManifestObject | string> {
  let text: string;
  if (step.manifest !== undefined) text = step.manifest;
  else {
    // A `file:` is looked up in the temp dir first (files the scenario wrote), then beside the scenario file.
    const inTemp = env.pathIn(step.file!);
    const beside = path.resolve(env.scenario.source.dir, step.file!);
    const file = existsSync(inTemp) ? inTemp : beside;
    try {
      text = env.resolve<string>(await readFile(file, 'utf8'));
    } catch (err) {
      return `cannot read ${step.file}: ${(err as Error).message}`;
    }
  }
  const m = parseManifest(text);
  return m.ok ? m.object : m.error;
}

async function runApiStep(env: ScenarioEnvironment, step: StepOf<'api'>, progress: StepProgress): Promise<StepOutcome> {
  const on = step.on ?? env.defaultApiServer;
  const object = await manifestOf(env, step);
  if (typeof object === 'string') return fail(object);
  const { handle, client } = env.running(on);
  // Right after a start that did not wait for ready the server may not listen yet: connection failures are retried
  // until shortly before the step's limit, so that the step reports the last one rather than a bare timeout.
  const deadline = Date.now() + step.timeoutMs - Math.min(1000, step.timeoutMs / 10);
  const called = await untilServing(
    handle,
    async () => {
      const mapping = await client.mapping(object.apiVersion, object.kind);
      if ('error' in mapping) return mapping;
      // Namespaced kinds default to "default", as kubectl does without -n.
      const namespace = mapping.namespaced ? (step.namespace ?? object.metadata.namespace ?? 'default') : undefined;
      progress.label = `${step.verb} ${describeObject(object, namespace)}${step.dryRun ? ' (dry run)' : ''}${step.user ? ` as ${step.user}` : ''}${onSuffix(step.on)}`;
      return runApiVerb(client, {
        verb: step.verb,
        object,
        mapping,
        namespace,
        dryRun: step.dryRun,
        patchType: step.patchType,
        ...(step.patch !== undefined ? { patch: step.patch } : {}),
        ...(step.user !== undefined ? { user: step.user } : {}),
        groups: step.groups,
        // The step's own limit, not the client's 10 s default: the server may hold a request while it starts.
        timeoutMs: Math.max(1000, deadline - Date.now()),
      });
    },
    { deadline },
  );
  if (!called.ok) return fail(called.message);
  if ('error' in called.value) return fail(called.value.error);
  const result = called.value;
  const problems = compareExpect(step.expect, result);
  if (problems.length === 0) return ok;
  // When the answer was not what the scenario thought, say what it was once (unless a problem already did).
  const said = problems.some((p) => p.includes(String(result.status)));
  return fail(`${problems.join('; ')}${said ? '' : ` (the server answered ${describeAnswer(result)})`}`);
}

async function startTarget(env: ScenarioEnvironment, step: StepOf<'start'>): Promise<StepOutcome> {
  const t = step.target;
  switch (t.type) {
    case 'apiserver':
      await env.startApiServer(t.name, step.timeoutMs, { waitForReady: step.waitForReady });
      return ok;
    case 'etcd':
      if (!env.etcd) return fail('the scenario has no etcd (setup.storage: memory)');
      if (env.etcd.running) return fail('etcd is already running');
      await env.etcd.restart();
      return ok;
    case 'webhook':
      await env.webhooks.get(t.name)!.startListening();
      return ok;
    case 'process': {
      const p = env.processes.get(t.name);
      if (p?.running) return fail(`process ${t.name} is already running`);
      await env.startProcess(env.scenario.setup.processes.find((x) => x.name === t.name)!);
      return ok;
    }
  }
}

async function killTarget(env: ScenarioEnvironment, t: Target, signal: NodeJS.Signals): Promise<StepOutcome> {
  switch (t.type) {
    case 'apiserver': {
      const h = env.slot(t.name).handle;
      if (!h) return fail(`apiserver ${t.name} has not been started`);
      await h.kill(signal);
      return ok;
    }
    case 'etcd':
      if (!env.etcd) return fail('the scenario has no etcd (setup.storage: memory)');
      await env.etcd.kill(signal);
      return ok;
    case 'webhook':
      // A stopped test webhook drops its connections like a dead process would.
      await env.webhooks.get(t.name)!.stopListening();
      return ok;
    case 'process': {
      const p = env.processes.get(t.name);
      if (!p) return fail(`process ${t.name} is not running`);
      await p.kill(signal);
      return ok;
    }
  }
}

async function restartTarget(env: ScenarioEnvironment, step: StepOf<'restart'>): Promise<StepOutcome> {
  const t = step.target;
  switch (t.type) {
    case 'apiserver': {
      const slot = env.slot(t.name);
      if (!slot.handle) {
        await env.startApiServer(t.name, step.timeoutMs);
        return ok;
      }
      env.rememberLogs(t.name, slot.handle);
      await slot.handle.restart();
      return ok;
    }
    case 'etcd':
      if (!env.etcd) return fail('the scenario has no etcd (setup.storage: memory)');
      await env.etcd.restart();
      return ok;
    case 'webhook': {
      const w = env.webhooks.get(t.name)!;
      await w.stopListening();
      await w.startListening();
      return ok;
    }
    case 'process':
      await env.processes.get(t.name)?.kill('SIGTERM');
      await env.startProcess(env.scenario.setup.processes.find((x) => x.name === t.name)!);
      return ok;
  }
}

async function runExpectStartupFailure(env: ScenarioEnvironment, step: StepOf<'expectStartupFailure'>): Promise<StepOutcome> {
  const on = step.on ?? env.defaultApiServer;
  if (env.slot(on).handle?.running) return fail(`apiserver ${on} is running; expectStartupFailure starts it itself`);
  // Leave room inside the step's limit for the process to be stopped when it does become ready.
  const failure = await expectStartupFailure(env.apiServerOptions(on, Math.max(1000, step.timeoutMs - 5000))).catch((err: Error) => err);
  if (failure instanceof Error) return fail(failure.message.split('\n')[0]!);
  const problems: string[] = [];
  const exit = failure.signal ? `signal ${failure.signal}` : `code ${failure.exitCode}`;
  if (step.exitCode !== undefined ? failure.exitCode !== step.exitCode : failure.exitCode === 0) {
    problems.push(`expected exit code ${step.exitCode ?? 'other than 0'}, got ${exit}`);
  }
  for (const want of step.stderrContains) {
    if (!failure.stderr.includes(want)) problems.push(`expected stderr to contain ${JSON.stringify(want)}`);
  }
  if (problems.length === 0) return ok;
  const tail = failure.stderr.trimEnd().split('\n').slice(-20).join('\n');
  return fail(`${problems.join('; ')}; stderr (last lines):\n${tail}`);
}

async function runExpectReady(env: ScenarioEnvironment, step: StepOf<'expectReady'>): Promise<StepOutcome> {
  const s = await isReady(env, step.on ?? env.defaultApiServer);
  return s.ready === step.ready ? ok : fail(`expected ${step.ready ? 'ready' : 'not ready'}, but ${s.seen}`);
}

/** Writes the files into the plugin's directory and returns once the apiserver has that content in force. */
async function runWriteManifests(env: ScenarioEnvironment, step: StepOf<'writeManifests'>): Promise<StepOutcome> {
  const name = step.on ?? env.defaultApiServer;
  const slot = env.slot(name);
  const dir = env.resolve(slot.spec).staticManifests[step.plugin];
  if (dir === undefined) return fail(`apiserver ${name} has no staticManifests directory for ${step.plugin}`);
  if (!slot.handle?.running) return fail(`apiserver ${name} is not running`);
  try {
    await writeManifestsAndWait(slot.handle, step.plugin, env.pathIn(dir), step.files, { timeoutMs: step.waitTimeoutMs });
    return ok;
  } catch (err) {
    if (err instanceof ManifestReloadError) return fail(err.message);
    throw err;
  }
}

/** Runs one step (its templates resolved first). */
export async function runStep(env: ScenarioEnvironment, raw: Step, progress: StepProgress): Promise<StepOutcome> {
  const step = env.resolve(raw);
  switch (step.action) {
    case 'start':
      return startTarget(env, step);
    case 'kill':
      return killTarget(env, step.target, step.signal);
    case 'restart':
      return restartTarget(env, step);
    case 'api':
      return runApiStep(env, step, progress);
    case 'writeFile':
      await env.writeFileAtomic(step.path, step.content);
      return ok;
    case 'removeFile':
      if (!existsSync(env.pathIn(step.path))) return fail(`${step.path} does not exist`);
      await rm(env.pathIn(step.path), { recursive: true });
      return ok;
    case 'writeManifests':
      return runWriteManifests(env, step);
    case 'waitFor':
      return runWaitFor(env, step);
    case 'expectReady':
      return runExpectReady(env, step);
    case 'expectStartupFailure':
      return runExpectStartupFailure(env, step);
    case 'expectWebhookCalls': {
      const n = countCalls(env, step.calls);
      return callsMatch(step.calls, n) ? ok : fail(`expected ${step.calls.count !== undefined ? step.calls.count : `at least ${step.calls.atLeast}`} call(s) to webhook ${step.calls.webhook}, got ${n}`);
    }
  }
}
