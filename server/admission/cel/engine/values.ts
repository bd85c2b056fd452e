// Runtime values of the CEL engine. The representation is chosen so JS operators cannot silently lose CEL's
// semantics: int is a bigint (int64 range checked by the arithmetic), uint is a CelUint wrapper (so `1u == 1`
// and `type(1u)` stay distinguishable from int), double is a JS number.
//
//   CEL type                 JS representation
//   int                      bigint (always within int64)
//   uint                     CelUint (value: bigint within uint64)
//   double                   number
//   bool / string / null     boolean / string / null
//   bytes                    Uint8Array
//   list(T)                  readonly CelValue[]  (never mutated once built)
//   map(K, V)                CelMap (keys int, uint, string, bool; 1 and 1u are the same key, as in cel-go)
//   google.protobuf.Timestamp CelTimestamp (nanoseconds since the Unix epoch, UTC)
//   google.protobuf.Duration CelDuration (nanoseconds)
//   type                     CelTypeValue (`type(1) == int`)
//   optional_type(T)         CelOptional
//   Name{…} struct literal   ObjectValue (declared object types: ApplyConfiguration's Object, JSONPatch)
//   library types            subclasses of CelOpaque (net.IP, Quantity, …) or CelHostValue wrapping a host object
//
// Errors are values too (CelError): functions return them, `&&`/`||`/`?:` absorb them as CEL specifies.

export class CelUint {
  constructor(readonly value: bigint) {}
  toString(): string {
    return `${this.value}u`;
  }
}

export class CelTimestamp {
  /** nanoseconds since 1970-01-01T00:00:00Z */
  constructor(readonly nanos: bigint) {}
}

export class CelDuration {
  constructor(readonly nanos: bigint) {}
}

export class CelTypeValue {
  constructor(readonly name: string) {}
  toString(): string {
    return this.name;
  }
}

export class CelOptional {
  static readonly none = new CelOptional(undefined);
  private constructor(readonly value: CelValue | undefined) {}
  static of(v: CelValue): CelOptional {
    return new CelOptional(v);
  }
  hasValue(): this is CelOptional & { value: CelValue } {
    return this.value !== undefined;
  }
}

export class CelError {
  constructor(readonly message: string) {}
  toString(): string {
    return this.message;
  }
}

/** A struct literal `Name{field: value}` of a declared object type. Fields hold what was set, in order. */
export class ObjectValue {
  constructor(
    readonly typeName: string,
    readonly fields: ReadonlyMap<string, CelValue>,
    /**
     * Computes a field on first access instead of `fields` (the facade's `variables` object, whose members are
     * evaluated lazily, at most once per request). Returns undefined for an unknown field.
     */
    readonly lazyField?: (name: string) => CelResult | undefined,
  ) {}
}

/**
 * Base of library-defined values (net.IP, Quantity, URL, Semver, the authorizer builders). `typeName` must be the
 * name the library declared with `types: [{ name }]`. Override `equals` for value equality (default: identity),
 * `compare` for ordering used by `<` if the library declares those overloads itself, and `toJSON` for results.
 */
export abstract class CelOpaque {
  abstract readonly typeName: string;
  equals(other: CelOpaque): boolean {
    return this === other;
  }
  toJSON(): unknown {
    return String(this);
  }
}

/** An opaque value wrapping a host object, e.g. the request's CelAuthorizer bound to the `authorizer` variable. */
export class CelHostValue<H> extends CelOpaque {
  constructor(
    readonly typeName: string,
    readonly host: H,
  ) {
    super();
  }
  override toJSON(): unknown {
    return this.typeName;
  }
}

export type CelValue =
  | bigint
  | CelUint
  | number
  | boolean
  | string
  | Uint8Array
  | null
  | readonly CelValue[]
  | CelMap
  | CelTimestamp
  | CelDuration
  | CelTypeValue
  | CelOptional
  | ObjectValue
  | CelOpaque;

export type CelResult = CelValue | CelError;

export const isError = (v: unknown): v is CelError => v instanceof CelError;

/** Map keys: numeric keys are normalised so `{1: 'a'}[1u]` and `[1.0]` find the entry, as cel-go does. */
function keyOf(k: CelValue): string | undefined {
  if (typeof k === 'string') return 's' + k;
  if (typeof k === 'bigint') return 'n' + k.toString();
  if (k instanceof CelUint) return 'n' + k.value.toString();
  if (typeof k === 'boolean') return k ? 'bt' : 'bf';
  if (typeof k === 'number') return Number.isInteger(k) && Number.isFinite(k) ? 'n' + BigInt(k).toString() : undefined;
  return undefined;
}

export function isValidMapKey(k: CelValue): boolean {
  return typeof k === 'string' || typeof k === 'bigint' || k instanceof CelUint || typeof k === 'boolean';
}

export class CelMap {
  /**
   * Made on first use: the lazy JSON and schema maps that extend this class never use it, and one empty Map per
   * converted object of every admitted object showed as garbage-collection time in the new-object benchmark.
   * Declared only (no field until the first use), so those maps do not carry it: 8 bytes per converted object.
   */
  private declare tableOrUndefined: Map<string, readonly [CelValue, CelValue]> | undefined;

  private get table(): Map<string, readonly [CelValue, CelValue]> {
    return (this.tableOrUndefined ??= new Map());
  }

  /** Builds a map; the caller has checked the keys' types and duplicates (see `set`). */
  constructor(entries?: Iterable<readonly [CelValue, CelValue]>) {
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  static fromRecord(rec: Record<string, CelValue>): CelMap {
    const m = new CelMap();
    for (const [k, v] of Object.entries(rec)) m.table.set('s' + k, [k, v]);
    return m;
  }

  /** Only for construction; returns false when the key was already present. */
  set(k: CelValue, v: CelValue): boolean {
    const key = keyOf(k);
    if (key === undefined) throw new TypeError(`unsupported map key type: ${typeNameOf(k)}`);
    const had = this.table.has(key);
    this.table.set(key, [k, v]);
    return !had;
  }

  get(k: CelValue): CelValue | undefined {
    const key = keyOf(k);
    return key === undefined ? undefined : this.table.get(key)?.[1];
  }

  has(k: CelValue): boolean {
    const key = keyOf(k);
    return key !== undefined && this.table.has(key);
  }

  get size(): number {
    return this.table.size;
  }

  *keys(): IterableIterator<CelValue> {
    for (const [k] of this.table.values()) yield k;
  }

  *entries(): IterableIterator<readonly [CelValue, CelValue]> {
    yield* this.table.values();
  }
}

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

/** The runtime type name of a value, as `type(v)` reports it and as "no such overload" messages print it. */
export function typeNameOf(v: CelValue): string {
  if (v === null) return 'null_type';
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
  }
  if (v instanceof CelUint) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof CelMap) return 'map';
  if (v instanceof CelTimestamp) return 'google.protobuf.Timestamp';
  if (v instanceof CelDuration) return 'google.protobuf.Duration';
  if (v instanceof CelTypeValue) return 'type';
  if (v instanceof CelOptional) return 'optional_type';
  if (v instanceof ObjectValue) return v.typeName;
  if (v instanceof CelOpaque) return v.typeName;
  return 'unknown';
}

const isNumeric = (v: CelValue): v is bigint | number | CelUint => typeof v === 'bigint' || typeof v === 'number' || v instanceof CelUint;

function numericCompare(a: bigint | number | CelUint, b: bigint | number | CelUint): number | undefined {
  const x = a instanceof CelUint ? a.value : a;
  const y = b instanceof CelUint ? b.value : b;
  if (typeof x === 'number' || typeof y === 'number') {
    // cel-go converts the integer to double when comparing with a double (lossy above 2^53, as in Go)
    const fx = Number(x);
    const fy = Number(y);
    if (Number.isNaN(fx) || Number.isNaN(fy)) return undefined;
    return fx < fy ? -1 : fx > fy ? 1 : 0;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

function bytesCompare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
}

/** Code-point order of strings (JS `<` compares UTF-16 code units, which differs above the BMP). */
function stringCompare(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

/**
 * CEL ordering (`<`, `<=`, …): numbers across int/uint/double, strings by code point, bytes, bools, timestamps,
 * durations. Returns undefined when the values are not ordered (no such overload, or NaN).
 */
export function celCompare(a: CelValue, b: CelValue): number | undefined {
  if (isNumeric(a) && isNumeric(b)) return numericCompare(a, b);
  if (typeof a === 'string' && typeof b === 'string') return stringCompare(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return bytesCompare(a, b);
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof CelDuration && b instanceof CelDuration) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  return undefined;
}

/**
 * CEL equality (`==`): heterogeneous — values of different types are unequal rather than an error, numbers compare
 * by value across int/uint/double (1 == 1.0 == 1u), lists and maps element-wise, NaN unequal to itself.
 */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (a === null || b === null) return false;
  if (isNumeric(a) && isNumeric(b)) return numericCompare(a, b) === 0;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return bytesCompare(a, b) === 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    // as cel-go's lhs.Equal(rhs): the left operand's list type decides (kube's set and map lists ignore order)
    const semantics = listSemantics.get(a);
    if (semantics) return semanticListEquals(a, b, semantics);
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i] as CelValue, b[i] as CelValue)) return false;
    return true;
  }
  if (a instanceof CelMap && b instanceof CelMap) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return a.nanos === b.nanos;
  if (a instanceof CelDuration && b instanceof CelDuration) return a.nanos === b.nanos;
  if (a instanceof CelTypeValue && b instanceof CelTypeValue) return a.name === b.name;
  if (a instanceof CelOptional && b instanceof CelOptional) {
    if (!a.hasValue() || !b.hasValue()) return !a.hasValue() && !b.hasValue();
    return celEquals(a.value, b.value);
  }
  if (a instanceof ObjectValue && b instanceof ObjectValue) {
    if (a.typeName !== b.typeName || a.fields.size !== b.fields.size) return false;
    for (const [k, v] of a.fields) {
      const w = b.fields.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof CelOpaque && b instanceof CelOpaque) return a.typeName === b.typeName && a.equals(b);
  return false;
}

/**
 * The x-kubernetes-list-type a list value was converted from, when it changes CEL's list semantics (kube's
 * apiserver/pkg/cel/common/values.go unstructuredSetList and unstructuredMapList): `==` ignores order and `+` merges.
 * Map lists identify items by the values of their x-kubernetes-list-map-keys properties.
 */
export type ListSemantics = { readonly kind: 'set' } | { readonly kind: 'map'; readonly keys: readonly string[] };

const listSemantics = new WeakMap<readonly CelValue[], ListSemantics>();

/** Marks a (fresh, never mutated) list as a set or map list; returns it. */
export function withListSemantics<L extends readonly CelValue[]>(list: L, semantics: ListSemantics): L {
  listSemantics.set(list, semantics);
  return list;
}

export function listSemanticsOf(list: readonly CelValue[]): ListSemantics | undefined {
  return listSemantics.get(list);
}

/** Identity of a set element or map-list key value (kube keys Go maps by these scalars). */
function scalarKey(v: CelValue | undefined): string {
  if (v === undefined) return 'u';
  if (v === null) return 'z';
  switch (typeof v) {
    case 'string':
      return 's' + v;
    case 'bigint':
      return 'n' + v.toString();
    case 'number':
      return Number.isInteger(v) ? 'n' + BigInt(v).toString() : 'd' + String(v);
    case 'boolean':
      return v ? 'T' : 'F';
  }
  if (v instanceof CelUint) return 'n' + v.value.toString();
  // sets and map keys hold scalars; anything else is compared by its JSON form
  return 'j' + JSON.stringify(toJSON(v));
}

function mapListKey(item: CelValue, keys: readonly string[]): string {
  if (!(item instanceof CelMap)) return 'x' + scalarKey(item);
  return keys.map((k) => scalarKey(item.get(k))).join('\u0000');
}

function semanticListEquals(a: readonly CelValue[], b: readonly CelValue[], semantics: ListSemantics): boolean {
  if (a.length !== b.length) return false;
  if (semantics.kind === 'set') {
    const members = new Set(a.map(scalarKey));
    return b.every((x) => members.has(scalarKey(x)));
  }
  // every item of the right side must equal the left item with the same keys (the last one, as kube's Go map keeps)
  const byKey = new Map<string, CelValue>();
  for (const x of a) byKey.set(mapListKey(x, semantics.keys), x);
  return b.every((x) => {
    const mine = byKey.get(mapListKey(x, semantics.keys));
    return mine !== undefined && celEquals(mine, x);
  });
}

/**
 * `a + b` on lists. Atomic lists concatenate. A set list keeps its elements and appends those of `b` it does not
 * hold yet; a map list keeps its items' positions, replaces those whose keys `b` has, and appends the rest of `b`
 * (kube's unstructuredSetList.Add / unstructuredMapList.Add). The result keeps the left side's list type.
 */
export function addLists(a: readonly CelValue[], b: readonly CelValue[]): readonly CelValue[] {
  const semantics = listSemantics.get(a);
  if (!semantics) return [...a, ...b];
  const out = [...a];
  if (semantics.kind === 'set') {
    const members = new Set(a.map(scalarKey));
    for (const x of b) {
      const k = scalarKey(x);
      if (members.has(k)) continue;
      members.add(k);
      out.push(x);
    }
    return withListSemantics(out, semantics);
  }
  const position = new Map<string, number>();
  a.forEach((x, i) => position.set(mapListKey(x, semantics.keys), i));
  for (const x of b) {
    const i = position.get(mapListKey(x, semantics.keys));
    if (i === undefined) out.push(x);
    else out[i] = x;
  }
  return withListSemantics(out, semantics);
}

/**
 * JSON → CEL as kube-apiserver's unstructured conversion does: integral numbers are int (so
 * `object.spec.replicas + 1` is int arithmetic), other numbers double, objects maps with string keys.
 */
export function fromJSON(v: unknown): CelValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v) : v;
    case 'bigint':
      return v;
    case 'string':
    case 'boolean':
      return v;
    case 'object': {
      if (Array.isArray(v)) return v.map(fromJSON);
      const m = new CelMap();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (x !== undefined) m.set(k, fromJSON(x));
      }
      return m;
    }
    default:
      return null;
  }
}

function bigintToJSON(n: bigint): number | string {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : Number(n);
}

/** CEL → JSON for results (messageExpression values, mutations, variables handed back to plugins). */
export function toJSON(v: CelValue): unknown {
  if (v === null) return null;
  switch (typeof v) {
    case 'bigint':
      return bigintToJSON(v);
    case 'number':
    case 'string':
    case 'boolean':
      return v;
  }
  if (v instanceof CelUint) return bigintToJSON(v.value);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map((x) => toJSON(x as CelValue));
  if (v instanceof CelMap) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v.entries()) out[typeof k === 'string' ? k : String(k instanceof CelUint ? k.value : k)] = toJSON(x);
    return out;
  }
  if (v instanceof ObjectValue) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v.fields) out[k] = toJSON(x);
    return out;
  }
  if (v instanceof CelTimestamp) return formatTimestamp(v);
  if (v instanceof CelDuration) return formatDuration(v);
  if (v instanceof CelTypeValue) return v.name;
  if (v instanceof CelOptional) return v.hasValue() ? toJSON(v.value) : null;
  if (v instanceof CelOpaque) return v.toJSON();
  return null;
}

const NANOS = 1_000_000_000n;

/** RFC 3339 with the fraction Go's time.RFC3339Nano prints (cel-go's string(timestamp)). */
export function formatTimestamp(t: CelTimestamp): string {
  let secs = t.nanos / NANOS;
  let frac = t.nanos % NANOS;
  if (frac < 0n) {
    frac += NANOS;
    secs -= 1n;
  }
  const d = new Date(Number(secs) * 1000);
  // toISOString prints YYYY-MM-DDTHH:MM:SS.000Z for the years 0001..9999 CEL allows
  return d.toISOString().slice(0, 19) + fractionDigits(frac) + 'Z';
}

/** Go's RFC3339Nano and FormatFloat(…, 'f', -1) both drop trailing zeros of the fraction. */
function fractionDigits(frac: bigint): string {
  if (frac === 0n) return '';
  return '.' + frac.toString().padStart(9, '0').replace(/0+$/, '');
}

/** "1.5s", "-3600s": the protobuf JSON form of a duration, which is also what string(duration) returns. */
export function formatDuration(d: CelDuration): string {
  const neg = d.nanos < 0n;
  const abs = neg ? -d.nanos : d.nanos;
  return (neg ? '-' : '') + (abs / NANOS).toString() + fractionDigits(abs % NANOS) + 's';
}
