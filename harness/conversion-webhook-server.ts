// A test CRD conversion webhook: HTTPS with a certificate from a harness CA, every ConversionReview recorded, a
// replaceable per-object `convert` function, and the faults kube-apiserver's conversion client must survive
// (failure results, wrong uid, wrong object count, changed identity metadata, hangs, non-JSON and HTTP errors).
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ConversionRequest, ConversionReview } from '../server/api/apiextensions.js';
import type { KubeObject, Status } from '../server/api/types.js';
import { generateCA, issueServingCert } from '../certs/index.js';
import type { CertificateAuthority } from './webhook-server.js';

/** A conversion the webhook refuses: `result.status: Failure` with this message (and no converted objects). */
export interface ConversionFailure {
  fault: 'failure';
  message: string;
}

/** Converts one object to `desiredAPIVersion`; may return failure() to fail the whole review. */
export type ConvertFunction = (obj: KubeObject, desiredAPIVersion: string) => KubeObject | ConversionFailure | Promise<KubeObject | ConversionFailure>;

/** A fault applied to every review while set (see setFault). */
export type ConversionFault =
  | ConversionFailure
  /** result.status Failure without a message */
  | { fault: 'failureWithoutMessage'; status: string }
  | { fault: 'wrongUid'; uid?: string }
  /** answer with `count` objects (the converted ones repeated or cut) */
  | { fault: 'wrongCount'; count: number }
  /** overwrite metadata fields of every converted object (name, namespace, uid, labels, …) */
  | { fault: 'changeMetadata'; metadata: Record<string, unknown> }
  | { fault: 'wrongApiVersion'; apiVersion?: string }
  | { fault: 'delay'; ms: number }
  | { fault: 'hang' }
  | { fault: 'nonJSON'; body: string; contentType: string }
  | { fault: 'httpError'; code: number; body: string };

export interface ReceivedConversionReview {
  /** the URL path without the query, e.g. "/convert" */
  path: string;
  /** query parameters; kube-apiserver sends `timeout` ("30s") */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  review: ConversionReview;
  request: ConversionRequest;
  receivedAt: Date;
}

export interface ConversionWebhookServerOptions {
  /** Default: only apiVersion changes (what strategy None does). */
  convert?: ConvertFunction;
  ca?: CertificateAuthority;
  port?: number;
  /** Default 127.0.0.1. The cert covers 127.0.0.1, ::1 and localhost. */
  host?: string;
  /** Extra names the cert covers, e.g. "my-conversion.my-namespace.svc" for clientConfig.service. */
  hosts?: string[];
}

export interface ConversionWebhookServer {
  readonly port: number;
  readonly host: string;
  url(path?: string): string;
  /** Base64 of the CA PEM, for `clientConfig.caBundle`. */
  readonly caBundle: string;
  readonly ca: CertificateAuthority;
  readonly reviews: readonly ReceivedConversionReview[];
  waitForReviews(n: number, timeoutMs?: number): Promise<readonly ReceivedConversionReview[]>;
  setConvert(convert: ConvertFunction): void;
  /** Applies `fault` to every review until cleared with setFault(undefined). */
  setFault(fault: ConversionFault | undefined): void;
  /** Forget recorded reviews, clear the fault, restore the constructor's convert. */
  reset(): void;
  stopListening(): Promise<void>;
  startListening(): Promise<void>;
  close(): Promise<void>;
}

/** The default conversion: the object unchanged but for apiVersion. */
export const changeApiVersionOnly: ConvertFunction = (obj, desiredAPIVersion) => ({ ...obj, apiVersion: desiredAPIVersion });

export const conversionFaults = {
  failure: (message: string): ConversionFailure => ({ fault: 'failure', message }),
  failureWithoutMessage: (status = 'Failure'): ConversionFault => ({ fault: 'failureWithoutMessage', status }),
  wrongUid: (uid?: string): ConversionFault => (uid === undefined ? { fault: 'wrongUid' } : { fault: 'wrongUid', uid }),
  wrongCount: (count: number): ConversionFault => ({ fault: 'wrongCount', count }),
  changeMetadata: (metadata: Record<string, unknown>): ConversionFault => ({ fault: 'changeMetadata', metadata }),
  wrongApiVersion: (apiVersion?: string): ConversionFault => (apiVersion === undefined ? { fault: 'wrongApiVersion' } : { fault: 'wrongApiVersion', apiVersion }),
  delay: (ms: number): ConversionFault => ({ fault: 'delay', ms }),
  hang: (): ConversionFault => ({ fault: 'hang' }),
  nonJSON: (body = 'this is not JSON', contentType = 'text/plain'): ConversionFault => ({ fault: 'nonJSON', body, contentType }),
  httpError: (code: number, body = ''): ConversionFault => ({ fault: 'httpError', code, body }),
};

const isFailure = (v: unknown): v is ConversionFailure => typeof v === 'object' && v !== null && (v as { fault?: unknown }).fault === 'failure';

/** Why a body is not a ConversionReview request, or undefined if it is one. */
export function conversionReviewProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body is not a JSON object';
  const v = value as Partial<ConversionReview>;
  if (v.kind !== 'ConversionReview') return `kind is ${JSON.stringify(v.kind)}, not "ConversionReview"`;
  if (v.apiVersion !== 'apiextensions.k8s.io/v1' && v.apiVersion !== 'apiextensions.k8s.io/v1beta1') return `apiVersion ${JSON.stringify(v.apiVersion)} is not apiextensions.k8s.io/v1 or v1beta1`;
  if (typeof v.request !== 'object' || v.request === null) return 'request is missing';
  if (!Array.isArray(v.request.objects)) return 'request.objects is missing';
  return undefined;
}

class TestConversionWebhookServer implements ConversionWebhookServer {
  readonly host: string;
  readonly caBundle: string;
  private readonly server: https.Server;
  private readonly received: ReceivedConversionReview[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Set<() => void>();
  private convertFn: ConvertFunction;
  private fault: ConversionFault | undefined;
  private boundPort = 0;
  private isListening = false;
  private closed = false;

  constructor(
    readonly ca: CertificateAuthority,
    serving: { cert: string; key: string },
    private readonly opts: ConversionWebhookServerOptions,
  ) {
    this.host = opts.host ?? '127.0.0.1';
    this.caBundle = Buffer.from(ca.cert).toString('base64');
    this.convertFn = opts.convert ?? changeApiVersionOnly;
    this.server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => void this.serve(req, res));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server.on('tlsClientError', () => undefined);
  }

  get port(): number {
    return this.boundPort;
  }

  get reviews(): readonly ReceivedConversionReview[] {
    return this.received;
  }

  url(p = '/'): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${host}:${this.boundPort}${p.startsWith('/') ? p : `/${p}`}`;
  }

  setConvert(convert: ConvertFunction): void {
    this.convertFn = convert;
  }

  setFault(fault: ConversionFault | undefined): void {
    this.fault = fault;
  }

  reset(): void {
    this.received.length = 0;
    this.fault = undefined;
    this.convertFn = this.opts.convert ?? changeApiVersionOnly;
  }

  waitForReviews(n: number, timeoutMs = 10_000): Promise<readonly ReceivedConversionReview[]> {
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
        reject(new Error(`expected ${n} ConversionReview(s) within ${timeoutMs} ms, got ${this.received.length}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  async startListening(): Promise<void> {
    if (this.closed) throw new Error('the conversion webhook server is closed');
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
    // a stopped webhook drops keep-alive and hung connections like a dead process
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
    let parsed: unknown;
    let problem: string | undefined;
    try {
      parsed = JSON.parse(body);
      problem = conversionReviewProblem(parsed);
    } catch (err) {
      problem = `body is not JSON: ${(err as Error).message}`;
    }
    if (problem !== undefined) return this.send(res, 400, 'text/plain', `${problem}\n`);
    const review = parsed as ConversionReview;
    const request = review.request!;
    this.received.push({ path: url.pathname, query: Object.fromEntries(url.searchParams.entries()), headers: req.headers, review, request, receivedAt: new Date() });
    for (const w of [...this.waiters]) w();

    const fault = this.fault;
    if (fault?.fault === 'delay') await new Promise((r) => setTimeout(r, fault.ms));
    switch (fault?.fault) {
      case 'hang':
        return; // never answered; the client's timeout or stopListening() ends the connection
      case 'nonJSON':
        return this.send(res, 200, fault.contentType, fault.body);
      case 'httpError':
        return this.send(res, fault.code, 'text/plain', fault.body);
    }
    let uid = request.uid;
    let apiVersion: string = review.apiVersion;
    let result: Status;
    let converted: KubeObject[] | undefined;
    if (fault?.fault === 'failure') result = failureStatus(fault.message);
    else if (fault?.fault === 'failureWithoutMessage') result = { ...failureStatus(''), status: fault.status as Status['status'] };
    else {
      try {
        const out: KubeObject[] = [];
        let failure: ConversionFailure | undefined;
        for (const obj of request.objects) {
          const r = await this.convertFn(structuredClone(obj), request.desiredAPIVersion);
          if (isFailure(r)) {
            failure = r;
            break;
          }
          out.push(r);
        }
        if (failure) result = failureStatus(failure.message);
        else {
          result = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
          converted = out;
        }
      } catch (err) {
        result = failureStatus(`conversion failed: ${(err as Error).message}`);
      }
    }
    if (converted) {
      if (fault?.fault === 'wrongCount') converted = Array.from({ length: fault.count }, (_, i) => converted![i % Math.max(converted!.length, 1)] ?? {});
      if (fault?.fault === 'changeMetadata') converted = converted.map((o) => ({ ...o, metadata: { ...o.metadata, ...fault.metadata } }));
    }
    if (fault?.fault === 'wrongUid') uid = fault.uid ?? `wrong-${uid}`;
    if (fault?.fault === 'wrongApiVersion') apiVersion = fault.apiVersion ?? (apiVersion === 'apiextensions.k8s.io/v1' ? 'apiextensions.k8s.io/v1beta1' : 'apiextensions.k8s.io/v1');
    const response: Record<string, unknown> = { uid, result };
    if (converted) response['convertedObjects'] = converted;
    this.send(res, 200, 'application/json', JSON.stringify({ apiVersion, kind: 'ConversionReview', response }));
  }

  private send(res: ServerResponse, code: number, contentType: string, body: string): void {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}

function failureStatus(message: string): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 0 };
  if (message) s.message = message;
  return s;
}

/** Starts an HTTPS conversion webhook on 127.0.0.1 with a cert from `opts.ca` (or a new CA). */
export async function startConversionWebhookServer(opts: ConversionWebhookServerOptions = {}): Promise<ConversionWebhookServer> {
  const ca = opts.ca ?? (await generateCA());
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1', '::1', 'localhost', ...(opts.hosts ?? [])] });
  const server = new TestConversionWebhookServer(ca, serving, opts);
  await server.startListening();
  return server;
}
