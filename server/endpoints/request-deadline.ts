// The deadline of a request, as kube-apiserver derives it and what happens when it passes: WithRequestDeadline
// (endpoints/filters/request_deadline.go) bounds every non-long-running request by its `?timeout=` (when positive and
// below the maximum) or by --request-timeout (60 s); the write handlers bound it further by requestTimeoutUpperBound
// (handlers/rest.go, 34 s), and their FinishRequest (handlers/finisher) answers 504 once it passes, whatever the
// request is still doing. Admission webhooks get what is left of it (see webhook/client.ts).
import { StatusError } from '../api/errors.js';

/** --request-timeout's default: the deadline of a request without (or with too long) a `?timeout=`. */
export const requestTimeoutMaximumMs = 60_000;
/** handlers.requestTimeoutUpperBound: "a number close to 30 that is likely to be unique enough". */
export const requestTimeoutUpperBoundMs = 34_000;

/** Milliseconds on the performance.now() clock: deadlines are compared in-process only. */
export const monotonicNow = (): number => performance.now();

/** WithRequestDeadline: the deadline for a request received at `startedMs` with the parsed `?timeout=` (ns). */
export function requestDeadline(startedMs: number, userTimeoutNs: bigint | undefined): number {
  let timeoutMs = requestTimeoutMaximumMs;
  if (userTimeoutNs !== undefined && userTimeoutNs > 0n) {
    const userMs = Number(userTimeoutNs) / 1e6;
    if (userMs < requestTimeoutMaximumMs) timeoutMs = userMs;
  }
  return startedMs + timeoutMs;
}

/** context.WithTimeout(ctx, requestTimeoutUpperBound) of the write handlers: the earlier of the two deadlines. */
export function handlerDeadline(requestDeadlineMs: number | undefined, nowMs: number): number {
  const bound = nowMs + requestTimeoutUpperBoundMs;
  return requestDeadlineMs === undefined ? bound : Math.min(requestDeadlineMs, bound);
}

/** FinishRequest's answer once the deadline passed: errors.NewTimeoutError(... - ctx.Err(), 0). */
export function finishRequestTimeoutError(): StatusError {
  // RetryAfterSeconds 0 is omitted from the details, which stay an empty object
  return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
}

/** The write verbs whose handlers run under FinishRequest. */
export const finishedVerbs: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
