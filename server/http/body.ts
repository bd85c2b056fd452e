// Request bodies: size limit, media types and decoding, with kube-apiserver's errors for each failure.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { errors } from '../api/errors.js';
import { checkJsonNesting, jsonDepthError } from '../api/nesting-depth.js';
import type { KubeObject } from '../api/types.js';
import { yamlAliasingError, yamlDocumentToJS, yamlNestingError } from '../api/yaml-limits.js';
import { isBuiltinGroupVersion } from './protobuf/schema/kinds.js';
import type { RequestInfo } from './request-info.js';
import { loadProtobufCodec, requireNegotiableOutput } from './responses.js';

/** kube-apiserver's maximum request body (apiserver.DefaultMaxRequestSizeBytes is 3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

const acceptedMediaTypes = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';
// custom resources are JSON objects: their protobuf bodies cannot be decoded
const customResourceMediaTypes = 'application/json, application/yaml';

export function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function rawBody(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/**
 * Reads the body into req.body as a Buffer, as express.raw({ type: () => true, limit }) does, without its
 * per-request work (content-type parsing, charset and encoding checks, stream wrappers) for the usual request:
 * a Content-Length within the limit and no Content-Encoding. Every other request (chunked, compressed, over the
 * limit) goes to `fallback`, express.raw itself, so its errors and limits stay exactly as they were.
 */
export function rawBodyReader(fallback: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const encoding = req.headers['content-encoding'];
    const lengthHeader = req.headers['content-length'];
    const length = lengthHeader === undefined ? NaN : Number(lengthHeader);
    const plain = (encoding === undefined || encoding.toLowerCase() === 'identity') && req.headers['transfer-encoding'] === undefined;
    if (!plain || !Number.isInteger(length) || length < 0 || length > maxRequestBodyBytes) {
      void fallback(req, res, next);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (err?: Error & { status: number; type: string }): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onError);
      if (err) {
        // as body-parser: read off the rest of the request, then report
        req.resume();
        next(err);
        return;
      }
      req.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      next();
    };
    const bodyError = (status: number, type: string, message: string) => Object.assign(new Error(message), { status, type });
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(received === length ? undefined : bodyError(400, 'request.size.invalid', 'request size did not match content length'));
    const onAborted = (): void => finish(bodyError(400, 'request.aborted', 'request aborted'));
    const onError = (err: Error): void => finish(Object.assign(err, { status: 400, type: 'stream.error' }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
  };
}

const yamlMediaTypes = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'application/apply-patch+yaml']);

/**
 * Refuses a body nested deeper than maxNestingDepth before any handler decodes it, whatever the verb and media type:
 * one linear scan of the raw bytes, so that no parser or recursive walker after it can run out of stack. YAML bodies
 * are bounded where they are parsed (yaml-limits.ts: a bracket count does not see block nesting), protobuf bodies
 * by the protobuf decoder.
 */
export function bodyNestingLimit(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const raw = rawBody(req);
    const type = mediaType(req);
    if (raw.length === 0 || yamlMediaTypes.has(type) || type === 'application/vnd.kubernetes.protobuf') {
      next();
      return;
    }
    const check = checkJsonNesting(raw);
    if (check.ok) {
      next();
      return;
    }
    // Go's scanner error, as the decoder of each verb wraps it: the patch decoders, or meta.Interpret for bodies.
    const prefix = req.method === 'PATCH' ? 'error decoding patch: ' : "couldn't get version/kind; json parse error: ";
    next(errors.badRequest(`${prefix}${jsonDepthError(check)}`));
  };
}

/** Whether the request is for a custom resource (a group version that is not built in). */
function isCustomResourceRequest(req: Request): boolean {
  const ri = req.res?.locals['requestInfo'] as RequestInfo | undefined;
  return ri?.isResourceRequest === true && !isBuiltinGroupVersion(ri.apiGroup, ri.apiVersion);
}

/**
 * Decodes a create/update/delete body (JSON, YAML or protobuf) into one object. As kube's handlers, the output media
 * type is negotiated first (406 before the body is read), then the input one (415).
 */
export async function decodeObject(req: Request): Promise<KubeObject> {
  if (req.res) await requireNegotiableOutput(req, req.res);
  const type = mediaType(req);
  const raw = rawBody(req);
  if (raw.length === 0) throw errors.badRequest('the body of the request was empty');
  let value: unknown;
  if (type === 'application/json' || type === '' || type === '*/*') {
    value = parseJSON(raw.toString('utf8'));
  } else if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml') {
    value = await parseYAML(raw.toString('utf8'));
  } else if (type === 'application/vnd.kubernetes.protobuf' && !isCustomResourceRequest(req)) {
    // kubectl's typed client (kubectl create namespace|configmap|…, auth can-i, auth whoami) sends protobuf for
    // built-in kinds; the decoder (protobufjs and the generated messages) loads on the first such body, not at startup.
    const { decodeKubernetesProtobuf } = await loadProtobufCodec();
    value = decodeKubernetesProtobuf(raw);
  } else if (type === 'application/vnd.kubernetes.protobuf') {
    throw errors.unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${customResourceMediaTypes}`);
  } else {
    throw errors.unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${acceptedMediaTypes}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.badRequest(`the object provided is unrecognized: couldn't get version/kind; json parse error: expected a JSON object`);
  }
  return value as KubeObject;
}

export function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw errors.badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

async function parseYAML(text: string): Promise<unknown> {
  // yaml.YAMLToJSON's limits; its errors reach the client unwrapped, as the json serializer returns them.
  const tooDeep = yamlNestingError(text);
  if (tooDeep !== undefined) throw errors.badRequest(tooDeep);
  const { parseAllDocuments } = await import('yaml');
  // Duplicate keys are read last-wins, as sigs.k8s.io/yaml's YAMLToJSON does; field validation reports them
  // (a strict decoding error with Strict, warnings with Warn), as kube-apiserver does.
  // Merge keys (`<<: *anchor`) are merged, as yaml.v2 (sigs.k8s.io/yaml) does.
  const docs = parseAllDocuments(text, { uniqueKeys: false, merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const real = list.filter((d) => d.contents !== null);
  if (real.length !== 1) throw errors.badRequest(`yaml: expected exactly one document in the request body, found ${real.length}`);
  const doc = real[0]!;
  if (doc.errors.length) throw errors.badRequest(`error converting YAML to JSON: ${doc.errors[0]!.message}`);
  const aliasing = yamlAliasingError(doc);
  if (aliasing !== undefined) throw errors.badRequest(aliasing);
  // Aliases are bounded above, as yaml.v2 bounds them; the yaml package's own count (100 aliases) would refuse
  // documents kube accepts.
  const value = yamlDocumentToJS(doc);
  if (!value.ok) throw errors.badRequest(value.error);
  return value.value;
}
