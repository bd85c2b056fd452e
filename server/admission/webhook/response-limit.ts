// How much of a webhook's answer the apiserver reads. kube's webhook client (client-go rest, transformResponse) reads
// a 2xx body whole with io.ReadAll; only unstructured error bodies are cut (maxUnstructuredResponseTextBytes). A mock
// apiserver in a test run should not be taken down by a buggy webhook, so admission and conversion answers are
// bounded here, before and after gzip, and a body over the bound fails the call as a failed body read does in
// client-go ("unexpected error when reading response body. Please retry. Original error: …"), so failurePolicy applies.

/** Default bound on a webhook response body: far above a real AdmissionReview or ConversionReview (objects are at most 1.5 MiB in etcd, 3 MiB in a request). */
export const defaultWebhookResponseMaxBytes = 16 * 1024 * 1024;

/** KAH_WEBHOOK_RESPONSE_MAX_BYTES overrides the bound (a positive integer); anything else keeps the default. */
export function webhookResponseMaxBytesFrom(env: Record<string, string | undefined>): number {
  const raw = env['KAH_WEBHOOK_RESPONSE_MAX_BYTES'];
  if (raw === undefined || !/^[1-9][0-9]*$/.test(raw.trim())) return defaultWebhookResponseMaxBytes;
  return Number(raw.trim());
}

/** The error of the failed read, in client-go's wording for a body it could not read. */
export function responseTooLargeError(limitBytes: number): string {
  return `unexpected error when reading response body. Please retry. Original error: http: response body too large (limit ${limitBytes} bytes)`;
}

/** A response body collected up to a bound: `add` says false once the body is over it, and keeps nothing more. */
export class BoundedBody {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private over = false;
  constructor(readonly limitBytes: number) {}

  /** A declared Content-Length over the bound fails the read before any byte of it. */
  static declaredTooLarge(contentLength: string | undefined, limitBytes: number): boolean {
    return contentLength !== undefined && /^[0-9]+$/.test(contentLength) && Number(contentLength) > limitBytes;
  }

  add(chunk: Buffer): boolean {
    if (this.over) return false;
    this.size += chunk.length;
    if (this.size > this.limitBytes) {
      this.over = true;
      this.chunks.length = 0;
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  get exceeded(): boolean {
    return this.over;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}
