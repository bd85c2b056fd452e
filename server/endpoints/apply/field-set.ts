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
  if (s.members.size !== 0) return false;
  for (const c of s.children.values()) if (!isEmptyFieldSet(c)) return false;
  return true;
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

/**
 * The order smd serializes and iterates path elements in: field names, then keys, values, indexes; anything else
 * (a key of a managedFields entry a client wrote) before them all. Read by char code: it runs for every comparison.
 */
function elementRank(key: string): number {
  if (key.charCodeAt(1) !== 58 /* : */) return -1;
  switch (key.charCodeAt(0)) {
    case 102 /* f */:
      return 0;
    case 107 /* k */:
      return 1;
    case 118 /* v */:
      return 2;
    case 105 /* i */:
      return 3;
    default:
      return -1;
  }
}

function compareElements(a: string, b: string): number {
  const ra = elementRank(a);
  const r = ra - elementRank(b);
  if (r !== 0) return r;
  if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * keys.sort(compareElements). Without index elements (`i:`) the comparison is a strict total order on distinct keys,
 * so any sort gives the builtin's result, and an insertion sort here is faster for the few keys of a level; indexes
 * compare by Number (`i:1` ties `i:01`, `i:x` is NaN), so they keep the builtin's own algorithm.
 */
function sortElements(keys: string[]): void {
  const n = keys.length;
  if (n > 16) {
    keys.sort(compareElements);
    return;
  }
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (k.charCodeAt(0) === 105 /* i */ && k.charCodeAt(1) === 58 /* : */) {
      keys.sort(compareElements);
      return;
    }
  }
  for (let i = 1; i < n; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && compareElements(keys[j]!, k) > 0) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
}

export type FieldsV1 = { [key: string]: FieldsV1 };

export function toFieldsV1(s: FieldSet): FieldsV1 {
  const out: FieldsV1 = {};
  writeFieldsV1(out, s, false);
  return out;
}

/**
 * Writes the entries of `s` into `out` in smd's order and returns how many own keys it wrote (the emptiness test
 * the caller needs). `dotted` says `out` already holds the "." of a member with children: that object used to be
 * a spread copy (`{ '.': {}, ...inner }`), which drops a `__proto__` written into the inner object, so it is not
 * written into `out` either.
 */
function writeFieldsV1(out: FieldsV1, s: FieldSet, dotted: boolean): number {
  const { members, children } = s;
  // members first, then the children that are not members: the order sorting starts from, which decides the order
  // of elements the comparison ties (`i:1` and `i:01`)
  const keys: string[] = [];
  for (const m of members) keys.push(m);
  if (children.size !== 0) for (const k of children.keys()) if (!members.has(k)) keys.push(k);
  if (keys.length > 1) sortElements(keys);
  let written = 0;
  for (const k of keys) {
    const child = children.get(k);
    const member = members.has(k);
    let value: FieldsV1 | undefined;
    if (child !== undefined) {
      // an empty child set serializes as {}: the same as no child
      const inner: FieldsV1 = member ? { '.': {} } : {};
      if (writeFieldsV1(inner, child, member) !== 0) value = inner;
    }
    if (value === undefined) {
      if (!member) continue;
      value = {};
    }
    if (k === '__proto__') {
      // an assignment sets the prototype and writes no own key, as the plain assignment always did
      if (!dotted) out[k] = value;
      continue;
    }
    out[k] = value;
    written++;
  }
  return written;
}

const hasOwn = Object.prototype.hasOwnProperty;

export function fromFieldsV1(v: unknown): FieldSet {
  const out = emptyFieldSet();
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return out;
  const doc = v as Record<string, unknown>;
  for (const k of Object.keys(doc)) {
    if (k === '.') continue;
    const inner = doc[k];
    // a member when it has no entries or a "." entry; a child set when it has entries other than "."
    let dot = false;
    let other = false;
    if (inner !== null && typeof inner === 'object') {
      for (const e in inner) {
        if (!hasOwn.call(inner, e)) continue;
        if (e === '.') dot = true;
        else other = true;
        if (dot && other) break;
      }
    }
    if (dot || !other) out.members.add(k);
    if (other) {
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
