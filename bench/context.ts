// What every case gets: the run's size (quick or full), one shared etcd (started on first use), temp dirs that
// are removed at the end, and a progress log on stderr (the table goes to stdout).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { trackTempDir, untrackTempDir } from '../harness/cleanup.js';
import { startEtcd, type EtcdProcess } from '../harness/etcd-process.js';
import { freePort } from '../harness/ports.js';
import { BenchServer, type BenchServerOptions } from './server-process.js';
import type { TlsClientCredentials } from './load.js';

export interface BenchSizes {
  /** cold starts and restarts per variant */
  startRuns: number;
  /** startApiServer() runs (each starts an etcd) */
  harnessRuns: number;
  /** repeats of every create measurement */
  createRepeats: number;
  /** requests per create measurement, by concurrency */
  createRequests: Record<number, number>;
  /** requests before measuring, so both sides are past JIT warm-up */
  warmupRequests: number;
  /** cap on one closed-loop measurement */
  loadTimeLimitMs: number;
  memoryRuns: number;
  memoryObjects: number;
  /** static manifest reloads per reload variant */
  reloads: number;
  /** CEL: timed rounds per figure, and how long each runs */
  celRounds: number;
  celRoundMs: number;
}

export const fullSizes: BenchSizes = {
  startRuns: 15,
  harnessRuns: 10,
  createRepeats: 5,
  createRequests: { 1: 600, 16: 3000 },
  warmupRequests: 400,
  loadTimeLimitMs: 30_000,
  memoryRuns: 3,
  memoryObjects: 10_000,
  reloads: 20,
  celRounds: 7,
  celRoundMs: 1000,
};

/** Under a minute on a 2-core machine: fewer runs, 2,000 objects instead of 10,000 for memory, 6 reloads instead of 20, shorter CEL rounds. */
export const quickSizes: BenchSizes = {
  startRuns: 3,
  harnessRuns: 2,
  createRepeats: 2,
  createRequests: { 1: 100, 16: 400 },
  warmupRequests: 100,
  loadTimeLimitMs: 5_000,
  memoryRuns: 1,
  memoryObjects: 2_000,
  reloads: 6,
  celRounds: 3,
  celRoundMs: 150,
};

export class BenchContext {
  private etcdStarting: Promise<EtcdProcess> | undefined;
  private etcdStarted: EtcdProcess | undefined;
  private readonly dirs: string[] = [];
  private prefixCounter = 0;

  constructor(
    readonly quick: boolean,
    readonly sizes: BenchSizes,
    /** node flags for every apiserver the benchmark starts (`--cpu-prof …`) */
    readonly serverNodeArgs: string[],
    private readonly progress: (line: string) => void,
  ) {}

  log(line: string): void {
    this.progress(line);
  }

  /** The etcd every etcd-storage variant uses, started once. */
  etcd(): Promise<EtcdProcess> {
    this.etcdStarting ??= startEtcd().then((e) => (this.etcdStarted = e));
    return this.etcdStarting;
  }

  /** The shared etcd's pid once it runs (its CPU is the benchmark's, not another process's). */
  get etcdPid(): number | undefined {
    return this.etcdStarted?.running ? this.etcdStarted.pid : undefined;
  }

  /** A prefix no earlier start used, so each cold start finds an empty store. */
  freshPrefix(): string {
    return `/bench-${process.pid}-${++this.prefixCounter}`;
  }

  async tempDir(label: string): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), `kah-bench-${label}-`));
    trackTempDir(dir);
    this.dirs.push(dir);
    return dir;
  }

  /** A server on a free port with a fresh cert dir (and a fresh etcd prefix for etcd storage), not waited for. */
  async serverOptions(storage: 'memory' | 'etcd3', extra: Partial<BenchServerOptions> = {}): Promise<BenchServerOptions> {
    const opts: BenchServerOptions = { port: await freePort(), certDir: await this.tempDir('certs'), storage, nodeArgs: this.serverNodeArgs, ...extra };
    if (storage === 'etcd3') {
      opts.etcdEndpoint ??= (await this.etcd()).endpoint;
      opts.etcdPrefix ??= this.freshPrefix();
    }
    return opts;
  }

  /** Starts a server and waits until it is ready. */
  async readyServer(storage: 'memory' | 'etcd3', extra: Partial<BenchServerOptions> = {}): Promise<BenchServer> {
    const server = BenchServer.spawn(await this.serverOptions(storage, extra));
    try {
      await server.waitReady(process.hrtime.bigint());
    } catch (err) {
      await server.kill();
      throw err;
    }
    return server;
  }

  async cleanup(): Promise<void> {
    if (this.etcdStarting) await (await this.etcdStarting.catch(() => undefined))?.cleanup();
    for (const dir of this.dirs.splice(0)) {
      await rm(dir, { recursive: true, force: true });
      untrackTempDir(dir);
    }
  }
}

/** The admin client certificate the server generated in its cert dir. */
export async function adminCredentials(certDir: string): Promise<TlsClientCredentials> {
  const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(certDir, f), 'utf8')));
  return { ca: ca!, cert: cert!, key: key! };
}
