// Raw HTTPS requests to the harness apiserver as the admin user: the path is sent exactly as given (no URL
// normalisation, so `..`, `%` and empty segments reach the server as written), headers and body as given.
import https from 'node:https';
import type { ApiServerHandle } from '../../harness/apiserver-process.js';

export interface RawRequest {
  method: string;
  /** path and query, sent as the request target unchanged */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** For watches: resolve with what arrived this long after the response headers, then close the connection. */
  streamMs?: number;
  /** Fail unless the response headers arrive this soon (a watch must start its stream at once, before any event). */
  headersWithinMs?: number;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** from the first byte written to the end of the response (or the stream window) */
  elapsedMs: number;
}

export interface RawClient {
  send(req: RawRequest): Promise<RawResponse>;
  close(): void;
}

/** The admin client certificate and the CA of a running harness server (credentials come from its kubeconfig). */
export function adminTls(server: ApiServerHandle): { ca: string; cert: Buffer; key: Buffer } {
  const user = server.kubeConfig().getCurrentUser();
  if (!user?.certData || !user.keyData) throw new Error('the admin kubeconfig has no client certificate');
  return { ca: server.caPem, cert: Buffer.from(user.certData, 'base64'), key: Buffer.from(user.keyData, 'base64') };
}

export function rawClient(server: ApiServerHandle, maxSockets = 8): RawClient {
  const tls = adminTls(server);
  const agent = new https.Agent({ ...tls, keepAlive: true, maxSockets });
  const send = (r: RawRequest): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...r.headers };
      if (r.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length' || h.toLowerCase() === 'transfer-encoding')) {
        headers['Content-Length'] = String(r.body.length);
      }
      const timeoutMs = r.timeoutMs ?? 30_000;
      const started = performance.now();
      let done = false;
      let streamTimer: NodeJS.Timeout | undefined;
      const settle = (outcome: { res: RawResponse } | { err: Error }): void => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        clearTimeout(streamTimer);
        clearTimeout(headersTimer);
        if ('res' in outcome) resolve(outcome.res);
        else reject(outcome.err);
      };
      // One deadline for the whole exchange (a socket timeout would not cover a response that starts and then stalls).
      const deadline = setTimeout(() => {
        settle({ err: new Error(`no response within ${timeoutMs} ms`) });
        req.destroy();
      }, timeoutMs);
      const headersTimer =
        r.headersWithinMs === undefined
          ? undefined
          : setTimeout(() => {
              settle({ err: new Error(`no response headers within ${r.headersWithinMs} ms`) });
              req.destroy();
            }, r.headersWithinMs);
      const req = https.request({ host: '127.0.0.1', port: server.port, method: r.method, path: r.path, headers, agent }, (res) => {
        clearTimeout(headersTimer);
        const chunks: Buffer[] = [];
        const finish = (): void => settle({ res: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), elapsedMs: performance.now() - started } });
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', finish);
        res.on('error', (err) => settle({ err }));
        res.on('close', () => (res.complete ? finish() : settle({ err: new Error(`the response was cut off after ${Buffer.concat(chunks).length} bytes`) })));
        if (r.streamMs !== undefined) {
          streamTimer = setTimeout(() => {
            finish();
            // a watch stays open: end it from our side (the socket is not reused)
            req.destroy();
          }, r.streamMs);
        }
      });
      req.on('error', (err) => settle({ err }));
      req.end(r.body);
    });
  return { send, close: () => agent.destroy() };
}
