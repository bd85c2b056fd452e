// Everything one scenario runs on: its temp dir, ports, TLS material, etcd, apiservers, test webhooks and the user's
// processes. Built on the harness (startApiServer, startEtcd, startWebhookServer); everything it starts it stops in
// cleanup(), which runs whether the scenario passed, failed or timed out.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generateCA, issueServingCert, type CertKeyPair } from '../../certs/index.js';
import { startApiServer, type ApiServerHandle, type ApiServerOptions, type StaticManifestPlugin } from '../../harness/apiserver-process.js';
import { trackTempDir, untrackTempDir } from '../../harness/cleanup.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { freePort } from '../../harness/ports.js';
import { startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { ApiClient } from './api-call.js';
import type { ApiServerSpec, ProcessSpec, Scenario } from './scenario-types.js';
import { parseTemplateRef, resolveTemplates, stringsIn, templateExpressions, TemplateError, type TemplateRef } from './templates.js';
import { startUserProcess, type UserProcess } from './user-process.js';
import { staticDirName } from './validate-scenario.js';
import { webhookReplyFor } from './webhook-reply.js';
import { mergeCoverageReports } from '../../server/admission/coverage/build-report.js';
import { parseCoverageReport, type AdmissionCoverageReport } from '../../server/admission/coverage/report-schema.js';

export interface ApiServerSlot {
  spec: ApiServerSpec;
  handle?: ApiServerHandle;
  client?: ApiClient;
}

interface TlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
  caBundle: string;
}

const lastLines = (text: string, n: number): string[] => (text.trimEnd() === '' ? [] : text.trimEnd().split('\n').slice(-n));

export class ScenarioEnvironment {
  readonly apiservers = new Map<string, ApiServerSlot>();
  readonly webhooks = new Map<string, WebhookServer>();
  readonly processes = new Map<string, UserProcess>();
  private readonly ports = new Map<string, number>();
  private readonly dirs = new Map<string, string>();
  /** Output of apiserver runs that are over (killed, restarted, failed to start), for the failure report. */
  private readonly pastLogs: string[] = [];
  private ca: CertKeyPair | undefined;
  private tls: TlsFiles | undefined;
  etcd: EtcdProcess | undefined;
  /** with admission coverage on: every apiserver's runs merged, read in cleanup() */
  coverage: AdmissionCoverageReport | undefined;

  private constructor(
    readonly scenario: Scenario,
    readonly tempDir: string,
    /** record admission coverage in every apiserver of the scenario */
    private readonly recordCoverage = false,
  ) {
    for (const spec of scenario.setup.apiservers) {
      this.apiservers.set(spec.name, { spec });
      for (const dir of Object.values(spec.staticManifests)) this.dirs.set(staticDirName(dir!), path.join(tempDir, dir!));
    }
  }

  /** A temp dir, the ports and TLS files the scenario's templates name; nothing is started yet. */
  static async create(scenario: Scenario, opts: { admissionCoverage?: boolean } = {}): Promise<ScenarioEnvironment> {
    const tempDir = await mkdtemp(path.join(os.tmpdir(), 'kah-scenario-'));
    trackTempDir(tempDir);
    const env = new ScenarioEnvironment(scenario, tempDir, opts.admissionCoverage ?? false);
    const refs = [...stringsIn(scenario)].flatMap(({ text }) => templateExpressions(text).map(parseTemplateRef));
    for (const ref of refs) {
      if ('error' in ref) continue;
      if (ref.kind === 'port' && !env.ports.has(ref.name)) env.ports.set(ref.name, await freePort());
    }
    const needsTls = refs.some((r) => !('error' in r) && r.kind === 'tls');
    if (needsTls || scenario.setup.webhooks.length > 0) env.ca = await generateCA();
    if (needsTls) await env.writeTls();
    return env;
  }

  private async writeTls(): Promise<void> {
    const dir = path.join(this.tempDir, 'tls');
    await mkdir(dir, { recursive: true });
    const serving = await issueServingCert(this.ca!, { hosts: ['localhost', '127.0.0.1', '::1'] });
    this.tls = { caFile: path.join(dir, 'ca.crt'), certFile: path.join(dir, 'tls.crt'), keyFile: path.join(dir, 'tls.key'), caBundle: Buffer.from(this.ca!.cert).toString('base64') };
    await writeFile(this.tls.caFile, this.ca!.cert);
    await writeFile(this.tls.certFile, serving.cert);
    await writeFile(this.tls.keyFile, serving.key, { mode: 0o600 });
  }

  /** What a `{{…}}` reference stands for right now; throws TemplateError when it cannot be known yet. */
  readonly lookup = (ref: TemplateRef, expr: string): string => {
    switch (ref.kind) {
      case 'webhook': {
        const w = this.webhooks.get(ref.name);
        if (!w) throw new TemplateError(`{{${expr}}}: webhook ${ref.name} is not running`);
        if (ref.field === 'url') return w.url('').replace(/\/$/, '');
        if (ref.field === 'caBundle') return w.caBundle;
        if (ref.field === 'port') return String(w.port);
        return w.host;
      }
      case 'dir': {
        const d = this.dirs.get(ref.name);
        if (d === undefined) throw new TemplateError(`{{${expr}}}: no staticManifests directory named ${ref.name}`);
        return d;
      }
      case 'port': {
        const p = this.ports.get(ref.name);
        if (p === undefined) throw new TemplateError(`{{${expr}}}: no port was allocated`);
        return String(p);
      }
      case 'tls':
        if (!this.tls) throw new TemplateError(`{{${expr}}}: no TLS files were written`);
        return this.tls[ref.field];
      case 'env': {
        const v = process.env[ref.name];
        if (v === undefined) throw new TemplateError(`{{${expr}}}: the environment variable ${ref.name} is not set`);
        return v;
      }
      case 'tempDir':
        return this.tempDir;
      case 'scenarioDir':
        return this.scenario.source.dir;
      case 'apiserver': {
        const name = ref.name ?? this.defaultApiServer;
        const h = this.apiservers.get(name)?.handle;
        if (!h) throw new TemplateError(`{{${expr}}}: apiserver ${name} has not been started`);
        if (ref.field === 'url') return h.url;
        if (ref.field === 'kubeconfig') return h.kubeconfigPath;
        if (ref.field === 'caFile') return path.join(h.certDir, 'ca.crt');
        return Buffer.from(h.caPem).toString('base64');
      }
      case 'etcd':
        if (!this.etcd) throw new TemplateError(`{{${expr}}}: the scenario has no etcd (storage: memory)`);
        return this.etcd.endpoint;
    }
  };

  resolve<T>(value: T): T {
    return resolveTemplates(value, this.lookup);
  }

  get defaultApiServer(): string {
    return this.scenario.setup.apiservers[0]!.name;
  }

  /** Files, static-manifest dirs, etcd, webhooks and processes: everything before the first step. */
  async setup(): Promise<void> {
    const { setup } = this.scenario;
    for (const dir of this.dirs.values()) await mkdir(dir, { recursive: true });
    if (setup.storage === 'etcd') this.etcd = await startEtcd();
    for (const w of setup.webhooks) {
      const reply = webhookReplyFor(w.respond);
      this.webhooks.set(w.name, await startWebhookServer({ ...(this.ca ? { ca: this.ca } : {}), handler: () => reply }));
    }
    for (const [file, content] of Object.entries(this.resolve(setup.files))) await this.writeFileAtomic(file, content);
    for (const p of setup.processes) await this.startProcess(p);
  }

  /** A path under the temp dir (validation keeps paths from climbing out). */
  pathIn(relative: string): string {
    return path.join(this.tempDir, relative);
  }

  /** Temp file + rename, so a watcher never reads half a manifest. */
  async writeFileAtomic(relative: string, content: string): Promise<void> {
    const target = this.pathIn(relative);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(path.dirname(target), `.${path.basename(target)}.kah-tmp-${process.pid}`);
    await writeFile(tmp, content);
    await rename(tmp, target);
  }

  async startProcess(spec: ProcessSpec): Promise<UserProcess> {
    const resolved = this.resolve({ command: spec.command, env: spec.env, readyURL: spec.readyURL });
    const proc = startUserProcess(spec.name, resolved.command, { cwd: this.scenario.source.dir, env: resolved.env });
    this.processes.set(spec.name, proc);
    if (resolved.readyURL !== undefined) await proc.waitReady(resolved.readyURL, spec.readyTimeoutMs);
    return proc;
  }

  /** startApiServer's options for one apiserver of the scenario, templates resolved. */
  apiServerOptions(name: string, readyTimeoutMs: number): ApiServerOptions {
    const spec = this.resolve(this.slot(name).spec);
    const staticManifestDirs: Partial<Record<StaticManifestPlugin, string>> = {};
    for (const [plugin, dir] of Object.entries(spec.staticManifests)) staticManifestDirs[plugin as StaticManifestPlugin] = this.pathIn(dir!);
    return {
      storage: this.scenario.setup.storage === 'memory' ? 'memory' : 'etcd3',
      ...(this.etcd ? { etcdServers: this.etcd.endpoint } : {}),
      flags: spec.flags,
      featureGates: spec.featureGates,
      env: spec.env,
      staticManifestDirs,
      ...(spec.admissionConfig !== undefined ? { admissionConfig: spec.admissionConfig } : {}),
      readyTimeoutMs,
      ...(this.recordCoverage ? { coverage: { file: this.coverageFile(name), printSummary: false } } : {}),
    };
  }

  /** Where an apiserver's handle writes its coverage (all its runs merged) when it is cleaned up. */
  private coverageFile(name: string): string {
    return path.join(this.tempDir, 'admission-coverage', `apiserver-${name}.json`);
  }

  /** Every apiserver's coverage, merged; after their cleanup wrote it. */
  private async readCoverage(): Promise<AdmissionCoverageReport | undefined> {
    const reports: AdmissionCoverageReport[] = [];
    for (const name of this.apiservers.keys()) {
      const file = this.coverageFile(name);
      if (existsSync(file)) reports.push(parseCoverageReport(await readFile(file, 'utf8'), file));
    }
    return reports.length > 0 ? mergeCoverageReports(reports) : undefined;
  }

  slot(name: string): ApiServerSlot {
    const s = this.apiservers.get(name);
    if (!s) throw new Error(`no apiserver named ${name}`);
    return s;
  }

  /** Starts (or starts again) an apiserver; with `waitForReady: false` it resolves once the process is spawned. */
  async startApiServer(name: string, readyTimeoutMs: number, opts: { waitForReady?: boolean } = {}): Promise<ApiServerHandle> {
    const waitForReady = opts.waitForReady ?? true;
    const slot = this.slot(name);
    if (slot.handle) {
      if (slot.handle.running) throw new Error(`apiserver ${name} is already running`);
      this.rememberLogs(name, slot.handle);
      await slot.handle.restart({ waitForReady });
      return slot.handle;
    }
    slot.handle = await startApiServer({ ...this.apiServerOptions(name, readyTimeoutMs), waitForReady });
    slot.client = new ApiClient(slot.handle);
    return slot.handle;
  }

  /** The running apiserver an API step or wait talks to. */
  running(name: string): { handle: ApiServerHandle; client: ApiClient } {
    const slot = this.slot(name);
    if (!slot.handle || !slot.client) throw new Error(`apiserver ${name} has not been started: add a step \`start: ${name === 'apiserver' ? 'apiserver' : `apiserver/${name}`}\` before this one`);
    return { handle: slot.handle, client: slot.client };
  }

  /** Keeps the output of a run that is about to be replaced (restart), so the report still has it. */
  rememberLogs(name: string, handle: ApiServerHandle): void {
    const out = `${handle.stdout()}${handle.stderr()}`;
    if (out.trim() !== '') this.pastLogs.push(`--- ${name === 'apiserver' ? 'apiserver' : `apiserver/${name}`} (an earlier run) ---\n${lastLines(out, 20).join('\n')}`);
  }

  /** The last lines of every apiserver and process, for a failure report. */
  logTail(lines = 20): string {
    const parts: string[] = [...this.pastLogs.slice(-2)];
    for (const [name, slot] of this.apiservers) {
      const h = slot.handle;
      if (!h) continue;
      const out = lastLines(h.stdout(), lines);
      const err = lastLines(h.stderr(), lines);
      const who = name === 'apiserver' ? 'apiserver' : `apiserver/${name}`;
      if (out.length) parts.push(`--- ${who} stdout (last ${out.length} lines) ---\n${out.join('\n')}`);
      if (err.length) parts.push(`--- ${who} stderr (last ${err.length} lines) ---\n${err.join('\n')}`);
    }
    for (const [name, p] of this.processes) {
      const out = lastLines(p.output(), lines);
      if (out.length) parts.push(`--- process ${name} (last ${out.length} lines) ---\n${out.join('\n')}`);
    }
    return parts.join('\n');
  }

  /** Full logs into the temp dir, for `--keep`. */
  private async writeLogs(): Promise<void> {
    const dir = path.join(this.tempDir, 'logs');
    await mkdir(dir, { recursive: true });
    for (const [name, slot] of this.apiservers) {
      if (!slot.handle) continue;
      await writeFile(path.join(dir, `apiserver-${name}.stdout.log`), slot.handle.stdout());
      await writeFile(path.join(dir, `apiserver-${name}.stderr.log`), slot.handle.stderr());
    }
    if (this.etcd) await writeFile(path.join(dir, 'etcd.log'), this.etcd.logs());
    for (const [name, p] of this.processes) await writeFile(path.join(dir, `process-${name}.log`), p.output());
  }

  /** Stops everything; removes the temp dir unless `keep` (then the logs are written into it first). */
  async cleanup(keep: boolean): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (fn: () => Promise<unknown>): Promise<void> => {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    };
    if (keep) await attempt(() => this.writeLogs());
    await Promise.all([...this.processes.values()].map((p) => attempt(() => p.kill('SIGTERM'))));
    await Promise.all([...this.apiservers.values()].map((s) => attempt(async () => s.handle?.cleanup())));
    if (this.recordCoverage) await attempt(async () => (this.coverage = await this.readCoverage()));
    await Promise.all([...this.webhooks.values()].map((w) => attempt(() => w.close())));
    await attempt(async () => this.etcd?.cleanup());
    if (keep) untrackTempDir(this.tempDir);
    else {
      await attempt(() => rm(this.tempDir, { recursive: true, force: true }));
      untrackTempDir(this.tempDir);
    }
    if (errors.length > 0) throw new Error(`cleanup: ${errors.map((e) => (e as Error).message).join('; ')}`);
  }
}
