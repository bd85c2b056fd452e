// A benchmark helper process (the webhook, the create floor): forked with an IPC channel, ready when it says so,
// stopped by closing the channel (SIGKILL after 5 s). Its pid is what the CPU meter reads.
import { fork, type ChildProcess } from 'node:child_process';
import { trackChild } from '../harness/cleanup.js';

export interface ForkedChild<Ready> {
  child: ChildProcess;
  ready: Ready;
  exited: Promise<void>;
}

/** Forks `entry` and waits for its `{ type: 'ready' }` message; a `{ type: 'failed', message }` or an exit rejects. */
export async function forkUntilReady<Ready extends { type: 'ready' }>(entry: string, args: string[], what: string): Promise<ForkedChild<Ready>> {
  const child = fork(entry, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  trackChild(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 20 s`)), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code} before it was ready`));
    });
    child.on('message', (m: { type?: string; message?: string }) => {
      if (m.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${what} failed to start: ${m.message}`));
      } else if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m as Ready);
      }
    });
  });
  return { child, ready, exited };
}

export async function stopForked(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
