// Request bodies: size limit, media types and decoding, with kube-apiserver's errors for each failure.
import type { Request } from 'express';
import { parseAllDocuments } from 'yaml';
import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { decodeKubernetesProtobuf } from './protobuf/index.js';

/** kube-apiserver's maximum request body (apiserver.DefaultMaxRequestSizeBytes is 3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

const acceptedMediaTypes = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';

export function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function rawBody(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/** Decodes a create/update body (JSON or YAML) into one object. */
export function decodeObject(req: Request): KubeObject {
  const type = mediaType(req);
  const raw = rawBody(req);
  if (raw.length === 0) throw errors.badRequest('the body of the request was empty');
  let value: unknown;
  if (type === 'application/json' || type === '' || type === '*/*') {
    value = parseJSON(raw.toString('utf8'));
  } else if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml') {
    value = parseYAML(raw.toString('utf8'));
  } else if (type === 'application/vnd.kubernetes.protobuf') {
    // kubectl's typed client (kubectl create namespace|configmap|…) sends protobuf for built-in kinds.
    value = decodeKubernetesProtobuf(raw);
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

function parseYAML(text: string): unknown {
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const real = list.filter((d) => d.contents !== null);
  if (real.length !== 1) throw errors.badRequest(`yaml: expected exactly one document in the request body, found ${real.length}`);
  const doc = real[0]!;
  if (doc.errors.length) throw errors.badRequest(`error converting YAML to JSON: ${doc.errors[0]!.message}`);
  return doc.toJS();
}
