// The HTTPS scaffolding shared by the harness's test webhooks (admission and CRD conversion): a serving cert from a
// harness CA, listening that can be stopped and resumed on the same port, whole request bodies, the HTTP-level faults
// kube-apiserver's webhook clients must survive, and a log of received reviews a test can wait on.
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { generateCA, issueServingCert, type CertKeyPair } from '../certs/index.js';

/** The CA a test server's cert is issued from (share one to trust several servers with one caBundle). */
export type CertificateAuthority = CertKeyPair;

/** Never answer; the connection stays open until the client gives up (or the server stops listening). */
export interface HangFault {
  fault: 'hang';
}
/** Destroy the TCP connection without an HTTP response. */
export interface CloseConnectionFault {
  fault: 'closeConnection';
}
/** 200 with a body that is not JSON. */
export interface NonJSONFault {
  fault: 'nonJSON';
  body: string;
  contentType: string;
}
/** A non-200 HTTP answer. */
export interface HttpErrorFault {
  fault: 'httpError';
  code: number;
  body: string;
}
/** How much of a padded answer went out: a test checks the client stopped reading. */
export interface PaddedBodyStats {
  /** padding bytes handed to the connection (before gzip) */
  written: number;
  /** the whole body was written */
  complete: boolean;
}
/**
 * 200 with `body` (a JSON object) padded by a `"padding"` field of `padBytes` bytes, streamed with backpressure: a
 * valid answer, only too big. Chunked unless `declareLength`; `gzip` compresses it (a small body that inflates big).
 */
export interface PaddedBodyFault {
  fault: 'padded';
  body: string;
  padBytes: number;
  gzip?: boolean;
  declareLength?: boolean;
  stats?: PaddedBodyStats;
}
/** The faults that happen below the review: the transport and the HTTP status. */
export type HttpFault = HangFault | CloseConnectionFault | NonJSONFault | HttpErrorFault | PaddedBodyFault;

export interface HttpsTestServerOptions {
  /** The CA to issue the serving cert from (default: a new one). */
  ca?: CertificateAuthority;
  /** Default: a free port picked by the OS. */
  port?: number;
  /** Default 127.0.0.1. The cert covers 127.0.0.1, ::1 and localhost. */
  host?: string;
  /** Extra names the serving cert covers, e.g. "my-webhook.my-namespace.svc" for a clientConfig.service reference. */
  hosts?: string[];
}

/** One request, its body read whole. */
export interface TestServerRequest {
  /** the URL path without the query */
  path: string;
  /** the query parameters; kube-apiserver sends `timeout` (e.g. "10s") */
  query: Record<string, string>;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How a request handler answers. */
export interface TestServerResponse {
  send(code: number, contentType: string, body: string): void;
  fault(fault: HttpFault): void;
}

/** Issues the serving cert for `opts.hosts` plus the loopback names, from `opts.ca` or a new CA. */
export async function issueTestServerCert(opts: HttpsTestServerOptions): Promise<{ ca: CertificateAuthority; serving: CertKeyPair }> {
  const ca = opts.ca ?? (await generateCA());
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1', '::1', 'localhost', ...(opts.hosts ?? [])] });
  return { ca, serving };
}

/** A review body as JSON, or why it is not one: `problemOf` says what is wrong with a parsed value (undefined if nothing). */
export function decodeReviewBody<T>(body: string, problemOf: (value: unknown) => string | undefined): { review: T } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    return { problem: `body is not JSON: ${(err as Error).message}` };
  }
  const problem = problemOf(parsed);
  return problem === undefined ? { review: parsed as T } : { problem };
}

/** Received reviews in order, and waiting for the n-th one. */
export class ReceivedLog<T> {
  /** The same array for the log's lifetime, so a test holding it sees later reviews. */
  readonly items: T[] = [];
  private readonly waiters = new Set<() => void>();

  /** `kindName` names the reviews in the timeout message, e.g. "AdmissionReview". */
  constructor(private readonly kindName: string) {}

  record(item: T): void {
    this.items.push(item);
    for (const w of [...this.waiters]) w();
  }

  clear(): void {
    this.items.length = 0;
  }

  waitFor(n: number, timeoutMs: number): Promise<readonly T[]> {
    if (this.items.length >= n) return Promise.resolve(this.items);
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.items.length < n) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.items);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`expected ${n} ${this.kindName}(s) within ${timeoutMs} ms, got ${this.items.length}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }
}

/**
 * The server half both test webhooks share; a subclass reads the review out of each request (`handle`) and records
 * it in `received`.
 */
export abstract class HttpsTestServer<Review> {
  readonly host: string;
  readonly caPem: string;
  readonly caBundle: string;
  protected readonly received: ReceivedLog<Review>;
  private readonly server: https.Server;
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;
  private isListening = false;
  private closed = false;

  /** `description` names the server in errors ("webhook server"), `reviewKind` the reviews ("AdmissionReview"). */
  constructor(
    readonly ca: CertificateAuthority,
    serving: { cert: string; key: string },
    private readonly listenOpts: HttpsTestServerOptions,
    private readonly description: string,
    reviewKind: string,
  ) {
    this.host = listenOpts.host ?? '127.0.0.1';
    this.caPem = ca.cert;
    this.caBundle = Buffer.from(ca.cert).toString('base64');
    this.received = new ReceivedLog<Review>(reviewKind);
    this.server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => void this.serve(req, res));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    // A client giving up mid-handshake is not the server's problem.
    this.server.on('tlsClientError', () => undefined);
  }

  /** Answers one request. */
  protected abstract handle(request: TestServerRequest, response: TestServerResponse): Promise<void>;

  get port(): number {
    return this.boundPort;
  }

  get listening(): boolean {
    return this.isListening;
  }

  /** Every review received, in order. */
  get reviews(): readonly Review[] {
    return this.received.items;
  }

  waitForReviews(n: number, timeoutMs = 10_000): Promise<readonly Review[]> {
    return this.received.waitFor(n, timeoutMs);
  }

  url(p = '/'): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${host}:${this.boundPort}${p.startsWith('/') ? p : `/${p}`}`;
  }

  async startListening(): Promise<void> {
    if (this.closed) throw new Error(`the ${this.description} is closed`);
    if (this.isListening) return;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.server.once('error', onError);
      this.server.listen(this.boundPort || this.listenOpts.port || 0, this.host, () => {
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
    const url = new URL(req.url ?? '/', 'https://webhook.local');
    const request: TestServerRequest = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams.entries()),
      method: req.method ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    const response: TestServerResponse = {
      send: (code, contentType, body) => send(res, code, contentType, body),
      fault: (fault) => answerFault(req, res, fault),
    };
    try {
      await this.handle(request, response);
    } catch (err) {
      // A bug in the server's own handler: answer instead of leaving an unhandled rejection and a hung client.
      send(res, 500, 'text/plain', `${this.description} failed: ${(err as Error).stack ?? String(err)}\n`);
    }
  }
}

function answerFault(req: IncomingMessage, res: ServerResponse, fault: HttpFault): void {
  switch (fault.fault) {
    case 'hang':
      // The response is never written; stopListening()/close() or the client's timeout end the connection.
      return;
    case 'closeConnection':
      req.socket.destroy();
      return;
    case 'nonJSON':
      return send(res, 200, fault.contentType, fault.body);
    case 'httpError':
      return send(res, fault.code, 'text/plain', fault.body);
    case 'padded':
      void sendPadded(res, fault);
      return;
  }
}

async function sendPadded(res: ServerResponse, f: PaddedBodyFault): Promise<void> {
  if (res.destroyed || res.writableEnded) return;
  if (!f.body.startsWith('{')) throw new Error('a padded body must be a JSON object');
  const head = Buffer.from('{"padding":"');
  const tail = Buffer.from(f.body.length > 2 ? `",${f.body.slice(1)}` : '"}');
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json' };
  if (f.gzip) headers['Content-Encoding'] = 'gzip';
  else if (f.declareLength) headers['Content-Length'] = head.length + f.padBytes + tail.length;
  res.writeHead(200, headers);
  let out: Writable = res;
  if (f.gzip) {
    const gz = createGzip();
    gz.pipe(res);
    out = gz;
  }
  let stopped = false;
  res.once('close', () => (stopped = true));
  const stats = f.stats ?? { written: 0, complete: false };
  const chunk = Buffer.alloc(64 * 1024, 'A');
  out.write(head);
  for (let left = f.padBytes; left > 0 && !stopped; ) {
    const n = Math.min(left, chunk.length);
    const ok = out.write(n === chunk.length ? chunk : chunk.subarray(0, n));
    stats.written += n;
    left -= n;
    if (!ok) await new Promise<void>((resolve) => {
      const done = (): void => {
        out.off('drain', done);
        res.off('close', done);
        resolve();
      };
      out.on('drain', done);
      res.on('close', done);
    });
  }
  if (stopped) return;
  out.end(tail);
  stats.complete = true;
}

function send(res: ServerResponse, code: number, contentType: string, body: string): void {
  // The client may have given up (timeout) while a delayed answer was pending.
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
