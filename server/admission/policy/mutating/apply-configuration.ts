// patchType ApplyConfiguration: kube's patch.ApplyStructuredMergeDiff. The expression's `Object{…}` is converted to
// a typed value (unknown fields and malformed associative lists are errors), refused when it touches an atomic list,
// map or struct (validatePatch), and merged into the object as structured-merge-diff's TypedValue.Merge does:
// structs and maps merge field by field, scalars are replaced, associative lists merge element by element on their
// keys, sets merge by value, atomic lists are replaced. A null in the patch removes the field (the typed object kube
// converts the result back to has no nulls). The schema is ./apply-schema.ts; its header says what it covers.
// Pure: neither input is modified.
import { deepCopyJSON } from '../../../api/deep-copy.js';
import type { KubeObject } from '../../../api/types.js';
import { fieldNode, isUndeclaredField, listElementNode, type ApplyNode, type ApplySchema, type ListMapKey } from './apply-schema.js';

export type ApplyConfigurationResult = { ok: true; object: KubeObject } | { ok: false; error: string };

type JsonMap = Record<string, unknown>;

const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** smd's ValidationError: "<path>: <message>", the path left out at the root. */
interface ValidationError {
  path: string;
  message: string;
}

/** ValidationErrors.Error(): one error bare, several under "errors:". */
function validationErrorsString(errs: readonly ValidationError[]): string {
  const one = (e: ValidationError): string => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errs.length === 1) return one(errs[0]!);
  return ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

/** value.ToString of a key value, as path elements print it: strings quoted, numbers and booleans bare. */
function keyValueString(v: unknown): string {
  return JSON.stringify(v) ?? 'null';
}

interface PathElement {
  /** identity of the element: equal strings are the same element */
  readonly id: string;
  /** PathElement.String(): [name="x"], [containerPort=80,protocol="TCP"], [="a"] */
  readonly text: string;
}

type ElementKey = { ok: true; pe: PathElement } | { ok: false; error: string };

// keyedAssociativeListItemToPathElement: every key present (or defaulted), keys sorted by name.
function keyedElement(keys: readonly ListMapKey[], child: unknown): ElementKey {
  if (child === null || child === undefined) return { ok: false, error: 'associative list with keys may not have a null element' };
  if (!isMap(child)) return { ok: false, error: 'associative list with keys may not have non-map elements' };
  const fields: Array<[string, unknown]> = [];
  for (const key of keys) {
    let v = child[key.name];
    if (v === undefined) {
      if (key.default === undefined) return { ok: false, error: `associative list with keys has an element that omits key field ${JSON.stringify(key.name)} (and doesn't have default value)` };
      v = key.default;
    }
    fields.push([key.name, v]);
  }
  fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = `[${fields.map(([k, v]) => `${k}=${keyValueString(v)}`).join(',')}]`;
  return { ok: true, pe: { id: text, text } };
}

// setItemToPathElement
function setElement(child: unknown): ElementKey {
  if (isMap(child)) return { ok: false, error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(child)) return { ok: false, error: 'not supported: associative list with lists as elements' };
  if (child === null || child === undefined) return { ok: false, error: "associative list without keys has an element that's an explicit null" };
  const text = `[=${keyValueString(child)}]`;
  return { ok: true, pe: { id: text, text } };
}

function elementKey(node: ApplyNode, child: unknown): ElementKey {
  return node.type === 'associativeList' ? keyedElement(node.keys, child) : setElement(child);
}

const isAssociative = (node: ApplyNode): node is Extract<ApplyNode, { type: 'associativeList' | 'setList' }> => node.type === 'associativeList' || node.type === 'setList';

const elementNode = (node: ApplyNode): ApplyNode => listElementNode(node) ?? { type: 'typedField' };

/**
 * The validating walker of ObjectToTyped, for what this server's schema knows: fields a closed struct does not
 * declare (for the patch: the live object comes from storage), and associative lists with well-formed, distinct
 * keys (duplicates are accepted in the live object, as kube converts it with AllowDuplicates). The first bad
 * element of a list ends the walk of that list.
 */
function validateValue(value: unknown, node: ApplyNode, path: string, live: boolean, errs: ValidationError[]): void {
  if (node.type === 'deduced') return;
  if (node.type === 'atomicStruct') {
    if (node.shape) validateValue(value, node.shape(), path, live, errs);
    return;
  }
  if (node.type === 'atomicList') {
    const element = node.element?.();
    if (element && Array.isArray(value)) value.forEach((v, i) => validateValue(v, element, `${path}[${i}]`, live, errs));
    return;
  }
  if (isMap(value)) {
    if (node.type !== 'struct' && node.type !== 'typedField' && node.type !== 'map') return;
    for (const [k, v] of Object.entries(value)) {
      if (!live && isUndeclaredField(node, k)) errs.push({ path: `${path}.${k}`, message: 'field not declared in schema' });
      else validateValue(v, fieldNode(node, k), `${path}.${k}`, live, errs);
    }
    return;
  }
  if (!Array.isArray(value) || !isAssociative(node)) return;
  const seen = new Set<string>();
  const element = elementNode(node);
  for (let i = 0; i < value.length; i++) {
    const key = elementKey(node, value[i]);
    if (!key.ok) {
      errs.push({ path, message: `element ${i}: ${key.error}` });
      return;
    }
    if (seen.has(key.pe.id) && !live) errs.push({ path, message: `duplicate entries for key ${key.pe.text}` });
    seen.add(key.pe.id);
    if (node.type === 'associativeList') validateValue(value[i], element, `${path}${key.pe.text}`, live, errs);
  }
}

/**
 * validatePatch / findAtomics: the paths of the atomic lists, maps and structs the patch sets. Elements are
 * addressed by index, as kube prints them. A deduced (schemaless) value has none.
 */
export function findAtomics(value: unknown, node: ApplyNode, path = ''): string[] {
  const out: string[] = [];
  if (node.type === 'deduced') return out;
  if (isMap(value)) {
    if (node.type === 'atomicStruct') out.push(path);
    if (node.type === 'struct' || node.type === 'typedField' || node.type === 'atomicStruct' || node.type === 'map') {
      for (const [k, v] of Object.entries(value)) out.push(...findAtomics(v, fieldNode(node, k), `${path}.${k}`));
    }
    return out;
  }
  if (Array.isArray(value)) {
    if (!isAssociative(node)) out.push(path);
    const element = elementNode(node);
    value.forEach((v, i) => out.push(...findAtomics(v, element, `${path}[${i}]`)));
  }
  return out;
}

const clone = deepCopyJSON;

/** mergingWalker over one value: the live value (lhs) and the patch's (rhs). */
function mergeValue(lhs: unknown, rhs: unknown, node: ApplyNode): unknown {
  if (rhs === undefined) return lhs;
  if (rhs === null) return null;
  if (node.type === 'atomicStruct' || node.type === 'atomicList') return clone(rhs);
  if (isMap(rhs)) {
    if (!isMap(lhs)) return mergeMap({}, rhs, node);
    return mergeMap(lhs, rhs, node);
  }
  if (Array.isArray(rhs)) {
    if (isAssociative(node) && Array.isArray(lhs)) return mergeList(lhs, rhs, node);
    if (isAssociative(node)) return mergeList([], rhs, node);
    return clone(rhs);
  }
  return rhs;
}

function mergeMap(lhs: JsonMap, rhs: JsonMap, node: ApplyNode): JsonMap {
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(lhs)) out[k] = k in rhs ? mergeValue(v, rhs[k], fieldNode(node, k)) : clone(v);
  for (const [k, v] of Object.entries(rhs)) if (!(k in lhs)) out[k] = mergeValue(undefined, v, fieldNode(node, k));
  return out;
}

interface IndexedList {
  pes: PathElement[];
  /** the element of each path element */
  items: unknown[];
  /** by element id: the element, or null when it is duplicated (duplicates are not merged with the patch) */
  observed: Map<string, unknown>;
}

function indexList(list: readonly unknown[], node: ApplyNode): IndexedList {
  const pes: PathElement[] = [];
  const items: unknown[] = [];
  const observed = new Map<string, unknown>();
  for (const child of list) {
    const key = elementKey(node, child);
    // validation ran before the merge; an element without a key cannot be placed
    if (!key.ok) continue;
    observed.set(key.pe.id, observed.has(key.pe.id) ? null : child);
    pes.push(key.pe);
    items.push(child);
  }
  return { pes, items, observed };
}

/**
 * visitListItems: the live order is kept; patch elements shared with the live list are merged in place in the
 * patch's order, the patch's new elements go after the live element they follow in the patch.
 */
function mergeList(lhs: readonly unknown[], rhs: readonly unknown[], node: Extract<ApplyNode, { type: 'associativeList' | 'setList' }>): unknown[] {
  const element = elementNode(node);
  const l = indexList(lhs, node);
  const r = indexList(rhs, node);
  const sharedOrder = r.pes.filter((pe) => l.observed.has(pe.id));
  let next = 0;
  const nextShared = (): PathElement | undefined => sharedOrder[next];
  const merged = new Set<string>();
  const out: unknown[] = [];
  // a duplicated live element is not merged: the patch's element replaces it
  const mergeItem = (lChild: unknown, rChild: unknown): void => {
    out.push(node.type === 'setList' ? rChild : mergeValue(lChild ?? undefined, rChild, element));
  };
  let li = 0;
  let ri = 0;
  while (li < l.pes.length || ri < r.pes.length) {
    if (li < l.pes.length && ri < r.pes.length) {
      const pe = l.pes[li]!;
      if (pe.id === r.pes[ri]!.id) {
        merged.add(pe.id);
        mergeItem(l.observed.get(pe.id), r.observed.get(pe.id));
        li++;
        ri++;
        if (nextShared()?.id === pe.id) next++;
        continue;
      }
      const shared = nextShared();
      if (r.observed.has(pe.id) && shared !== undefined && shared.id !== pe.id) {
        // shared, but not the one the patch wants next
        li++;
        continue;
      }
    }
    if (li < l.pes.length) {
      const pe = l.pes[li]!;
      if (!r.observed.has(pe.id)) {
        out.push(clone(l.items[li]));
        li++;
        continue;
      }
      if (merged.has(pe.id)) {
        li++;
        continue;
      }
    }
    if (ri < r.pes.length) {
      const pe = r.pes[ri]!;
      merged.add(pe.id);
      mergeItem(l.observed.get(pe.id), r.observed.get(pe.id));
      ri++;
      if (nextShared()?.id === pe.id) next++;
    }
  }
  return out;
}

/** Drops null-valued fields, as converting the result back to the typed object does. */
export function pruneNulls<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => pruneNulls(x)) as T;
  if (!isMap(v)) return v;
  const out: JsonMap = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
  return out as T;
}

/**
 * ApplyStructuredMergeDiff: `patch` is the expression's Object (its apiVersion and kind are the object's, as kube
 * sets them). The error texts are kube's, without the "error applying patch: " the caller adds.
 */
export function applyStructuredMergeDiff(live: KubeObject, patch: JsonMap, schema: ApplySchema): ApplyConfigurationResult {
  const typedPatch: JsonMap = { ...patch };
  if (live.apiVersion !== undefined) typedPatch['apiVersion'] = live.apiVersion;
  if (live.kind !== undefined) typedPatch['kind'] = live.kind;

  // a closed schema finds undeclared fields at every depth while validating; the patch tags know the top levels
  const patchErrors: ValidationError[] = schema.closed ? [] : schema.unknownFields(typedPatch).map((p) => ({ path: `.${p}`, message: 'field not declared in schema' }));
  validateValue(typedPatch, schema.root, '', false, patchErrors);
  if (patchErrors.length > 0) return { ok: false, error: `failed to convert patch object to typed object: ${validationErrorsString(patchErrors)}` };

  const atomics = findAtomics(typedPatch, schema.root);
  if (atomics.length > 0) return { ok: false, error: `invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}` };

  const liveErrors: ValidationError[] = [];
  validateValue(live, schema.root, '', true, liveErrors);
  if (liveErrors.length > 0) return { ok: false, error: `failed to convert original object to typed object: ${validationErrorsString(liveErrors)}` };

  const merged = mergeValue(live, typedPatch, schema.root) as KubeObject;
  return { ok: true, object: pruneNulls(merged) };
}

/** Why server-side apply could not merge: the configuration or the live object is not of the kind's schema. */
export type AppliedConfigurationResult = { ok: true; object: KubeObject } | { ok: false; object: 'patch' | 'live'; error: string };

/**
 * Server-side apply's merge (kube's Updater.Apply → TypedValue.Merge): the configuration is validated and merged as
 * ApplyStructuredMergeDiff does, but it may set atomic lists, maps and structs (they are replaced). Nulls are kept,
 * for the caller to see which fields the configuration names.
 */
export function mergeAppliedConfiguration(live: KubeObject, config: JsonMap, schema: ApplySchema): AppliedConfigurationResult {
  const patchErrors: ValidationError[] = schema.closed ? [] : schema.unknownFields(config).map((p) => ({ path: `.${p}`, message: 'field not declared in schema' }));
  validateValue(config, schema.root, '', false, patchErrors);
  if (patchErrors.length > 0) return { ok: false, object: 'patch', error: validationErrorsString(patchErrors) };
  const liveErrors: ValidationError[] = [];
  validateValue(live, schema.root, '', true, liveErrors);
  if (liveErrors.length > 0) return { ok: false, object: 'live', error: validationErrorsString(liveErrors) };
  return { ok: true, object: mergeValue(live, config, schema.root) as KubeObject };
}
