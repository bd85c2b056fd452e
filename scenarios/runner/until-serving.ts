// API steps may run right after `start: { target: apiserver, waitForReady: false }`, while the process is still
// generating certificates or has not bound its port yet. Until the server accepts connections there is no answer to
// judge, so the call is tried again (the port opens only once static manifests are loaded); any HTTP answer is the server's and is
// never retried here. A server that exited will never answer, so that ends the wait at once.
import type { ApiServerExit, ApiServerHandle } from '../../harness/apiserver-process.js';
import { formatDuration } from './duration.js';

/** Socket errors of a server that is not listening yet, or that dropped the connection while coming up. */
const notServingCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/** Whether `err` means "nothing is accepting connections yet" rather than an answer or a client bug. Pure. */
export function isNotServingYet(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && notServingCodes.has(code)) return true;
  // Several addresses tried in turn (localhost → ::1, 127.0.0.1) fail as one AggregateError.
  return err instanceof AggregateError && err.errors.length > 0 && err.errors.every(isNotServingYet);
}

/** The part of ApiServerHandle the wait needs (a fake in unit tests). */
export type ServingProbe = Pick<ApiServerHandle, 'running' | 'exited' | 'caPem'>;

/** The server wrote its CA and admin credentials (before it listens); until then no request can even be made. */
function credentialsWritten(server: ServingProbe): boolean {
  try {
    return server.caPem !== '';
  } catch {
    return false;
  }
}

function describeExit(exit: ApiServerExit): string {
  const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  const tail = exit.stderr.trimEnd().split('\n').slice(-5).join('\n');
  return `the apiserver exited with ${how}${tail ? `; last stderr lines:\n${tail}` : ''}`;
}

export type UntilServingResult<T> = { ok: true; value: T } | { ok: false; message: string };

export interface UntilServingOptions {
  /** epoch ms after which the last error is reported */
  deadline: number;
  /** pause between attempts (default 100 ms) */
  intervalMs?: number;
}

/** Runs `call` once the server accepts connections, trying again while it does not, until the deadline. */
export async function untilServing<T>(server: ServingProbe, call: () => Promise<T>, opts: UntilServingOptions): Promise<UntilServingResult<T>> {
  const started = Date.now();
  const intervalMs = opts.intervalMs ?? 100;
  let last = 'the apiserver has not written its certificates yet';
  for (;;) {
    if (!server.running) return { ok: false, message: describeExit(await server.exited) };
    if (credentialsWritten(server)) {
      try {
        return { ok: true, value: await call() };
      } catch (err) {
        if (!isNotServingYet(err)) throw err;
        last = (err as Error).message;
      }
    }
    if (Date.now() >= opts.deadline) {
      return { ok: false, message: `the apiserver did not accept connections within ${formatDuration(Date.now() - started)}; last error: ${last}` };
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
