// The three walks of structured-merge-diff that field ownership needs, over plain JSON guided by the apply schema
// (server/admission/policy/mutating/apply-schema.ts, the one MutatingAdmissionPolicy uses):
//   toFieldSet  TypedValue.ToFieldSet: the fields an applied configuration sets;
//   compare     TypedValue.Compare: what an update added, modified and removed;
//   prune       Updater.prune: drop what a manager applied before and no longer applies, unless someone owns it.
// Pure: inputs are never modified.
import { fieldNode, listElementNode, type ApplyNode, type ListMapKey } from '../../admission/policy/mutating/apply-schema.js';
import { childSet, emptyFieldSet, hasPathOrBelow, type FieldSet } from './field-set.js';

type JsonMap = Record<string, unknown>;
const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);
const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;

// The node of a list's elements (apply-schema builds a typed list's element node once, on first use).
const untypedElement: ApplyNode = Object.freeze({ type: 'typedField' });
const elementNodeOf = (node: ApplyNode): ApplyNode => listElementNode(node) ?? untypedElement;

// The `f:` path element of each field name, kept (up to a bound): the same string every time is hashed once for the
// sets, and is a property key FieldsV1 objects already know; a new concatenation is hashed and interned every time.
// Only names of a field's usual length are kept: the walk runs before validation, so a map key may be as long as the
// body allows, and 10,000 of those must not stay in memory.
const fieldElements = new Map<string, string>();
const maxKeptFieldName = 64;
function fieldElement(name: string): string {
  if (name.length > maxKeptFieldName) return `f:${name}`;
  let key = fieldElements.get(name);
  if (key === undefined) {
    if (fieldElements.size >= 10_000) fieldElements.clear();
    key = `f:${name}`;
    fieldElements.set(name, key);
  }
  return key;
}

/** Whether the schema says how the object is typed (built-in kinds) rather than unstructured (custom resources). */
export interface WalkOptions {
  typed: boolean;
}

/** Struct fields are "named" (smd only lists them as members when empty); map keys always are members. */
function isNamedField(parent: ApplyNode): boolean {
  return parent.type === 'struct' || parent.type === 'typedField' || parent.type === 'atomicStruct';
}

function isAtomic(node: ApplyNode): boolean {
  return node.type === 'atomicStruct' || node.type === 'atomicList';
}

function isGranularList(node: ApplyNode): node is Extract<ApplyNode, { type: 'associativeList' | 'setList' }> {
  return node.type === 'associativeList' || node.type === 'setList';
}

/** The FieldsV1 key of a list element: `k:{"name":"c"}` by its (defaulted) keys, `v:"x"` for a set. */
export function listElementKey(node: ApplyNode, item: unknown): string | undefined {
  if (node.type === 'setList') return isMap(item) || Array.isArray(item) || item === null || item === undefined ? undefined : `v:${JSON.stringify(item)}`;
  if (node.type !== 'associativeList' || !isMap(item)) return undefined;
  const format = elementKeyFormatOf(node);
  if (format !== undefined) {
    let out = 'k:{';
    for (let i = 0; i < format.keys.length; i++) {
      const key = format.keys[i]!;
      const v = item[key.name] ?? key.default;
      if (v === undefined) return undefined;
      const t = typeof v;
      if (t !== 'string' && t !== 'number' && t !== 'boolean') return stringifiedElementKey(node, item);
      out += format.prefixes[i]! + JSON.stringify(v);
    }
    return `${out}}`;
  }
  return stringifiedElementKey(node, item);
}

function stringifiedElementKey(node: Extract<ApplyNode, { type: 'associativeList' }>, item: JsonMap): string | undefined {
  const fields: Array<[string, unknown]> = [];
  for (const key of node.keys) {
    const v = item[key.name] ?? key.default;
    if (v === undefined) return undefined;
    fields.push([key.name, v]);
  }
  fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `k:${JSON.stringify(Object.fromEntries(fields))}`;
}

/** An associative list's keys in the order its element keys write them, each with its `"name":` (`,"name":` after the first). */
interface ElementKeyFormat {
  keys: readonly ListMapKey[];
  prefixes: readonly string[];
}

// Built once per list node. Without one (undefined) the key is stringified from an object, as it always was: when
// two keys share a name, or a name is all digits (an object writes those first, in numeric order).
const elementKeyFormats = new WeakMap<ApplyNode, ElementKeyFormat | undefined>();
function elementKeyFormatOf(node: Extract<ApplyNode, { type: 'associativeList' }>): ElementKeyFormat | undefined {
  if (elementKeyFormats.has(node)) return elementKeyFormats.get(node);
  const names = node.keys.map((k) => k.name);
  const plain = new Set(names).size === names.length && names.every((n) => !/^[0-9]+$/.test(n));
  const keys = [...node.keys].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const format = plain ? { keys, prefixes: keys.map((k, i) => `${i === 0 ? '' : ','}${JSON.stringify(k.name)}:`) } : undefined;
  elementKeyFormats.set(node, format);
  return format;
}

/** TypedValue.ToFieldSet of an object (the root is walked field by field, never a member itself). */
export function toFieldSet(obj: JsonMap, root: ApplyNode): FieldSet {
  const set = emptyFieldSet();
  visitMapFields(obj, root, set);
  return set;
}

function visitMapFields(value: JsonMap, node: ApplyNode, set: FieldSet): void {
  const named = isNamedField(node);
  for (const [k, v] of Object.entries(value)) {
    const key = fieldElement(k);
    collect(v, fieldNode(node, k), set, key);
    // toFieldSetWalker.visitMapItems: map entries are members; struct fields only when null or empty
    if (!named || v === null || (isMap(v) && Object.keys(v).length === 0)) set.members.add(key);
  }
}

function collect(value: unknown, node: ApplyNode, parent: FieldSet, key: string): void {
  if (isAtomic(node) || value === null || value === undefined) {
    parent.members.add(key);
    return;
  }
  if (isMap(value)) {
    visitMapFields(value, node, childSet(parent, key));
    return;
  }
  if (Array.isArray(value) && isGranularList(node)) {
    const here = childSet(parent, key);
    const element = elementNodeOf(node);
    for (const item of value) {
      const pe = listElementKey(node, item);
      if (pe === undefined) continue;
      if (node.type === 'associativeList' && isMap(item)) visitMapFields(item, element, childSet(here, pe));
      here.members.add(pe);
    }
    return;
  }
  // scalars, and lists that are atomic (explicitly, or by having no list type)
  parent.members.add(key);
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const jsonEqual = (a: unknown, b: unknown): boolean => {
  // strings and booleans serialize alike exactly when they are equal, and so do finite numbers (0 and -0 both as 0)
  const ta = typeof a;
  if (ta === typeof b && (ta === 'string' || ta === 'boolean' || (ta === 'number' && Number.isFinite(a) && Number.isFinite(b)))) return a === b;
  return sameJson(a, b) || JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
};

/**
 * Whether two values are certainly the same JSON once canonical: the same keys (in any order) and the same
 * strings, booleans, finite numbers and nulls at every place. False means "not shown equal" (undefined, NaN and
 * other values JSON writes its own way), which the caller settles by serializing, as it always did: most values
 * an update compares are unchanged, and serializing both sides cost more than the rest of their walk.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === null) return b === null;
  const ta = typeof a;
  if (ta !== typeof b) return false;
  if (ta === 'string' || ta === 'boolean') return a === b;
  if (ta === 'number') return a === b && Number.isFinite(a);
  if (ta !== 'object' || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as JsonMap;
  const y = b as JsonMap;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!propertyIsEnumerable.call(y, k) || !sameJson(x[k], y[k])) return false;
  return true;
}
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isMap(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, canonical(v[k])]),
  );
}

/**
 * One level of the compare walk: its sets in the three results, each created in its parent's set when the walk
 * first records something there. Creating all three at every level walked cost more than the rest of the walk of a
 * create (where only `added` ever gets anything), and leaves the results compact (no empty child sets).
 */
interface Level {
  readonly parent: Level | undefined;
  readonly key: string;
  added: FieldSet | undefined;
  modified: FieldSet | undefined;
  removed: FieldSet | undefined;
}

const below = (parent: Level, key: string): Level => ({ parent, key, added: undefined, modified: undefined, removed: undefined });
// the root level has all three sets, so `parent` is set wherever a set is still missing
const addedAt = (l: Level): FieldSet => (l.added ??= childSet(addedAt(l.parent!), l.key));
const modifiedAt = (l: Level): FieldSet => (l.modified ??= childSet(modifiedAt(l.parent!), l.key));
const removedAt = (l: Level): FieldSet => (l.removed ??= childSet(removedAt(l.parent!), l.key));

/**
 * TypedValue.Compare(lhs, rhs): leaves (scalars, atomics, empty values) compared by value, the rest walked. The
 * results are compact: a child set is there only when something below it was added, modified or removed.
 */
export function compareObjects(lhs: JsonMap, rhs: JsonMap, root: ApplyNode, opts: WalkOptions): Comparison {
  const c: Comparison = { added: emptyFieldSet(), modified: emptyFieldSet(), removed: emptyFieldSet() };
  compareMapFields(lhs, rhs, root, { parent: undefined, key: '', added: c.added, modified: c.modified, removed: c.removed }, opts);
  return c;
}

function compareMapFields(lhs: JsonMap | undefined, rhs: JsonMap | undefined, node: ApplyNode, at: Level, opts: WalkOptions): void {
  const named = isNamedField(node);
  // the keys of lhs, then those only rhs has (Object.keys: own and enumerable); values are read as they always
  // were, lhs?.[k], inherited ones included
  if (lhs !== undefined) for (const k of Object.keys(lhs)) compareValue(lhs[k], rhs?.[k], fieldNode(node, k), at, fieldElement(k), named, opts);
  if (rhs === undefined) return;
  for (const k of Object.keys(rhs)) {
    if (lhs !== undefined && propertyIsEnumerable.call(lhs, k)) continue;
    compareValue(lhs?.[k], rhs[k], fieldNode(node, k), at, fieldElement(k), named, opts);
  }
}

const isEmptyValue = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

function compareValue(l: unknown, r: unknown, node: ApplyNode, at: Level, key: string, named: boolean, opts: WalkOptions): void {
  const lMap = isMap(l);
  const rMap = isMap(r);
  const granularMap = (lMap || rMap) && (lMap || l === undefined) && (rMap || r === undefined) && !isAtomic(node);
  const granularList = !granularMap && (Array.isArray(l) || l === undefined) && (Array.isArray(r) || r === undefined) && isGranularList(node);
  const leaf = !(granularMap || granularList) || (isEmptyValue(l) && isEmptyValue(r));
  if (leaf) {
    if (l === undefined) addedAt(at).members.add(key);
    else if (r === undefined) removedAt(at).members.add(key);
    else if (!jsonEqual(l, r)) modifiedAt(at).members.add(key);
    return;
  }
  // A granular value that appears or disappears is itself added or removed (smd's compare), except that a
  // typed kind's struct fields always exist in Go (zero values), and so does PodSpec.containers (no omitempty).
  const zeroValueExists = opts.typed && ((named && granularMap && node.type !== 'map') || key === 'f:containers');
  if (l === undefined && !zeroValueExists) addedAt(at).members.add(key);
  if (r === undefined && !zeroValueExists) removedAt(at).members.add(key);
  const here = below(at, key);
  if (granularMap) {
    compareMapFields(lMap ? l : undefined, rMap ? r : undefined, node, here, opts);
    return;
  }
  const element = elementNodeOf(node);
  const left = indexList(node, Array.isArray(l) ? l : []);
  const right = indexList(node, Array.isArray(r) ? r : []);
  for (const [pe, rItem] of right) {
    const lItem = left.get(pe);
    compareItem(lItem, rItem, node, element, here, pe, opts);
  }
  for (const [pe, lItem] of left) if (!right.has(pe)) compareItem(lItem, undefined, node, element, here, pe, opts);
}

function compareItem(l: unknown, r: unknown, list: ApplyNode, element: ApplyNode, at: Level, pe: string, opts: WalkOptions): void {
  if (list.type === 'setList') {
    if (l === undefined) addedAt(at).members.add(pe);
    else if (r === undefined) removedAt(at).members.add(pe);
    return;
  }
  if (isMap(l) || isMap(r)) {
    if (l === undefined) addedAt(at).members.add(pe);
    if (r === undefined) removedAt(at).members.add(pe);
    compareMapFields(isMap(l) ? l : undefined, isMap(r) ? r : undefined, element, below(at, pe), opts);
    return;
  }
  if (l === undefined) addedAt(at).members.add(pe);
  else if (r === undefined) removedAt(at).members.add(pe);
  else if (!jsonEqual(l, r)) modifiedAt(at).members.add(pe);
}

function indexList(node: ApplyNode, list: readonly unknown[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const item of list) {
    const pe = listElementKey(node, item);
    if (pe !== undefined && !out.has(pe)) out.set(pe, item);
  }
  return out;
}

/**
 * Updater.prune: what the manager applied last time (`lastApplied`) and nobody owns now (`owned`, the applier's new
 * set included) is removed; a value with owned fields below it stays, with only its unowned applied parts removed.
 * Fields the manager never applied are left alone.
 */
export function pruneUnowned(obj: JsonMap, root: ApplyNode, lastApplied: FieldSet, owned: FieldSet): JsonMap {
  return pruneMap(obj, root, lastApplied, owned);
}

function pruneMap(value: JsonMap, node: ApplyNode, last: FieldSet, owned: FieldSet | undefined): JsonMap {
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) {
    const key = `f:${k}`;
    const wasApplied = last.members.has(key) || last.children.has(key);
    if (!wasApplied) {
      out[k] = v;
      continue;
    }
    if (!hasPathOrBelow(owned, key)) continue;
    const lastBelow = last.children.get(key);
    out[k] = lastBelow ? pruneValue(v, fieldNode(node, k), lastBelow, owned?.children.get(key)) : v;
  }
  return out;
}

function pruneValue(value: unknown, node: ApplyNode, last: FieldSet, owned: FieldSet | undefined): unknown {
  if (isAtomic(node)) return value;
  if (isMap(value)) return pruneMap(value, node, last, owned);
  if (!Array.isArray(value) || !isGranularList(node)) return value;
  const element = elementNodeOf(node);
  const out: unknown[] = [];
  for (const item of value) {
    const pe = listElementKey(node, item);
    if (pe === undefined || !(last.members.has(pe) || last.children.has(pe))) {
      out.push(item);
      continue;
    }
    if (!hasPathOrBelow(owned, pe)) continue;
    const lastBelow = last.children.get(pe);
    out.push(lastBelow && isMap(item) ? pruneMap(item, element, lastBelow, owned?.children.get(pe)) : item);
  }
  return out;
}
