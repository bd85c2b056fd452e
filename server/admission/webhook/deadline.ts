// The request's deadline as the webhook dispatchers see it (kube: the request context's Done channel).
import { StatusError } from '../../api/errors.js';
import type { AdmissionAttributes } from '../attributes.js';

/** Whether the request's context is done: its deadline (performance.now() ms) has passed. */
export function requestDeadlinePassed(attrs: Pick<AdmissionAttributes, 'deadline'>, now: number = performance.now()): boolean {
  return attrs.deadline !== undefined && now >= attrs.deadline;
}

/**
 * What both dispatchers return once the request's context is done (mutating: after a call failed open; validating:
 * before any call): apierrors.NewTimeoutError("request did not complete within requested timeout", 0).
 */
export function requestTimedOutError(): StatusError {
  // RetryAfterSeconds 0 is omitted from the details, which stay an empty object
  return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout', {});
}
