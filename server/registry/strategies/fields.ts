// Typed views of the nested fields the strategies read and default.
export type Obj = Record<string, unknown>;

export function objAt(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Obj;
  const fresh: Obj = {};
  parent[key] = fresh;
  return fresh;
}

export function listAt(parent: Obj, key: string): Obj[] {
  const v = parent[key];
  return Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Obj[]) : [];
}

export function setDefault(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}
