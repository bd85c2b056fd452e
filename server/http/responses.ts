// Writing API responses the way kube-apiserver does: bodies in the negotiated media type (JSON, or protobuf for
// built-in kinds), Status errors, Warning headers. Nothing here may throw past its caller: a response-writing failure
// must still answer the request (kube's handlers cannot leave one unanswered either: net/http ends every response when
// its handler returns).
import type { Request, Response } from 'express';
import { errors, toStatusError } from '../api/errors.js';
import type { JsonObject, KubeObject, Status } from '../api/types.js';
import { newLogger } from '../log.js';
import { jsonMediaType, negotiateOutput, protobufMediaType, type Negotiated } from './protobuf/negotiate.js';
import { isBuiltinGroupVersion } from './protobuf/schema/kinds.js';
import type { RequestInfo } from './request-info.js';

const log = newLogger(0);

/**
 * kube's warning recorder limits (k8s.io/apiserver/pkg/endpoints/filters/warning.go): once the texts of one response
 * pass 4096 runes in all, every warning is cut to its first 256 runes and the ones past the total are dropped.
 */
export const warningLimits = { totalRunes: 4 * 1024, itemRunes: 256 };

/** A C0 or C1 control character or DEL: Go's unicode.IsControl, which NewWarningHeader refuses in a warning text. */
const controlChar = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The header value kube's net.NewWarningHeader(299, "-", text) builds (k8s.io/apimachinery/pkg/util/net/http.go):
 * `299 - "text"` with only `"` and `\` escaped and every other character written as UTF-8; undefined for a text it
 * refuses (invalid UTF-8 or a control character). The value is the UTF-8 bytes as a latin1 string, which is how
 * node writes header values: a character above U+00FF in a header string throws ERR_INVALID_CHAR instead.
 */
export function warningHeaderValue(text: string): string | undefined {
  if (controlChar.test(text)) return undefined;
  // Go's decoders hand kube valid UTF-8 (an invalid sequence or lone surrogate escape becomes U+FFFD), and so does
  // this encoding of any lone surrogate left in a JS string.
  const quoted = `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
  return Buffer.from(quoted, 'utf8').toString('latin1');
}

/** The first `n` code points of a text (Go's string([]rune(text)[:n])). */
function firstRunes(text: string, n: number): string {
  return [...text].slice(0, n).join('');
}

const runeCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** kube's per-request warning recorder: dedup by text, the total and per-item rune limits, truncation replay. */
interface WarningRecorder {
  recorded: Set<string>;
  ordered: string[];
  written: number;
  truncating: boolean;
}

const recorders = new WeakMap<Response, WarningRecorder>();

function recordWarning(res: Response, r: WarningRecorder, text: string): void {
  if (text === '') return;
  if (r.written >= warningLimits.totalRunes && r.truncating) return;
  if (r.recorded.has(text)) return;
  r.recorded.add(text);
  r.ordered.push(text);
  let length = runeCount(text);
  if (r.truncating && length > warningLimits.itemRunes) {
    text = firstRunes(text, warningLimits.itemRunes);
    length = warningLimits.itemRunes;
  }
  const header = warningHeaderValue(text);
  if (header === undefined) return;
  if (r.written + length <= warningLimits.totalRunes || r.truncating) {
    r.written += length;
    res.append('Warning', header);
    return;
  }
  // Over the total for the first time: start again with every recorded warning cut to the item limit.
  r.truncating = true;
  r.written = 0;
  res.removeHeader('Warning');
  for (const w of r.ordered) {
    const cut = runeCount(w) > warningLimits.itemRunes ? firstRunes(w, warningLimits.itemRunes) : w;
    const h = warningHeaderValue(cut);
    if (h === undefined) continue;
    r.written += Math.min(runeCount(w), warningLimits.itemRunes);
    res.append('Warning', h);
  }
}

/** Records warnings on the response as kube's WithWarningRecorder does; never throws (a bad one is logged and dropped). */
export function addWarnings(res: Response, warnings: readonly string[]): void {
  if (res.headersSent || warnings.length === 0) return;
  let r = recorders.get(res);
  if (!r) {
    r = { recorded: new Set(), ordered: [], written: 0, truncating: false };
    recorders.set(res, r);
  }
  for (const w of warnings) {
    try {
      recordWarning(res, r, w);
    } catch (err) {
      log.error('dropping a warning the response cannot carry', { err: String(err) });
    }
  }
}

type ProtobufCodec = typeof import('./protobuf/index.js');
let codec: ProtobufCodec | undefined;
let loading: Promise<ProtobufCodec> | undefined;

/** The protobuf codec (protobufjs and the generated messages): imported on the first protobuf body or response. */
export function loadProtobufCodec(): Promise<ProtobufCodec> {
  loading ??= import('./protobuf/index.js').then((m) => (codec = m));
  return loading;
}

/**
 * Whether object responses of this request may be protobuf: built-in group versions yes; custom resources no, as
 * kube's CR handler restricts objects to its StandardSerializers (JSON, YAML) while still encoding Status in protobuf.
 */
function protobufObjects(req: Request | undefined, res: Response): boolean {
  const ri = res.locals['requestInfo'] as RequestInfo | undefined;
  if (!ri?.isResourceRequest) return true;
  return isBuiltinGroupVersion(ri.apiGroup, ri.apiVersion) || req === undefined;
}

/** Output negotiation for an object response of this request (kube's handlers do it before any work). */
export function negotiateObjectOutput(req: Request, res: Response, watch = false): Negotiated {
  return negotiateOutput(req.headers.accept, { protobufObjects: protobufObjects(req, res), watch });
}

/**
 * Fails with kube's 406 when the client accepts no media type this request can answer in, and loads the protobuf
 * codec when the answer will be protobuf: create and update call it first, as kube's handlers negotiate the output
 * before reading the body.
 */
export async function requireNegotiableOutput(req: Request, res: Response): Promise<void> {
  const n = negotiateObjectOutput(req, res);
  if (!n.ok) throw errors.notAcceptable(n.message);
  if (n.mediaType === protobufMediaType) await loadProtobufCodec();
}

/**
 * Sends a body with exactly this Content-Type: express would rewrite it for a string body (adding a charset), and its
 * res.type()/res.set() ask mime-types for the charset, which builds its tables from mime-db's 2,500 types when first
 * used (≈ 8 ms; scripts/esbuild-lazy-modules.mjs keeps that off a start).
 */
export function sendBody(res: Response, code: number, contentType: string, body: string): void {
  res.status(code).setHeader('Content-Type', contentType);
  res.send(Buffer.from(body));
}

/**
 * The same headers express's res.type('application/json').send() sets (no ETag: the app disables it), written
 * with a string body: node then sends headers and body in one write, one TLS record, where send() converts the
 * body to a Buffer and writes the two separately.
 */
function writeJSONBody(res: Response, code: number, body: KubeObject | Status | object): void {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (err) {
    answerLastResort(res, err);
    return;
  }
  try {
    res.statusCode = code;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    // Node writes headers sent together with a string body in the body's encoding, which would encode a Warning's
    // latin1-carried UTF-8 bytes twice: such a response goes out as two writes, headers in latin1.
    res.end(hasNonAsciiWarning(res) ? Buffer.from(text, 'utf8') : text);
  } catch (err) {
    answerLastResort(res, err);
  }
}

function hasNonAsciiWarning(res: Response): boolean {
  const w = res.getHeader('Warning');
  if (w === undefined) return false;
  // eslint-disable-next-line no-control-regex
  return (Array.isArray(w) ? w : [String(w)]).some((v) => /[^\x00-\x7f]/.test(v));
}

function writeProtobufBody(res: Response, code: number, bytes: Uint8Array): void {
  try {
    res.statusCode = code;
    res.setHeader('Content-Type', protobufMediaType);
    res.setHeader('Content-Length', bytes.length);
    res.end(bytes);
  } catch (err) {
    answerLastResort(res, err);
  }
}

/**
 * Writes the body in protobuf; false when its kind has no protobuf message (only built-in kinds do), and the
 * caller answers in JSON instead. The codec loads on first use, so the write may happen a tick later.
 */
function writeProtobuf(res: Response, code: number, body: object): boolean | Promise<boolean> {
  const encode = (c: ProtobufCodec): boolean => {
    if (!c.protobufMessageOf(body as JsonObject)) return false;
    writeProtobufBody(res, code, c.encodeKubernetesProtobuf(body as JsonObject)!);
    return true;
  };
  if (codec) return encode(codec);
  return loadProtobufCodec().then(encode);
}

function writeNegotiated(res: Response, code: number, body: KubeObject | Status | object, mediaType: string): void {
  if (mediaType !== protobufMediaType) {
    // YAML is negotiated as kube does but written as JSON, which every YAML reader reads
    writeJSONBody(res, code, body);
    return;
  }
  let written: boolean | Promise<boolean>;
  try {
    written = writeProtobuf(res, code, body);
  } catch (err) {
    answerLastResort(res, err);
    return;
  }
  if (written === false) writeJSONBody(res, code, body);
  else if (written !== true) {
    void written.then(
      (ok) => {
        if (!ok && !res.headersSent) writeJSONBody(res, code, body);
      },
      (err: unknown) => {
        if (!res.headersSent) writeJSONBody(res, 500, toStatusError(err).status);
      },
    );
  }
}

/** A successful object response (kube's WriteObjectNegotiated): 406 when nothing the client accepts can carry it. */
export function writeJSON(res: Response, code: number, body: KubeObject | Status | object): void {
  const req = res.req as Request | undefined;
  // Tables are only ever JSON (their negotiation is table.ts's)
  if (!req || (body as { kind?: unknown }).kind === 'Table') {
    writeJSONBody(res, code, body);
    return;
  }
  const n = negotiateObjectOutput(req, res);
  if (!n.ok) {
    writeError(res, errors.notAcceptable(n.message));
    return;
  }
  writeNegotiated(res, code, body, n.mediaType);
}

/**
 * An error as a Status (kube's ErrorNegotiated): in protobuf when that is what the client prefers, custom resource
 * endpoints included; in JSON, with the original code, when the client accepts nothing the server writes.
 */
export function writeError(res: Response, err: unknown): void {
  try {
    const se = toStatusError(err);
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(se.headers)) res.setHeader(k, v);
    const req = res.req as Request | undefined;
    const n = req ? negotiateOutput(req.headers.accept, { protobufObjects: true }) : undefined;
    writeNegotiated(res, se.code, se.status, n?.ok ? n.mediaType : jsonMediaType);
  } catch (e) {
    answerLastResort(res, e);
  }
}

/**
 * The answer when writing a response failed (a bug): logged, then a 500 Status with none of the headers set so far
 * (one of them may be what failed), or the connection ends when the headers are already out. kube's panic recovery
 * (k8s.io/apiserver/pkg/server/filters/wrap.go WithPanicRecovery) likewise logs and answers 500.
 */
export function answerLastResort(res: Response, err: unknown): void {
  log.error('writing the response failed', { err: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  try {
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    const text = JSON.stringify(errors.internal(err instanceof Error ? err.message : 'response could not be written').status);
    res.statusCode = 500;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  } catch {
    res.destroy();
  }
}

/**
 * Go's net/http answer to a request line it cannot parse (url.ParseRequestURI refuses an invalid percent-escape),
 * written by conn.serve before any handler: these exact bytes, no Date or Content-Length, then the connection closes
 * (net/http server.go, `const publicErr = "400 Bad Request"` with its errorHeaders).
 */
export const goBadRequestResponse = 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request';

export function writeGoBadRequest(res: Response): void {
  try {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Raw bytes on the connection, as Go writes them; the response object is never used.
    res.socket?.end(goBadRequestResponse, 'latin1');
  } catch (err) {
    log.error('writing the 400 Bad Request failed', { err: String(err) });
    res.destroy();
  }
}
