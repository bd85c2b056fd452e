// Process-wide registry of what the harness started (child processes, temp dirs), so that nothing outlives the
// process that started it: explicit cleanupAll(), and handlers for exit, SIGINT and SIGTERM as a safety net.
//
// Under jest the test file sees a copy of `process` whose events the real process never emits, so these
// handlers do not fire there; suites must stop what they start in afterAll (handle.cleanup() or cleanupAll()).
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let handlersInstalled = false;
let handlingSignal = false;

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Resolves when the child has exited (at once if it already has), or after timeoutMs with false. */
function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (!isRunning(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      child.removeListener('exit', onExit);
      resolve(false);
    }, timeoutMs);
    child.once('exit', onExit);
  });
}

/** Registers a child to be killed at cleanup; it is forgotten by itself once it exits. */
export function trackChild(child: ChildProcess): void {
  installProcessHandlers();
  if (!isRunning(child)) return;
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export function untrackChild(child: ChildProcess): void {
  children.delete(child);
}

/** Registers a directory to be removed (recursively) at cleanup. */
export function trackTempDir(path: string): void {
  installProcessHandlers();
  tempDirs.add(path);
}

export function untrackTempDir(path: string): void {
  tempDirs.delete(path);
}

/** What is currently tracked, for tests and diagnostics. */
export function trackedResources(): { pids: number[]; tempDirs: string[] } {
  return { pids: [...children].flatMap((c) => (c.pid === undefined ? [] : [c.pid])), tempDirs: [...tempDirs] };
}

/**
 * Stops every tracked child (SIGTERM, then SIGKILL after graceMs) and removes every tracked temp dir.
 * Safe to call any number of times; what it cleaned is untracked.
 */
export async function cleanupAll(opts: { graceMs?: number } = {}): Promise<void> {
  const graceMs = opts.graceMs ?? 5000;
  const running = [...children];
  children.clear();
  await Promise.all(
    running.map(async (child) => {
      if (!isRunning(child)) return;
      child.kill('SIGTERM');
      if (await waitForExit(child, graceMs)) return;
      child.kill('SIGKILL');
      await waitForExit(child, 5000);
    }),
  );
  const dirs = [...tempDirs];
  tempDirs.clear();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => undefined)));
}

/** The last-chance cleanup on process exit: only synchronous work is possible here. */
function cleanupSync(): void {
  for (const child of children) {
    if (isRunning(child)) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  children.clear();
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort: the process is exiting
    }
  }
  tempDirs.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  if (handlingSignal) return;
  handlingSignal = true;
  void cleanupAll({ graceMs: 2000 }).finally(() => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    // Our listener replaced the default action (terminate); if nobody else handles the signal, re-raise it so
    // the process still dies by it, with the exit status a shell expects.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

function installProcessHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', cleanupSync);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
