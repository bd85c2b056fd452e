// PATCH bodies, applied and failed the way kube-apiserver's endpoints/handlers/patch.go does it:
//   application/json-patch+json            RFC 6902; malformed → 400, more than 10000 operations → 413,
//                                          a failing operation or test → 422 Invalid with kube's generic
//                                          "the server rejected our request due to an error in our request".
//   application/merge-patch+json           RFC 7386; not a JSON object → 400 ("error decoding patch: ..." or
//                                          "Invalid JSON Patch", by fieldValidation).
//   application/strategic-merge-patch+json built-in kinds only (see strategic-merge-patch.ts); malformed →
//                                          400, directive misuse → 400/422/500 as interpretStrategicMergePatchError
//                                          maps it; other kinds → 415 like a custom resource.
//   application/apply-patch+yaml (+cbor)   server-side apply of a resource is served by ../apply/ before this; what
//                                          reaches here (CBOR, /status and /scale) → 415.
//   anything else                          415 with kube's list of accepted media types.
// The original object is never modified. Checks on the result that need the request (name, namespace, uid)
// are the caller's, as they are the patcher's in kube.
import { deepCopyJSON } from '../../api/deep-copy.js';
import { StatusError, errors } from '../../api/errors.js';
import { maxNestingDepth, objectExceedsNestingDepth } from '../../api/nesting-depth.js';
import type { KubeObject } from '../../api/types.js';
import { decodeGoJson, goJsonKind, goUnmarshalFieldTypeError, goUnmarshalTypeError } from './go-json.js';
import { applyJsonPatch, maxJSONPatchOperations } from './json-patch.js';
import { mergePatch } from './merge-patch.js';
import { strategicMergeSchemaFor } from './smp-schema.js';
import { StrategicMergePatchError, strategicMergePatch } from './strategic-merge-patch.js';

export const JSONPatchType = 'application/json-patch+json';
export const MergePatchType = 'application/merge-patch+json';
export const StrategicMergePatchType = 'application/strategic-merge-patch+json';
export const ApplyYAMLPatchType = 'application/apply-patch+yaml';
export const ApplyCBORPatchType = 'application/apply-patch+cbor';

/** The kind a patch is applied to: its patch metadata (for strategic merge patch) is looked up by group and kind. */
export interface PatchSchema {
  group: string;
  version: string;
  kind: string;
}

export interface PatchOptions {
  /**
   * The request's fieldValidation. Strict and Warn decode the patch strictly first, which changes the
   * messages of malformed patches; kube-apiserver treats an absent value as Warn.
   */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore' | '';
}

export type PatchOutcome = { ok: true; object: KubeObject } | { ok: false; error: StatusError };

/** The patch media types a kind accepts here, in kube's order (no server-side apply). */
export function supportedPatchTypes(schema: Pick<PatchSchema, 'group' | 'kind'>): string[] {
  // the route's Consumes list: the installer's for built-in kinds, the CRD handler's (no strategic merge) for custom
  // resources; both end with server-side apply's media type (CBOR apply only with the CBORServingAndStorage gate)
  return strategicMergeSchemaFor(schema) ? [JSONPatchType, MergePatchType, StrategicMergePatchType, ApplyYAMLPatchType] : [JSONPatchType, MergePatchType, ApplyYAMLPatchType];
}

/** negotiation.NewUnsupportedMediaTypeError */
function unsupportedMediaType(accepted: string[]): StatusError {
  return errors.unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/** NewGenericServerResponse(422, ...): kube keeps the reason out of the message. */
function genericUnprocessable(): StatusError {
  return errors.withCode(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** An error that is not a Status: kube answers 500 with no reason and the error's own text. */
function unknownError(message: string): StatusError {
  return errors.withCode(500, '', message);
}

// The json serializer's Interpret step, for a patched document that is not a JSON object.
const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
function notAnObject(doc: unknown): StatusError {
  const json = JSON.stringify(doc);
  return errors.invalid({ group: '', kind: '' }, '', [
    {
      type: 'Invalid',
      field: 'patch',
      badValue: json,
      detail: `couldn't get version/kind; json parse error: ${goUnmarshalTypeError(goJsonKind(doc), findKindType)}`,
    },
  ]);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const strictDecoding = (opts: PatchOptions) => opts.fieldValidation !== 'Ignore';
const clone = deepCopyJSON;

// kjson.UnmarshalStrict(patch, &[]jsonPatchOp): the first type error Go's decoder would keep.
function jsonPatchOpsTypeError(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return goUnmarshalTypeError(goJsonKind(value), '[]handlers.jsonPatchOp');
  for (const op of value) {
    if (op === null) continue;
    if (!isObject(op)) return goUnmarshalTypeError(goJsonKind(op), 'handlers.jsonPatchOp');
    for (const field of ['op', 'path', 'from']) {
      const v = op[field];
      if (v !== undefined && v !== null && typeof v !== 'string') return goUnmarshalFieldTypeError(goJsonKind(v), 'jsonPatchOp', field, 'string');
    }
  }
  return undefined;
}

// jsonpatch.DecodePatch(patch): json.Unmarshal into []map[string]*json.RawMessage.
function decodePatchTypeError(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return goUnmarshalTypeError(goJsonKind(value), 'jsonpatch.Patch');
  for (const op of value) if (op !== null && !isObject(op)) return goUnmarshalTypeError(goJsonKind(op), 'jsonpatch.Operation');
  return undefined;
}

function applyJsonPatchType(original: KubeObject, body: Buffer, opts: PatchOptions): PatchOutcome {
  const decoded = decodeGoJson(body);
  if (strictDecoding(opts)) {
    const strictErr = decoded.ok ? jsonPatchOpsTypeError(decoded.value) : decoded.message;
    if (strictErr !== undefined) return { ok: false, error: errors.badRequest(`error decoding patch: ${strictErr}`) };
  }
  if (!decoded.ok) return { ok: false, error: errors.badRequest(decoded.message) };
  const typeErr = decodePatchTypeError(decoded.value);
  if (typeErr !== undefined) return { ok: false, error: errors.badRequest(typeErr) };
  const ops = (decoded.value ?? []) as unknown[];
  if (ops.length > maxJSONPatchOperations) {
    return {
      ok: false,
      error: errors.withCode(413, 'RequestEntityTooLarge', `Request entity too large: The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${ops.length}`),
    };
  }
  const applied = applyJsonPatch(clone(original), ops);
  if (!applied.ok) return { ok: false, error: genericUnprocessable() };
  if (!isObject(applied.document)) return { ok: false, error: notAnObject(applied.document) };
  return { ok: true, object: applied.document as KubeObject };
}

function applyMergePatchType(original: KubeObject, body: Buffer, opts: PatchOptions): PatchOutcome {
  const decoded = decodeGoJson(body);
  if (strictDecoding(opts)) {
    const strictErr = !decoded.ok
      ? decoded.message
      : decoded.value !== null && !isObject(decoded.value)
        ? goUnmarshalTypeError(goJsonKind(decoded.value), 'map[string]interface {}')
        : undefined;
    if (strictErr !== undefined) return { ok: false, error: errors.badRequest(`error decoding patch: ${strictErr}`) };
  }
  const result = decoded.ok ? mergePatch(clone(original) as Record<string, unknown>, decoded.value) : undefined;
  if (result === undefined) return { ok: false, error: errors.badRequest('Invalid JSON Patch') };
  if (!isObject(result)) return { ok: false, error: notAnObject(result) };
  return { ok: true, object: result as KubeObject };
}

function applyStrategicMergePatchType(original: KubeObject, body: Buffer, schema: PatchSchema): PatchOutcome {
  const structSchema = strategicMergeSchemaFor(schema);
  if (!structSchema) return { ok: false, error: unsupportedMediaType(supportedPatchTypes(schema)) };
  const decoded = decodeGoJson(body);
  if (!decoded.ok) return { ok: false, error: errors.badRequest(decoded.message) };
  if (decoded.value !== null && !isObject(decoded.value)) {
    return { ok: false, error: errors.badRequest(goUnmarshalTypeError(goJsonKind(decoded.value), 'map[string]interface {}')) };
  }
  try {
    const patched = strategicMergePatch(clone(original) as Record<string, unknown>, decoded.value as Record<string, unknown> | null, structSchema);
    return { ok: true, object: patched as KubeObject };
  } catch (e) {
    if (!(e instanceof StrategicMergePatchError)) throw e;
    switch (e.errorClass) {
      case 'BadRequest':
        return { ok: false, error: errors.badRequest(e.message) };
      case 'Invalid':
        return { ok: false, error: genericUnprocessable() };
      case 'Internal':
        return { ok: false, error: unknownError(e.message) };
    }
  }
}

/**
 * Applies a PATCH body of the given Content-Type (parameters such as charset are ignored) to a copy of
 * `original`, with the result or kube-apiserver's Status error for it.
 */
export function tryApplyPatch(patchType: string, original: KubeObject, patchBody: Buffer | string, schema: PatchSchema, opts: PatchOptions = {}): PatchOutcome {
  const outcome = applyPatchOfType(patchType, original, patchBody, schema, opts);
  // A patch can nest deeper than its body (a JSON patch adds a deep value at a deep path, or copies a value into
  // itself): kube's decoder of the patched JSON refuses it (runtime.DecodeInto, 422 on "patch"), and here nothing
  // after the patch, which recurses per level, ever sees it.
  if (outcome.ok && objectExceedsNestingDepth(outcome.object)) {
    return {
      ok: false,
      error: errors.invalid({ group: '', kind: '' }, '', [{ type: 'Invalid', field: 'patch', detail: `couldn't get version/kind; json parse error: exceeded max depth of ${maxNestingDepth}` }]),
    };
  }
  return outcome;
}

function applyPatchOfType(patchType: string, original: KubeObject, patchBody: Buffer | string, schema: PatchSchema, opts: PatchOptions): PatchOutcome {
  const type = patchType.split(';')[0]!.trim().toLowerCase();
  const body = typeof patchBody === 'string' ? Buffer.from(patchBody, 'utf8') : patchBody;
  switch (type) {
    case JSONPatchType:
      return applyJsonPatchType(original, body, opts);
    case MergePatchType:
      return applyMergePatchType(original, body, opts);
    case StrategicMergePatchType:
      return applyStrategicMergePatchType(original, body, schema);
    case ApplyYAMLPatchType:
    case ApplyCBORPatchType:
      return {
        ok: false,
        error: errors.unsupportedMediaType(
          `server-side apply (${type}) is not supported by this server; use client-side apply (kubectl apply --server-side=false) or a JSON, merge or strategic merge patch`,
        ),
      };
    default:
      return { ok: false, error: unsupportedMediaType(supportedPatchTypes(schema)) };
  }
}

/**
 * tryApplyPatch for handlers that let Status errors propagate.
 * @throws StatusError
 */
export function applyPatch(patchType: string, original: KubeObject, patchBody: Buffer | string, schema: PatchSchema, opts: PatchOptions = {}): KubeObject {
  const outcome = tryApplyPatch(patchType, original, patchBody, schema, opts);
  if (!outcome.ok) throw outcome.error;
  return outcome.object;
}
