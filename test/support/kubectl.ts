// Runs the real kubectl (from PATH) against a harness apiserver.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/**
 * kubectl's discovery cache for this kubeconfig's server: beside the kubeconfig (each harness server has its own temp
 * dir), not ~/.kube/cache, where a port reused by a later test server would serve it an earlier server's resources
 * (`kubectl get all` then asks for a CRD that server never had).
 */
function kubectlEnv(kubeconfigPath: string): NodeJS.ProcessEnv {
  return { ...process.env, KUBECACHEDIR: process.env['KUBECACHEDIR'] ?? path.join(path.dirname(kubeconfigPath), '.kubectl-cache') };
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function kubectl(kubeconfigPath: string, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfigPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: kubectlEnv(kubeconfigPath) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** A long-running kubectl (e.g. `get -w`) whose output lines can be awaited. */
export class KubectlStream {
  private readonly child: ChildProcess;
  private out = '';
  private err = '';
  private readonly waiters: Array<() => void> = [];

  constructor(kubeconfigPath: string, args: string[]) {
    this.child = spawn('kubectl', ['--kubeconfig', kubeconfigPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: kubectlEnv(kubeconfigPath) });
    this.child.stdout!.on('data', (d: Buffer) => {
      this.out += d.toString();
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr!.on('data', (d: Buffer) => (this.err += d.toString()));
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  /** Resolves when stdout satisfies the predicate; rejects after timeoutMs with what was seen. */
  async waitFor(predicate: (stdout: string) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.out)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`kubectl output did not match in ${timeoutMs} ms; stdout:\n${this.out}\nstderr:\n${this.err}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once('close', () => resolve());
      this.child.kill('SIGKILL');
    });
  }
}
