// JSON patch (RFC 6902) over fast-json-patch, with the operation set and leniencies of evanphx/json-patch,
// which kube-apiserver uses: add, remove, replace, move, copy and test; a missing "value" reads as null.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';

/** kube-apiserver's maxJSONPatchOperations */
export const maxJSONPatchOperations = 10000;

const supportedOps = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

export type JsonPatchApply = { ok: true; document: unknown } | { ok: false; reason: string };

/**
 * Applies decoded operations to a document (which it mutates). A failing operation, a failed test or an
 * unknown op is a failure with the reason; kube-apiserver does not pass that reason on to the client.
 */
export function applyJsonPatch(document: unknown, operations: readonly unknown[]): JsonPatchApply {
  let doc = document;
  for (let i = 0; i < operations.length; i++) {
    const raw = operations[i];
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'Unexpected kind: unknown' };
    const op = { ...(raw as Record<string, unknown>) };
    const kind = op['op'];
    if (typeof kind !== 'string' || !supportedOps.has(kind)) return { ok: false, reason: `Unexpected kind: ${typeof kind === 'string' ? kind : 'unknown'}` };
    if (typeof op['path'] !== 'string') return { ok: false, reason: 'operation missing path field' };
    if ((kind === 'move' || kind === 'copy') && typeof op['from'] !== 'string') return { ok: false, reason: 'operation missing from field' };
    if ((kind === 'add' || kind === 'replace' || kind === 'test') && op['value'] === undefined) op['value'] = null;
    try {
      doc = jsonpatch.applyOperation(doc, op as unknown as Operation, true, true, true, i).newDocument;
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  }
  return { ok: true, document: doc };
}
