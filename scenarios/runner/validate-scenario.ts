// Strict validation of one parsed scenario document: every unknown key, wrong type and dangling reference is
// reported with its field path (`steps[3].apply: exactly one of manifest or file`), all at once, the way kube's
// field.ErrorList reports an object. Pure: data in, a Scenario or the list of problems out.
import type { StaticManifestPlugin } from '../../harness/apiserver-process.js';
import { parseDuration } from './duration.js';
import { parseMetricSelector } from './prometheus.js';
import {
  apiVerbs,
  defaultScenarioTimeoutMs,
  defaultStepTimeoutMs,
  scenarioApiVersion,
  scenarioKind,
  type ApiExpect,
  type ApiServerSpec,
  type ApiVerb,
  type PatchType,
  type ProcessSpec,
  type Scenario,
  type ScenarioProblem,
  type ScenarioSource,
  type Step,
  type StorageKind,
  type Target,
  type WaitCondition,
  type WebhookCallsSpec,
  type WebhookRespondSpec,
  type WebhookSpec,
} from './scenario-types.js';
import { parseTemplateRef, stringsIn, templateExpressions } from './templates.js';

export type ValidationResult = { ok: true; scenario: Scenario } | { ok: false; problems: ScenarioProblem[] };

type Obj = Record<string, unknown>;

const staticPlugins: readonly StaticManifestPlugin[] = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook'];
const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const signals: readonly string[] = ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGSTOP', 'SIGCONT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
const operations: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const stepActions = ['start', 'kill', 'restart', ...apiVerbs, 'writeFile', 'removeFile', 'writeManifests', 'waitFor', 'expectReady', 'expectStartupFailure', 'expectWebhookCalls'] as const;

/** Collects problems while reading; each reader returns undefined for a value it could not accept. */
class Reader {
  readonly problems: ScenarioProblem[] = [];

  add(path: string, message: string): undefined {
    this.problems.push({ path, message });
    return undefined;
  }

  object(v: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return this.add(path, `must be a mapping, got ${describe(v)}`);
    for (const k of Object.keys(v)) {
      if (!allowed.includes(k)) this.add(join(path, k), `unknown key ${JSON.stringify(k)} (allowed here: ${allowed.join(', ')})`);
    }
    return v as Obj;
  }

  string(v: unknown, path: string, opts: { nonEmpty?: boolean } = {}): string | undefined {
    if (typeof v !== 'string') return this.add(path, `must be a string, got ${describe(v)}`);
    if (opts.nonEmpty && v.trim() === '') return this.add(path, 'must not be empty');
    return v;
  }

  name(v: unknown, path: string): string | undefined {
    const s = this.string(v, path, { nonEmpty: true });
    if (s !== undefined && !namePattern.test(s)) return this.add(path, `${JSON.stringify(s)} is not a valid name (letters, digits, "-" and "_", starting with a letter or digit)`);
    return s;
  }

  bool(v: unknown, path: string): boolean | undefined {
    if (typeof v !== 'boolean') return this.add(path, `must be true or false, got ${describe(v)}`);
    return v;
  }

  int(v: unknown, path: string, min = 0): number | undefined {
    if (typeof v !== 'number' || !Number.isInteger(v)) return this.add(path, `must be an integer, got ${describe(v)}`);
    if (v < min) return this.add(path, `must be at least ${min}, got ${v}`);
    return v;
  }

  number(v: unknown, path: string): number | undefined {
    if (typeof v !== 'number' || !Number.isFinite(v)) return this.add(path, `must be a number, got ${describe(v)}`);
    return v;
  }

  duration(v: unknown, path: string): number | undefined {
    const s = typeof v === 'string' ? parseDuration(v) : undefined;
    if (s === undefined) return this.add(path, `must be a duration such as "10s", "500ms" or "1m30s", got ${describe(v)}`);
    return s;
  }

  stringList(v: unknown, path: string): string[] | undefined {
    if (!Array.isArray(v)) return this.add(path, `must be a list of strings, got ${describe(v)}`);
    const out: string[] = [];
    v.forEach((x, i) => {
      const s = this.string(x, `${path}[${i}]`);
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  /** A string or a list of strings: `messageContains: "x"` and `messageContains: ["x", "y"]` alike. */
  strings(v: unknown, path: string): string[] | undefined {
    return typeof v === 'string' ? [v] : this.stringList(v, path);
  }

  stringMap(v: unknown, path: string): Record<string, string> | undefined {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return this.add(path, `must be a mapping of strings, got ${describe(v)}`);
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      // Environment values are often numbers in YAML (`DELAY: 800`); they are strings to the process.
      if (typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
      else {
        const s = this.string(x, join(path, k));
        if (s !== undefined) out[k] = s;
      }
    }
    return out;
  }

  boolMap(v: unknown, path: string): Record<string, boolean> | undefined {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return this.add(path, `must be a mapping of names to true/false, got ${describe(v)}`);
    const out: Record<string, boolean> = {};
    for (const [k, x] of Object.entries(v)) {
      const b = this.bool(x, join(path, k));
      if (b !== undefined) out[k] = b;
    }
    return out;
  }
}

/** `{{dirs.NAME}}` names a staticManifests directory by its last path segment. */
export function staticDirName(dir: string): string {
  return dir.split('/').filter((p) => p !== '' && p !== '.').pop() ?? dir;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

/** Whether a parsed YAML document claims to be a scenario (directory runs skip other YAML, e.g. manifests). */
export function looksLikeScenario(doc: unknown): boolean {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return false;
  const d = doc as Obj;
  return d.kind === scenarioKind || (typeof d.apiVersion === 'string' && d.apiVersion.startsWith('kah.scenarios/'));
}

/** Validates one document and applies the defaults. */
export function validateScenario(doc: unknown, source: ScenarioSource): ValidationResult {
  const r = new Reader();
  const top = r.object(doc, '', ['apiVersion', 'kind', 'name', 'description', 'timeout', 'setup', 'steps']);
  if (!top) return { ok: false, problems: r.problems };
  if (top.apiVersion !== scenarioApiVersion) r.add('apiVersion', `must be ${JSON.stringify(scenarioApiVersion)}, got ${describe(top.apiVersion)}`);
  if (top.kind !== scenarioKind) r.add('kind', `must be ${JSON.stringify(scenarioKind)}, got ${describe(top.kind)}`);
  const name = top.name === undefined ? r.add('name', 'is required') : r.string(top.name, 'name', { nonEmpty: true });
  const description = top.description === undefined ? undefined : r.string(top.description, 'description');
  const timeoutMs = top.timeout === undefined ? defaultScenarioTimeoutMs : r.duration(top.timeout, 'timeout');

  const setup = readSetup(r, top.setup ?? {});
  const apiserverNames = new Set(setup.apiservers.map((a) => a.name));
  const webhookNames = new Set(setup.webhooks.map((w) => w.name));
  const processNames = new Set(setup.processes.map((p) => p.name));
  const ctx: StepContext = { r, apiserverNames, webhookNames, processNames, defaultApiserver: setup.apiservers[0]?.name ?? 'apiserver' };

  const steps: Step[] = [];
  if (top.steps === undefined) r.add('steps', 'is required: a list of steps');
  else if (!Array.isArray(top.steps)) r.add('steps', `must be a list of steps, got ${describe(top.steps)}`);
  else if (top.steps.length === 0) r.add('steps', 'must have at least one step');
  else
    top.steps.forEach((s, i) => {
      const step = readStep(ctx, s, i);
      if (step) steps.push(step);
    });

  checkTemplates(r, top, { webhookNames, apiserverNames, dirNames: new Set(setup.apiservers.flatMap((a) => Object.values(a.staticManifests)).map((d) => staticDirName(d!))) });

  if (r.problems.length > 0 || name === undefined || timeoutMs === undefined) return { ok: false, problems: r.problems };
  return { ok: true, scenario: { name, ...(description !== undefined ? { description } : {}), timeoutMs, setup, steps, source } };
}

interface SetupResult {
  storage: StorageKind;
  files: Record<string, string>;
  webhooks: WebhookSpec[];
  processes: ProcessSpec[];
  apiservers: ApiServerSpec[];
}

const apiserverKeys = ['featureGates', 'flags', 'env', 'staticManifests', 'admissionConfig'] as const;

function readSetup(r: Reader, v: unknown): SetupResult {
  const s = r.object(v, 'setup', ['storage', 'files', 'webhooks', 'processes', 'apiservers', ...apiserverKeys]) ?? {};
  let storage: StorageKind = 'etcd';
  if (s.storage !== undefined) {
    if (s.storage === 'etcd' || s.storage === 'memory') storage = s.storage;
    else r.add('setup.storage', `must be "etcd" or "memory", got ${describe(s.storage)}`);
  }
  const files = s.files === undefined ? {} : (r.stringMap(s.files, 'setup.files') ?? {});
  for (const f of Object.keys(files)) checkRelativePath(r, f, `setup.files[${f}]`);

  const base = readApiServerFields(r, s, 'setup');
  const apiservers: ApiServerSpec[] = [];
  if (s.apiservers === undefined) apiservers.push({ name: 'apiserver', ...base });
  else if (!Array.isArray(s.apiservers) || s.apiservers.length === 0) r.add('setup.apiservers', 'must be a non-empty list of apiservers');
  else
    s.apiservers.forEach((a, i) => {
      const path = `setup.apiservers[${i}]`;
      const o = r.object(a, path, ['name', ...apiserverKeys]);
      if (!o) return;
      const name = o.name === undefined ? r.add(`${path}.name`, 'is required') : r.name(o.name, `${path}.name`);
      const own = readApiServerFields(r, o, path);
      if (name === undefined) return;
      if (apiservers.some((x) => x.name === name)) r.add(`${path}.name`, `duplicate apiserver name ${JSON.stringify(name)}`);
      // Maps merge key by key (the apiserver's own entries win); lists and the admission config replace.
      apiservers.push({
        name,
        featureGates: { ...base.featureGates, ...own.featureGates },
        env: { ...base.env, ...own.env },
        staticManifests: { ...base.staticManifests, ...own.staticManifests },
        flags: o.flags !== undefined ? own.flags : base.flags,
        ...(o.admissionConfig !== undefined ? { admissionConfig: own.admissionConfig } : base.admissionConfig !== undefined ? { admissionConfig: base.admissionConfig } : {}),
      });
    });

  const webhooks: WebhookSpec[] = [];
  if (s.webhooks !== undefined) {
    if (!Array.isArray(s.webhooks)) r.add('setup.webhooks', `must be a list, got ${describe(s.webhooks)}`);
    else
      s.webhooks.forEach((w, i) => {
        const spec = readWebhook(r, w, `setup.webhooks[${i}]`);
        if (!spec) return;
        if (webhooks.some((x) => x.name === spec.name)) r.add(`setup.webhooks[${i}].name`, `duplicate webhook name ${JSON.stringify(spec.name)}`);
        webhooks.push(spec);
      });
  }
  const processes: ProcessSpec[] = [];
  if (s.processes !== undefined) {
    if (!Array.isArray(s.processes)) r.add('setup.processes', `must be a list, got ${describe(s.processes)}`);
    else
      s.processes.forEach((p, i) => {
        const spec = readProcess(r, p, `setup.processes[${i}]`);
        if (!spec) return;
        if (processes.some((x) => x.name === spec.name)) r.add(`setup.processes[${i}].name`, `duplicate process name ${JSON.stringify(spec.name)}`);
        processes.push(spec);
      });
  }
  return { storage, files, webhooks, processes, apiservers };
}

function readApiServerFields(r: Reader, o: Obj, path: string): Omit<ApiServerSpec, 'name'> {
  const featureGates = o.featureGates === undefined ? {} : (r.boolMap(o.featureGates, `${path}.featureGates`) ?? {});
  const flags = o.flags === undefined ? [] : (r.stringList(o.flags, `${path}.flags`) ?? []);
  const env = o.env === undefined ? {} : (r.stringMap(o.env, `${path}.env`) ?? {});
  const staticManifests: Partial<Record<StaticManifestPlugin, string>> = {};
  if (o.staticManifests !== undefined) {
    const m = r.object(o.staticManifests, `${path}.staticManifests`, staticPlugins);
    for (const [plugin, dir] of Object.entries(m ?? {})) {
      const d = r.string(dir, `${path}.staticManifests.${plugin}`, { nonEmpty: true });
      if (d !== undefined && checkRelativePath(r, d, `${path}.staticManifests.${plugin}`)) staticManifests[plugin as StaticManifestPlugin] = d;
    }
  }
  let admissionConfig: string | Record<string, unknown> | undefined;
  if (o.admissionConfig !== undefined) {
    const a = o.admissionConfig;
    if (typeof a === 'string' || (a !== null && typeof a === 'object' && !Array.isArray(a))) admissionConfig = a as string | Record<string, unknown>;
    else r.add(`${path}.admissionConfig`, `must be YAML text or a mapping, got ${describe(a)}`);
  }
  return { featureGates, flags, env, staticManifests, ...(admissionConfig !== undefined ? { admissionConfig } : {}) };
}

/** Paths under the temp dir: relative and never climbing out of it. */
function checkRelativePath(r: Reader, p: string, path: string): boolean {
  if (p.startsWith('/') || p.split(/[\\/]/).includes('..')) {
    r.add(path, `${JSON.stringify(p)} must be a relative path inside the scenario's temp dir (no leading "/" or "..")`);
    return false;
  }
  return true;
}

function readWebhook(r: Reader, v: unknown, path: string): WebhookSpec | undefined {
  const o = r.object(v, path, ['name', 'respond']);
  if (!o) return undefined;
  const name = o.name === undefined ? r.add(`${path}.name`, 'is required') : r.name(o.name, `${path}.name`);
  const respond = o.respond === undefined ? defaultRespond() : readRespond(r, o.respond, `${path}.respond`);
  return name === undefined || respond === undefined ? undefined : { name, respond };
}

function defaultRespond(): WebhookRespondSpec {
  return { allowed: true, warnings: [], hang: false, closeConnection: false };
}

function readRespond(r: Reader, v: unknown, path: string): WebhookRespondSpec | undefined {
  const o = r.object(v, path, ['allowed', 'message', 'code', 'reason', 'patch', 'warnings', 'delayMs', 'hang', 'closeConnection', 'badJSON']);
  if (!o) return undefined;
  const out = defaultRespond();
  if (o.allowed !== undefined) out.allowed = r.bool(o.allowed, `${path}.allowed`) ?? true;
  if (o.message !== undefined) out.message = r.string(o.message, `${path}.message`);
  if (o.code !== undefined) out.code = r.int(o.code, `${path}.code`);
  if (o.reason !== undefined) out.reason = r.string(o.reason, `${path}.reason`);
  if (o.warnings !== undefined) out.warnings = r.stringList(o.warnings, `${path}.warnings`) ?? [];
  if (o.delayMs !== undefined) out.delayMs = r.int(o.delayMs, `${path}.delayMs`);
  if (o.hang !== undefined) out.hang = r.bool(o.hang, `${path}.hang`) ?? false;
  if (o.closeConnection !== undefined) out.closeConnection = r.bool(o.closeConnection, `${path}.closeConnection`) ?? false;
  if (o.badJSON !== undefined) {
    if (o.badJSON === true) out.badJSON = 'this is not JSON';
    else if (typeof o.badJSON === 'string') out.badJSON = o.badJSON;
    else if (o.badJSON !== false) r.add(`${path}.badJSON`, `must be true or the body to send, got ${describe(o.badJSON)}`);
  }
  if (o.patch !== undefined) {
    if (!Array.isArray(o.patch)) r.add(`${path}.patch`, 'must be a list of JSONPatch operations ({op, path, value})');
    else {
      o.patch.forEach((op, i) => {
        const p = r.object(op, `${path}.patch[${i}]`, ['op', 'path', 'value', 'from']);
        if (p && (typeof p.op !== 'string' || typeof p.path !== 'string')) r.add(`${path}.patch[${i}]`, 'needs op and path');
      });
      out.patch = o.patch;
    }
    if (out.allowed === false) r.add(`${path}.patch`, 'only an allowed response carries a patch');
  }
  const faults = [out.hang, out.closeConnection, out.badJSON !== undefined].filter(Boolean).length;
  if (faults > 1) r.add(path, 'at most one of hang, closeConnection or badJSON');
  if (out.allowed && (out.code !== undefined || out.reason !== undefined)) r.add(path, 'code and reason describe a denial: set allowed: false');
  return out;
}

function readProcess(r: Reader, v: unknown, path: string): ProcessSpec | undefined {
  const o = r.object(v, path, ['name', 'command', 'env', 'readyURL', 'readyTimeout']);
  if (!o) return undefined;
  const name = o.name === undefined ? r.add(`${path}.name`, 'is required') : r.name(o.name, `${path}.name`);
  let command: string[] | undefined;
  if (o.command === undefined) r.add(`${path}.command`, 'is required: the program and its arguments, e.g. ["./bin/webhook", "--port", "{{ports.webhook}}"]');
  else {
    command = r.stringList(o.command, `${path}.command`);
    if (command && command.length === 0) command = r.add(`${path}.command`, 'must name the program to run');
  }
  const env = o.env === undefined ? {} : (r.stringMap(o.env, `${path}.env`) ?? {});
  const readyURL = o.readyURL === undefined ? undefined : r.string(o.readyURL, `${path}.readyURL`, { nonEmpty: true });
  if (readyURL !== undefined && !/^https?:\/\//.test(readyURL)) r.add(`${path}.readyURL`, 'must be an http:// or https:// URL');
  const readyTimeoutMs = o.readyTimeout === undefined ? defaultStepTimeoutMs : r.duration(o.readyTimeout, `${path}.readyTimeout`);
  if (name === undefined || command === undefined || readyTimeoutMs === undefined) return undefined;
  return { name, command, env, ...(readyURL !== undefined ? { readyURL } : {}), readyTimeoutMs };
}

interface StepContext {
  r: Reader;
  apiserverNames: Set<string>;
  webhookNames: Set<string>;
  processNames: Set<string>;
  defaultApiserver: string;
}

function readStep(ctx: StepContext, v: unknown, index: number): Step | undefined {
  const { r } = ctx;
  const path = `steps[${index}]`;
  const before = r.problems.length;
  const o = r.object(v, path, [...stepActions, 'expect', 'on', 'timeout']);
  if (!o) return undefined;
  const actions = stepActions.filter((a) => o[a] !== undefined);
  // A misspelt action was just reported as an unknown key; "needs one action" would say it again.
  if (actions.length === 0 && r.problems.length > before) return undefined;
  if (actions.length !== 1) {
    return r.add(path, actions.length === 0 ? `needs one action: ${stepActions.join(', ')}` : `has several actions (${actions.join(', ')}); split them into one step each`);
  }
  const action = actions[0]!;
  const at = `${path}.${action}`;
  const timeoutMs = o.timeout === undefined ? defaultStepTimeoutMs : r.duration(o.timeout, `${path}.timeout`);
  if (timeoutMs === undefined) return undefined;
  const isApi = (apiVerbs as readonly string[]).includes(action);
  if (o.expect !== undefined && !isApi) r.add(`${path}.expect`, `only API steps (${apiVerbs.join(', ')}) take expect`);
  const takesOn = isApi || action === 'waitFor' || action === 'writeManifests' || action === 'expectReady' || action === 'expectStartupFailure';
  if (o.on !== undefined && !takesOn) r.add(`${path}.on`, `${action} does not take on`);
  const stepOn = o.on === undefined ? undefined : readOn(ctx, o.on, `${path}.on`);
  const base = { index, timeoutMs };
  const value = o[action];
  switch (action) {
    case 'start':
      return readStart(ctx, value, at, base);
    case 'restart': {
      const target = readTarget(ctx, value, at);
      return target && { ...base, action, target };
    }
    case 'kill': {
      let targetText: unknown = value;
      let signal: NodeJS.Signals = 'SIGKILL';
      if (value !== null && typeof value === 'object') {
        const k = r.object(value, at, ['target', 'signal']);
        if (!k) return undefined;
        targetText = k.target;
        if (k.target === undefined) return r.add(`${at}.target`, 'is required');
        if (k.signal !== undefined) {
          if (typeof k.signal === 'string' && signals.includes(k.signal)) signal = k.signal as NodeJS.Signals;
          else return r.add(`${at}.signal`, `must be one of ${signals.join(', ')}, got ${describe(k.signal)}`);
        }
      }
      const target = readTarget(ctx, targetText, value !== null && typeof value === 'object' ? `${at}.target` : at);
      return target && { ...base, action, target, signal };
    }
    case 'writeFile': {
      const w = r.object(value, at, ['path', 'content']);
      if (!w) return undefined;
      const p = w.path === undefined ? r.add(`${at}.path`, 'is required') : r.string(w.path, `${at}.path`, { nonEmpty: true });
      const content = w.content === undefined ? r.add(`${at}.content`, 'is required') : r.string(w.content, `${at}.content`);
      if (p === undefined || content === undefined || !checkRelativePath(r, p, `${at}.path`)) return undefined;
      return { ...base, action, path: p, content };
    }
    case 'removeFile': {
      const p = r.string(value, at, { nonEmpty: true });
      if (p === undefined || !checkRelativePath(r, p, at)) return undefined;
      return { ...base, action, path: p };
    }
    case 'writeManifests': {
      const w = r.object(value, at, ['plugin', 'files', 'timeout']);
      if (!w) return undefined;
      const plugin = w.plugin === undefined ? r.add(`${at}.plugin`, 'is required') : r.string(w.plugin, `${at}.plugin`, { nonEmpty: true });
      if (plugin !== undefined && !(staticPlugins as readonly string[]).includes(plugin)) r.add(`${at}.plugin`, `must be one of ${staticPlugins.join(', ')}, got ${describe(plugin)}`);
      const f = w.files === undefined ? r.add(`${at}.files`, 'is required') : r.object(w.files, `${at}.files`, Object.keys(w.files as object));
      const files: Record<string, string | null> = {};
      for (const [name, content] of Object.entries(f ?? {})) {
        if (name === '' || name.includes('/') || name === '.' || name === '..') r.add(`${at}.files`, `${describe(name)} must be a file name in the directory, not a path`);
        else if (content === null) files[name] = null;
        else {
          const text = r.string(content, `${at}.files.${name}`);
          if (text !== undefined) files[name] = text;
        }
      }
      if (f && Object.keys(f).length === 0) r.add(`${at}.files`, 'must name at least one file');
      const waitTimeoutMs = w.timeout === undefined ? 10_000 : r.duration(w.timeout, `${at}.timeout`);
      if (plugin === undefined || !(staticPlugins as readonly string[]).includes(plugin) || !f || waitTimeoutMs === undefined) return undefined;
      // the wait must end before the step's own limit does, so that its message is the one reported
      const timeoutMs = Math.max(base.timeoutMs, waitTimeoutMs + 5_000);
      return { ...base, timeoutMs, action, plugin: plugin as StaticManifestPlugin, files, waitTimeoutMs, ...(stepOn !== undefined ? { on: stepOn } : {}) };
    }
    case 'expectReady': {
      const ready = r.bool(value, at);
      return ready === undefined ? undefined : { ...base, action, ready, ...(stepOn !== undefined ? { on: stepOn } : {}) };
    }
    case 'expectStartupFailure': {
      const e = value === true ? {} : r.object(value, at, ['exitCode', 'stderrContains', 'on']);
      if (!e) return undefined;
      const on = mergeOn(ctx, stepOn, e.on, at);
      const exitCode = e.exitCode === undefined ? undefined : r.int(e.exitCode, `${at}.exitCode`);
      const stderrContains = e.stderrContains === undefined ? [] : (r.strings(e.stderrContains, `${at}.stderrContains`) ?? []);
      return { ...base, action, ...(on !== undefined ? { on } : {}), ...(exitCode !== undefined ? { exitCode } : {}), stderrContains };
    }
    case 'expectWebhookCalls': {
      const calls = readWebhookCalls(ctx, value, at);
      return calls && { ...base, action, calls };
    }
    case 'waitFor':
      return readWaitFor(ctx, value, at, base, stepOn);
    default:
      return readApiStep(ctx, action, value, o.expect, at, `${path}.expect`, base, stepOn);
  }
}

/** `start: TARGET`, or `start: { target, waitForReady }` where only an apiserver can be left to get ready on its own. */
function readStart(ctx: StepContext, value: unknown, at: string, base: { index: number; timeoutMs: number }): Step | undefined {
  const { r } = ctx;
  if (value === null || typeof value !== 'object') {
    const target = readTarget(ctx, value, at);
    return target && { ...base, action: 'start', target, waitForReady: true };
  }
  const o = r.object(value, at, ['target', 'waitForReady']);
  if (!o) return undefined;
  if (o.target === undefined) return r.add(`${at}.target`, 'is required');
  const target = readTarget(ctx, o.target, `${at}.target`);
  const waitForReady = o.waitForReady === undefined ? true : r.bool(o.waitForReady, `${at}.waitForReady`);
  if (target === undefined || waitForReady === undefined) return undefined;
  // etcd, webhooks and processes have no /readyz the runner waits on in a start step (processes use readyURL).
  if (!waitForReady && target.type !== 'apiserver') return r.add(`${at}.waitForReady`, `only an apiserver start can skip waiting for ready, not ${target.type}`);
  return { ...base, action: 'start', target, waitForReady };
}

function readOn(ctx: StepContext, v: unknown, path: string): string | undefined {
  const name = ctx.r.string(v, path, { nonEmpty: true });
  if (name === undefined) return undefined;
  const bare = name.startsWith('apiserver/') ? name.slice('apiserver/'.length) : name;
  if (!ctx.apiserverNames.has(bare)) return ctx.r.add(path, `no apiserver named ${JSON.stringify(bare)} in setup (have: ${[...ctx.apiserverNames].join(', ')})`);
  return bare;
}

/** `on` may sit beside the action or inside its mapping; both at once must agree. */
function mergeOn(ctx: StepContext, stepOn: string | undefined, inner: unknown, at: string): string | undefined {
  const innerOn = inner === undefined ? undefined : readOn(ctx, inner, `${at}.on`);
  if (stepOn !== undefined && innerOn !== undefined && stepOn !== innerOn) return ctx.r.add(`${at}.on`, `conflicts with the step's on: ${JSON.stringify(stepOn)}`);
  return innerOn ?? stepOn;
}

function readTarget(ctx: StepContext, v: unknown, path: string): Target | undefined {
  const s = ctx.r.string(v, path, { nonEmpty: true });
  if (s === undefined) return undefined;
  if (s === 'etcd') return { type: 'etcd' };
  if (s === 'apiserver') return { type: 'apiserver', name: ctx.defaultApiserver };
  const slash = s.indexOf('/');
  const kind = slash < 0 ? s : s.slice(0, slash);
  const name = slash < 0 ? '' : s.slice(slash + 1);
  const known = { apiserver: ctx.apiserverNames, webhook: ctx.webhookNames, process: ctx.processNames } as const;
  if (kind === 'apiserver' || kind === 'webhook' || kind === 'process') {
    if (!known[kind].has(name)) return ctx.r.add(path, `no ${kind} named ${JSON.stringify(name)} in setup (have: ${[...known[kind]].join(', ') || 'none'})`);
    return { type: kind, name };
  }
  return ctx.r.add(path, `unknown target ${JSON.stringify(s)}; expected apiserver, apiserver/NAME, etcd, webhook/NAME or process/NAME`);
}

function readWebhookCalls(ctx: StepContext, v: unknown, path: string): WebhookCallsSpec | undefined {
  const { r } = ctx;
  const o = r.object(v, path, ['webhook', 'count', 'atLeast', 'operation', 'resource']);
  if (!o) return undefined;
  const webhook = o.webhook === undefined ? r.add(`${path}.webhook`, 'is required') : r.string(o.webhook, `${path}.webhook`);
  if (webhook !== undefined && !ctx.webhookNames.has(webhook)) r.add(`${path}.webhook`, `no webhook named ${JSON.stringify(webhook)} in setup.webhooks`);
  const count = o.count === undefined ? undefined : r.int(o.count, `${path}.count`);
  const atLeast = o.atLeast === undefined ? undefined : r.int(o.atLeast, `${path}.atLeast`);
  if ((o.count === undefined) === (o.atLeast === undefined)) r.add(path, 'exactly one of count or atLeast');
  let operation: string | undefined;
  if (o.operation !== undefined) {
    operation = r.string(o.operation, `${path}.operation`);
    if (operation !== undefined && !operations.includes(operation)) operation = r.add(`${path}.operation`, `must be one of ${operations.join(', ')}`);
  }
  const resource = o.resource === undefined ? undefined : r.string(o.resource, `${path}.resource`);
  if (webhook === undefined) return undefined;
  return { webhook, ...(count !== undefined ? { count } : {}), ...(atLeast !== undefined ? { atLeast } : {}), ...(operation ? { operation } : {}), ...(resource ? { resource } : {}) };
}

function readWaitFor(ctx: StepContext, v: unknown, at: string, base: { index: number; timeoutMs: number }, stepOn: string | undefined): Step | undefined {
  const { r } = ctx;
  const o = r.object(v, at, ['metric', 'atLeast', 'equals', 'ready', 'webhookCalls', 'timeout', 'on']);
  if (!o) return undefined;
  const on = mergeOn(ctx, stepOn, o.on, at);
  const forms = (['metric', 'ready', 'webhookCalls'] as const).filter((k) => o[k] !== undefined);
  if (forms.length !== 1) return r.add(at, 'exactly one of metric, ready or webhookCalls');
  const waitTimeoutMs = o.timeout === undefined ? base.timeoutMs : r.duration(o.timeout, `${at}.timeout`);
  let condition: WaitCondition | undefined;
  if (forms[0] === 'metric') {
    const text = r.string(o.metric, `${at}.metric`, { nonEmpty: true });
    const selector = text === undefined ? undefined : parseMetricSelector(text);
    if (selector && 'error' in selector) r.add(`${at}.metric`, selector.error);
    if ((o.atLeast === undefined) === (o.equals === undefined)) r.add(at, 'a metric needs exactly one of atLeast or equals');
    const atLeast = o.atLeast === undefined ? undefined : r.number(o.atLeast, `${at}.atLeast`);
    const equals = o.equals === undefined ? undefined : r.number(o.equals, `${at}.equals`);
    if (selector && !('error' in selector)) condition = { type: 'metric', selector, ...(atLeast !== undefined ? { atLeast } : {}), ...(equals !== undefined ? { equals } : {}) };
  } else {
    if (o.atLeast !== undefined || o.equals !== undefined) r.add(at, 'atLeast and equals belong to a metric');
    if (forms[0] === 'ready') {
      const ready = r.bool(o.ready, `${at}.ready`);
      if (ready !== undefined) condition = { type: 'ready', ready };
    } else {
      const calls = readWebhookCalls(ctx, o.webhookCalls, `${at}.webhookCalls`);
      if (calls) condition = { type: 'webhookCalls', calls };
    }
  }
  if (!condition || waitTimeoutMs === undefined) return undefined;
  // The wait must end before the step's own limit does, so that its message (what was last seen) is the one reported.
  const timeoutMs = Math.max(base.timeoutMs, waitTimeoutMs + 5_000);
  return { ...base, timeoutMs, action: 'waitFor', waitTimeoutMs, condition, ...(on !== undefined ? { on } : {}) };
}

function readApiStep(
  ctx: StepContext,
  verb: ApiVerb,
  v: unknown,
  expectValue: unknown,
  at: string,
  expectPath: string,
  base: { index: number; timeoutMs: number },
  stepOn: string | undefined,
): Step | undefined {
  const { r } = ctx;
  const o = r.object(v, at, ['manifest', 'file', 'namespace', 'dryRun', 'patchType', 'patch', 'user', 'groups', 'on']);
  if (!o) return undefined;
  const on = mergeOn(ctx, stepOn, o.on, at);
  if ((o.manifest === undefined) === (o.file === undefined)) r.add(at, 'exactly one of manifest or file');
  const manifest = o.manifest === undefined ? undefined : r.string(o.manifest, `${at}.manifest`, { nonEmpty: true });
  const file = o.file === undefined ? undefined : r.string(o.file, `${at}.file`, { nonEmpty: true });
  const namespace = o.namespace === undefined ? undefined : r.string(o.namespace, `${at}.namespace`, { nonEmpty: true });
  const dryRun = o.dryRun === undefined ? false : (r.bool(o.dryRun, `${at}.dryRun`) ?? false);
  if (dryRun && verb === 'get') r.add(`${at}.dryRun`, 'get does not write; dryRun applies to create, apply, update, patch and delete');
  let patchType: PatchType = 'strategic';
  if (o.patchType !== undefined) {
    if (verb !== 'patch') r.add(`${at}.patchType`, 'only patch takes patchType');
    if (o.patchType === 'merge' || o.patchType === 'json' || o.patchType === 'strategic') patchType = o.patchType;
    else r.add(`${at}.patchType`, `must be merge, json or strategic, got ${describe(o.patchType)}`);
  }
  let patch: string | undefined;
  if (o.patch !== undefined) {
    if (verb !== 'patch') r.add(`${at}.patch`, 'only patch takes patch');
    patch = typeof o.patch === 'string' ? o.patch : o.patch !== null && typeof o.patch === 'object' ? JSON.stringify(o.patch) : r.add(`${at}.patch`, 'must be JSON/YAML text, a mapping or a list');
  }
  if (verb === 'patch' && patchType === 'json' && o.patch === undefined) r.add(`${at}.patch`, 'a json patch needs patch: the list of operations');
  const user = o.user === undefined ? undefined : r.string(o.user, `${at}.user`, { nonEmpty: true });
  const groups = o.groups === undefined ? [] : (r.stringList(o.groups, `${at}.groups`) ?? []);
  if (o.groups !== undefined && user === undefined) r.add(`${at}.groups`, 'groups need a user');
  const expect = readExpect(r, expectValue, expectPath);
  if (!expect || (manifest === undefined && file === undefined)) return undefined;
  return {
    ...base,
    action: 'api',
    verb,
    ...(manifest !== undefined ? { manifest } : {}),
    ...(file !== undefined ? { file } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    dryRun,
    patchType,
    ...(patch !== undefined ? { patch } : {}),
    ...(user !== undefined ? { user } : {}),
    groups,
    ...(on !== undefined ? { on } : {}),
    expect,
  };
}

function readExpect(r: Reader, v: unknown, path: string): ApiExpect | undefined {
  const out: ApiExpect = { allowed: true, messageContains: [], warningsContain: [], noWarnings: false, jsonPath: {} };
  if (v === undefined) return out;
  const o = r.object(v, path, ['allowed', 'code', 'reason', 'messageContains', 'warningsContain', 'noWarnings', 'jsonPath']);
  if (!o) return undefined;
  if (o.code !== undefined) {
    const code = r.int(o.code, `${path}.code`, 100);
    if (code !== undefined) out.code = code;
  }
  // Without allowed, a code says which side it is on (201 → allowed, 422 → denied).
  if (o.allowed !== undefined) out.allowed = r.bool(o.allowed, `${path}.allowed`) ?? true;
  else if (out.code !== undefined) out.allowed = out.code < 300;
  if (out.code !== undefined && out.allowed !== out.code < 300) r.add(`${path}.code`, `${out.code} contradicts allowed: ${out.allowed}`);
  if (o.reason !== undefined) out.reason = r.string(o.reason, `${path}.reason`);
  if (o.messageContains !== undefined) out.messageContains = r.strings(o.messageContains, `${path}.messageContains`) ?? [];
  if (o.warningsContain !== undefined) out.warningsContain = r.strings(o.warningsContain, `${path}.warningsContain`) ?? [];
  if (o.noWarnings !== undefined) out.noWarnings = r.bool(o.noWarnings, `${path}.noWarnings`) ?? false;
  if (out.noWarnings && out.warningsContain.length > 0) r.add(path, 'noWarnings contradicts warningsContain');
  if (o.jsonPath !== undefined) {
    const j = o.jsonPath;
    if (j === null || typeof j !== 'object' || Array.isArray(j)) r.add(`${path}.jsonPath`, 'must be a mapping of JSONPath expressions to expected values');
    else {
      for (const k of Object.keys(j)) if (!k.startsWith('$')) r.add(`${path}.jsonPath[${k}]`, 'a JSONPath expression starts with "$" (e.g. $.metadata.labels.team)');
      out.jsonPath = j as Record<string, unknown>;
    }
  }
  return out;
}

/** Every `{{…}}` in the document parses, and names a webhook, apiserver or static-manifest dir that exists. */
function checkTemplates(r: Reader, doc: Obj, known: { webhookNames: Set<string>; apiserverNames: Set<string>; dirNames: Set<string> }): void {
  for (const { path, text } of stringsIn(doc)) {
    for (const expr of templateExpressions(text)) {
      const ref = parseTemplateRef(expr);
      if ('error' in ref) r.add(path, ref.error);
      else if (ref.kind === 'webhook' && !known.webhookNames.has(ref.name)) r.add(path, `{{${expr}}}: no webhook named ${JSON.stringify(ref.name)} in setup.webhooks`);
      else if (ref.kind === 'apiserver' && ref.name !== undefined && !known.apiserverNames.has(ref.name)) r.add(path, `{{${expr}}}: no apiserver named ${JSON.stringify(ref.name)}`);
      else if (ref.kind === 'dir' && !known.dirNames.has(ref.name)) {
        r.add(path, `{{${expr}}}: no staticManifests directory named ${JSON.stringify(ref.name)} (have: ${[...known.dirNames].join(', ') || 'none'})`);
      }
    }
  }
}
