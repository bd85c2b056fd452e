// metadata.managedFields, kept as kube-apiserver's field manager keeps them (k8s.io/apiserver/pkg/endpoints/handlers/
// fieldmanager and k8s.io/apimachinery/pkg/util/managedfields/internal): one entry per manager identity, Apply
// entries from server-side apply, Update entries from every other write, conflicts between them.
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import type { ApplyNode } from '../../admission/policy/mutating/apply-schema.js';
import {
  differenceFieldSets,
  emptyFieldSet,
  fromFieldsV1,
  intersectFieldSets,
  isEmptyFieldSet,
  memberPaths,
  pathString,
  toFieldsV1,
  unionFieldSets,
  type FieldSet,
} from './field-set.js';
import { compareObjects, pruneUnowned, toFieldSet } from './typed-walk.js';

export type ManagedFieldsOperation = 'Apply' | 'Update';

/** A decoded metav1.ManagedFieldsEntry. */
export interface ManagerEntry {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
}

/** How a kind's objects are walked, and which of their fields nobody owns. */
export interface OwnershipSchema {
  root: ApplyNode;
  /** built-in kinds are typed (their struct fields always exist); custom resources are unstructured */
  typed: boolean;
  /** the main resource of a kind with a status subresource: status is reset by the strategy, never owned */
  ignoreStatus: boolean;
}

/** The manager kube's beforeApplyManagerName gives an object's fields that had no owner before its first apply. */
export const beforeFirstApplyManager = 'before-first-apply';

type ManagerIdentityFields = Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>;

/** internal.BuildManagerIdentifier: appliers are one manager whatever apiVersion they apply. */
export function managerIdentity(e: ManagerIdentityFields): string {
  return JSON.stringify([e.manager, e.operation, e.operation === 'Apply' ? '' : e.apiVersion, e.subresource ?? '']);
}

/** managerIdentity(a) === managerIdentity(b), field by field: the identity of strings is their JSON text's. */
function sameManager(a: ManagerIdentityFields, b: ManagerIdentityFields): boolean {
  return (
    a.manager === b.manager &&
    a.operation === b.operation &&
    (a.operation === 'Apply' || a.apiVersion === b.apiVersion) &&
    (a.subresource ?? '') === (b.subresource ?? '')
  );
}

type JsonMap = Record<string, unknown>;
const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

export function decodeManagedFields(value: unknown): ManagerEntry[] {
  if (!Array.isArray(value)) return [];
  const out: ManagerEntry[] = [];
  for (const raw of value) {
    if (!isMap(raw)) continue;
    const operation = raw['operation'] === 'Apply' ? 'Apply' : 'Update';
    out.push({
      manager: String(raw['manager'] ?? ''),
      operation,
      apiVersion: String(raw['apiVersion'] ?? ''),
      ...(typeof raw['time'] === 'string' ? { time: raw['time'] } : {}),
      ...(typeof raw['subresource'] === 'string' && raw['subresource'] !== '' ? { subresource: raw['subresource'] } : {}),
      set: fromFieldsV1(raw['fieldsV1']),
    });
  }
  return out;
}

/** EncodeObjectManagedFields, in kube's order: operation, time, manager, apiVersion, subresource. */
export function encodeManagedFields(entries: readonly ManagerEntry[]): JsonMap[] {
  const sorted = [...entries].sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const pt = p.time ? Date.parse(p.time) : 0;
    const qt = q.time ? Date.parse(q.time) : 0;
    if (pt !== qt) return pt - qt;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? '') < (q.subresource ?? '') ? -1 : (p.subresource ?? '') > (q.subresource ?? '') ? 1 : 0;
  });
  return sorted.map((e) => {
    const out: JsonMap = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time) out['time'] = e.time;
    out['fieldsType'] = 'FieldsV1';
    out['fieldsV1'] = toFieldsV1(e.set);
    if (e.subresource) out['subresource'] = e.subresource;
    return out;
  });
}

// stripMetaManager's stripSet: fields the server sets, which no manager owns.
const strippedMetadata = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];

function buildIgnoredFields(ignoreStatus: boolean): FieldSet {
  const s = emptyFieldSet();
  s.members.add('f:apiVersion');
  s.members.add('f:kind');
  const meta = emptyFieldSet();
  for (const f of strippedMetadata) meta.members.add(`f:${f}`);
  s.children.set('f:metadata', meta);
  if (ignoreStatus) s.members.add('f:status');
  return s;
}

// built once: only read (by withoutIgnored and keptFields), never handed out or changed
const ignoredWithStatus = buildIgnoredFields(true);
const ignoredWithoutStatus = buildIgnoredFields(false);
const ignoredFields = (schema: OwnershipSchema): FieldSet => (schema.ignoreStatus ? ignoredWithStatus : ignoredWithoutStatus);

// the sets built below are compact (no empty child sets): emptiness is a constant-time check on them
const isEmptyCompact = (s: FieldSet): boolean => s.members.size === 0 && s.children.size === 0;

/** A set without the ignored paths and everything below them, compact. */
function withoutIgnored(set: FieldSet, ignored: FieldSet | undefined): FieldSet {
  const out = emptyFieldSet();
  for (const m of set.members) if (ignored === undefined || !ignored.members.has(m)) out.members.add(m);
  for (const [k, c] of set.children) {
    if (ignored !== undefined && ignored.members.has(k)) continue;
    const child = withoutIgnored(c, ignored?.children.get(k));
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  return out;
}

/**
 * withoutIgnored(unionFieldSets(a, b), ignored) of the compact sets compareObjects returns, in one walk that
 * shares the subtrees it leaves as they are rather than copying them three times over: the sets are the caller's
 * alone, and no set is changed once built. Members and children keep their order: a's, then b's.
 */
function keptFields(a: FieldSet, b: FieldSet | undefined, ignored: FieldSet | undefined): FieldSet {
  if (ignored === undefined && (b === undefined || isEmptyCompact(b))) return a;
  if (ignored === undefined && isEmptyCompact(a)) return b!;
  const out = emptyFieldSet();
  for (const m of a.members) if (ignored === undefined || !ignored.members.has(m)) out.members.add(m);
  if (b !== undefined) for (const m of b.members) if (ignored === undefined || !ignored.members.has(m)) out.members.add(m);
  for (const [k, c] of a.children) {
    if (ignored !== undefined && ignored.members.has(k)) continue;
    const child = keptFields(c, b?.children.get(k), ignored?.children.get(k));
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  if (b !== undefined) {
    for (const [k, c] of b.children) {
      if (a.children.has(k) || (ignored !== undefined && ignored.members.has(k))) continue;
      const child = keptFields(c, undefined, ignored?.children.get(k));
      if (!isEmptyCompact(child)) out.children.set(k, child);
    }
  }
  return out;
}

/** kube strips managedFields from both objects before comparing them; an object without them needs no copy. */
function withoutMeta(obj: KubeObject): JsonMap {
  // (a copy is a plain object: one with another prototype inherits other values for the keys only the other has)
  const m = obj.metadata;
  if (isMap(m) && !Object.prototype.hasOwnProperty.call(m, 'managedFields') && Object.getPrototypeOf(obj) === Object.prototype && Object.getPrototypeOf(m) === Object.prototype) return obj as JsonMap;
  const meta = isMap(obj.metadata) ? { ...obj.metadata } : undefined;
  if (meta) delete meta['managedFields'];
  const out: JsonMap = { ...obj };
  if (meta) out['metadata'] = meta;
  return out;
}

/** decodeLiveOrNew: the request's managedFields when it sends some, [] resets them, none keeps the live ones. */
export function managedFieldsForUpdate(live: KubeObject | undefined, next: KubeObject): ManagerEntry[] {
  const sent = next.metadata?.['managedFields' as keyof typeof next.metadata] as unknown;
  if (Array.isArray(sent)) {
    if (sent.length === 0 || (sent.length === 1 && isMap(sent[0]) && Object.keys(sent[0]).length === 0)) return [];
    const decoded = decodeManagedFields(sent);
    if (decoded.length > 0) return decoded;
  }
  return decodeManagedFields(live?.metadata?.['managedFields' as keyof NonNullable<KubeObject['metadata']>]);
}

/** Removes the removed paths from every other manager, and what the operation took over when it may. */
function updateOthers(entries: ManagerEntry[], self: ManagerIdentityFields, taken: FieldSet, removed: FieldSet): ManagerEntry[] {
  const out: ManagerEntry[] = [];
  for (const e of entries) {
    const next = sameManager(e, self) ? e : { ...e, set: differenceOfBoth(e.set, taken, removed) };
    if (!isEmptyFieldSet(next.set)) out.push(next);
  }
  return out;
}

/** differenceFieldSets(differenceFieldSets(a, b), c), in one compact copy. */
function differenceOfBoth(a: FieldSet, b: FieldSet | undefined, c: FieldSet | undefined): FieldSet {
  const out = emptyFieldSet();
  for (const m of a.members) if ((b === undefined || !b.members.has(m)) && (c === undefined || !c.members.has(m))) out.members.add(m);
  for (const [k, s] of a.children) {
    const child = differenceOfBoth(s, b?.children.get(k), c?.children.get(k));
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  return out;
}

export interface UpdateOperation {
  live: KubeObject | undefined;
  next: KubeObject;
  entries: ManagerEntry[];
  manager: string;
  apiVersion: string;
  subresource?: string;
  now: string;
  schema: OwnershipSchema;
}

/**
 * managedFieldsUpdater.Update over Updater.Update: what the write added or modified becomes the manager's (taken
 * from any other manager), what it removed is nobody's; a write that changes nothing leaves the entries alone.
 */
export function recordUpdate(op: UpdateOperation): ManagerEntry[] {
  const ignored = ignoredFields(op.schema);
  const cmp = compareObjects(withoutMeta(op.live ?? {}), withoutMeta(op.next), op.schema.root, { typed: op.schema.typed });
  const changed = keptFields(cmp.added, cmp.modified, ignored);
  const removed = keptFields(cmp.removed, undefined, ignored);
  const self: ManagerIdentityFields = { manager: op.manager, operation: 'Update', apiVersion: op.apiVersion, ...(op.subresource ? { subresource: op.subresource } : {}) };
  const others = updateOthers(op.entries, self, changed, removed);
  if (isEmptyFieldSet(changed)) return others;
  const previous = others.find((e) => sameManager(e, self));
  const set = previous ? unionFieldSets(differenceFieldSets(previous.set, removed), changed) : changed;
  const out: ManagerEntry[] = [];
  for (const e of others) if (!sameManager(e, self)) out.push(e);
  // the fields of `{ ...self, time, set }` in its order, as literals: cloning `self` took V8's slow path
  const { manager, apiVersion } = op;
  out.push(op.subresource ? { manager, operation: 'Update', apiVersion, subresource: op.subresource, time: op.now, set } : { manager, operation: 'Update', apiVersion, time: op.now, set });
  return out;
}

export interface ApplyOperation {
  /** the live object, or undefined when the apply creates it */
  live: KubeObject | undefined;
  /** the live object merged with the configuration (mergeAppliedConfiguration), nulls still in */
  merged: JsonMap;
  config: JsonMap;
  entries: ManagerEntry[];
  manager: string;
  apiVersion: string;
  subresource?: string;
  force: boolean;
  now: string;
  schema: OwnershipSchema;
}

export type ApplyOutcome = { ok: true; object: JsonMap; entries: ManagerEntry[] } | { ok: false; error: StatusError };

/**
 * Updater.Apply: the configuration's fields become the applier's set; fields it applied before and no longer
 * applies are removed unless another manager owns them; fields another manager owns and the apply changes are
 * conflicts (409), or with force become the applier's.
 */
export function recordApply(op: ApplyOperation): ApplyOutcome {
  const ignored = ignoredFields(op.schema);
  let entries = op.entries;
  const live = op.live ?? {};
  // skipNonAppliedManager: the fields of an object nobody tracked yet belong to before-first-apply.
  if (op.live && entries.length === 0) {
    entries = recordUpdate({ live: undefined, next: op.live, entries: [], manager: beforeFirstApplyManager, apiVersion: op.apiVersion, now: op.now, schema: op.schema, ...(op.subresource ? { subresource: op.subresource } : {}) });
  }
  const self: Omit<ManagerEntry, 'set'> = { manager: op.manager, operation: 'Apply', apiVersion: op.apiVersion, ...(op.subresource ? { subresource: op.subresource } : {}) };
  const previous = entries.find((e) => sameManager(e, self));
  const applied = withoutIgnored(toFieldSet(op.config, op.schema.root), ignored);
  const owned = entries.filter((e) => !sameManager(e, self)).reduce((acc, e) => unionFieldSets(acc, e.set), applied);
  const pruned = previous ? pruneUnowned(op.merged, op.schema.root, previous.set, owned) : op.merged;
  const object = dropNulls(pruned);

  const cmp = compareObjects(withoutMeta(live), withoutMeta(object), op.schema.root, { typed: op.schema.typed });
  const changed = keptFields(cmp.added, cmp.modified, ignored);
  const removed = keptFields(cmp.removed, undefined, ignored);
  const conflicts: Array<{ entry: ManagerEntry; path: string[] }> = [];
  for (const e of entries) {
    if (sameManager(e, self)) continue;
    for (const path of memberPaths(intersectFieldSets(e.set, changed))) conflicts.push({ entry: e, path });
  }
  if (conflicts.length > 0 && !op.force) return { ok: false, error: conflictError(conflicts) };
  const others = updateOthers(entries, self, changed, removed).filter((e) => !sameManager(e, self));
  const unchanged = isEmptyFieldSet(changed) && isEmptyFieldSet(removed);
  const time = unchanged && previous?.time ? previous.time : op.now;
  const next = isEmptyFieldSet(applied) ? others : [...others, { ...self, time, set: applied }];
  return { ok: true, object, entries: next };
}

function dropNulls(v: JsonMap): JsonMap {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (!isMap(x)) return x;
    const out: JsonMap = {};
    for (const [k, y] of Object.entries(x)) if (y !== null) out[k] = walk(y);
    return out;
  };
  return walk(v) as JsonMap;
}

/** printManager of kube's conflict error: appliers by name, updaters with their apiVersion. */
function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s = `${s} using ${e.apiVersion}`;
  return s;
}

/** internal.NewConflictError: 409 Conflict, one FieldManagerConflict cause per conflicting field. */
export function conflictError(conflicts: ReadonlyArray<{ entry: ManagerEntry; path: string[] }>): StatusError {
  const sorted = [...conflicts].sort((a, b) => (printManager(a.entry) < printManager(b.entry) ? -1 : printManager(a.entry) > printManager(b.entry) ? 1 : 0));
  const causes = sorted.map((c) => ({ type: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: pathString(c.path) }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0]!.entry)}: ${pathString(sorted[0]!.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of sorted) {
      const m = printManager(c.entry);
      byManager.set(m, [...(byManager.get(m) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${m}:`);
      for (const p of byManager.get(m)!) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}
