// JSON → CEL conversion on demand, as kube-apiserver's unstructured value wrappers (apiserver/pkg/cel/common/
// values.go UnstructuredToVal) do: an object becomes a map that converts a property only when an expression reads
// it, so a rule reading `object.spec.containers` of a Pod never converts its metadata, volumes or status. The values
// are the ones fromJSON() makes (integral numbers int, other numbers double, objects maps with string keys,
// properties whose value is undefined absent), in the same order.
import { CelMap, fromJSON, type CelValue } from './values.js';

type JsonObject = Readonly<Record<string, unknown>>;

/** fromJSON(v), converting objects lazily (arrays are converted element by element, each object lazily). */
export function fromJSONLazy(v: unknown): CelValue {
  if (v === null || typeof v !== 'object') return fromJSON(v);
  if (Array.isArray(v)) return v.map(fromJSONLazy);
  return new JsonObjectMap(v as JsonObject);
}

/** A JSON object seen as a CEL map with string keys; a property is converted on first read and kept. */
export class JsonObjectMap extends CelMap {
  /**
   * The converted object and array properties, kept from their first read: most objects of a request are read by a
   * field or two, or not at all. The first two live in fields of the map itself (arrays or a Map per object read
   * showed as garbage-collection time with a new object per evaluation); the others in a Map, so reading every
   * property of a large object stays linear.
   */
  private name0: string | undefined = undefined;
  private value0: CelValue = null;
  private name1: string | undefined = undefined;
  private value1: CelValue = null;
  private converted: Map<string, CelValue> | undefined = undefined;
  /**
   * The last scalar property read and its value: rules read the same field of the same object at every evaluation
   * (`c.image` of each container), and a scalar's conversion is cheap but its lookup in the JSON object is not.
   */
  private lastScalarName: string | undefined = undefined;
  private lastScalarValue: CelValue = null;
  private keyCount = -1;

  constructor(private readonly json: JsonObject) {
    super();
  }

  /** the converted value of a property that is present (an own property whose value is not undefined) */
  private property(name: string): CelValue | undefined {
    if (name === this.name0) return this.value0;
    if (name === this.name1) return this.value1;
    if (name === this.lastScalarName) return this.lastScalarValue;
    if (this.converted !== undefined) {
      const hit = this.converted.get(name);
      if (hit !== undefined) return hit;
    }
    if (!Object.hasOwn(this.json, name)) return undefined;
    const raw = this.json[name];
    if (raw === undefined) return undefined;
    const v = fromJSONLazy(raw);
    // objects and arrays are kept (their conversion must happen once, and their lazy maps keep what they
    // converted); of the scalars, only the last one read
    if (typeof raw === 'object' && raw !== null) this.keep(name, v);
    else {
      this.lastScalarName = name;
      this.lastScalarValue = v;
    }
    return v;
  }

  private keep(name: string, v: CelValue): void {
    if (this.name0 === undefined) {
      this.name0 = name;
      this.value0 = v;
    } else if (this.name1 === undefined) {
      this.name1 = name;
      this.value1 = v;
    } else (this.converted ??= new Map()).set(name, v);
  }

  override get(k: CelValue): CelValue | undefined {
    // only string keys can match a JSON property, as only 's'-prefixed keys exist in an eagerly converted map
    return typeof k === 'string' ? this.property(k) : undefined;
  }

  override has(k: CelValue): boolean {
    return typeof k === 'string' && Object.hasOwn(this.json, k) && this.json[k] !== undefined;
  }

  override get size(): number {
    if (this.keyCount < 0) {
      let n = 0;
      for (const k of Object.keys(this.json)) if (this.json[k] !== undefined) n++;
      this.keyCount = n;
    }
    return this.keyCount;
  }

  override *keys(): IterableIterator<CelValue> {
    for (const k of Object.keys(this.json)) if (this.json[k] !== undefined) yield k;
  }

  override *entries(): IterableIterator<readonly [CelValue, CelValue]> {
    for (const k of Object.keys(this.json)) {
      const v = this.property(k);
      if (v !== undefined) yield [k, v];
    }
  }
}
