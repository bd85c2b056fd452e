// JSON merge patch (RFC 7386) as evanphx/json-patch's MergePatch applies it for kube-apiserver: objects
// merge recursively, null deletes, anything else replaces. Like that implementation, a value that lands
// where the original had no object has its nested object nulls pruned; arrays are taken as they are.

type JsonMap = Record<string, unknown>;

const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);
// A patch key is data: "__proto__" must become a property, not a prototype.
function setKey(m: JsonMap, k: string, v: unknown): void {
  Object.defineProperty(m, k, { value: v, writable: true, enumerable: true, configurable: true });
}

// pruneNulls: drop null members of objects, recursively (also inside arrays), keeping null array elements.
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((item) => (item === null ? null : pruneNulls(item)));
  if (isMap(v)) {
    const out: JsonMap = {};
    for (const [k, item] of Object.entries(v)) if (item !== null) setKey(out, k, pruneNulls(item));
    return out;
  }
  return v;
}

function mergeDocs(doc: JsonMap, patch: JsonMap): JsonMap {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = Object.prototype.hasOwnProperty.call(doc, k) ? doc[k] : undefined;
    if (cur === undefined || cur === null || !isMap(cur)) setKey(doc, k, pruneNulls(v));
    else if (!isMap(v)) setKey(doc, k, v);
    else setKey(doc, k, mergeDocs(cur, v));
  }
  return doc;
}

/**
 * The merge of a decoded patch into a decoded document. A patch object merges; a patch array becomes the
 * document (the caller then fails to read it as an object, as kube does); null or a scalar is not a merge
 * patch (undefined: kube's "Invalid JSON Patch").
 */
export function mergePatch(doc: JsonMap, patch: unknown): unknown {
  if (isMap(patch)) return mergeDocs(doc, patch);
  if (Array.isArray(patch)) return pruneNulls(patch);
  return undefined;
}
