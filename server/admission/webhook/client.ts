// The HTTPS client that calls admission webhooks: kube's webhook ClientManager (k8s.io/apiserver/pkg/util/webhook)
// and the client-go REST request it builds, with kube's error texts so that a failed call reads as it would from
// kube-apiserver (`Post "https://…/validate?timeout=10s": context deadline exceeded`).
//
// - One keep-alive https.Agent per distinct client config (url or service, caBundle; not the webhook name, as
//   kube's client cache key), at most `maxInFlightPerEndpoint` concurrent calls per agent: a slow webhook fills
//   only its own pool, so requests that do not call it are never delayed.
// - HTTP/2 as kube: offered by ALPN only to URL webhooks on the local host; one multiplexed session per client config
//   when the server picks it (http2-connection.ts). Everything else is HTTP/1.1.
// - TLS: the caBundle, else the system roots; the server name is the URL's host, or `<name>.<namespace>.svc` for
//   `clientConfig.service`, checked with Go's rules and messages.
// - `clientConfig.service` has no cluster DNS here: a ServiceResolver maps (namespace, name, port) to the
//   host:port to dial (see serviceResolverFor and the `--webhook-service-resolver` flag). An unknown
//   service fails the call with kube's `service "<name>" not found`.
// - Credentials from the WebhookAdmissionConfiguration kubeconfig (authentication.ts).
// - `?timeout=<n>s` on the URL and `timeoutSeconds` as the deadline of the whole call (queueing, connect, TLS,
//   response), as kube's context deadline; within a request, no more than what is left of the request's deadline.
// - The response body is read up to a bound (response-limit.ts; kube reads it whole): past it the socket is destroyed
//   and the call fails as a failed body read, so failurePolicy decides. Admission and conversion webhooks share it.
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { X509Certificate } from 'node:crypto';
import net, { isIP } from 'node:net';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { gunzipSync } from 'node:zlib';
import type { AdmissionReviewRequest, AdmissionReviewVersion } from '../../api/admission.js';
import type { WebhookClientConfig } from '../../api/admissionregistration.js';
import {
  goOpenError,
  joinHostPort,
  loadKubeconfig,
  newAuthenticationInfoResolver,
  type AuthenticationInfoResolver,
  type WebhookCredentials,
} from './authentication.js';
import { goStreamError, Http2Connection, offersHttp2 } from './http2-connection.js';
import { BoundedBody, responseTooLargeError, webhookResponseMaxBytesFrom } from './response-limit.js';
import { decodeAdmissionReview, type DecodedAdmissionReview } from './review.js';
import type { WebhookServiceMapping } from '../../options/server-options.js';

/** Where a service-referenced webhook is reached: "host:port", or undefined if the service is unknown. */
export type ServiceResolver = (namespace: string, name: string, port: number) => string | undefined;

export interface WebhookClientOptions {
  serviceResolver?: ServiceResolver;
  /** WebhookAdmissionConfiguration.kubeConfigFile: read once, now (a missing or invalid file throws). */
  kubeconfigPath?: string;
  /** Concurrent calls per distinct client config; further calls wait for a connection (default 64). */
  maxInFlightPerEndpoint?: number;
  /** Client configs kept (kube: 200); the least recently used are dropped beyond it. */
  cacheSize?: number;
  /** The client-wide Client.Timeout for calls without timeoutSeconds (kube: 30 s). */
  defaultTimeoutSeconds?: number;
  /** The most bytes of a response body read, before and after gzip (default KAH_WEBHOOK_RESPONSE_MAX_BYTES or 16 MiB). */
  maxResponseBytes?: number;
}

export interface WebhookCall {
  webhookName: string;
  clientConfig: WebhookClientConfig;
  /** the webhook's timeoutSeconds; without it kube's client-wide 30 s timeout applies */
  timeoutSeconds?: number;
  /** the request's deadline (performance.now() ms): the call gets no more than what is left of it */
  deadline?: number;
  review: AdmissionReviewRequest;
}

/** The parts of an HTTP error Status kube keeps for metrics (ErrCallingWebhook.Status). */
export interface CallStatus {
  code: number;
  reason: string;
  message: string;
}

export type WebhookCallResult =
  | { ok: true; review: DecodedAdmissionReview }
  /** no client could be built (kube: "could not get REST client: <error>") */
  | { ok: false; stage: 'client'; error: string }
  /** the request, its HTTP status or the decoding of its body failed (kube: "failed to call webhook: <error>") */
  | { ok: false; stage: 'call'; error: string; status?: CallStatus };

/** Any JSON body posted to a webhook (conversion webhooks post ConversionReviews through the same stack). */
export interface WebhookPost {
  clientConfig: WebhookClientConfig;
  /** the deadline of the call; without it the client-wide timeout applies */
  timeoutSeconds?: number;
  /** the request's deadline (performance.now() ms), when the call runs in a request's context */
  deadline?: number;
  body: unknown;
}

export type WebhookPostResult =
  /** a 2xx answer, undecoded (gunzipped) */
  | { ok: true; statusCode: number; contentType: string; body: Buffer }
  | { ok: false; stage: 'client'; error: string }
  | { ok: false; stage: 'call'; error: string; status?: CallStatus };

export interface WebhookClient {
  call(call: WebhookCall): Promise<WebhookCallResult>;
  /** Posts `body` as JSON and returns the 2xx answer's bytes, or kube's error text as `call` does. */
  post(post: WebhookPost): Promise<WebhookPostResult>;
  /** Closes every pooled connection. */
  close(): void;
}

/**
 * Parses `--webhook-service-resolver` values: `<namespace>/<name>[:<port>]=<host>:<port>`, e.g.
 * `webhooks/policy:443=127.0.0.1:8443`. Without `:<port>` the entry answers for every port of the service.
 * Throws an Error naming the bad entry.
 */
/** The resolver for `--webhook-service-resolver` mappings (parsed by the options layer). */
export function serviceResolverFor(mappings: readonly WebhookServiceMapping[]): ServiceResolver {
  const table = new Map(mappings.map((m) => [`${m.namespace}/${m.name}:${m.port}`, m.host.includes(':') ? `[${m.host}]:${m.hostPort}` : `${m.host}:${m.hostPort}`]));
  return (namespace, name, port) => table.get(`${namespace}/${name}:${port}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Go's texts for transport failures.

class DeadlineExceeded extends Error {
  constructor(readonly clientTimeout: boolean) {
    super('context deadline exceeded');
  }
}

/** An error whose text is already Go's (TLS verification, service resolution). */
class GoError extends Error {
  constructor(
    readonly goMessage: string,
    readonly code?: string,
  ) {
    super(goMessage);
  }
}

/** net.IP.String(): IPv6 in its shortest form. */
function goIpString(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}

function matchHostnames(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase().replace(/\.$/, '');
  if (p === '' || h === '') return false;
  const pp = p.split('.');
  const hp = h.split('.');
  if (pp.length !== hp.length) return false;
  return pp.every((part, i) => (i === 0 && part === '*') || part === hp[i]);
}

/** x509.Certificate.VerifyHostname with HostnameError's messages; there is no Common Name fallback. */
export function verifyHostname(host: string, cert: { subjectaltname?: string; subject?: { CN?: string | string[] } }): string | undefined {
  const sans = (cert.subjectaltname ?? '').split(/,\s*/).filter((s) => s !== '');
  const dnsNames = sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4));
  const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => goIpString(s.slice(11)));
  const candidateIP = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(candidateIP)) {
    const want = goIpString(candidateIP);
    if (ips.includes(want)) return undefined;
  } else if (dnsNames.some((d) => matchHostnames(d, host))) {
    return undefined;
  }
  const cn = Array.isArray(cert.subject?.CN) ? cert.subject?.CN[0] : cert.subject?.CN;
  if (sans.length === 0 && cn !== undefined && matchHostnames(cn, host)) return 'x509: certificate relies on legacy Common Name field, use SANs instead';
  let valid: string;
  if (isIP(candidateIP)) {
    if (ips.length === 0) return `x509: cannot validate certificate for ${candidateIP} because it doesn't contain any IP SANs`;
    valid = ips.join(', ');
  } else {
    valid = dnsNames.join(', ');
  }
  if (valid === '') return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${valid}, not ${host}`;
}

const unknownAuthorityCodes = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

interface TransportContext {
  connectAddress: string;
  host: string;
  local?: string;
  remote?: string;
}

/** The error of Go's http.Client.Do (without the `Post "<url>": ` prefix) for a Node request error. */
function goTransportReason(err: unknown, ctx: TransportContext): string {
  if (err instanceof DeadlineExceeded) {
    return err.clientTimeout ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' : 'context deadline exceeded';
  }
  if (err instanceof GoError) return err.goMessage;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  const addr = e.address !== undefined && e.port !== undefined ? joinHostPort(e.address, e.port) : ctx.connectAddress;
  const conn = ctx.local && ctx.remote ? `${ctx.local}->${ctx.remote}` : addr;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${addr}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `dial tcp: lookup ${ctx.host}: no such host`;
    case 'ECONNRESET':
      // "socket hang up": the server closed the connection without an answer, which Go reads as EOF
      return e.message === 'socket hang up' ? 'EOF' : `read tcp ${conn}: read: connection reset by peer`;
    case 'EPIPE':
      return `write tcp ${conn}: write: broken pipe`;
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED':
      return 'remote error: tls: certificate required';
    case 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE':
      return 'remote error: tls: bad certificate';
    case 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA':
      return 'remote error: tls: unknown certificate authority';
    case 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE':
      return 'remote error: tls: handshake failure';
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return 'http: server gave HTTP response to HTTPS client';
    default:
      if (e.code && unknownAuthorityCodes.has(e.code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
      return e.message;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP error statuses, as client-go's transformResponse / newUnstructuredResponseError / NewGenericServerResponse.

const maxUnstructuredResponseTextBytes = 2048;

function genericServerResponse(code: number, serverMessage: string): CallStatus {
  let reason = '';
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = 'AlreadyExists'; // the verb is always POST
      message = 'the server reported a conflict';
      break;
    case 404:
      reason = 'NotFound';
      message = 'the server could not find the requested resource';
      break;
    case 400:
      reason = 'BadRequest';
      message = 'the server rejected our request for an unknown reason';
      break;
    case 401:
      reason = 'Unauthorized';
      message = 'the server has asked for the client to provide credentials';
      break;
    case 403:
      reason = 'Forbidden';
      message = serverMessage;
      break;
    case 406:
      reason = 'NotAcceptable';
      message = serverMessage === '' || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage;
      break;
    case 415:
      reason = 'UnsupportedMediaType';
      message = serverMessage;
      break;
    case 405:
      reason = 'MethodNotAllowed';
      message = 'the server does not allow this method on the requested resource';
      break;
    case 422:
      reason = 'Invalid';
      message = 'the server rejected our request due to an error in our request';
      break;
    case 503:
      reason = 'ServiceUnavailable';
      message = 'the server is currently unable to handle the request';
      break;
    case 504:
      reason = 'Timeout';
      message = 'the server was unable to return a response in the time allotted, but may still be processing the request';
      break;
    case 429:
      reason = 'TooManyRequests';
      message = 'the server has received too many requests and has asked us to try again later';
      break;
    default:
      if (code >= 500) {
        reason = 'InternalError';
        message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  return { code, reason, message };
}

function isTextResponse(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media.startsWith('text/');
}

/** A non-2xx answer: the body's own metav1.Status if it is a Failure Status, else kube's generic message. */
function statusForHttpError(code: number, contentType: string | undefined, body: Buffer): CallStatus {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const s = v as Record<string, unknown>;
      if (s['kind'] === 'Status' && (s['apiVersion'] === undefined || s['apiVersion'] === '' || s['apiVersion'] === 'v1') && s['status'] === 'Failure') {
        return { code: typeof s['code'] === 'number' ? s['code'] : 0, reason: typeof s['reason'] === 'string' ? s['reason'] : '', message: typeof s['message'] === 'string' ? s['message'] : '' };
      }
    }
  } catch {
    // not JSON: an unstructured error
  }
  const text = isTextResponse(contentType) ? body.subarray(0, maxUnstructuredResponseTextBytes).toString('utf8').trim() : 'unknown';
  return genericServerResponse(code, text);
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoints: one per distinct client config.

interface Endpoint {
  scheme: 'https' | 'http';
  /** URL.Host as Go prints it in errors */
  displayHost: string;
  /** path.Join("/", path) */
  path: string;
  agent: http.Agent;
  /** TLS server name to verify (service webhooks); URL webhooks verify their own host */
  servername?: string;
  /** where to connect for URL webhooks */
  target?: { host: string; port: number };
  service?: { namespace: string; name: string; port: number };
  credentials: WebhookCredentials;
  token?: { value: string; file?: string; readAt: number };
  /** URL webhooks on the local host: ALPN offers h2, and one session carries every call (http2-connection.ts) */
  http2?: Http2Connection;
  /** the TLS material of the agent, for the h2 dial */
  tlsOptions: Pick<tls.ConnectionOptions, 'ca' | 'cert' | 'key'>;
}

type EndpointResult = { ok: true; endpoint: Endpoint } | { ok: false; error: string };

/** path.Clean("/" + p): no trailing slash, no empty or dot segments. */
function cleanPath(p: string): string {
  const n = path.posix.normalize(`/${p}`);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

/** url.URL.EscapedPath for a clean path: RFC 3986 path characters kept, everything else %-encoded. */
function escapePath(p: string): string {
  let out = '';
  for (const byte of Buffer.from(p, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~$&+,/:;=@]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** rootCertPool / createErrorParsingCAData: the CA bundle must hold at least one certificate. */
function checkCABundle(pem: string): string | undefined {
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g)];
  let parsed = 0;
  for (const b of blocks) {
    if (b[1] !== 'CERTIFICATE') continue;
    try {
      new X509Certificate(b[0]);
      parsed++;
    } catch {
      if (parsed === 0) return 'failed to parse certificate: x509: malformed certificate';
    }
  }
  if (parsed > 0) return undefined;
  if (blocks.length === 0) return 'unable to parse bytes as PEM block';
  return 'no valid certificate authority data seen';
}

function readData(data: Buffer | undefined, file: string | undefined): Buffer | undefined {
  if (data && data.length > 0) return data;
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (e) {
    throw new GoError(goOpenError(file, e));
  }
}

/** tls.X509KeyPair's complaints, for a client certificate that Node cannot use. */
function checkKeyPair(cert: Buffer, key: Buffer): string | undefined {
  if (!/-----BEGIN [A-Z ]*CERTIFICATE-----/.test(cert.toString('utf8'))) return 'tls: failed to find any PEM data in certificate input';
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key.toString('utf8'))) return 'tls: failed to find any PEM data in key input';
  try {
    tls.createSecureContext({ cert, key });
  } catch (e) {
    const msg = (e as Error).message;
    if (/key values mismatch/i.test(msg)) return 'tls: private key does not match public key';
    return `tls: failed to parse private key`;
  }
  return undefined;
}

const hostOfUrl = (url: string): string => /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/.exec(url)?.[1] ?? '';

/**
 * The time a call gets: its own timeout (context.WithTimeout of the webhook's timeoutSeconds), or less when the
 * request's context ends first; `seconds` is what `?timeout=` says (time.Until(deadline) rounded up to the second).
 */
export function callBudget(ownSeconds: number, requestDeadline: number | undefined, now: number = performance.now()): { ms: number; seconds: number; fromRequest: boolean } {
  let ms = ownSeconds * 1000;
  let fromRequest = false;
  if (requestDeadline !== undefined && requestDeadline - now < ms) {
    ms = requestDeadline - now;
    fromRequest = true;
  }
  return { ms, seconds: ms > 0 ? Math.ceil(ms / 1000) : 0, fromRequest };
}

export function createWebhookClient(opts: WebhookClientOptions = {}): WebhookClient {
  const auth: AuthenticationInfoResolver = newAuthenticationInfoResolver(opts.kubeconfigPath ? loadKubeconfig(opts.kubeconfigPath) : undefined);
  const maxSockets = opts.maxInFlightPerEndpoint ?? 64;
  const cacheSize = opts.cacheSize ?? 200;
  const cache = new Map<string, Endpoint>();
  // A configuration snapshot hands the same clientConfig object to every request until a reload replaces it, so its
  // cache key (which holds the whole caBundle) is built once per object rather than once per call; the fields it was
  // built from are compared on each use (the same strings: a pointer comparison), in case the object changed.
  const cacheKeys = new WeakMap<WebhookClientConfig, { url: unknown; caBundle: unknown; service: string; key: string }>();
  const resolveService = opts.serviceResolver;
  const clientTimeoutSeconds = opts.defaultTimeoutSeconds ?? 30;
  const maxResponseBytes = opts.maxResponseBytes ?? webhookResponseMaxBytesFrom(process.env);

  function buildEndpoint(cc: WebhookClientConfig): EndpointResult {
    let scheme: 'https' | 'http' = 'https';
    let displayHost: string;
    let apiPath: string;
    let servername: string | undefined;
    let target: Endpoint['target'];
    let service: Endpoint['service'];
    let creds;
    if (cc.service) {
      const port = cc.service.port || 443;
      creds = auth.clientConfigForService(cc.service.name, cc.service.namespace, port);
      servername = `${cc.service.name}.${cc.service.namespace}.svc`;
      displayHost = joinHostPort(servername, port);
      apiPath = cc.service.path ?? '';
      service = { namespace: cc.service.namespace, name: cc.service.name, port };
    } else {
      if (!cc.url) return { ok: false, error: 'webhook configuration must have either service or URL' };
      let u: URL;
      try {
        u = new URL(cc.url);
      } catch (e) {
        return { ok: false, error: `Unparsable URL: ${(e as Error).message}` };
      }
      scheme = u.protocol === 'http:' ? 'http' : 'https';
      displayHost = hostOfUrl(cc.url);
      const hostname = u.hostname.replace(/^\[(.*)\]$/, '$1');
      const hasPort = /:\d+$/.test(displayHost);
      const port = hasPort ? Number(/:(\d+)$/.exec(displayHost)![1]) : scheme === 'https' ? 443 : 80;
      target = { host: hostname, port };
      creds = auth.clientConfigFor(hasPort ? displayHost : joinHostPort(displayHost, '443'));
      apiPath = decodeURIComponent(u.pathname);
    }
    if (!creds.ok) return { ok: false, error: creds.error };
    const c = creds.credentials;
    if ((c.username || c.password) && c.bearerToken) return { ok: false, error: 'username/password or bearer token may be set, but not both' };

    const agentOpts: https.AgentOptions = {
      keepAlive: true,
      maxSockets,
      // client-go keeps 25 idle connections per host and closes them after 90 s
      maxFreeSockets: 25,
      timeout: 90_000,
      ALPNProtocols: ['http/1.1'],
    };
    if (cc.caBundle) {
      const pem = Buffer.from(cc.caBundle, 'base64').toString('utf8');
      const bad = checkCABundle(pem);
      if (bad) return { ok: false, error: bad };
      agentOpts.ca = pem;
    }
    try {
      const cert = readData(c.certData, c.certFile);
      const key = readData(c.keyData, c.keyFile);
      // rest.Config.HasCertAuth: a certificate is only used together with its key
      if (cert && key) {
        const bad = checkKeyPair(cert, key);
        if (bad) return { ok: false, error: bad };
        agentOpts.cert = cert;
        agentOpts.key = key;
      }
    } catch (e) {
      if (e instanceof GoError) return { ok: false, error: e.goMessage };
      throw e;
    }
    const agent = scheme === 'https' ? new https.Agent(agentOpts) : new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: 25, timeout: 90_000 });
    const tlsOptions: Endpoint['tlsOptions'] = {};
    if (agentOpts.ca !== undefined) tlsOptions.ca = agentOpts.ca;
    if (agentOpts.cert !== undefined) tlsOptions.cert = agentOpts.cert;
    if (agentOpts.key !== undefined) tlsOptions.key = agentOpts.key;
    const endpoint: Endpoint = { scheme, displayHost, path: cleanPath(apiPath), agent, credentials: c, tlsOptions };
    if (offersHttp2(cc)) endpoint.http2 = new Http2Connection(`https://${displayHost}`);
    if (servername) endpoint.servername = servername;
    if (target) endpoint.target = target;
    if (service) endpoint.service = service;
    if (c.bearerToken !== undefined) endpoint.token = { value: c.bearerToken, readAt: Date.now(), ...(c.bearerTokenFile ? { file: c.bearerTokenFile } : {}) };
    return { ok: true, endpoint };
  }

  function endpointFor(cc: WebhookClientConfig): EndpointResult {
    // kube's cache key: the client config without the webhook's name
    const service = cc.service ? JSON.stringify(cc.service) : '';
    const known = cacheKeys.get(cc);
    let key: string;
    if (known && known.url === cc.url && known.caBundle === cc.caBundle && known.service === service) key = known.key;
    else {
      key = JSON.stringify({ url: cc.url ?? '', caBundle: cc.caBundle ?? '', service: cc.service ?? null });
      cacheKeys.set(cc, { url: cc.url, caBundle: cc.caBundle, service, key });
    }
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return { ok: true, endpoint: hit };
    }
    const built = buildEndpoint(cc);
    if (!built.ok) return built;
    cache.set(key, built.endpoint);
    if (cache.size > cacheSize) {
      // dropped, not destroyed: calls in flight finish, idle connections time out
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
    }
    return built;
  }

  // client-go's cached file token source re-reads the file about once a minute, keeping the last good token.
  function bearerToken(ep: Endpoint): string | undefined {
    const t = ep.token;
    if (!t) return undefined;
    if (t.file && Date.now() - t.readAt > 60_000) {
      try {
        t.value = readFileSync(t.file, 'utf8');
      } catch {
        // keep the last token
      }
      t.readAt = Date.now();
    }
    return t.value.trim();
  }

  async function call(wc: WebhookCall): Promise<WebhookCallResult> {
    const version = (wc.review.apiVersion === 'admission.k8s.io/v1beta1' ? 'v1beta1' : 'v1') as AdmissionReviewVersion;
    const posted = await post({
      clientConfig: wc.clientConfig,
      body: wc.review,
      ...(wc.timeoutSeconds === undefined ? {} : { timeoutSeconds: wc.timeoutSeconds }),
      ...(wc.deadline === undefined ? {} : { deadline: wc.deadline }),
    });
    if (!posted.ok) return posted;
    const decoded = decodeAdmissionReview(posted.body, posted.contentType, posted.statusCode, version);
    return decoded.ok ? { ok: true, review: decoded.review } : { ok: false, stage: 'call', error: decoded.error };
  }

  async function post(wp: WebhookPost): Promise<WebhookPostResult> {
    const got = endpointFor(wp.clientConfig);
    if (!got.ok) return { ok: false, stage: 'client', error: got.error };
    const ep = got.endpoint;
    const timeoutSeconds = wp.timeoutSeconds;
    // without timeoutSeconds the client-wide Client.Timeout (kube: 30 s) is what ends the call
    const budget = callBudget(timeoutSeconds ?? clientTimeoutSeconds, wp.deadline);
    const deadlineMs = budget.ms;
    // kube's dispatchers send `?timeout=` only while the context has time left, rounded up to the second
    const requestPath = budget.ms > 0 ? `${escapePath(ep.path)}?timeout=${budget.seconds}s` : escapePath(ep.path);
    const url = `${ep.scheme}://${ep.displayHost}${requestPath}`;
    const fail = (reason: string): WebhookPostResult => ({ ok: false, stage: 'call', error: `Post ${JSON.stringify(url)}: ${reason}` });
    // the request's context is already done: client-go does not even dial
    if (budget.ms <= 0) return fail('context deadline exceeded');
    const clientTimeout = timeoutSeconds === undefined && !budget.fromRequest;

    let host: string;
    let port: number;
    if (ep.service) {
      const resolved = resolveService?.(ep.service.namespace, ep.service.name, ep.service.port);
      if (!resolved) return fail(`service ${JSON.stringify(ep.service.name)} not found`);
      const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(resolved);
      if (!m) return fail(`service ${JSON.stringify(ep.service.name)} not found`);
      host = m[1]!;
      port = Number(m[2]);
    } else {
      host = ep.target!.host;
      port = ep.target!.port;
    }

    const body = Buffer.from(JSON.stringify(wp.body), 'utf8');
    const headers: Record<string, string | string[]> = {
      Host: ep.displayHost,
      'Content-Type': 'application/json',
      Accept: 'application/json, */*',
      'User-Agent': 'kube-apiserver-admission',
      'Accept-Encoding': 'gzip',
      'Content-Length': String(body.length),
    };
    const token = bearerToken(ep);
    if (token) headers['Authorization'] = `Bearer ${token}`;
    else if (ep.credentials.username !== undefined || ep.credentials.password !== undefined) {
      headers['Authorization'] = `Basic ${Buffer.from(`${ep.credentials.username ?? ''}:${ep.credentials.password ?? ''}`).toString('base64')}`;
    }
    const imp = ep.credentials.impersonate;
    if (imp) {
      headers['Impersonate-User'] = imp.userName;
      if (imp.groups.length > 0) headers['Impersonate-Group'] = imp.groups;
      for (const [k, v] of Object.entries(imp.extra)) headers[`Impersonate-Extra-${encodeURIComponent(k)}`] = v;
    }

    const tctx: TransportContext = { connectAddress: joinHostPort(host, port), host };
    return new Promise<WebhookPostResult>((resolve) => {
      let settled = false;
      let gotHeaders = false;
      let deadline: DeadlineExceeded | undefined;
      const finish = (r: WebhookPostResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const onError = (err: unknown): void => {
        if (settled) return;
        // whatever Node reports once the deadline destroyed the request, Go reports the deadline
        const cause = deadline ?? err;
        if (gotHeaders) {
          // client-go reads the body itself and says so when that fails
          const reason = cause instanceof DeadlineExceeded ? 'context deadline exceeded' : goTransportReason(cause, tctx);
          return finish({ ok: false, stage: 'call', error: `unexpected error when reading response body. Please retry. Original error: ${reason}` });
        }
        finish(fail(goTransportReason(cause, tctx)));
      };
      // Reads an answer (HTTP/1.1 response or h2 stream) as client-go does: bounded, gunzipped, non-2xx as a Status.
      const readResponse = (status: number, resHeaders: http.IncomingHttpHeaders, res: NodeJS.ReadableStream & NodeJS.EventEmitter, destroy: () => void): void => {
        gotHeaders = true;
        // Past the bound, nothing more is read: the connection (or stream) is destroyed rather than drained.
        const tooLarge = (): void => {
          finish({ ok: false, stage: 'call', error: responseTooLargeError(maxResponseBytes) });
          destroy();
        };
        if (BoundedBody.declaredTooLarge(resHeaders['content-length'], maxResponseBytes)) return tooLarge();
        const body = new BoundedBody(maxResponseBytes);
        let ended = false;
        res.on('data', (c: Buffer) => {
          if (!body.add(c)) tooLarge();
        });
        res.on('error', onError);
        res.on('close', () => {
          if (!ended) onError(new Error('unexpected EOF'));
        });
        res.on('end', () => {
          ended = true;
          if (body.exceeded) return;
          let data = body.bytes();
          if ((resHeaders['content-encoding'] ?? '').toLowerCase() === 'gzip') {
            try {
              // the bound holds for what the body inflates to as well
              data = gunzipSync(data, { maxOutputLength: maxResponseBytes });
            } catch (err) {
              if (err instanceof RangeError) return tooLarge();
              return finish(fail('gzip: invalid header'));
            }
          }
          if (status < 200 || status > 206) {
            const st = statusForHttpError(status, resHeaders['content-type'], data);
            return finish({ ok: false, stage: 'call', error: st.message, status: st });
          }
          finish({ ok: true, statusCode: status, contentType: resHeaders['content-type'] || 'application/json', body: data });
        });
      };
      const noteSocket = (s: net.Socket): void => {
        const note = (): void => {
          if (s.localAddress && s.localPort) tctx.local = joinHostPort(s.localAddress, s.localPort);
          if (s.remoteAddress && s.remotePort) tctx.remote = joinHostPort(s.remoteAddress, s.remotePort);
        };
        note();
        s.once('connect', note);
      };
      const verifyName = ep.servername ?? host;
      const checkServerIdentity = (_name: string, cert: tls.PeerCertificate): Error | undefined => {
        const problem = verifyHostname(verifyName, cert);
        return problem ? new GoError(`tls: failed to verify certificate: ${problem}`, 'ERR_TLS_CERT_ALTNAME_INVALID') : undefined;
      };
      // what the deadline cancels: the request or stream in flight
      let abort: (err: Error) => void = () => undefined;

      const sendHttp1 = (): void => {
        const options: https.RequestOptions = { method: 'POST', host, port, path: requestPath, agent: ep.agent, headers };
        if (ep.scheme === 'https') {
          if (ep.servername) options.servername = ep.servername;
          options.checkServerIdentity = checkServerIdentity;
        }
        const mod = ep.scheme === 'https' ? https : http;
        const req = mod.request(options, (res) => readResponse(res.statusCode ?? 0, res.headers, res, () => req.destroy()));
        req.on('socket', noteSocket);
        req.on('error', onError);
        abort = (err) => req.destroy(err);
        req.end(body);
      };

      const sendHttp2 = (session: http2.ClientHttp2Session): void => {
        const h2Headers: http2.OutgoingHttpHeaders = { ':method': 'POST', ':path': requestPath, ':authority': ep.displayHost };
        for (const [k, v] of Object.entries(headers)) if (k !== 'Host') h2Headers[k.toLowerCase()] = v;
        let stream: http2.ClientHttp2Stream;
        try {
          stream = session.request(h2Headers);
        } catch (err) {
          return onError(err);
        }
        stream.on('response', (h) => readResponse(Number(h[':status'] ?? 0), h as http.IncomingHttpHeaders, stream, () => stream.close(http2.constants.NGHTTP2_CANCEL)));
        stream.on('error', (err) => onError(goStreamError(err, stream.id) !== undefined ? new GoError(goStreamError(err, stream.id)!) : err));
        abort = (err) => stream.destroy(err);
        stream.end(body);
      };

      const timer = setTimeout(() => {
        deadline = new DeadlineExceeded(clientTimeout);
        abort(deadline);
        // a dial still under way is left to finish (and serve later calls); this call ends now
        onError(deadline);
      }, deadlineMs);

      const h2 = ep.scheme === 'https' && ep.http2 && !ep.http2.speaksHttp1 ? ep.http2 : undefined;
      if (!h2) return sendHttp1();
      h2.negotiate(() => {
        const socket = tls.connect({
          host,
          port,
          ALPNProtocols: ['h2', 'http/1.1'],
          ...ep.tlsOptions,
          ...(ep.servername ? { servername: ep.servername } : isIP(host) ? {} : { servername: host }),
          checkServerIdentity,
        });
        noteSocket(socket);
        return socket;
      }).then(
        (n) => {
          if (settled) return;
          if (n.protocol === 'h2') sendHttp2(n.session);
          else sendHttp1();
        },
        onError,
      );
    });
  }

  return {
    call,
    post,
    close() {
      for (const ep of cache.values()) {
        ep.agent.destroy();
        ep.http2?.close();
      }
      cache.clear();
    },
  };
}
