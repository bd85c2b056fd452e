// What every group's catalogue file is made of: partial ResourceInfo entries (completed with kube's defaults by
// ./index.ts) and the small readers the printer columns share.
import type { KubeObject } from '../../api/types.js';
import type { PrinterColumn, ResourceInfo } from '../resource.js';

export type Entry = Partial<ResourceInfo> & Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>;

export const countOf = (field: string) => (o: KubeObject): number => {
  const v = o[field];
  return v && typeof v === 'object' ? Object.keys(v as object).length : 0;
};
export const lengthAt = (get: (o: KubeObject) => unknown) => (o: KubeObject): number => {
  const v = get(o);
  return Array.isArray(v) ? v.length : 0;
};
// Reads a nested field without a schema; the shapes are the v1 API's.
export const at = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);
export const str = (v: unknown): string => (v === undefined || v === null ? '<none>' : String(v));

export const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' };
