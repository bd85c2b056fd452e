// A mutating webhook's JSONPatch, decoded and applied as kube-apiserver's mutating dispatcher does it with
// gopkg.in/evanphx/json-patch.v4: jsonpatch.DecodePatch, then Patch.Apply to the object's JSON. The error texts are
// that library's, since kube passes them to the client ("Internal error occurred: add operation does not apply: …").
// Pure: the input document is never modified.
import { deepCopyJSON } from '../../api/deep-copy.js';
import { maxNestingDepth, objectExceedsNestingDepth } from '../../api/nesting-depth.js';
import { goJsonKind, goJsonSyntaxError, goUnmarshalTypeError } from '../../endpoints/patch/go-json.js';

/** A decoded JSON patch: operations as the webhook sent them (fields not validated until applied). */
export type JsonPatchOperations = ReadonlyArray<Readonly<Record<string, unknown>>>;

export type DecodedPatch = { ok: true; operations: JsonPatchOperations } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** jsonpatch.DecodePatch: json.Unmarshal into []map[string]*json.RawMessage. */
export function decodeJsonPatch(bytes: Buffer): DecodedPatch {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) return { ok: false, error: syntax };
  const value = JSON.parse(bytes.toString('utf8')) as unknown;
  if (value === null) return { ok: true, operations: [] };
  if (!Array.isArray(value)) return { ok: false, error: goUnmarshalTypeError(goJsonKind(value), 'jsonpatch.Patch') };
  for (const op of value) {
    if (op !== null && !isObject(op)) return { ok: false, error: goUnmarshalTypeError(goJsonKind(op), 'jsonpatch.Operation') };
  }
  // a null element decodes to a nil map: an operation with no fields
  return { ok: true, operations: value.map((op) => (op === null ? {} : (op as Record<string, unknown>))) };
}

export type PatchApplyResult = { ok: true; document: unknown } | { ok: false; error: string };

type Container = { kind: 'doc'; value: Record<string, unknown> } | { kind: 'array'; value: unknown[] };

class PatchError extends Error {}

const missing = 'missing value';
const invalidIndex = 'invalid index referenced';
const testFailed = 'test failed';

// errors.Wrapf(err, format, ...): "<message>: <cause>"
const wrap = (cause: string, message: string): PatchError => new PatchError(`${message}: ${cause}`);

function decodePatchKey(k: string): string {
  return k.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** strconv.Atoi, with its error text */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new PatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  const n = Number(key);
  if (!Number.isSafeInteger(n)) throw new PatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`);
  return n;
}

function asContainer(v: unknown): Container | undefined {
  if (Array.isArray(v)) return { kind: 'array', value: v };
  if (isObject(v)) return { kind: 'doc', value: v };
  return undefined;
}

// container.get: undefined for a missing (or null) member; an error for a bad array index.
function get(c: Container, key: string): unknown {
  if (c.kind === 'doc') return c.value[key] ?? undefined;
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -c.value.length) throw wrap(invalidIndex, `Unable to access invalid index: ${idx}`);
    idx += c.value.length;
  }
  if (idx >= c.value.length) throw wrap(invalidIndex, `Unable to access invalid index: ${idx}`);
  return c.value[idx];
}

function add(c: Container, key: string, val: unknown): void {
  if (c.kind === 'doc') {
    c.value[key] = val;
    return;
  }
  if (key === '-') {
    c.value.push(val);
    return;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (e) {
    throw wrap((e as Error).message, `value was not a proper array index: '${key}'`);
  }
  const size = c.value.length + 1;
  if (idx >= size) throw wrap(invalidIndex, `Unable to access invalid index: ${idx}`);
  if (idx < 0) {
    if (idx < -size) throw wrap(invalidIndex, `Unable to access invalid index: ${idx}`);
    idx += size;
  }
  c.value.splice(idx, 0, val);
}

function set(c: Container, key: string, val: unknown): void {
  if (c.kind === 'doc') {
    c.value[key] = val;
    return;
  }
  let idx = atoi(key);
  if (idx < 0) idx += c.value.length;
  c.value[idx] = val;
}

function remove(c: Container, key: string): void {
  if (c.kind === 'doc') {
    if (!(key in c.value)) throw wrap(missing, `Unable to remove nonexistent key: ${key}`);
    delete c.value[key];
    return;
  }
  let idx = atoi(key);
  if (idx >= c.value.length) throw wrap(invalidIndex, `Unable to access invalid index: ${idx}`);
  if (idx < 0) {
    if (idx < -c.value.length) throw wrap(invalidIndex, `Unable to access invalid index: ${idx}`);
    idx += c.value.length;
  }
  c.value.splice(idx, 1);
}

// findObject: the container holding the path's last segment. The root itself ("") is never found.
function findObject(doc: Container, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let cur: Container = doc;
  for (const part of split.slice(1, -1)) {
    let next: unknown;
    try {
      next = get(cur, decodePatchKey(part));
    } catch {
      return undefined;
    }
    const c = asContainer(next);
    if (!c) return undefined;
    cur = c;
  }
  return { con: cur, key: decodePatchKey(split[split.length - 1]!) };
}

// Operation.Kind / Path / From: a field that is absent, null or not a string.
function opKind(op: Readonly<Record<string, unknown>>): string {
  const v = op['op'];
  return typeof v === 'string' ? v : 'unknown';
}
function opString(op: Readonly<Record<string, unknown>>, field: 'path' | 'from'): string | undefined {
  const v = op[field];
  return typeof v === 'string' ? v : undefined;
}
// A missing "value" is a nil node, written as null.
const opValue = (op: Readonly<Record<string, unknown>>): unknown => (op['value'] === undefined ? null : op['value']);

const clone = deepCopyJSON;

/** kube-apiserver's JSONPatchMaxCopyBytes (3 MiB), evanphx/json-patch's AccumulatedCopySizeLimit. */
const maxCopyBytes = 3 * 1024 * 1024;

/** The JSON size of a copied value, as json-patch measures it; a value too deep to serialize is past any limit. */
function copySize(v: unknown): number {
  try {
    return JSON.stringify(v ?? null).length;
  } catch {
    return Infinity;
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

function applyOne(doc: Container, op: Readonly<Record<string, unknown>>, budget: { copied: number }): void {
  const kind = opKind(op);
  const path = opString(op, 'path');
  switch (kind) {
    case 'add': {
      if (path === undefined) throw wrap(missing, 'add operation failed to decode path');
      const f = findObject(doc, path);
      if (!f) throw wrap(missing, `add operation does not apply: doc is missing path: "${path}"`);
      try {
        add(f.con, f.key, clone(opValue(op)));
      } catch (e) {
        throw wrap((e as Error).message, `error in add for path: '${path}'`);
      }
      return;
    }
    case 'remove': {
      if (path === undefined) throw wrap(`operation missing path field: ${missing}`, 'remove operation failed to decode path');
      const f = findObject(doc, path);
      if (!f) throw wrap(missing, `remove operation does not apply: doc is missing path: "${path}"`);
      try {
        remove(f.con, f.key);
      } catch (e) {
        throw wrap((e as Error).message, `error in remove for path: '${path}'`);
      }
      return;
    }
    case 'replace': {
      if (path === undefined) throw wrap(`operation missing path field: ${missing}`, 'replace operation failed to decode path');
      const f = findObject(doc, path);
      if (!f) throw wrap(missing, `replace operation does not apply: doc is missing path: ${path}`);
      try {
        get(f.con, f.key);
      } catch {
        throw wrap(missing, `replace operation does not apply: doc is missing key: ${path}`);
      }
      set(f.con, f.key, clone(opValue(op)));
      return;
    }
    case 'move': {
      const from = opString(op, 'from');
      if (from === undefined) throw wrap(`operation missing from field: ${missing}`, 'move operation failed to decode from');
      const src = findObject(doc, from);
      if (!src) throw wrap(missing, `move operation does not apply: doc is missing from path: ${from}`);
      let val: unknown;
      try {
        val = get(src.con, src.key);
        remove(src.con, src.key);
      } catch (e) {
        throw wrap((e as Error).message, `error in move for path: '${src.key}'`);
      }
      if (path === undefined) throw wrap(`operation missing path field: ${missing}`, 'move operation failed to decode path');
      const dst = findObject(doc, path);
      if (!dst) throw wrap(missing, `move operation does not apply: doc is missing destination path: ${path}`);
      try {
        add(dst.con, dst.key, val ?? null);
      } catch (e) {
        throw wrap((e as Error).message, `error in move for path: '${path}'`);
      }
      return;
    }
    case 'copy': {
      const from = opString(op, 'from');
      if (from === undefined) throw wrap(`operation missing from field: ${missing}`, 'copy operation failed to decode from');
      const src = findObject(doc, from);
      if (!src) throw wrap(missing, `copy operation does not apply: doc is missing from path: ${from}`);
      let val: unknown;
      try {
        val = get(src.con, src.key);
      } catch (e) {
        throw wrap((e as Error).message, `error in copy for from: '${from}'`);
      }
      if (path === undefined) throw wrap(`operation missing path field: ${missing}`, 'copy operation failed to decode path');
      // AccumulatedCopySizeLimit, which kube-apiserver sets to JSONPatchMaxCopyBytes: a few copies of a copy would
      // otherwise double the document again and again
      budget.copied += copySize(val);
      if (budget.copied > maxCopyBytes) throw new PatchError(`Unable to complete the copy, the accumulated size increase of copy is ${budget.copied}, exceeding the limit ${maxCopyBytes}`);
      const dst = findObject(doc, path);
      if (!dst) throw wrap(missing, `copy operation does not apply: doc is missing destination path: ${path}`);
      try {
        add(dst.con, dst.key, val === undefined ? null : clone(val));
      } catch (e) {
        throw wrap((e as Error).message, 'error while adding value during copy');
      }
      return;
    }
    case 'test': {
      if (path === undefined) throw wrap(`operation missing path field: ${missing}`, 'test operation failed to decode path');
      const f = findObject(doc, path);
      if (!f) throw wrap(missing, `test operation does not apply: is missing path: ${path}`);
      let val: unknown;
      try {
        val = get(f.con, f.key);
      } catch (e) {
        throw wrap((e as Error).message, `error in test for path: '${path}'`);
      }
      const want = op['value'] ?? null;
      if ((val ?? null) === null && want === null) return;
      if (deepEqual(val ?? null, want)) return;
      throw wrap(testFailed, `testing value ${path} failed`);
    }
    default:
      throw new PatchError(`Unexpected kind: ${kind}`);
  }
}

/**
 * Patch.Apply on a copy of `document` (an object or array). The first failing operation ends it, with
 * evanphx/json-patch v4's message. Replacing the whole document ("" path) is not possible, as in v4.
 */
export function applyJsonPatch(document: unknown, operations: JsonPatchOperations): PatchApplyResult {
  const root = asContainer(clone(document));
  if (!root) return { ok: false, error: 'json: cannot unmarshal into a patchable document' };
  const budget = { copied: 0 };
  try {
    for (const op of operations) applyOne(root, op, budget);
  } catch (e) {
    if (e instanceof PatchError) return { ok: false, error: e.message };
    throw e;
  }
  // the decoder of the patched object refuses what nests too deep, before anything walks it
  if (objectExceedsNestingDepth(root.value)) return { ok: false, error: `the patched object nests deeper than ${maxNestingDepth} levels` };
  return { ok: true, document: root.value };
}
