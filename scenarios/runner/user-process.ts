// The user's own programs (their real webhook, in any language), started for a scenario: in its own process group so
// that a shell wrapper's children die with it, its output kept for the failure report, ready when readyURL answers 2xx.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { trackChild } from '../../harness/cleanup.js';

const maxOutputChars = 256 * 1024;

export interface UserProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** stdout and stderr interleaved as they arrived (the last 256 KB). */
  output(): string;
  waitReady(url: string, timeoutMs: number): Promise<void>;
  /** Signal the process group and wait for the exit (SIGKILL after 5 s unless the signal only pauses). */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** One GET; resolves with the status code. Self-signed certificates are accepted: the user's webhook has its own CA. */
function probe(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith('https:') ? https : http;
    const req = lib.get(url, { rejectUnauthorized: false, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

class SpawnedProcess implements UserProcess {
  private out = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (d: string) => {
        this.out += d;
        if (this.out.length > maxOutputChars) this.out = this.out.slice(-maxOutputChars / 2);
      });
    }
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      });
      child.once('error', (err) => {
        this.out += `${err.message}\n`;
        if (child.pid === undefined) {
          this.exit = { code: null, signal: null };
          resolve();
        }
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  output(): string {
    return this.out;
  }

  private exitText(): string {
    const e = this.exit!;
    return e.signal ? `signal ${e.signal}` : `code ${e.code}`;
  }

  async waitReady(url: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    for (;;) {
      if (!this.running) throw new Error(`process ${this.name} exited with ${this.exitText()} before ${url} answered`);
      try {
        const code = await probe(url, 2000);
        if (code >= 200 && code < 300) return;
        last = `answered ${code}`;
      } catch (err) {
        last = (err as Error).message;
      }
      if (Date.now() >= deadline) throw new Error(`process ${this.name} not ready: ${url} ${last} after ${timeoutMs} ms`);
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 100))]);
    }
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined || !this.running) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone (or was never made): signal the child itself.
      this.child.kill(signal);
    }
  }

  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    this.signal(signal);
    if (signal === 'SIGSTOP' || signal === 'SIGCONT' || signal === 'SIGTSTP') return;
    const timer = setTimeout(() => {
      this.signal('SIGCONT');
      this.signal('SIGKILL');
    }, 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

export function startUserProcess(name: string, command: readonly string[], opts: { cwd: string; env: Record<string, string> }): UserProcess {
  const [program, ...args] = command;
  const child = spawn(program!, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  trackChild(child);
  return new SpawnedProcess(name, child);
}
