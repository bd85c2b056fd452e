// The apiserver as the benchmark drives it: `node dist/server/main.cjs` spawned directly (not through
// startApiServer, whose readiness poll backs off) with /readyz polled every few milliseconds from the moment the
// server logs that its port is open, so that a start time is measured to within the poll interval. Also a
// process's resident set from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { trackChild } from '../harness/cleanup.js';
import { defaultServerEntry } from '../harness/apiserver-process.js';
import { serverNodeFlags } from '../harness/server-node-flags.js';
import { msSince } from './stats.js';

/** Between two readiness probes; small against the 300 ms being measured, large enough not to load the CPU. */
const readyPollMs = 3;

export interface BenchServerOptions {
  port: number;
  certDir: string;
  storage: 'memory' | 'etcd3';
  etcdEndpoint?: string;
  /** a fresh prefix per cold start, so every start finds an empty store */
  etcdPrefix?: string;
  /** node flags before the entry, e.g. ['--cpu-prof', '--cpu-prof-dir=…'] */
  nodeArgs?: string[];
  extraFlags?: string[];
  /** added to the benchmark's environment (e.g. KAH_MANIFEST_POLL_INTERVAL) */
  env?: Record<string, string>;
}

export interface ExitRecord {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function serverArgs(o: BenchServerOptions): string[] {
  return [
    `--secure-port=${o.port}`,
    '--bind-address=127.0.0.1',
    `--cert-dir=${o.certDir}`,
    `--storage-backend=${o.storage}`,
    ...(o.storage === 'etcd3' ? [`--etcd-servers=${o.etcdEndpoint ?? ''}`, `--etcd-prefix=${o.etcdPrefix ?? '/registry'}`] : []),
    ...(o.extraFlags ?? []),
  ];
}

/** One run of the server process. */
export class BenchServer {
  readonly child: ChildProcess;
  readonly exited: Promise<ExitRecord>;
  private output = '';
  private exit: ExitRecord | undefined;
  /** resolves when the server logs "Serving securely" (its port is open) */
  private readonly listening: Promise<void>;

  private constructor(readonly opts: BenchServerOptions) {
    const env = { ...process.env, ...opts.env };
    // the node flags the harness starts servers with: the benchmark measures the starts users' suites make
    this.child = spawn(process.execPath, [...serverNodeFlags(env), ...(opts.nodeArgs ?? []), defaultServerEntry(), ...serverArgs(opts)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    trackChild(this.child);
    let listened: () => void = () => {};
    this.listening = new Promise((resolve) => (listened = resolve));
    let seen = false;
    for (const s of [this.child.stdout!, this.child.stderr!]) {
      s.setEncoding('utf8');
      // Only the tail matters (for a failure message); a long run must not grow it without bound.
      s.on('data', (c: string) => {
        this.output = (this.output + c).slice(-64 * 1024);
        if (!seen && this.output.includes(servingLine)) {
          seen = true;
          listened();
        }
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  static spawn(opts: BenchServerOptions): BenchServer {
    return new BenchServer(opts);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get url(): string {
    return `https://127.0.0.1:${this.opts.port}`;
  }

  /** The last output lines, for error messages. */
  tail(lines = 15): string {
    return this.output.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /**
   * Polls /readyz until 200, from the moment the server logs that it listens (it cannot be ready before, and
   * probing a closed port every few ms from spawn took ≈ 35 ms of a 2-core machine from the start being
   * measured); resolves with the milliseconds since `since`. Throws if the process exits first.
   */
  async waitReady(since: bigint, timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.listening,
        this.exited,
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    // Unverified, as the admin: anonymous requests are 401 under the default AlwaysAllow authorizer (as in kube). The
    // server writes the admin certificate before it logs that it listens; it is still looked for on each probe until
    // found, as a --cert-dir given by hand may hold no admin certificate yet when polling starts.
    let agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    let asAdmin = false;
    let last = 'no answer';
    try {
      for (;;) {
        if (this.exit) throw new Error(`server exited (code ${this.exit.code}, signal ${this.exit.signal}) before ready: ${last}\n${this.tail()}`);
        if (!asAdmin) {
          const admin = adminCertificate(this.opts.certDir);
          if (admin) {
            agent.destroy();
            agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false, ...admin });
            asAdmin = true;
          }
        }
        const status = await probe(this.opts.port, '/readyz', agent).catch((err: Error) => {
          last = err.message;
          return 0;
        });
        if (status === 200) return msSince(since);
        if (status !== 0) last = `/readyz ${status}`;
        if (Date.now() > deadline) throw new Error(`server not ready after ${timeoutMs} ms: ${last}\n${this.tail()}`);
        await new Promise((r) => setTimeout(r, readyPollMs));
      }
    } finally {
      agent.destroy();
    }
  }

  /** SIGKILL and wait for the exit. */
  async kill(): Promise<void> {
    if (this.exit) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (the server shuts down gracefully and writes a --cpu-prof profile), SIGKILL after graceMs. */
  async stop(graceMs = 10_000): Promise<ExitRecord> {
    if (this.exit) return this.exit;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** What the server logs once its port is open (server/main.ts), as the harness waits for it. */
const servingLine = '"msg":"Serving securely"';

/** The admin client certificate the server writes into its --cert-dir, once both files are there. */
function adminCertificate(certDir: string): { cert: Buffer; key: Buffer } | undefined {
  try {
    const cert = readFileSync(path.join(certDir, 'admin.crt'));
    const key = readFileSync(path.join(certDir, 'admin.key'));
    return cert.length > 0 && key.length > 0 ? { cert, key } : undefined;
  } catch {
    return undefined;
  }
}

function probe(port: number, path: string, agent: https.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'GET', agent, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** VmRSS of a live process in MB (Linux /proc). */
export function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

/** `node -e ''`: spawn to exit, the floor under any node process start. */
export function nodeProcessStartMs(): Promise<number> {
  return timedNode(['-e', '']);
}

/**
 * A node process that imports the server's module graph and exits without starting it (main.js runs only when
 * it is the entry): how much of a cold start is loading code.
 */
export function serverImportMs(): Promise<number> {
  return timedNode(['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(defaultServerEntry()).href)})`]);
}

async function timedNode(args: string[]): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  trackChild(child);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('exit', (c) => resolve(c));
    child.once('error', reject);
  });
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}`);
  return msSince(start);
}
