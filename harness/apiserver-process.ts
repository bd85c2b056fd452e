// The apiserver as a real child process (`node dist/server/main.cjs …`), so that kill -9, restart and startup
// failures in tests are the real thing. Flags are those of `kah serve` (kube-apiserver's names).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig, type ApiConstructor, type ApiType } from '@kubernetes/client-node';
import YAML from 'yaml';
import { trackChild, trackTempDir, untrackTempDir } from './cleanup.js';
import { ReadyPollSchedule } from './ready-poll-schedule.js';
import { etcdStartAttempts, isAddressInUse, resolveEtcdBinary, settlesWithin, spawnEtcd, type EtcdProcess, type EtcdStartOptions } from './etcd-process.js';
import { freePort } from './ports.js';
import { mergeCoverageReports } from '../server/admission/coverage/build-report.js';
import { writeCoverageFileSync } from '../server/admission/coverage/coverage-file.js';
import { parseCoverageReport, type AdmissionCoverageReport } from '../server/admission/coverage/report-schema.js';
import { formatCoverageSummary } from '../server/admission/coverage/summary-table.js';
import { serverNodeFlags } from './server-node-flags.js';
import { keepSharedCertificates, provideSharedCertificates, sharedCertificatesKey } from './shared-certificates.js';

type EtcdHandle = EtcdProcess;

/** The four plugins that read a `staticManifestsDir` (KEP-5793) from their AdmissionConfiguration entry. */
export type StaticManifestPlugin = 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';

export interface ApiServerOptions {
  /** Extra kube-apiserver flags, e.g. `['--v=4', '--authorization-mode=AlwaysDeny']`. They win over what the harness derives. */
  flags?: string[];
  /**
   * The certificates of a server in the harness's own temp `--cert-dir` (no `--cert-dir` in `flags`). `'shared'` (the
   * default): the CA, serving and admin certificates the first server of this process generated (with the same
   * `--bind-address` and `--external-hostname`) are copied in before it starts, so only that first start generates
   * any, as envtest makes its certificates once per test process. `'fresh'`: the server generates its own.
   */
  certificates?: 'shared' | 'fresh';
  /** An AdmissionConfiguration, as an object or YAML/JSON text; written to a temp file for `--admission-control-config-file`. */
  admissionConfig?: Record<string, unknown> | string;
  /**
   * `staticManifestsDir` per plugin, merged into `admissionConfig` (absolute paths, as kube-apiserver requires).
   * Turns on the `ManifestBasedAdmissionControlConfig` gate unless `featureGates` sets it.
   */
  staticManifestDirs?: Partial<Record<StaticManifestPlugin, string>>;
  /** → `--feature-gates=A=true,B=false`. */
  featureGates?: Record<string, boolean>;
  /** `etcd3` (default): a harness-started etcd, or `etcdServers`. `memory`: no etcd at all. */
  storage?: 'etcd3' | 'etcd' | 'memory';
  /** Use an existing etcd instead of starting one (implies `storage: 'etcd3'`). */
  etcdServers?: string | string[];
  /** Options for the harness-started etcd. */
  etcd?: EtcdStartOptions;
  /** Extra environment for the server process (`undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** How long `waitReady()` waits for `/readyz` (default 30 s). */
  readyTimeoutMs?: number;
  /** Wait for `/readyz` before `startApiServer` resolves (default true). */
  waitForReady?: boolean;
  /** The port to listen on (default: a free one). Kept across `restart()`. */
  port?: number;
  /** The server entry point (default `<package>/dist/server/main.cjs`, or `KAH_SERVER_ENTRY`). */
  serverEntry?: string;
  /** Every output line as it arrives, e.g. to prefix and print it (`kah up`). */
  onOutput?: (stream: 'stdout' | 'stderr', line: string) => void;
  /**
   * Record admission coverage (`--admission-coverage`). `true`: written on cleanup to
   * `$KAH_COVERAGE_DIR` (default `./admission-coverage/`) as `apiserver-<port>-<time>.json`, with the summary table
   * on stderr; or say where, and whether to print.
   */
  coverage?: boolean | ApiServerCoverageOptions;
}

export interface ApiServerCoverageOptions {
  /** the JSON report written on cleanup (every run of the handle merged: restarts add up) */
  file?: string;
  /** print the summary table to stderr on cleanup (default true) */
  printSummary?: boolean;
}

export interface ApiServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

export interface ApiServerResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = unknown>(): T;
}

export interface ApiServerRequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface ApiServerHandle {
  readonly url: string;
  readonly port: number;
  /** The CA that signed the serving cert (known once credentials are found, i.e. after ready). */
  readonly caPem: string;
  /** The admin kubeconfig the server wrote (`--write-kubeconfig`). */
  readonly kubeconfigPath: string;
  readonly certDir: string;
  /** The process id of the current run. */
  readonly pid: number | undefined;
  /** The full argv passed to node (entry first). */
  readonly args: readonly string[];
  /** The harness-started etcd, if any. */
  readonly etcd: EtcdHandle | undefined;
  /** Resolves when the current run's process exits. */
  readonly exited: Promise<ApiServerExit>;
  readonly running: boolean;
  kubeConfig(): KubeConfig;
  /** `server.client(CoreV1Api)`: a client-node API client as the admin user. */
  client<T extends ApiType>(api: ApiConstructor<T>): T;
  /** stdout of the current run (its last 8–16 MB). */
  stdout(): string;
  /** stderr of the current run (its last 8–16 MB). */
  stderr(): string;
  /** Resolves with the first line of the current run (stdout or stderr, already printed or not) that matches. */
  waitForLog(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  waitReady(timeoutMs?: number): Promise<void>;
  /** An HTTPS request as the admin user. */
  request(pathAndQuery: string, opts?: ApiServerRequestOptions): Promise<ApiServerResponse>;
  /** SIGTERM, then wait for exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<ApiServerExit>;
  /** Send a signal (default SIGKILL) and wait for exit; resolves undefined at once for SIGSTOP/SIGTSTP/SIGCONT. */
  kill(signal?: NodeJS.Signals): Promise<ApiServerExit | undefined>;
  /** Start again with the same flags, port, certs and storage; waits for ready unless `waitForReady: false`. */
  restart(opts?: { waitForReady?: boolean }): Promise<void>;
  /** Stop the server and the harness etcd, remove temp dirs. Idempotent. */
  cleanup(): Promise<void>;
  /** With `coverage`: where cleanup writes the JSON report. */
  readonly coverageFile: string | undefined;
  /**
   * With `coverage`: the report as of now (GET /debug/admission-coverage on the running server, merged with the
   * runs before a restart).
   */
  coverage(): Promise<AdmissionCoverageReport>;
}

export class ApiServerStartError extends Error {
  constructor(
    message: string,
    readonly exit: ApiServerExit | undefined,
  ) {
    super(message);
    this.name = 'ApiServerStartError';
  }
}

const defaultReadyTimeoutMs = 30_000;
const maxOutputChars = 16 * 1024 * 1024;
const maxOutputLines = 100_000;
const nonTerminatingSignals = new Set<NodeJS.Signals>(['SIGSTOP', 'SIGTSTP', 'SIGCONT']);

/** The package root: the nearest parent directory whose package.json is this package's. */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const parsed = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown };
        if (parsed.name === 'kube-admission-harness') return dir;
      } catch {
        // A malformed package.json elsewhere in the tree is not ours; keep walking up.
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the kube-admission-harness package root above ${from}`);
    dir = parent;
  }
}

/**
 * dist/server/main.cjs: the same server as `node dist/server/main.js`, but a CommonJS entry, which node starts with
 * ≈ 7 ms less CPU than an ESM one (no ESM loader until something imports ESM).
 */
export function defaultServerEntry(): string {
  return process.env.KAH_SERVER_ENTRY ?? path.join(packageRoot(), 'dist', 'server', 'main.cjs');
}

/** `--name=value` or `--name value` → name (without dashes); undefined for non-flags. */
function flagName(arg: string): string | undefined {
  if (!arg.startsWith('--')) return undefined;
  const eq = arg.indexOf('=');
  return eq < 0 ? arg.slice(2) : arg.slice(2, eq);
}

/** The value of the last occurrence of `--name`, in either spelling. */
export function flagValue(flags: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if (flagName(f) !== name) continue;
    const eq = f.indexOf('=');
    if (eq >= 0) value = f.slice(eq + 1);
    else if (i + 1 < flags.length && !flags[i + 1]!.startsWith('--')) value = flags[++i];
    else value = 'true';
  }
  return value;
}

/** Removes every occurrence of `--name` (and its separate value) from flags. */
export function withoutFlag(flags: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if (flagName(f) === name) {
      if (!f.includes('=') && i + 1 < flags.length && !flags[i + 1]!.startsWith('--')) i++;
      continue;
    }
    out.push(f);
  }
  return out;
}

/** `A=true,B=false` ↔ record; later entries win, as in kube's `--feature-gates` parsing. */
export function parseFeatureGates(text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of text.split(',')) {
    const [k, v] = part.split('=');
    if (k && k.trim()) gates[k.trim()] = (v ?? '').trim().toLowerCase() === 'true';
  }
  return gates;
}

export function formatFeatureGates(gates: Record<string, boolean>): string {
  return Object.entries(gates)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

const staticPluginConfigKinds: Record<StaticManifestPlugin, string> = {
  ValidatingAdmissionWebhook: 'WebhookAdmissionConfiguration',
  MutatingAdmissionWebhook: 'WebhookAdmissionConfiguration',
  ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicyConfiguration',
  MutatingAdmissionPolicy: 'MutatingAdmissionPolicyConfiguration',
};

interface AdmissionPluginEntry {
  name?: unknown;
  path?: unknown;
  configuration?: Record<string, unknown>;
  [k: string]: unknown;
}

/**
 * The AdmissionConfiguration to write: `admissionConfig` (object or text) with each `staticManifestDirs` entry set as
 * that plugin's inline `configuration.staticManifestsDir`. Pure; throws on a plugin configured by `path` (cannot merge).
 */
export function buildAdmissionConfig(
  admissionConfig: Record<string, unknown> | string | undefined,
  staticManifestDirs: Partial<Record<StaticManifestPlugin, string>> | undefined,
): Record<string, unknown> | string | undefined {
  const dirs = Object.entries(staticManifestDirs ?? {}).filter((e): e is [StaticManifestPlugin, string] => typeof e[1] === 'string');
  if (dirs.length === 0) return admissionConfig;
  const base: Record<string, unknown> =
    admissionConfig === undefined
      ? { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [] }
      : typeof admissionConfig === 'string'
        ? (YAML.parse(admissionConfig) as Record<string, unknown>)
        : structuredClone(admissionConfig);
  const plugins: AdmissionPluginEntry[] = Array.isArray(base.plugins) ? (base.plugins as AdmissionPluginEntry[]) : [];
  for (const [plugin, dir] of dirs) {
    let entry = plugins.find((p) => p.name === plugin);
    if (!entry) {
      entry = { name: plugin };
      plugins.push(entry);
    }
    if (entry.path !== undefined) {
      throw new Error(`admissionConfig plugin ${plugin} is configured by path; set staticManifestsDir in that file instead of staticManifestDirs`);
    }
    const configuration = entry.configuration ?? { apiVersion: 'apiserver.config.k8s.io/v1', kind: staticPluginConfigKinds[plugin] };
    if (staticPluginConfigKinds[plugin] === 'WebhookAdmissionConfiguration' && configuration.kubeConfigFile === undefined) {
      configuration.kubeConfigFile = '';
    }
    configuration.staticManifestsDir = dir;
    entry.configuration = configuration;
  }
  base.plugins = plugins;
  return base;
}

/** The --bind-address the harness gives a server whose flags name none. */
const defaultBindAddress = '127.0.0.1';

export interface ApiServerRuntime {
  port: number;
  certDir: string;
  kubeconfigPath: string;
  admissionConfigPath: string | undefined;
  etcdServers: string | undefined;
}

/** The server's argv after the entry: harness-derived flags first, then `opts.flags`, which override them. Pure. */
export function buildApiServerArgs(opts: ApiServerOptions, rt: ApiServerRuntime): string[] {
  let user = [...(opts.flags ?? [])];
  const args = [`--secure-port=${rt.port}`];
  const has = (name: string): boolean => flagValue(user, name) !== undefined;
  if (!has('bind-address')) args.push(`--bind-address=${defaultBindAddress}`);
  if (!has('cert-dir')) args.push(`--cert-dir=${rt.certDir}`);
  if (!has('write-kubeconfig')) args.push(`--write-kubeconfig=${rt.kubeconfigPath}`);
  if (!has('storage-backend')) args.push(`--storage-backend=${storageOf(opts) === 'memory' ? 'memory' : 'etcd3'}`);
  if (rt.etcdServers !== undefined && !has('etcd-servers')) args.push(`--etcd-servers=${rt.etcdServers}`);
  if (rt.admissionConfigPath !== undefined && !has('admission-control-config-file')) {
    args.push(`--admission-control-config-file=${rt.admissionConfigPath}`);
  }
  // One --feature-gates flag: the option's gates, then the flag's (flags win), the manifest gate on when dirs are given.
  const gates: Record<string, boolean> = {};
  if (opts.staticManifestDirs && Object.keys(opts.staticManifestDirs).length > 0) gates.ManifestBasedAdmissionControlConfig = true;
  Object.assign(gates, opts.featureGates ?? {});
  const userGates = flagValue(user, 'feature-gates');
  if (userGates !== undefined) {
    Object.assign(gates, parseFeatureGates(userGates));
    user = withoutFlag(user, 'feature-gates');
  }
  if (Object.keys(gates).length > 0) args.push(`--feature-gates=${formatFeatureGates(gates)}`);
  return [...args, ...user];
}

function storageOf(opts: ApiServerOptions): 'etcd3' | 'memory' {
  if (opts.storage === 'memory') return 'memory';
  const fromFlags = flagValue(opts.flags ?? [], 'storage-backend');
  return fromFlags === 'memory' ? 'memory' : 'etcd3';
}

function tail(text: string, lines = 20): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: ApiServerExit | undefined;
  exited: Promise<ApiServerExit>;
  lineListeners: Set<(line: string) => void>;
  lines: string[];
  /** resolves when the server logs "Serving securely": its port is open and its kubeconfig written */
  serving: Promise<void>;
  servingSeen: boolean;
}

/** The line the server logs once its port is open (server/main.ts). */
const servingLine = '"msg":"Serving securely"';


interface Credentials {
  kubeConfig: KubeConfig;
  caPem: string;
  httpsOptions: https.RequestOptions;
}

class ApiServerProcess implements ApiServerHandle {
  readonly url: string;
  readonly kubeconfigPath: string;
  readonly certDir: string;
  private run: Run | undefined;
  private creds: Credentials | undefined;
  private cleanedUp = false;
  /** the reports of the runs before a restart */
  private readonly earlierCoverage: AdmissionCoverageReport[] = [];
  readonly coverageFile: string | undefined;

  constructor(
    private readonly opts: ApiServerOptions,
    readonly port: number,
    readonly args: readonly string[],
    private readonly tempDir: string,
    readonly etcd: EtcdHandle | undefined,
  ) {
    this.url = `https://127.0.0.1:${port}`;
    const rest = args.slice(1);
    this.kubeconfigPath = path.resolve(flagValue(rest, 'write-kubeconfig') ?? path.join(tempDir, 'kubeconfig'));
    this.certDir = path.resolve(flagValue(rest, 'cert-dir') ?? path.join(tempDir, 'certs'));
    this.coverageFile = coverageOutputFile(opts.coverage, port);
  }

  /** The file the server process writes (each run overwrites it; the harness keeps earlier runs' reports). */
  private get coverageRunFile(): string | undefined {
    return flagValue(this.args.slice(1), 'admission-coverage');
  }

  private readCoverageRunFile(): AdmissionCoverageReport | undefined {
    const file = this.coverageRunFile;
    if (!file || !existsSync(file)) return undefined;
    return parseCoverageReport(readFileSync(file, 'utf8'), file);
  }

  async coverage(): Promise<AdmissionCoverageReport> {
    if (!this.coverageRunFile) throw new Error('admission coverage is off: start the server with { coverage: true }');
    const runs = [...this.earlierCoverage];
    if (this.running) {
      const res = await this.request('/debug/admission-coverage');
      if (res.status !== 200) throw new Error(`GET /debug/admission-coverage answered ${res.status}: ${res.body}`);
      runs.push(parseCoverageReport(res.body, '/debug/admission-coverage'));
    } else {
      const last = this.readCoverageRunFile();
      if (last) runs.push(last);
    }
    return mergeCoverageReports(runs);
  }

  /** After the last run: every run's report merged into coverageFile, and the summary table. */
  private finishCoverage(): void {
    const out = this.coverageFile;
    if (!out) return;
    const last = this.readCoverageRunFile();
    const runs = last ? [...this.earlierCoverage, last] : this.earlierCoverage;
    if (runs.length === 0) return;
    const report = mergeCoverageReports(runs);
    writeCoverageFileSync(out, report);
    const print = typeof this.opts.coverage === 'object' ? (this.opts.coverage.printSummary ?? true) : true;
    if (print) process.stderr.write(`${formatCoverageSummary(report)}  (written to ${out})\n`);
  }

  get pid(): number | undefined {
    return this.run?.child.pid;
  }

  get running(): boolean {
    return this.run !== undefined && this.run.exit === undefined;
  }

  get exited(): Promise<ApiServerExit> {
    if (!this.run) throw new Error('the apiserver was never started');
    return this.run.exited;
  }

  get caPem(): string {
    const creds = this.creds ?? this.tryLoadCredentials();
    if (!creds) throw new Error(`caPem is not known yet: neither ${this.kubeconfigPath} nor ${this.certDir}/ca.crt exist (wait for ready first)`);
    return creds.caPem;
  }

  kubeConfig(): KubeConfig {
    const creds = this.creds ?? this.tryLoadCredentials();
    if (!creds) throw new Error(`no admin kubeconfig at ${this.kubeconfigPath} yet (wait for ready first)`);
    return creds.kubeConfig;
  }

  client<T extends ApiType>(api: ApiConstructor<T>): T {
    return this.kubeConfig().makeApiClient(api);
  }

  stdout(): string {
    return this.run?.stdout ?? '';
  }

  stderr(): string {
    return this.run?.stderr ?? '';
  }

  start(): void {
    if (this.cleanedUp) throw new Error('the apiserver handle was cleaned up');
    // a restart: the previous run's report (its final write, or its last periodic one after a kill -9) is kept
    const previous = this.run ? this.readCoverageRunFile() : undefined;
    if (previous) this.earlierCoverage.push(previous);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(this.opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(process.execPath, [...serverNodeFlags(env), ...this.args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    trackChild(child);
    let resolveExit!: (e: ApiServerExit) => void;
    let resolveServing!: () => void;
    const run: Run = {
      child,
      stdout: '',
      stderr: '',
      exit: undefined,
      exited: new Promise<ApiServerExit>((r) => (resolveExit = r)),
      lineListeners: new Set(),
      lines: [],
      serving: new Promise<void>((r) => (resolveServing = r)),
      servingSeen: false,
    };
    run.lineListeners.add(function servingListener(line) {
      if (!line.includes(servingLine)) return;
      run.servingSeen = true;
      run.lineListeners.delete(servingListener);
      resolveServing();
    });
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (run.exit) return;
      run.exit = { code, signal, stderr: run.stderr };
      resolveExit(run.exit);
    };
    for (const stream of ['stdout', 'stderr'] as const) {
      let partial = '';
      child[stream]!.setEncoding('utf8');
      child[stream]!.on('data', (chunk: string) => {
        run[stream] += chunk;
        // A long benchmark at high --v must not grow without bound: keep the recent tail.
        if (run[stream].length > maxOutputChars) run[stream] = run[stream].slice(-maxOutputChars / 2);
        if (run.lines.length > maxOutputLines) run.lines.splice(0, run.lines.length - maxOutputLines / 2);
        partial += chunk;
        let nl: number;
        while ((nl = partial.indexOf('\n')) >= 0) {
          const line = partial.slice(0, nl);
          partial = partial.slice(nl + 1);
          run.lines.push(line);
          this.opts.onOutput?.(stream, line);
          for (const l of run.lineListeners) l(line);
        }
      });
      child[stream]!.on('end', () => {
        if (partial) {
          run.lines.push(partial);
          this.opts.onOutput?.(stream, partial);
          for (const l of run.lineListeners) l(partial);
          partial = '';
        }
      });
    }
    // 'close' comes after the stdio streams ended, so `stderr` in the exit record is complete.
    child.on('close', (code, signal) => finish(code, signal));
    child.on('error', (err) => {
      run.stderr += `${err.message}\n`;
      // A spawn failure gets no 'close' when the process never existed.
      if (child.pid === undefined) finish(null, null);
    });
    this.run = run;
  }

  private tryLoadCredentials(): Credentials | undefined {
    try {
      if (existsSync(this.kubeconfigPath)) {
        const kc = new KubeConfig();
        kc.loadFromString(readFileSync(this.kubeconfigPath, 'utf8'));
        const cluster = kc.getCurrentCluster();
        const user = kc.getCurrentUser();
        if (cluster && user) {
          // The server writes its own idea of its URL (0.0.0.0 with --bind-address=0.0.0.0); the harness knows the reachable one.
          const kubeConfig = new KubeConfig();
          kubeConfig.loadFromClusterAndUser({ ...cluster, server: this.url }, user);
          const caPem = cluster.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : cluster.caFile ? readFileSync(cluster.caFile, 'utf8') : '';
          const httpsOptions: https.RequestOptions = {
            ca: caPem || undefined,
            cert: user.certData ? Buffer.from(user.certData, 'base64') : user.certFile ? readFileSync(user.certFile) : undefined,
            key: user.keyData ? Buffer.from(user.keyData, 'base64') : user.keyFile ? readFileSync(user.keyFile) : undefined,
            headers: user.token ? { Authorization: `Bearer ${user.token}` } : {},
          };
          if (caPem) return (this.creds = { kubeConfig, caPem, httpsOptions });
        }
      }
      // Fall back to the cert dir layout (kubeconfig not written yet or not requested).
      const ca = path.join(this.certDir, 'ca.crt');
      const crt = path.join(this.certDir, 'admin.crt');
      const key = path.join(this.certDir, 'admin.key');
      if (existsSync(ca) && existsSync(crt) && existsSync(key)) {
        const caPem = readFileSync(ca, 'utf8');
        const kubeConfig = new KubeConfig();
        kubeConfig.loadFromClusterAndUser(
          { name: 'kah', server: this.url, caData: Buffer.from(caPem).toString('base64'), skipTLSVerify: false },
          { name: 'admin', certData: readFileSync(crt).toString('base64'), keyData: readFileSync(key).toString('base64') },
        );
        // Not cached: the kubeconfig file, once written, is the better source.
        return { kubeConfig, caPem, httpsOptions: { ca: caPem, cert: readFileSync(crt), key: readFileSync(key) } };
      }
    } catch {
      // Half-written files while the server starts: try again on the next poll.
    }
    return undefined;
  }

  request(pathAndQuery: string, opts: ApiServerRequestOptions = {}): Promise<ApiServerResponse> {
    const creds = this.creds ?? this.tryLoadCredentials();
    if (!creds) return Promise.reject(new Error('no credentials yet: the server has not written its certificates'));
    return httpsRequest(new URL(pathAndQuery, this.url), creds.httpsOptions, opts);
  }

  async waitReady(timeoutMs = this.opts.readyTimeoutMs ?? defaultReadyTimeoutMs): Promise<void> {
    const run = this.run;
    if (!run) throw new Error('the apiserver was never started');
    const deadline = Date.now() + timeoutMs;
    let last = 'no response yet';
    const schedule = new ReadyPollSchedule();
    for (;;) {
      if (run.exit) throw this.exitError(run.exit, 'before becoming ready');
      const creds = this.creds ?? this.tryLoadCredentials();
      if (creds) {
        try {
          const res = await httpsRequest(new URL('/readyz?verbose', this.url), creds.httpsOptions, { timeoutMs: 2000 });
          if (res.status === 200) return;
          last = `/readyz answered ${res.status}: ${res.body.trim().split('\n').filter((l) => l.startsWith('[-]')).join('; ') || res.body.trim()}`;
        } catch (err) {
          last = `/readyz: ${(err as Error).message}`;
        }
      } else {
        last = `no credentials yet in ${this.kubeconfigPath} or ${this.certDir}`;
      }
      if (Date.now() >= deadline) {
        throw new ApiServerStartError(`apiserver (pid ${run.child.pid}) not ready after ${timeoutMs} ms: ${last}\nlast stderr lines:\n${tail(run.stderr)}`, undefined);
      }
      // Either the process exits or the next poll is due (ReadyPollSchedule), whichever comes first.
      const next = schedule.next(run.servingSeen);
      await settlesWithin(next.waitForServingLine ? Promise.race([run.exited, run.serving]) : run.exited, next.delayMs);
    }
  }

  private exitError(exit: ApiServerExit, when: string): ApiServerStartError {
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    return new ApiServerStartError(`apiserver exited with ${how} ${when}; last stderr lines:\n${tail(exit.stderr)}`, exit);
  }

  waitForLog(pattern: RegExp | string, timeoutMs = 10_000): Promise<string> {
    const run = this.run;
    if (!run) return Promise.reject(new Error('the apiserver was never started'));
    const matches = (line: string): boolean => (typeof pattern === 'string' ? line.includes(pattern) : pattern.test(line));
    const seen = run.lines.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        run.lineListeners.delete(listener);
      };
      const listener = (line: string): void => {
        if (matches(line)) {
          done();
          resolve(line);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no log line matching ${String(pattern)} within ${timeoutMs} ms; last lines:\n${run.lines.slice(-20).join('\n')}`));
      }, timeoutMs);
      run.lineListeners.add(listener);
      void run.exited.then(() =>
        setImmediate(() => {
          if (!run.lineListeners.has(listener)) return;
          done();
          reject(this.exitError(run.exit!, `before logging a line matching ${String(pattern)}`));
        }),
      );
    });
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<ApiServerExit | undefined> {
    const run = this.run;
    if (!run) throw new Error('the apiserver was never started');
    if (run.exit) return run.exit;
    run.child.kill(signal);
    // SIGSTOP freezes the server (a hung apiserver), SIGCONT thaws it: neither ends the process.
    if (nonTerminatingSignals.has(signal)) return undefined;
    return run.exited;
  }

  async stop(graceMs = 10_000): Promise<ApiServerExit> {
    const run = this.run;
    if (!run) throw new Error('the apiserver was never started');
    if (run.exit) return run.exit;
    // A frozen (SIGSTOP) server cannot act on SIGTERM until it is continued.
    run.child.kill('SIGCONT');
    run.child.kill('SIGTERM');
    const timer = setTimeout(() => run.child.kill('SIGKILL'), graceMs);
    try {
      return await run.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  async restart(opts: { waitForReady?: boolean } = {}): Promise<void> {
    if (this.running) await this.stop();
    this.start();
    if (opts.waitForReady ?? this.opts.waitForReady ?? true) await this.waitReady();
  }

  async cleanup(): Promise<void> {
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    try {
      if (this.running) await this.stop(5_000);
      this.finishCoverage();
    } finally {
      try {
        await this.etcd?.cleanup();
      } finally {
        await rm(this.tempDir, { recursive: true, force: true });
        untrackTempDir(this.tempDir);
      }
    }
  }
}

function httpsRequest(url: URL, base: https.RequestOptions, opts: ApiServerRequestOptions): Promise<ApiServerResponse> {
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = { Accept: 'application/json', ...(base.headers as Record<string, string> | undefined), ...opts.headers };
  if (body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      // A fresh connection per request: no keep-alive socket outlives a test.
      { ...base, method: opts.method ?? 'GET', headers, agent: false, timeout: opts.timeoutMs ?? 10_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            json: <T>() => JSON.parse(text) as T,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url.pathname} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function writeAdmissionConfig(dir: string, config: Record<string, unknown> | string): Promise<string> {
  const file = path.join(dir, 'admission-config.yaml');
  await writeFile(file, typeof config === 'string' ? config : YAML.stringify(config));
  return file;
}

/** How many ports startApiServer tries for a server whose port it chose, when another process takes one first. */
const serverStartAttempts = 3;

/** Starts the apiserver (and, by default, an etcd for it) and waits until `/readyz` is 200. */
export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServerHandle> {
  const flags = opts.flags ?? [];
  if (flagValue(flags, 'secure-port') !== undefined) throw new Error('the harness chooses --secure-port; pass opts.port instead');
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'kah-apiserver-'));
  trackTempDir(tempDir);
  let etcd: EtcdHandle | undefined;
  let handle: ApiServerProcess | undefined;
  try {
    // 0755 whatever the umask: the server refuses a cert dir group or others may write
    await mkdir(path.join(tempDir, 'certs'), { recursive: true, mode: 0o755 });
    const certsKey = flagValue(flags, 'cert-dir') === undefined && (opts.certificates ?? 'shared') === 'shared' ? sharedCertificatesKey(flagValue(flags, 'bind-address') ?? defaultBindAddress, flagValue(flags, 'external-hostname')) : undefined;
    if (certsKey !== undefined) provideSharedCertificates(certsKey, path.join(tempDir, 'certs'));
    const storage = storageOf(opts);
    const needsEtcd = storage === 'etcd3' && flagValue(flags, 'etcd-servers') === undefined;
    const givenEtcd = opts.etcdServers === undefined ? undefined : Array.isArray(opts.etcdServers) ? opts.etcdServers.join(',') : opts.etcdServers;
    const admissionConfig = buildAdmissionConfig(opts.admissionConfig, opts.staticManifestDirs);
    const admissionConfigPath = admissionConfig === undefined ? undefined : await writeAdmissionConfig(tempDir, admissionConfig);
    let port = opts.port ?? (await freePort());
    const coverageArgs = opts.coverage && flagValue(flags, 'admission-coverage') === undefined ? [`--admission-coverage=${path.join(tempDir, 'admission-coverage.json')}`] : [];
    const entry = opts.serverEntry ?? defaultServerEntry();
    if (!existsSync(entry)) throw new Error(`the apiserver entry ${entry} does not exist: run \`npm run build\` first`);
    const spawnServer = (etcdServers: string | undefined, withEtcd: EtcdHandle | undefined): ApiServerProcess => {
      const args = buildApiServerArgs({ ...opts, flags: [...coverageArgs, ...flags] }, {
        port,
        certDir: path.join(tempDir, 'certs'),
        kubeconfigPath: path.join(tempDir, 'kubeconfig'),
        admissionConfigPath,
        etcdServers,
      });
      const started = new ApiServerProcess(opts, port, [entry, ...args], tempDir, withEtcd);
      started.start();
      return started;
    };
    let etcdServers: string | undefined;
    if (!needsEtcd || givenEtcd !== undefined) {
      etcdServers = needsEtcd ? givenEtcd : undefined;
      handle = spawnServer(etcdServers, undefined);
    } else {
      // etcd and the apiserver start at once: the server waits for etcd's port (as kube-apiserver does) while node
      // loads it, so etcd's start costs no time of its own
      const binary = resolveEtcdBinary(opts.etcd?.binary);
      for (let attempt = 1; ; attempt++) {
        const spawned = await spawnEtcd(binary, opts.etcd ?? {});
        etcd = spawned.etcd;
        etcdServers = etcd.endpoint;
        handle = spawnServer(etcdServers, etcd);
        try {
          await spawned.healthy;
          break;
        } catch (err) {
          if (!(attempt < etcdStartAttempts && isAddressInUse(err))) throw err;
          // new ports for etcd: this server waits for the old ones
          await handle.kill('SIGKILL');
          handle = undefined;
          etcd = undefined;
        }
      }
    }
    if (opts.waitForReady ?? true) {
      for (let attempt = 1; ; attempt++) {
        try {
          await handle.waitReady();
          break;
        } catch (err) {
          // the port the harness chose was taken by someone else before the server listened on it: a new port
          if (!(opts.port === undefined && attempt < serverStartAttempts && isAddressInUse(err))) throw err;
          await handle.kill('SIGKILL');
          port = await freePort();
          handle = spawnServer(etcdServers, etcd);
        }
      }
      if (certsKey !== undefined) keepSharedCertificates(certsKey, handle.certDir);
    }
    return handle;
  } catch (err) {
    // Nothing half-started is left behind when start fails.
    if (handle) await handle.cleanup();
    else {
      await etcd?.cleanup();
      await rm(tempDir, { recursive: true, force: true });
      untrackTempDir(tempDir);
    }
    throw err;
  }
}

/** Where cleanup writes the report of a server started with `coverage`. */
function coverageOutputFile(coverage: ApiServerOptions['coverage'], port: number): string | undefined {
  if (!coverage) return undefined;
  if (typeof coverage === 'object' && coverage.file) return path.resolve(coverage.file);
  const dir = process.env['KAH_COVERAGE_DIR'] || path.resolve('admission-coverage');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(dir, `apiserver-${port}-${stamp}.json`);
}
