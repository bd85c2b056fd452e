// HTTP/2 to admission webhooks, as kube-apiserver's webhook client uses it (k8s.io/apiserver/pkg/util/webhook
// client.go): a webhook reached by a URL on localhost or a loopback IP is offered h2 and http/1.1 by ALPN; every
// other webhook (service references, remote URLs) is offered http/1.1 only, kube's workaround for HTTP/2 clients
// not load-balancing over a service's backends (issue 75791). When the server picks h2, Go's http2 transport keeps
// one connection for the client and multiplexes every call over it; when it picks http/1.1, calls go through the
// keep-alive pool.
import http2 from 'node:http2';
import { isIP } from 'node:net';
import type tls from 'node:tls';

/** isLocalHost: "localhost" in any case, or an IP that is a loopback address. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (host.toLowerCase() === 'localhost') return true;
  const family = isIP(host);
  if (family === 4) return host.split('.')[0] === '127';
  if (family === 6) {
    // ::1, written any way, and the IPv4-mapped loopback addresses
    const canonical = new URL(`http://[${host}]/`).hostname.slice(1, -1);
    return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
  }
  return false;
}

/** Whether the client offers h2 for a webhook: only for a URL on the local host (hookClientConfig). */
export function offersHttp2(clientConfig: { url?: string; service?: unknown }): boolean {
  if (clientConfig.service || !clientConfig.url) return false;
  try {
    const u = new URL(clientConfig.url);
    return u.protocol === 'https:' && isLocalHost(u.hostname);
  } catch {
    return false;
  }
}

export type Negotiated = { protocol: 'h2'; session: http2.ClientHttp2Session } | { protocol: 'http/1.1' };

/**
 * The HTTP/2 connection of one client config. The first call dials with ALPN ["h2", "http/1.1"]; what the server
 * picks is kept: h2 gives one session shared by all calls (concurrent first calls wait for the same dial), and a
 * session that closes or receives GOAWAY is replaced by the next call's dial; http/1.1 sends this client config
 * to the keep-alive pool from then on.
 */
export class Http2Connection {
  private session: http2.ClientHttp2Session | undefined;
  private dialing: Promise<Negotiated> | undefined;
  private http1 = false;

  constructor(private readonly authority: string) {}

  /** true once the server chose http/1.1 */
  get speaksHttp1(): boolean {
    return this.http1;
  }

  /** The live session, or a new dial (`dial` opens the TLS socket with the ALPN protocols and TLS options). */
  negotiate(dial: () => tls.TLSSocket): Promise<Negotiated> {
    if (this.http1) return Promise.resolve({ protocol: 'http/1.1' });
    const live = this.session;
    if (live && !live.closed && !live.destroyed) return Promise.resolve({ protocol: 'h2', session: live });
    if (!this.dialing) {
      this.dialing = this.dial(dial).finally(() => {
        this.dialing = undefined;
      });
    }
    return this.dialing;
  }

  private dial(open: () => tls.TLSSocket): Promise<Negotiated> {
    return new Promise<Negotiated>((resolve, reject) => {
      const socket = open();
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.removeListener('error', reject);
        if (socket.alpnProtocol !== 'h2') {
          this.http1 = true;
          socket.destroy();
          resolve({ protocol: 'http/1.1' });
          return;
        }
        const session = http2.connect(this.authority, { createConnection: () => socket });
        // a session error fails the streams in flight, which report it; the session is only dropped
        session.on('error', () => undefined);
        const drop = (): void => {
          if (this.session === session) this.session = undefined;
        };
        session.once('close', drop);
        session.once('goaway', drop);
        // an idle session does not keep the process alive
        session.unref();
        this.session = session;
        resolve({ protocol: 'h2', session });
      });
    });
  }

  close(): void {
    this.session?.destroy();
    this.session = undefined;
  }
}

/**
 * Go's http2 error for a stream the server reset (http2.StreamError): `stream error: stream ID <id>; <CODE>;
 * received from peer`. Undefined for any other error.
 */
export function goStreamError(err: unknown, streamId: number | undefined): string | undefined {
  const e = err as NodeJS.ErrnoException;
  if (e?.code !== 'ERR_HTTP2_STREAM_ERROR') return undefined;
  const code = /NGHTTP2_([A-Z_]+)/.exec(e.message)?.[1] ?? 'INTERNAL_ERROR';
  return `stream error: stream ID ${streamId ?? 0}; ${code}; received from peer`;
}
