// Closed-loop load: `concurrency` workers each send their next request when the last one answered, until `total`
// requests are done or the time limit passes. Every request's latency is kept, so percentiles are exact.
import https from 'node:https';
import { msSince } from './stats.js';

export interface LoadResult {
  completed: number;
  errors: number;
  firstError?: string;
  wallMs: number;
  /** completed requests per second of wall time */
  rate: number;
  /** per request, in ms */
  latencies: number[];
}

export async function closedLoop(total: number, concurrency: number, timeLimitMs: number, op: (i: number) => Promise<void>): Promise<LoadResult> {
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const latencies: number[] = [];
  const deadline = Date.now() + timeLimitMs;
  const start = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < total && Date.now() < deadline) {
      const i = next++;
      const t = process.hrtime.bigint();
      try {
        await op(i);
        latencies.push(msSince(t));
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = msSince(start);
  return { completed: latencies.length, errors, ...(firstError !== undefined ? { firstError } : {}), wallMs, rate: (latencies.length / wallMs) * 1000, latencies };
}

export interface TlsClientCredentials {
  ca: string;
  cert?: string;
  key?: string;
}

export interface HttpAnswer {
  status: number;
  body: string;
}

/** HTTPS to one origin over keep-alive connections (one per concurrent request), as a client-go transport keeps them. */
export class KeepAliveClient {
  private readonly agent: https.Agent;

  constructor(
    private readonly origin: string,
    creds: TlsClientCredentials,
    concurrency: number,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency, ...creds });
  }

  request(method: string, path: string, body?: string, contentType = 'application/json'): Promise<HttpAnswer> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, this.origin), { method, headers, agent: this.agent, timeout: 30_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The request, or an error naming the status and body when the status is not `expected`. */
  async expect(expected: number, method: string, path: string, body?: string): Promise<HttpAnswer> {
    const res = await this.request(method, path, body);
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} (expected ${expected}): ${res.body.slice(0, 300)}`);
    return res;
  }

  close(): void {
    this.agent.destroy();
  }
}
