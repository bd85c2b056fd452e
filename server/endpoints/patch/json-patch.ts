// JSON patch (RFC 6902) over fast-json-patch, with the operation set and leniencies of evanphx/json-patch,
// which kube-apiserver uses: add, remove, replace, move, copy and test; a missing "value" reads as null.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';

/** kube-apiserver's maxJSONPatchOperations */
export const maxJSONPatchOperations = 10000;

/**
 * kube-apiserver's JSONPatchMaxCopyBytes (3 MiB, set as evanphx/json-patch's AccumulatedCopySizeLimit): what all
 * "copy" operations of one patch may add, so that a short patch cannot double a document again and again.
 */
export const maxJSONPatchCopyBytes = 3 * 1024 * 1024;

const supportedOps = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

export type JsonPatchApply = { ok: true; document: unknown } | { ok: false; reason: string };

/**
 * Applies decoded operations to a document (which it mutates). A failing operation, a failed test or an
 * unknown op is a failure with the reason; kube-apiserver does not pass that reason on to the client.
 */
export function applyJsonPatch(document: unknown, operations: readonly unknown[]): JsonPatchApply {
  let doc = document;
  let copied = 0;
  for (let i = 0; i < operations.length; i++) {
    const raw = operations[i];
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'Unexpected kind: unknown' };
    const op = { ...(raw as Record<string, unknown>) };
    const kind = op['op'];
    if (typeof kind !== 'string' || !supportedOps.has(kind)) return { ok: false, reason: `Unexpected kind: ${typeof kind === 'string' ? kind : 'unknown'}` };
    if (typeof op['path'] !== 'string') return { ok: false, reason: 'operation missing path field' };
    if ((kind === 'move' || kind === 'copy') && typeof op['from'] !== 'string') return { ok: false, reason: 'operation missing from field' };
    if ((kind === 'add' || kind === 'replace' || kind === 'test') && op['value'] === undefined) op['value'] = null;
    if (kind === 'copy') {
      // evanphx/json-patch counts the copied value's JSON size before copying it.
      let value: unknown;
      try {
        value = jsonpatch.getValueByPointer(doc, op['from'] as string);
      } catch {
        value = undefined;
      }
      if (value !== undefined) {
        try {
          copied += JSON.stringify(value)?.length ?? 0;
        } catch {
          // too deep to serialize (RangeError): far past any limit
          copied = Infinity;
        }
        if (copied > maxJSONPatchCopyBytes) {
          return { ok: false, reason: `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${maxJSONPatchCopyBytes}` };
        }
      }
    }
    try {
      doc = jsonpatch.applyOperation(doc, op as unknown as Operation, true, true, true, i).newDocument;
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  }
  return { ok: true, document: doc };
}
