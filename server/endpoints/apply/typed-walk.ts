// The three walks of structured-merge-diff that field ownership needs, over plain JSON guided by the apply schema
// (server/admission/policy/mutating/apply-schema.ts, the one MutatingAdmissionPolicy uses):
//   toFieldSet  TypedValue.ToFieldSet: the fields an applied configuration sets;
//   compare     TypedValue.Compare: what an update added, modified and removed;
//   prune       Updater.prune: drop what a manager applied before and no longer applies, unless someone owns it.
// Pure: inputs are never modified.
import { fieldNode, listElementNode, type ApplyNode } from '../../admission/policy/mutating/apply-schema.js';
import { childSet, emptyFieldSet, hasPathOrBelow, type FieldSet } from './field-set.js';

type JsonMap = Record<string, unknown>;
const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

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
  const fields: Array<[string, unknown]> = [];
  for (const key of node.keys) {
    const v = item[key.name] ?? key.default;
    if (v === undefined) return undefined;
    fields.push([key.name, v]);
  }
  fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `k:${JSON.stringify(Object.fromEntries(fields))}`;
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
    const key = `f:${k}`;
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
    const element = listElementNode(node) ?? { type: 'typedField' };
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

const jsonEqual = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isMap(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, canonical(v[k])]),
  );
}

/** TypedValue.Compare(lhs, rhs): leaves (scalars, atomics, empty values) compared by value, the rest walked. */
export function compareObjects(lhs: JsonMap, rhs: JsonMap, root: ApplyNode, opts: WalkOptions): Comparison {
  const c: Comparison = { added: emptyFieldSet(), modified: emptyFieldSet(), removed: emptyFieldSet() };
  compareMapFields(lhs, rhs, root, { added: c.added, modified: c.modified, removed: c.removed }, opts);
  return c;
}

function compareMapFields(lhs: JsonMap | undefined, rhs: JsonMap | undefined, node: ApplyNode, at: Comparison, opts: WalkOptions): void {
  const keys = new Set([...Object.keys(lhs ?? {}), ...Object.keys(rhs ?? {})]);
  for (const k of keys) {
    compareValue(lhs?.[k], rhs?.[k], fieldNode(node, k), at, `f:${k}`, isNamedField(node), opts);
  }
}

const isEmptyValue = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

function compareValue(l: unknown, r: unknown, node: ApplyNode, at: Comparison, key: string, named: boolean, opts: WalkOptions): void {
  const granularMap = !isAtomic(node) && (isMap(l) || l === undefined) && (isMap(r) || r === undefined) && (isMap(l) || isMap(r));
  const granularList = isGranularList(node) && (Array.isArray(l) || l === undefined) && (Array.isArray(r) || r === undefined);
  const leaf = !(granularMap || granularList) || (isEmptyValue(l) && isEmptyValue(r));
  if (leaf) {
    if (l === undefined) at.added.members.add(key);
    else if (r === undefined) at.removed.members.add(key);
    else if (!jsonEqual(l, r)) at.modified.members.add(key);
    return;
  }
  // A granular value that appears or disappears is itself added or removed (smd's compare), except that a
  // typed kind's struct fields always exist in Go (zero values), and so does PodSpec.containers (no omitempty).
  const zeroValueExists = opts.typed && ((named && granularMap && node.type !== 'map') || key === 'f:containers');
  if (l === undefined && !zeroValueExists) at.added.members.add(key);
  if (r === undefined && !zeroValueExists) at.removed.members.add(key);
  const below: Comparison = { added: childSet(at.added, key), modified: childSet(at.modified, key), removed: childSet(at.removed, key) };
  if (granularMap) {
    compareMapFields(isMap(l) ? l : undefined, isMap(r) ? r : undefined, node, below, opts);
    return;
  }
  const element = listElementNode(node) ?? { type: 'typedField' };
  const left = indexList(node, Array.isArray(l) ? l : []);
  const right = indexList(node, Array.isArray(r) ? r : []);
  for (const [pe, rItem] of right) {
    const lItem = left.get(pe);
    compareItem(lItem, rItem, node, element, below, pe, opts);
  }
  for (const [pe, lItem] of left) if (!right.has(pe)) compareItem(lItem, undefined, node, element, below, pe, opts);
}

function compareItem(l: unknown, r: unknown, list: ApplyNode, element: ApplyNode, at: Comparison, pe: string, opts: WalkOptions): void {
  if (list.type === 'setList') {
    if (l === undefined) at.added.members.add(pe);
    else if (r === undefined) at.removed.members.add(pe);
    return;
  }
  if (isMap(l) || isMap(r)) {
    if (l === undefined) at.added.members.add(pe);
    if (r === undefined) at.removed.members.add(pe);
    compareMapFields(isMap(l) ? l : undefined, isMap(r) ? r : undefined, element, { added: childSet(at.added, pe), modified: childSet(at.modified, pe), removed: childSet(at.removed, pe) }, opts);
    return;
  }
  if (l === undefined) at.added.members.add(pe);
  else if (r === undefined) at.removed.members.add(pe);
  else if (!jsonEqual(l, r)) at.modified.members.add(pe);
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
  const element = listElementNode(node) ?? { type: 'typedField' };
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
