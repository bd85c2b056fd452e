// A test admission webhook: HTTPS with a certificate from a harness CA, every AdmissionReview recorded, a replaceable
// handler, response builders, and the faults kube-apiserver's webhook client must survive (timeouts, resets, garbage).
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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
import { generateCA, issueServingCert, type CertKeyPair } from '../certs/index.js';

/** The CA a webhook server's cert is issued from (share one to trust several servers with one caBundle). */
export type CertificateAuthority = CertKeyPair;

/** A response without uid: the server fills in the request's uid (unless a fault says otherwise). */
export type WebhookResponse = Omit<AdmissionResponse, 'uid'> & { uid?: string };

export type WebhookFault =
  | { fault: 'delay'; ms: number; then: WebhookReply }
  | { fault: 'hang' }
  | { fault: 'closeConnection' }
  | { fault: 'nonJSON'; body: string; contentType: string }
  | { fault: 'wrongUid'; uid: string | undefined; then: WebhookReply }
  | { fault: 'wrongApiVersion'; apiVersion: string | undefined; then: WebhookReply }
  | { fault: 'httpError'; code: number; body: string };

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
export const respond = { allow, deny, patch, withWarnings, withAuditAnnotations, status, delay, hang, closeConnection, nonJSON, wrongUid, wrongApiVersion, httpError };

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

class TestWebhookServer implements WebhookServer {
  readonly host: string;
  readonly caPem: string;
  readonly caBundle: string;
  private readonly server: https.Server;
  private readonly received: ReceivedReview[] = [];
  private readonly bad: BadWebhookRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Set<() => void>();
  private handler: WebhookHandler;
  private boundPort = 0;
  private isListening = false;
  private closed = false;

  constructor(
    readonly ca: CertificateAuthority,
    serving: { cert: string; key: string },
    private readonly opts: WebhookServerOptions,
  ) {
    this.host = opts.host ?? '127.0.0.1';
    this.caPem = ca.cert;
    this.caBundle = Buffer.from(ca.cert).toString('base64');
    this.handler = opts.handler ?? (() => allow());
    this.server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => void this.serve(req, res));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    // A client giving up mid-handshake is not the server's problem.
    this.server.on('tlsClientError', () => undefined);
  }

  get port(): number {
    return this.boundPort;
  }

  get reviews(): readonly ReceivedReview[] {
    return this.received;
  }

  get badRequests(): readonly BadWebhookRequest[] {
    return this.bad;
  }

  get listening(): boolean {
    return this.isListening;
  }

  url(p = '/'): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${host}:${this.boundPort}${p.startsWith('/') ? p : `/${p}`}`;
  }

  setHandler(handler: WebhookHandler): void {
    this.handler = handler;
  }

  reset(): void {
    this.received.length = 0;
    this.bad.length = 0;
    this.handler = this.opts.handler ?? (() => allow());
  }

  waitForReviews(n: number, timeoutMs = 10_000): Promise<readonly ReceivedReview[]> {
    if (this.received.length >= n) return Promise.resolve(this.received);
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.received.length < n) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.received);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`expected ${n} AdmissionReview(s) within ${timeoutMs} ms, got ${this.received.length}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  async startListening(): Promise<void> {
    if (this.closed) throw new Error('the webhook server is closed');
    if (this.isListening) return;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.server.once('error', onError);
      this.server.listen(this.boundPort || this.opts.port || 0, this.host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    this.boundPort = (this.server.address() as AddressInfo).port;
    this.isListening = true;
  }

  async stopListening(): Promise<void> {
    if (!this.isListening) return;
    this.isListening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // close() alone waits for keep-alive and hung connections; a stopped webhook drops them like a dead process.
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  async close(): Promise<void> {
    await this.stopListening();
    this.closed = true;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'https://webhook.local');
    const path = url.pathname;
    const query = Object.fromEntries(url.searchParams.entries());
    let parsed: unknown;
    let problem: string | undefined;
    try {
      parsed = JSON.parse(body);
      problem = admissionReviewProblem(parsed);
    } catch (err) {
      problem = `body is not JSON: ${(err as Error).message}`;
    }
    if (problem !== undefined) {
      this.bad.push({ path, method: req.method ?? '', headers: req.headers, body, error: problem });
      return this.send(res, 400, 'text/plain', `${problem}\n`);
    }
    const review = parsed as AdmissionReviewRequest;
    const received: ReceivedReview = { path, query, method: req.method ?? '', headers: req.headers, review, request: review.request, receivedAt: new Date() };
    this.received.push(received);
    for (const w of [...this.waiters]) w();
    let reply: WebhookReply;
    try {
      reply = await this.handler(received);
    } catch (err) {
      return this.send(res, 500, 'text/plain', `webhook handler failed: ${(err as Error).stack ?? String(err)}\n`);
    }
    await this.answer(req, res, review, reply, review.apiVersion, review.request.uid);
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    review: AdmissionReviewRequest,
    reply: WebhookReply,
    apiVersion: string,
    uid: string,
  ): Promise<void> {
    if (!isFault(reply)) {
      const response: AdmissionResponse = { ...reply, uid: reply.uid ?? uid };
      return this.send(res, 200, 'application/json', JSON.stringify({ apiVersion, kind: 'AdmissionReview', response }));
    }
    switch (reply.fault) {
      case 'delay':
        await new Promise((r) => setTimeout(r, reply.ms));
        return this.answer(req, res, review, reply.then, apiVersion, uid);
      case 'hang':
        // The response is never written; stopListening()/close() or the client's timeout end the connection.
        return;
      case 'closeConnection':
        req.socket.destroy();
        return;
      case 'nonJSON':
        return this.send(res, 200, reply.contentType, reply.body);
      case 'wrongUid':
        return this.answer(req, res, review, reply.then, apiVersion, reply.uid ?? `wrong-${uid}`);
      case 'wrongApiVersion':
        return this.answer(req, res, review, reply.then, reply.apiVersion ?? otherApiVersion(review.apiVersion), uid);
      case 'httpError':
        return this.send(res, reply.code, 'text/plain', reply.body);
    }
  }

  private send(res: ServerResponse, code: number, contentType: string, body: string): void {
    // The client may have given up (timeout) while a delayed answer was pending.
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}

/** Starts an HTTPS admission webhook on 127.0.0.1 with a cert from `opts.ca` (or a new CA). */
export async function startWebhookServer(opts: WebhookServerOptions = {}): Promise<WebhookServer> {
  const ca = opts.ca ?? (await generateCA());
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1', '::1', 'localhost', ...(opts.hosts ?? [])] });
  const server = new TestWebhookServer(ca, serving, opts);
  await server.startListening();
  return server;
}
