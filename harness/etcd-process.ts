// A real etcd as a child process on free local ports with a temp data dir, so tests can kill -9 and restart it
// the way an operator would. Everything it starts is tracked for cleanup (harness/cleanup.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { trackChild, trackTempDir, untrackChild, untrackTempDir } from './cleanup.js';
import { freePort } from './ports.js';

export interface EtcdStartOptions {
  /** Path (or name on PATH) of the etcd binary. Default: $ETCD_BIN, else `etcd` on PATH. */
  binary?: string;
  /** Use this data dir (kept by cleanup()); default: a fresh temp dir, removed by cleanup(). */
  dataDir?: string;
  /** Member name, default `kah-etcd`. */
  name?: string;
  /** How long to wait for /health to report healthy, default 20 s. */
  readyTimeoutMs?: number;
  /** Extra environment for etcd (merged over this process's environment). */
  env?: Record<string, string>;
  /** Extra command-line flags, appended after the harness's own. */
  extraArgs?: string[];
}

export interface EtcdExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface EtcdProcess {
  /** `http://127.0.0.1:<clientPort>` */
  readonly endpoint: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  readonly name: string;
  /** Pid of the current etcd process (changes on restart). */
  readonly pid: number;
  /** Whether the current process is still running. */
  readonly running: boolean;
  /** Resolves when the current process exits. */
  readonly exited: Promise<EtcdExit>;
  /** Milliseconds from spawn to healthy, for the last (re)start. */
  readonly startupMs: number;
  /** Everything etcd wrote to stdout and stderr across restarts (the last few MB). */
  logs(): string;
  /** SIGTERM and wait for exit (SIGKILL if it has not exited after 10 s). */
  stop(): Promise<void>;
  /** Sends the signal; waits for exit unless it is a stop/continue signal (SIGSTOP, SIGTSTP, SIGCONT). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops the process if it runs, starts it again on the same ports and data dir, and waits until healthy. */
  restart(): Promise<void>;
  /** stop() and remove the data dir if the harness created it. Idempotent. */
  cleanup(): Promise<void>;
}

const maxLogChars = 4 * 1024 * 1024;
const nonTerminatingSignals = new Set<NodeJS.Signals>(['SIGSTOP', 'SIGTSTP', 'SIGCONT']);

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function notFound(detail: string): Error {
  return new Error(
    `etcd was not found: ${detail}. Install Debian's etcd-server package (apt-get install etcd-server) ` +
      'or set ETCD_BIN to the path of an etcd binary.',
  );
}

/** opts.binary, else $ETCD_BIN, else `etcd` on PATH; a clear error when none is there. */
export function resolveEtcdBinary(binary?: string, env: NodeJS.ProcessEnv = process.env): string {
  const requested = binary ?? (env.ETCD_BIN !== undefined && env.ETCD_BIN !== '' ? env.ETCD_BIN : undefined);
  const source = binary !== undefined ? 'the binary option' : 'ETCD_BIN';
  if (requested !== undefined && (requested.includes('/') || isAbsolute(requested))) {
    const path = resolvePath(requested);
    if (isExecutableFile(path)) return path;
    throw notFound(`${path} (from ${source}) does not exist or is not an executable file`);
  }
  const name = requested ?? 'etcd';
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw notFound(requested === undefined ? 'no "etcd" executable on PATH' : `no "${name}" (from ${source}) executable on PATH`);
}

/** GET /health once; resolves with the body's "health" field or rejects. */
function getHealth(port: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // agent:false and no keep-alive: a pooled socket would keep jest alive after the suite.
    const req = request({ host: '127.0.0.1', port, path: '/health', method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          const parsed = JSON.parse(body) as { health?: unknown };
          resolve(String(parsed.health));
        } catch {
          reject(new Error(`unexpected /health answer (${res.statusCode ?? '?'}): ${body.slice(0, 200)}`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`/health did not answer within ${timeoutMs}ms`)));
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether the promise settled within ms; the timer is cleared either way so it cannot keep the process alive. */
export function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void p.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

class EtcdProcessHandle implements EtcdProcess {
  readonly endpoint: string;
  private child: ChildProcess | undefined;
  private exitPromise: Promise<EtcdExit> = Promise.resolve({ code: null, signal: null });
  private logChunks: string[] = [];
  private logChars = 0;
  private lastStartupMs = 0;
  private cleanedUp = false;

  constructor(
    private readonly binary: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    readonly name: string,
    readonly clientPort: number,
    readonly peerPort: number,
    readonly dataDir: string,
    private readonly ownsDataDir: boolean,
    private readonly readyTimeoutMs: number,
  ) {
    this.endpoint = `http://127.0.0.1:${clientPort}`;
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  get running(): boolean {
    const c = this.child;
    return c !== undefined && c.exitCode === null && c.signalCode === null;
  }

  get exited(): Promise<EtcdExit> {
    return this.exitPromise;
  }

  get startupMs(): number {
    return this.lastStartupMs;
  }

  logs(): string {
    return this.logChunks.join('');
  }

  private appendLog(text: string): void {
    this.logChunks.push(text);
    this.logChars += text.length;
    while (this.logChars > maxLogChars && this.logChunks.length > 1) {
      this.logChars -= this.logChunks.shift()!.length;
    }
  }

  private logTail(lines = 30): string {
    return this.logs().trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Spawns etcd and waits for /health; on failure the process is killed and the error carries the log tail. */
  async start(): Promise<void> {
    if (this.cleanedUp) throw new Error(`etcd ${this.endpoint} was cleaned up; start a new one`);
    const started = Date.now();
    const child = spawn(this.binary, this.args, { stdio: ['ignore', 'pipe', 'pipe'], env: this.env });
    this.child = child;
    let spawnError: Error | undefined;
    this.exitPromise = new Promise<EtcdExit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (err) => {
        // spawn failures (EACCES, ENOENT after the PATH check) emit 'error' and never 'exit'
        spawnError = err;
        if (child.pid === undefined) resolve({ code: null, signal: null });
      });
    });
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => this.appendLog(d));
    child.stderr?.on('data', (d: string) => this.appendLog(d));
    if (child.pid !== undefined) trackChild(child);

    const deadline = started + this.readyTimeoutMs;
    let lastError = 'no answer yet';
    let exitedEarly = false;
    void this.exitPromise.then(() => (exitedEarly = true));
    for (;;) {
      if (spawnError) throw new Error(`could not start etcd (${this.binary}): ${spawnError.message}`);
      if (exitedEarly || !this.running) {
        const exit = await this.exitPromise;
        throw new Error(
          `etcd exited during startup (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}) at ${this.endpoint}; last log lines:\n${this.logTail()}`,
        );
      }
      try {
        const health = await getHealth(this.clientPort, 1000);
        if (health === 'true') break;
        lastError = `/health says ${health}`;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
      if (Date.now() > deadline) {
        await this.kill('SIGKILL');
        throw new Error(
          `etcd at ${this.endpoint} did not become healthy within ${this.readyTimeoutMs}ms (${lastError}); last log lines:\n${this.logTail()}`,
        );
      }
      await sleep(20);
    }
    this.lastStartupMs = Date.now() - started;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.kill('SIGTERM');
    if (!(await settlesWithin(this.exitPromise, 10_000))) {
      child.kill('SIGKILL');
      await this.exitPromise;
    }
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.kill(signal);
    if (!nonTerminatingSignals.has(signal)) await this.exitPromise;
  }

  async restart(): Promise<void> {
    if (this.running) {
      // a stopped (SIGSTOP) process cannot handle SIGTERM until continued
      this.child?.kill('SIGCONT');
      await this.stop();
    }
    this.appendLog(`--- kah: restarting etcd on ${this.endpoint} ---\n`);
    await this.start();
  }

  async cleanup(): Promise<void> {
    if (this.running) {
      this.child?.kill('SIGCONT');
      await this.stop();
    }
    if (this.child) untrackChild(this.child);
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    if (this.ownsDataDir) {
      await rm(this.dataDir, { recursive: true, force: true });
      untrackTempDir(this.dataDir);
    }
  }
}

/**
 * Starts etcd on free 127.0.0.1 client and peer ports and waits until GET /health reports healthy.
 * Raft timings are tuned for a single local member (10 ms heartbeat, 100 ms election timeout), so a fresh
 * member is healthy in about 0.1–0.2 s.
 */
export async function startEtcd(opts: EtcdStartOptions = {}): Promise<EtcdProcess> {
  const binary = resolveEtcdBinary(opts.binary);
  for (let attempt = 1; ; attempt++) {
    const spawned = await spawnEtcd(binary, opts);
    try {
      await spawned.healthy;
      return spawned.etcd;
    } catch (err) {
      if (attempt < etcdStartAttempts && isAddressInUse(err)) continue;
      throw err;
    }
  }
}

/** A port found free can be taken by someone else before etcd binds it: a start is tried again with new ports. */
export const etcdStartAttempts = 3;

/** Whether etcd failed to start because one of its ports was taken meanwhile (try again with new ones). */
export function isAddressInUse(err: unknown): boolean {
  return err instanceof Error && /address already in use/.test(err.message);
}

/**
 * One start of etcd on new free ports: the process is spawned when this resolves (its endpoint is known) and
 * `healthy` resolves once /health says so. When it rejects, the process is gone and its temp data dir removed.
 */
export async function spawnEtcd(binary: string, opts: EtcdStartOptions): Promise<{ etcd: EtcdProcess; healthy: Promise<void> }> {
  const name = opts.name ?? 'kah-etcd';
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const ownsDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'kah-etcd-')));
  if (ownsDataDir) trackTempDir(dataDir);

  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    `--name=${name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=${name}=${peerUrl}`,
    '--initial-cluster-state=new',
    // One member on loopback: no network to tolerate, so elect fast.
    '--heartbeat-interval=10',
    '--election-timeout=100',
    '--logger=zap',
    '--log-outputs=stderr',
    ...(opts.extraArgs ?? []),
  ];
  const env: NodeJS.ProcessEnv = { ...process.env };
  // ETCD_BIN is ours, not an etcd flag; etcd would warn about an unrecognized ETCD_* variable.
  delete env.ETCD_BIN;
  // etcd 3.4 refuses to start on arm64 unless told it is fine.
  if (process.arch === 'arm64' && env.ETCD_UNSUPPORTED_ARCH === undefined) env.ETCD_UNSUPPORTED_ARCH = 'arm64';
  Object.assign(env, opts.env ?? {});

  const handle = new EtcdProcessHandle(binary, args, env, name, clientPort, peerPort, dataDir, ownsDataDir, opts.readyTimeoutMs ?? 20_000);
  // start() spawns before its first await
  const healthy = handle.start().catch(async (err: unknown) => {
    await handle.cleanup();
    throw err;
  });
  // awaited by the caller; a caller that failed before it must not leave an unhandled rejection
  healthy.catch(() => undefined);
  return { etcd: handle, healthy };
}
