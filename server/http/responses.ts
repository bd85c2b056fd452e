// Writing API responses the way kube-apiserver does: bodies in the negotiated media type (JSON, or protobuf for
// built-in kinds), Status errors, Warning headers.
import type { Request, Response } from 'express';
import { errors, toStatusError } from '../api/errors.js';
import type { JsonObject, KubeObject, Status } from '../api/types.js';
import { jsonMediaType, negotiateOutput, protobufMediaType, type Negotiated } from './protobuf/negotiate.js';
import { isBuiltinGroupVersion } from './protobuf/schema/kinds.js';
import type { RequestInfo } from './request-info.js';

/** RFC 7234 warn-code 299 with agent "-", the form kube-apiserver uses: `299 - "text"`. */
export function warningHeaderValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

export function addWarnings(res: Response, warnings: readonly string[]): void {
  const seen = new Set<string>();
  for (const w of warnings) {
    if (seen.has(w) || res.headersSent) continue;
    seen.add(w);
    res.append('Warning', warningHeaderValue(w));
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
 * The same headers express's res.type('application/json').send() sets (no ETag: the app disables it), written
 * with a string body: node then sends headers and body in one write, one TLS record, where send() converts the
 * body to a Buffer and writes the two separately.
 */
function writeJSONBody(res: Response, code: number, body: KubeObject | Status | object): void {
  const text = JSON.stringify(body);
  res.statusCode = code;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

function writeProtobufBody(res: Response, code: number, bytes: Uint8Array): void {
  res.statusCode = code;
  res.setHeader('Content-Type', protobufMediaType);
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
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
  const written = writeProtobuf(res, code, body);
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
  const se = toStatusError(err);
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [k, v] of Object.entries(se.headers)) res.setHeader(k, v);
  const req = res.req as Request | undefined;
  const n = req ? negotiateOutput(req.headers.accept, { protobufObjects: true }) : undefined;
  writeNegotiated(res, se.code, se.status, n?.ok ? n.mediaType : jsonMediaType);
}
