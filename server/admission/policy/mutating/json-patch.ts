// patchType JSONPatch: kube's patch.jsonPatcher. The expression's `[JSONPatch{op, path, from, value}]` becomes a
// jsonpatch.Patch (op and path always, from when not empty, value when set — a null value included) and is applied
// with gopkg.in/evanphx/json-patch.v4, the library mutating webhooks' patches go through
// (server/admission/webhook/patch.ts, whose error texts are that library's). A failed "test" operation is not an
// error: the whole patch is then not applied. Pure: the object is not modified.
import { deepCopyJSON } from '../../../api/deep-copy.js';
import type { KubeObject } from '../../../api/types.js';
import { applyJsonPatch, type JsonPatchOperations } from '../../webhook/patch.js';
import { celTypeName } from '../generic/expressions.js';
import { pruneNulls } from './apply-configuration.js';
import { objectTypeMismatch } from './object-type-names.js';

export type JsonPatchOperationsResult = { ok: true; operations: JsonPatchOperations } | { ok: false; error: string };

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * evaluatePatchExpression: the operations of an evaluated JSONPatch expression. The compiler already refused any
 * result but list(JSONPatch) (../../cel/index.ts); the checks stay, as kube's patcher keeps them. An Object value
 * must be named after its field path ("type mismatch: …").
 */
export function jsonPatchOperationsOf(value: unknown): JsonPatchOperationsResult {
  if (!Array.isArray(value)) return { ok: false, error: `must evaluate to list(JSONPatch) but got ${celTypeName(value)}` };
  const operations: Array<Record<string, unknown>> = [];
  for (const element of value) {
    if (!isMap(element)) return { ok: false, error: `type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of ${celTypeName(element)}` };
    const op: Record<string, unknown> = {
      op: typeof element['op'] === 'string' ? element['op'] : '',
      path: typeof element['path'] === 'string' ? element['path'] : '',
    };
    if (typeof element['from'] === 'string' && element['from'].length > 0) op['from'] = element['from'];
    if ('value' in element) {
      const mismatch = objectTypeMismatch(element['value']);
      if (mismatch !== undefined) return { ok: false, error: mismatch };
      op['value'] = element['value'];
    }
    operations.push(op);
  }
  return { ok: true, operations };
}

export type JsonPatchMutationResult =
  /** applied false: a test operation failed and the object is returned unchanged (as a copy) */
  | { ok: true; object: KubeObject; applied: boolean }
  | { ok: false; error: string };

// jsonpatch.ErrTestFailed, as Patch.Apply wraps it: "testing value <path> failed: test failed"
const isTestFailure = (message: string): boolean => message.startsWith('testing value ') && message.endsWith(': test failed');

/**
 * Patch.Apply on the object's JSON. The result is read back as the typed object kube decodes it into, so null
 * fields disappear. The error is kube's "JSON Patch: <library message>".
 */
export function applyJsonPatchMutation(object: KubeObject, operations: JsonPatchOperations): JsonPatchMutationResult {
  const applied = applyJsonPatch(object, operations);
  if (!applied.ok) {
    // a failed test operation means the patch must not be applied
    if (isTestFailure(applied.error)) return { ok: true, object: deepCopyJSON(object), applied: false };
    return { ok: false, error: `JSON Patch: ${applied.error}` };
  }
  if (!isMap(applied.document)) return { ok: false, error: 'JSON Patch: the patched document is not an object' };
  return { ok: true, object: pruneNulls(applied.document) as KubeObject, applied: true };
}

/**
 * The strict decoding of the patched JSON into the typed object: fields the kind does not have. kube answers it
 * with an internal error, whatever the failurePolicy.
 */
export function strictDecodingError(unknown: readonly string[]): string | undefined {
  if (unknown.length === 0) return undefined;
  return `strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`;
}
