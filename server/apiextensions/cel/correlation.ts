// Old values correlated with new ones for transition rules and ratcheting (kube's common.CorrelatedObject):
// object properties and map entries by name, list-type=map items by their keys; atomic lists and sets do not
// correlate. `deepEqual` is CachedDeepEqual: an unchanged node lets failing non-transition rules pass as warnings; map
// lists are unchanged when only their order changed.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { additionalPropertiesSchema, itemsSchema } from './schema-nodes.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** kube's MapList: finds the old item with the same x-kubernetes-list-map-keys values as a new one. */
export function oldListItemFinder(schema: JSONSchemaProps, oldList: unknown): (item: unknown) => unknown {
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (schema['x-kubernetes-list-type'] !== 'map' || keys.length === 0 || !Array.isArray(oldList)) return () => undefined;
  const keyOf = (item: unknown): string | undefined => (isObj(item) ? JSON.stringify(keys.map((k) => item[k] ?? null)) : undefined);
  let byKey: Map<string, unknown> | undefined;
  return (item) => {
    const k = keyOf(item);
    if (k === undefined) return undefined;
    if (!byKey) {
      byKey = new Map();
      for (const o of oldList) {
        const ok = keyOf(o);
        // kube's map keeps the first item of duplicate keys
        if (ok !== undefined && !byKey.has(ok)) byKey.set(ok, o);
      }
    }
    return byKey.get(k);
  };
}

export function jsonDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonDeepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => k in b && jsonDeepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * kube's CorrelatedObject.CachedDeepEqual: objects and maps compare property by property with their schemas,
 * list-type=map lists item by item matched on their keys (so reordering the items is no change), and everything
 * else, atomic and set lists included, as reflect.DeepEqual does.
 */
export function schemaDeepEqual(value: unknown, old: unknown, schema: JSONSchemaProps | undefined): boolean {
  if ((value ?? null) === null || (old ?? null) === null) return (value ?? null) === (old ?? null);
  if (!schema) return jsonDeepEqual(value, old);
  if (Array.isArray(value) && Array.isArray(old)) {
    if (value.length !== old.length) return false;
    const items = itemsSchema(schema);
    if (!items || schema['x-kubernetes-list-type'] !== 'map' || !(schema['x-kubernetes-list-map-keys'] ?? []).length) return jsonDeepEqual(value, old);
    const findOld = oldListItemFinder(schema, old);
    return value.every((item) => {
      const o = findOld(item);
      return o !== undefined && schemaDeepEqual(item, o, items);
    });
  }
  if (isObj(value) && isObj(old)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (keys.length !== Object.keys(old).filter((k) => old[k] !== undefined).length) return false;
    return keys.every((k) => {
      if (!(k in old)) return false;
      const prop = schema.properties?.[k] ?? additionalPropertiesSchema(schema);
      return prop !== undefined && schemaDeepEqual(value[k], old[k], prop);
    });
  }
  return jsonDeepEqual(value, old);
}

export class CorrelatedObject {
  private equal: boolean | undefined;
  private findOld: ((item: unknown) => unknown) | undefined;

  constructor(
    readonly value: unknown,
    readonly oldValue: unknown,
    readonly schema: JSONSchemaProps,
  ) {}

  key(field: string): CorrelatedObject | undefined {
    if (!isObj(this.value) || !isObj(this.oldValue)) return undefined;
    if (!(field in this.value) || !(field in this.oldValue)) return undefined;
    const prop = this.schema.properties?.[field] ?? additionalPropertiesSchema(this.schema);
    if (!prop) return undefined;
    return new CorrelatedObject(this.value[field], this.oldValue[field], prop);
  }

  index(i: number): CorrelatedObject | undefined {
    if (!Array.isArray(this.value) || i >= this.value.length || !Array.isArray(this.oldValue)) return undefined;
    const items = itemsSchema(this.schema);
    if (!items) return undefined;
    this.findOld ??= oldListItemFinder(this.schema, this.oldValue);
    const old = this.findOld(this.value[i]);
    return old === undefined ? undefined : new CorrelatedObject(this.value[i], old, items);
  }

  deepEqual(): boolean {
    this.equal ??= schemaDeepEqual(this.value, this.oldValue, this.schema);
    return this.equal;
  }
}

/** kube's ratchetingOptions: the current correlated node, or the nearest correlated ancestor. */
export interface Ratcheting {
  readonly current?: CorrelatedObject;
  readonly nearestParent?: CorrelatedObject;
}

export function ratchetKey(r: Ratcheting, field: string): Ratcheting {
  if (!r.current) return r;
  // apiVersion and kind of the root are converted for both objects, so changes to them cannot be ratcheted
  if (!r.nearestParent && (field === 'apiVersion' || field === 'kind')) return {};
  return { current: r.current.key(field), nearestParent: r.current };
}

export function ratchetIndex(r: Ratcheting, i: number): Ratcheting {
  if (!r.current) return r;
  return { current: r.current.index(i), nearestParent: r.current };
}

/** Errors of a node equal to its old value (or below an unchanged correlated ancestor) are ratcheted. */
export function shouldRatchet(r: Ratcheting): boolean {
  if (r.current) return r.current.deepEqual();
  return r.nearestParent?.deepEqual() ?? false;
}
