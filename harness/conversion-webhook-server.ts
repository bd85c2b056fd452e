// A test CRD conversion webhook: HTTPS with a certificate from a harness CA, every ConversionReview recorded, a
// replaceable per-object `convert` function, and the faults kube-apiserver's conversion client must survive
// (failure results, wrong uid, wrong object count, changed identity metadata, hangs, non-JSON and HTTP errors).
import type { IncomingHttpHeaders } from 'node:http';
import type { ConversionRequest, ConversionReview } from '../server/api/apiextensions.js';
import type { KubeObject, Status } from '../server/api/types.js';
import {
  decodeReviewBody,
  HttpsTestServer,
  issueTestServerCert,
  type CertificateAuthority,
  type HangFault,
  type HttpErrorFault,
  type NonJSONFault,
  type PaddedBodyStats,
  type TestServerRequest,
  type TestServerResponse,
} from './https-test-server.js';

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
  | HangFault
  | NonJSONFault
  | HttpErrorFault
  /** the answer padded by `padBytes` bytes, streamed (see PaddedBodyFault) */
  | { fault: 'oversized'; padBytes: number; gzip?: boolean; stats?: PaddedBodyStats };

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
  oversized: (padBytes: number, opts: { gzip?: boolean; stats?: PaddedBodyStats } = {}): ConversionFault => ({ fault: 'oversized', padBytes, ...opts }),
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

class TestConversionWebhookServer extends HttpsTestServer<ReceivedConversionReview> implements ConversionWebhookServer {
  private convertFn: ConvertFunction;
  private fault: ConversionFault | undefined;

  constructor(
    ca: CertificateAuthority,
    serving: { cert: string; key: string },
    private readonly opts: ConversionWebhookServerOptions,
  ) {
    super(ca, serving, opts, 'conversion webhook server', 'ConversionReview');
    this.convertFn = opts.convert ?? changeApiVersionOnly;
  }

  setConvert(convert: ConvertFunction): void {
    this.convertFn = convert;
  }

  setFault(fault: ConversionFault | undefined): void {
    this.fault = fault;
  }

  reset(): void {
    this.received.clear();
    this.fault = undefined;
    this.convertFn = this.opts.convert ?? changeApiVersionOnly;
  }

  protected async handle({ path, query, headers, body }: TestServerRequest, response: TestServerResponse): Promise<void> {
    const decoded = decodeReviewBody<ConversionReview>(body, conversionReviewProblem);
    if ('problem' in decoded) return response.send(400, 'text/plain', `${decoded.problem}\n`);
    const review = decoded.review;
    const request = review.request!;
    this.received.record({ path, query, headers, review, request, receivedAt: new Date() });

    const fault = this.fault;
    if (fault?.fault === 'delay') await new Promise((r) => setTimeout(r, fault.ms));
    switch (fault?.fault) {
      case 'hang':
      case 'nonJSON':
      case 'httpError':
        return response.fault(fault);
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
    const answer: Record<string, unknown> = { uid, result };
    if (converted) answer['convertedObjects'] = converted;
    const reply = JSON.stringify({ apiVersion, kind: 'ConversionReview', response: answer });
    if (fault?.fault === 'oversized') {
      return response.fault({ fault: 'padded', body: reply, padBytes: fault.padBytes, ...(fault.gzip ? { gzip: true } : {}), ...(fault.stats ? { stats: fault.stats } : {}) });
    }
    response.send(200, 'application/json', reply);
  }
}

function failureStatus(message: string): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 0 };
  if (message) s.message = message;
  return s;
}

/** Starts an HTTPS conversion webhook on 127.0.0.1 with a cert from `opts.ca` (or a new CA). */
export async function startConversionWebhookServer(opts: ConversionWebhookServerOptions = {}): Promise<ConversionWebhookServer> {
  const { ca, serving } = await issueTestServerCert(opts);
  const server = new TestConversionWebhookServer(ca, serving, opts);
  await server.startListening();
  return server;
}
