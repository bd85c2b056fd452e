// structured-merge-diff's fieldpath.Set, as managedFields store it (FieldsV1): a tree keyed by path elements
// written the way FieldsV1 writes them — `f:<field>`, `k:{"name":"c"}` (list element by its keys), `v:"x"` (set
// element by value), `i:0` (element by index). A path is a member of the set when its parent lists it in
// `members`; a path with members below it that is itself a member is serialized with a `".": {}` entry.

export interface FieldSet {
  members: Set<string>;
  children: Map<string, FieldSet>;
}

export type FieldPathElements = readonly string[];

export function emptyFieldSet(): FieldSet {
  return { members: new Set(), children: new Map() };
}

export function isEmptyFieldSet(s: FieldSet): boolean {
  return s.members.size === 0 && [...s.children.values()].every(isEmptyFieldSet);
}

/** The child set at `key`, created when absent. */
export function childSet(s: FieldSet, key: string): FieldSet {
  let c = s.children.get(key);
  if (!c) {
    c = emptyFieldSet();
    s.children.set(key, c);
  }
  return c;
}

export function insertPath(s: FieldSet, path: FieldPathElements): void {
  if (path.length === 0) return;
  let cur = s;
  for (let i = 0; i < path.length - 1; i++) cur = childSet(cur, path[i]!);
  cur.members.add(path[path.length - 1]!);
}

// Every operation below builds its result bottom-up and keeps a child only when it is not empty, so results are
// compact (no empty child sets) and emptiness is a constant-time check on them: testing emptiness with a walk at
// every level made the operations cubic in the depth of the object (an 800-level body took seconds).
const isEmptyCompact = (s: FieldSet): boolean => s.members.size === 0 && s.children.size === 0;

/** A compact copy of a set that may hold empty child sets (one built with childSet). */
function compacted(s: FieldSet): FieldSet {
  const out = emptyFieldSet();
  for (const m of s.members) out.members.add(m);
  for (const [k, c] of s.children) {
    const child = compacted(c);
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  return out;
}

export function unionFieldSets(a: FieldSet, b: FieldSet): FieldSet {
  const out = emptyFieldSet();
  for (const m of a.members) out.members.add(m);
  for (const m of b.members) out.members.add(m);
  for (const [k, c] of a.children) {
    const other = b.children.get(k);
    const child = other ? unionFieldSets(c, other) : compacted(c);
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  for (const [k, c] of b.children) {
    if (a.children.has(k)) continue;
    const child = compacted(c);
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  return out;
}

export function differenceFieldSets(a: FieldSet, b: FieldSet): FieldSet {
  const out = emptyFieldSet();
  for (const m of a.members) if (!b.members.has(m)) out.members.add(m);
  for (const [k, c] of a.children) {
    const other = b.children.get(k);
    const child = other ? differenceFieldSets(c, other) : compacted(c);
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  return out;
}

export function intersectFieldSets(a: FieldSet, b: FieldSet): FieldSet {
  const out = emptyFieldSet();
  for (const m of a.members) if (b.members.has(m)) out.members.add(m);
  for (const [k, c] of a.children) {
    const other = b.children.get(k);
    if (!other) continue;
    const child = intersectFieldSets(c, other);
    if (!isEmptyCompact(child)) out.children.set(k, child);
  }
  return out;
}

/** Whether the path, or anything below it, is in the set (`s` is compact: the result of an operation above). */
export function hasPathOrBelow(s: FieldSet | undefined, key: string): boolean {
  if (!s) return false;
  if (s.members.has(key)) return true;
  const c = s.children.get(key);
  return c !== undefined && !isEmptyCompact(c);
}

/** The order smd serializes and iterates path elements in: field names, then keys, values, indexes. */
function elementRank(key: string): number {
  return ['f:', 'k:', 'v:', 'i:'].indexOf(key.slice(0, 2));
}

function compareElements(a: string, b: string): number {
  const r = elementRank(a) - elementRank(b);
  if (r !== 0) return r;
  if (a.startsWith('i:')) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

export type FieldsV1 = { [key: string]: FieldsV1 };

export function toFieldsV1(s: FieldSet): FieldsV1 {
  const out: FieldsV1 = {};
  const keys = [...new Set([...s.members, ...s.children.keys()])].sort(compareElements);
  for (const k of keys) {
    const child = s.children.get(k);
    // an empty child set serializes as {}: the same as no child
    const inner = child !== undefined ? toFieldsV1(child) : undefined;
    if (inner === undefined || Object.keys(inner).length === 0) {
      if (s.members.has(k)) out[k] = {};
      continue;
    }
    out[k] = s.members.has(k) ? { '.': {}, ...inner } : inner;
  }
  return out;
}

export function fromFieldsV1(v: unknown): FieldSet {
  const out = emptyFieldSet();
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return out;
  for (const [k, inner] of Object.entries(v as Record<string, unknown>)) {
    if (k === '.') continue;
    const entries = inner !== null && typeof inner === 'object' ? Object.keys(inner as object) : [];
    if (entries.length === 0 || entries.includes('.')) out.members.add(k);
    if (entries.some((e) => e !== '.')) {
      const child = fromFieldsV1(inner);
      if (!isEmptyCompact(child)) out.children.set(k, child);
    }
  }
  return out;
}

/** Every member path, in smd's iteration order (a set's members, then its children). */
export function memberPaths(s: FieldSet): string[][] {
  const out: string[][] = [];
  // one prefix shared by the whole walk, copied only into the paths it emits
  const prefix: string[] = [];
  const walk = (set: FieldSet): void => {
    for (const m of [...set.members].sort(compareElements)) out.push([...prefix, m]);
    for (const k of [...set.children.keys()].sort(compareElements)) {
      prefix.push(k);
      walk(set.children.get(k)!);
      prefix.pop();
    }
  };
  walk(s);
  return out;
}

/** fieldpath.Path.String(): `.spec.replicas`, `.spec.containers[name="c"].image`, `.finalizers[="x"]`. */
export function pathString(path: FieldPathElements): string {
  return path
    .map((e) => {
      const body = e.slice(2);
      if (e.startsWith('f:')) return `.${body}`;
      if (e.startsWith('v:')) return `[=${body}]`;
      if (e.startsWith('i:')) return `[${body}]`;
      const keys = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(keys)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}
