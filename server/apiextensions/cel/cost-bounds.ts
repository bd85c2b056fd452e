// CRD-time cost limits (apiextensions validation.go), kube's cost error message, and the cardinality of a node: how
// many times it can occur in one request (the per-rule estimate is multiplied by it).
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { MAX_REQUEST_SIZE_BYTES, minSerializedSize } from './schema-sizes.js';

/** StaticEstimatedCostLimit: per expression (times its cardinality) */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** StaticEstimatedCRDCostLimit: all rules of one version's schema together */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** Go's %f: six decimals. */
const goF = (x: number): string => x.toFixed(6);

/** kube's getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let f: string;
  if (factor > 100) f = 'more than 100x';
  else if (factor < 1.5) f = `${goF(factor)}x`;
  else f = `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** How many times a node can occur: bounded by its ancestors' maxItems/maxProperties, else by the request size. */
export type Cardinality = number | 'unbounded';

export function childCardinality(parent: Cardinality, bound: number | undefined): Cardinality {
  if (parent === 'unbounded' || bound === undefined) return 'unbounded';
  return Math.min(Number.MAX_SAFE_INTEGER, parent * bound);
}

export function effectiveCardinality(c: Cardinality, schema: JSONSchemaProps, isResourceRoot: boolean): number {
  if (c !== 'unbounded') return c;
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize(schema, isResourceRoot) + 1));
}

/** multiplyWithOverflowGuard, saturating like Go's uint64 arithmetic at MaxUint64. */
export function multiplyCost(cost: number, cardinality: number): number {
  if (cost === 0) return 0;
  return Math.min(18446744073709551615, cost * cardinality);
}
