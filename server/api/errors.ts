// kube-apiserver's error vocabulary (k8s.io/apimachinery/pkg/api/errors): every failure a client sees is a
// metav1.Status with the same code, reason, message and details that kube-apiserver would send.
import { formatFieldErrors, toStatusCause, type FieldError } from './field.js';
import type { Status, StatusDetails, StatusReason } from './types.js';

/** A group-qualified resource name as errors print it: "configmaps", "deployments.apps". */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export class StatusError extends Error {
  readonly status: Status;
  /** Extra response headers (Retry-After, …). */
  readonly headers: Record<string, string>;
  constructor(code: number, reason: StatusReason | string, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'StatusError';
    // metav1.Status tags reason omitempty: kube's errors without one (StatusReasonUnknown, "") have no reason field.
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason === '' ? {} : { reason }), code };
    if (details) this.status.details = details;
    this.headers = headers;
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string {
    return this.status.reason ?? '';
  }
}

function details(gr: GroupResource, name: string | undefined, extra: Partial<StatusDetails> = {}): StatusDetails {
  const d: StatusDetails = {};
  if (name !== undefined && name !== '') d.name = name;
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource;
  return { ...d, ...extra };
}

export const errors = {
  notFound: (gr: GroupResource, name: string): StatusError =>
    new StatusError(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, details(gr, name)),

  alreadyExists: (gr: GroupResource, name: string): StatusError =>
    new StatusError(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, details(gr, name)),

  conflict: (gr: GroupResource, name: string, why: string): StatusError =>
    new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, details(gr, name)),

  /** The optimistic-concurrency failure every stale write gets. */
  staleResourceVersion: (gr: GroupResource, name: string): StatusError =>
    errors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again'),

  /** 422 Invalid: `Kind "name" is invalid: <aggregate>` with one cause per field error. */
  invalid: (kind: { group: string; kind: string }, name: string, errs: FieldError[]): StatusError => {
    const d: StatusDetails = { name, kind: kind.kind, causes: errs.map(toStatusCause) };
    if (kind.group) d.group = kind.group;
    const what = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
    return new StatusError(422, 'Invalid', `${what} "${name}" is invalid: ${formatFieldErrors(errs)}`, d);
  },

  badRequest: (message: string): StatusError => new StatusError(400, 'BadRequest', message),

  unauthorized: (message = 'Unauthorized'): StatusError => new StatusError(401, 'Unauthorized', message),

  forbidden: (gr: GroupResource, name: string, why: string): StatusError => {
    const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
    return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, details(gr, name));
  },

  methodNotSupported: (gr: GroupResource, action: string): StatusError =>
    new StatusError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`, details(gr, undefined)),

  notAcceptable: (message: string): StatusError => new StatusError(406, 'NotAcceptable', message),

  gone: (message: string): StatusError => new StatusError(410, 'Gone', message),

  /** A watch or list from a compacted resourceVersion. */
  resourceExpired: (message: string): StatusError => new StatusError(410, 'Expired', message),

  requestEntityTooLarge: (limit: number): StatusError =>
    new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),

  unsupportedMediaType: (message: string): StatusError => new StatusError(415, 'UnsupportedMediaType', message),

  tooManyRequests: (message: string, retryAfterSeconds: number): StatusError =>
    new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),

  internal: (err: unknown): StatusError => {
    const msg = err instanceof Error ? err.message : String(err);
    return new StatusError(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
  },

  serviceUnavailable: (message: string, retryAfterSeconds?: number): StatusError =>
    new StatusError(
      503,
      'ServiceUnavailable',
      message,
      retryAfterSeconds === undefined ? undefined : { retryAfterSeconds },
      retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) },
    ),

  timeout: (message: string, retryAfterSeconds = 0): StatusError =>
    new StatusError(504, 'Timeout', message, { retryAfterSeconds }),

  /** A Status with an arbitrary code, as admission webhooks may ask for. */
  withCode: (code: number, reason: string, message: string, d?: StatusDetails): StatusError => new StatusError(code, reason, message, d),
};

/** Any thrown value as a StatusError: StatusErrors pass through, everything else is a 500. */
export function toStatusError(err: unknown): StatusError {
  return err instanceof StatusError ? err : errors.internal(err);
}

export function successStatus(d?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (d) s.details = d;
  return s;
}
