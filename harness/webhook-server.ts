// A test admission webhook: HTTPS with a certificate from a harness CA, every AdmissionReview recorded, a replaceable
// handler, response builders, and the faults kube-apiserver's webhook client must survive (timeouts, resets, garbage).
import type { IncomingHttpHeaders } from 'node:http';
import type { Operation } from 'fast-json-patch';
import {
  isAdmissionReviewApiVersion,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionResponseStatus,
  type AdmissionReview,
  type AdmissionReviewApiVersion,
  type AdmissionReviewRequest,
} from '../server/api/admission.js';
import {
  decodeReviewBody,
  HttpsTestServer,
  issueTestServerCert,
  type CertificateAuthority,
  type CloseConnectionFault,
  type HangFault,
  type HttpErrorFault,
  type NonJSONFault,
  type PaddedBodyStats,
  type TestServerRequest,
  type TestServerResponse,
} from './https-test-server.js';

export type { CertificateAuthority, PaddedBodyStats } from './https-test-server.js';

/** A response without uid: the server fills in the request's uid (unless a fault says otherwise). */
export type WebhookResponse = Omit<AdmissionResponse, 'uid'> & { uid?: string };

export type WebhookFault =
  | { fault: 'delay'; ms: number; then: WebhookReply }
  | HangFault
  | CloseConnectionFault
  | NonJSONFault
  | { fault: 'wrongUid'; uid: string | undefined; then: WebhookReply }
  | { fault: 'wrongApiVersion'; apiVersion: string | undefined; then: WebhookReply }
  | HttpErrorFault
  | { fault: 'oversized'; padBytes: number; gzip?: boolean; declareLength?: boolean; stats?: PaddedBodyStats; then: WebhookResponse };

export type WebhookReply = WebhookResponse | WebhookFault;

export interface ReceivedReview {
  /** the URL path without the query, e.g. "/validate" */
  path: string;
  /** the query parameters; kube-apiserver sends `timeout` (e.g. "10s") */
  query: Record<string, string>;
  method: string;
  headers: IncomingHttpHeaders;
  /** The AdmissionReview as received. */
  review: AdmissionReviewRequest;
  /** `review.request`, for brevity in handlers. */
  request: AdmissionRequest;
  receivedAt: Date;
}

/** A request the server could not read as an AdmissionReview; answered 400. */
export interface BadWebhookRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  error: string;
}

/** `({ request }) => request.operation === 'DELETE' ? deny('no') : allow()`. */
export type WebhookHandler = (received: ReceivedReview) => WebhookReply | Promise<WebhookReply>;

export interface WebhookServerOptions {
  /** The CA to issue the serving cert from (default: a new one). */
  ca?: CertificateAuthority;
  /** Default: a free port picked by the OS. */
  port?: number;
  /** Default 127.0.0.1. The cert covers 127.0.0.1, ::1 and localhost. */
  host?: string;
  /** Extra names the serving cert covers, e.g. "my-webhook.my-namespace.svc" for a clientConfig.service reference. */
  hosts?: string[];
  /** Default: allow everything. */
  handler?: WebhookHandler;
}

export interface WebhookServer {
  readonly port: number;
  readonly host: string;
  /** `https://127.0.0.1:<port><path>`, for `clientConfig.url`. */
  url(path?: string): string;
  /** Base64 of the CA PEM, for `clientConfig.caBundle`. */
  readonly caBundle: string;
  readonly caPem: string;
  readonly ca: CertificateAuthority;
  /** Every AdmissionReview received, in order. */
  readonly reviews: readonly ReceivedReview[];
  readonly badRequests: readonly BadWebhookRequest[];
  readonly listening: boolean;
  waitForReviews(n: number, timeoutMs?: number): Promise<readonly ReceivedReview[]>;
  setHandler(handler: WebhookHandler): void;
  /** Forget the recorded reviews and go back to the default (or constructor) handler. */
  reset(): void;
  /** Close the port (and every open connection, hung ones included); `startListening()` reopens the same port. */
  stopListening(): Promise<void>;
  startListening(): Promise<void>;
  close(): Promise<void>;
}

// Response builders: plain data, so handlers stay one-liners.

export function allow(): WebhookResponse {
  return { allowed: true };
}

/** Denied with a Status carrying `message` and `code` (403 by default, as controller-runtime; kube-apiserver turns a missing or < 400 code into 400). */
export function deny(message: string, code = 403): WebhookResponse {
  return { allowed: false, status: { code, message } };
}

/** Allowed with a JSONPatch, base64-encoded as AdmissionResponse.patch requires. */
export function patch(ops: Operation[]): WebhookResponse {
  return { allowed: true, patch: Buffer.from(JSON.stringify(ops)).toString('base64'), patchType: 'JSONPatch' };
}

export function withWarnings(resp: WebhookResponse, warnings: string[]): WebhookResponse {
  return { ...resp, warnings: [...(resp.warnings ?? []), ...warnings] };
}

export function withAuditAnnotations(resp: WebhookResponse, annotations: Record<string, string>): WebhookResponse {
  return { ...resp, auditAnnotations: { ...resp.auditAnnotations, ...annotations } };
}

/** A response with any Status (reason, details, …); denied unless `allowed` says otherwise. */
export function status(s: AdmissionResponseStatus, allowed = false): WebhookResponse {
  return { allowed, status: s };
}

// Fault injection.

/** Answer `then` after `ms` (the client may have given up by then). */
export function delay(ms: number, then: WebhookReply = allow()): WebhookFault {
  return { fault: 'delay', ms, then };
}

/** Never answer; the connection stays open until the client gives up (or the server stops listening). */
export function hang(): WebhookFault {
  return { fault: 'hang' };
}

/** Destroy the TCP connection without an HTTP response. */
export function closeConnection(): WebhookFault {
  return { fault: 'closeConnection' };
}

/** 200 with a body that is not JSON. */
export function nonJSON(body = 'this is not JSON', contentType = 'text/plain'): WebhookFault {
  return { fault: 'nonJSON', body, contentType };
}

/** Answer `then`, but with a uid other than the request's. */
export function wrongUid(uid?: string, then: WebhookReply = allow()): WebhookFault {
  return { fault: 'wrongUid', uid, then };
}

/** Answer `then` with another AdmissionReview apiVersion (default: v1 ↔ v1beta1). */
export function wrongApiVersion(apiVersion?: string, then: WebhookReply = allow()): WebhookFault {
  return { fault: 'wrongApiVersion', apiVersion, then };
}

/** A non-200 HTTP answer. */
export function httpError(code: number, body = ''): WebhookFault {
  return { fault: 'httpError', code, body };
}

/** The builders as one object, for `import { respond } …; respond.deny('no')`. */
/**
 * Answer `then`, padded by `padBytes` bytes and streamed with backpressure (chunked unless `declareLength`, gzipped
 * with `gzip`): `stats` tells how much went out before the client stopped reading.
 */
export function oversized(padBytes: number, opts: { gzip?: boolean; declareLength?: boolean; stats?: PaddedBodyStats } = {}, then: WebhookResponse = allow()): WebhookFault {
  return { fault: 'oversized', padBytes, ...opts, then };
}

export const respond = { allow, deny, patch, withWarnings, withAuditAnnotations, status, delay, hang, closeConnection, nonJSON, wrongUid, wrongApiVersion, httpError, oversized };

function isFault(r: WebhookReply): r is WebhookFault {
  return typeof (r as { fault?: unknown }).fault === 'string';
}

function otherApiVersion(v: AdmissionReviewApiVersion): AdmissionReviewApiVersion {
  return v === 'admission.k8s.io/v1' ? 'admission.k8s.io/v1beta1' : 'admission.k8s.io/v1';
}

/** Why a body is not an AdmissionReview request, or undefined if it is one. Pure. */
export function admissionReviewProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body is not a JSON object';
  const v = value as Partial<AdmissionReview>;
  if (v.kind !== 'AdmissionReview') return `kind is ${JSON.stringify(v.kind)}, not "AdmissionReview"`;
  if (!isAdmissionReviewApiVersion(v.apiVersion)) return `apiVersion ${JSON.stringify(v.apiVersion)} is not admission.k8s.io/v1 or v1beta1`;
  if (typeof v.request !== 'object' || v.request === null) return 'request is missing';
  if (typeof v.request.uid !== 'string' || v.request.uid === '') return 'request.uid is missing';
  return undefined;
}

class TestWebhookServer extends HttpsTestServer<ReceivedReview> implements WebhookServer {
  private readonly bad: BadWebhookRequest[] = [];
  private handler: WebhookHandler;

  constructor(
    ca: CertificateAuthority,
    serving: { cert: string; key: string },
    private readonly opts: WebhookServerOptions,
  ) {
    super(ca, serving, opts, 'webhook server', 'AdmissionReview');
    this.handler = opts.handler ?? (() => allow());
  }

  get badRequests(): readonly BadWebhookRequest[] {
    return this.bad;
  }

  setHandler(handler: WebhookHandler): void {
    this.handler = handler;
  }

  reset(): void {
    this.received.clear();
    this.bad.length = 0;
    this.handler = this.opts.handler ?? (() => allow());
  }

  protected async handle(request: TestServerRequest, response: TestServerResponse): Promise<void> {
    const { path, query, method, headers, body } = request;
    const decoded = decodeReviewBody<AdmissionReviewRequest>(body, admissionReviewProblem);
    if ('problem' in decoded) {
      this.bad.push({ path, method, headers, body, error: decoded.problem });
      return response.send(400, 'text/plain', `${decoded.problem}\n`);
    }
    const review = decoded.review;
    const received: ReceivedReview = { path, query, method, headers, review, request: review.request, receivedAt: new Date() };
    this.received.record(received);
    let reply: WebhookReply;
    try {
      reply = await this.handler(received);
    } catch (err) {
      return response.send(500, 'text/plain', `webhook handler failed: ${(err as Error).stack ?? String(err)}\n`);
    }
    await this.answer(response, review, reply, review.apiVersion, review.request.uid);
  }

  private async answer(response: TestServerResponse, review: AdmissionReviewRequest, reply: WebhookReply, apiVersion: string, uid: string): Promise<void> {
    if (!isFault(reply)) {
      const answer: AdmissionResponse = { ...reply, uid: reply.uid ?? uid };
      return response.send(200, 'application/json', JSON.stringify({ apiVersion, kind: 'AdmissionReview', response: answer }));
    }
    switch (reply.fault) {
      case 'delay':
        await new Promise((r) => setTimeout(r, reply.ms));
        return this.answer(response, review, reply.then, apiVersion, uid);
      case 'wrongUid':
        return this.answer(response, review, reply.then, apiVersion, reply.uid ?? `wrong-${uid}`);
      case 'wrongApiVersion':
        return this.answer(response, review, reply.then, reply.apiVersion ?? otherApiVersion(review.apiVersion), uid);
      case 'oversized': {
        const { padBytes, gzip, declareLength, stats } = reply;
        const body = JSON.stringify({ apiVersion, kind: 'AdmissionReview', response: { ...reply.then, uid: reply.then.uid ?? uid } });
        return response.fault({ fault: 'padded', body, padBytes, ...(gzip ? { gzip } : {}), ...(declareLength ? { declareLength } : {}), ...(stats ? { stats } : {}) });
      }
      default:
        return response.fault(reply);
    }
  }
}

/** Starts an HTTPS admission webhook on 127.0.0.1 with a cert from `opts.ca` (or a new CA). */
export async function startWebhookServer(opts: WebhookServerOptions = {}): Promise<WebhookServer> {
  const { ca, serving } = await issueTestServerCert(opts);
  const server = new TestWebhookServer(ca, serving, opts);
  await server.startListening();
  return server;
}
