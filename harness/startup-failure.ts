// For configurations that must keep the server from starting: the exit code and what it printed, or a rejection
// if it became ready after all (kube-apiserver exits 1 on a bad flag or an invalid admission config, before serving).
import { ApiServerStartError, startApiServer, type ApiServerOptions } from './apiserver-process.js';

export interface StartupFailure {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  stdout: string;
}

export class UnexpectedStartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnexpectedStartupError';
  }
}

/** Starts the server with `opts` and resolves when it exits before `/readyz` is 200; rejects (after stopping it) if it gets ready. */
export async function expectStartupFailure(opts: ApiServerOptions = {}): Promise<StartupFailure> {
  const server = await startApiServer({ ...opts, waitForReady: false });
  try {
    const outcome = await server.waitReady().then(
      () => ({ ready: true as const }),
      (err: unknown) => ({ ready: false as const, err }),
    );
    if (outcome.ready) {
      throw new UnexpectedStartupError(`expected the apiserver to fail to start, but it became ready at ${server.url}; stdout:\n${server.stdout()}`);
    }
    // waitReady also gives up on a timeout while the process still runs: that is not a startup failure either.
    if (!(outcome.err instanceof ApiServerStartError) || outcome.err.exit === undefined) {
      throw new UnexpectedStartupError(`expected the apiserver to exit, but it neither exited nor became ready: ${(outcome.err as Error).message}`);
    }
    const exit = await server.exited;
    return { exitCode: exit.code, signal: exit.signal, stderr: exit.stderr, stdout: server.stdout() };
  } finally {
    await server.cleanup();
  }
}
