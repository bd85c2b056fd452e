// Server-side printing: the meta.k8s.io Table kube-apiserver returns when a client (kubectl get) asks for
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Columns come from the resource's printer columns,
// after the Name column every table starts with; ages are rendered with apimachinery's HumanDuration.
import type { KubeObject, ListMeta, ObjectMeta } from '../api/types.js';
import type { PrinterColumn, ResourceInfo } from '../registry/resource.js';
import { humanDuration } from '../api/human-duration.js';

export type TableVersion = 'v1' | 'v1beta1';
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** metav1.TableColumnDefinition */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** metav1.PartialObjectMetadata: what a row carries for includeObject=Metadata. */
export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: string;
  metadata: ObjectMeta;
}

export type TableCell = string | number | boolean | null;

/** metav1.TableRow */
export interface TableRow {
  cells: TableCell[];
  object: KubeObject | PartialObjectMetadata | null;
}

/** metav1.Table */
export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  /** what each row's `object` holds; kubectl asks for Metadata, which is also kube's default */
  includeObject?: IncludeObject;
  /** the list's metadata (resourceVersion, continue, remainingItemCount) */
  listMeta?: ListMeta;
  /** the clock ages are computed against */
  now?: Date;
  /** the Table version the client accepted (parseTableAccept) */
  tableVersion?: TableVersion;
}

/** metav1.ObjectMeta{}.SwaggerDoc()["name"], the description kube gives the Name column. */
export const nameColumnDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

const NONE = '<none>';


/** The printers' translateTimestampSince: "<unknown>" for no timestamp, else the age. */
export function translateTimestampSince(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<invalid>';
  return humanDuration(now.getTime() - t);
}

type PathStep = string | number;

// Simple JSONPath of printer columns: `.a.b`, `.a[0].b`, `.a['b.c']`, optionally wrapped in `{}`.
function parseJsonPath(path: string): PathStep[] | undefined {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  const steps: PathStep[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '.') {
      i++;
      let name = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') name += p[i++];
      if (name !== '') steps.push(name);
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) return undefined;
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      const quoted = /^'(.*)'$|^"(.*)"$/.exec(inner);
      if (quoted) steps.push(quoted[1] ?? quoted[2] ?? '');
      else if (/^-?[0-9]+$/.test(inner)) steps.push(Number(inner));
      else return undefined;
    } else if (steps.length === 0 && c !== undefined && c !== '$') {
      // a path without the leading dot
      let name = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') name += p[i++];
      steps.push(name);
    } else {
      i++;
    }
  }
  return steps;
}

/** Evaluates a simple JSONPath against an object: the value, or undefined when any step is missing. */
export function evaluateJsonPath(obj: unknown, path: string): unknown {
  const steps = parseJsonPath(path);
  if (!steps) return undefined;
  let cur: unknown = obj;
  for (const step of steps) {
    if (cur === null || cur === undefined) return undefined;
    if (typeof step === 'number') {
      if (!Array.isArray(cur)) return undefined;
      const idx = step < 0 ? cur.length + step : step;
      cur = cur[idx];
    } else {
      if (typeof cur !== 'object' || Array.isArray(cur)) return undefined;
      cur = (cur as Record<string, unknown>)[step];
    }
  }
  return cur;
}

// A cell by column type, as the CRD table convertor does it; a missing or mistyped value prints "<none>".
function cellFor(column: PrinterColumn, value: unknown, now: Date): TableCell {
  if (value === undefined || value === null) return NONE;
  switch (column.type) {
    case 'date':
      return typeof value === 'string' ? translateTimestampSince(value, now) : NONE;
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : typeof value === 'string' ? value : NONE;
    case 'number':
      return typeof value === 'number' ? value : typeof value === 'string' ? value : NONE;
    case 'boolean':
      return typeof value === 'boolean' ? value : typeof value === 'string' ? value : NONE;
    case 'string':
    default:
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return JSON.stringify(value);
  }
}

function cellOf(column: PrinterColumn, obj: KubeObject, now: Date): TableCell {
  if (column.cell) return column.cell(obj, now);
  if (column.compute) {
    const v = column.compute(obj);
    // A computed date is already the cell (the default table convertor prints RFC 3339, not an age).
    if (column.type === 'date' && typeof v === 'string') return v;
    return cellFor(column, v, now);
  }
  if (column.jsonPath) return cellFor(column, evaluateJsonPath(obj, column.jsonPath), now);
  return NONE;
}

/** The column definitions of a resource's table: Name, then its printer columns. */
export function tableColumns(resource: ResourceInfo): TableColumnDefinition[] {
  return [
    { name: 'Name', type: 'string', format: 'name', description: nameColumnDescription, priority: 0 },
    ...resource.printerColumns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
}

/**
 * Objects as a meta.k8s.io Table, the way kube-apiserver's asTable transforms a get or list response:
 * each row's object is the full object (Object), its PartialObjectMetadata (Metadata, the default) or
 * null (None).
 */
export function toTable(resource: ResourceInfo, objects: readonly KubeObject[], opts: TableOptions = {}): Table {
  const version = opts.tableVersion ?? 'v1';
  const apiVersion = `meta.k8s.io/${version}`;
  const now = opts.now ?? new Date();
  const include = opts.includeObject ?? 'Metadata';
  const metadata: ListMeta = {};
  const listMeta = opts.listMeta ?? (objects.length === 1 ? { resourceVersion: objects[0]!.metadata?.resourceVersion } : undefined);
  if (listMeta?.resourceVersion !== undefined) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta?.continue) metadata.continue = listMeta.continue;
  if (listMeta?.remainingItemCount !== undefined) metadata.remainingItemCount = listMeta.remainingItemCount;
  const rows = objects.map<TableRow>((obj) => {
    const cells: TableCell[] = [resource.nameCell?.(obj) ?? obj.metadata?.name ?? '', ...resource.printerColumns.map((c) => cellOf(c, obj, now))];
    let object: TableRow['object'];
    switch (include) {
      case 'Object':
        object = obj;
        break;
      case 'None':
        object = null;
        break;
      case 'Metadata':
      default:
        object = { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata ?? {} };
    }
    return { cells, object };
  });
  return { kind: 'Table', apiVersion, metadata, columnDefinitions: tableColumns(resource), rows };
}

interface AcceptClause {
  type: string;
  params: Record<string, string>;
  q: number;
  index: number;
}

function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  header.split(',').forEach((raw, index) => {
    const [typePart, ...paramParts] = raw.split(';');
    const type = (typePart ?? '').trim().toLowerCase();
    if (type === '') return;
    const params: Record<string, string> = {};
    for (const pp of paramParts) {
      const eq = pp.indexOf('=');
      if (eq < 0) continue;
      params[pp.slice(0, eq).trim().toLowerCase()] = pp.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    }
    const q = params['q'] === undefined ? 1 : Number(params['q']);
    clauses.push({ type, params, q: Number.isNaN(q) ? 0 : q, index });
  });
  // goautoneg: by quality, most preferred first; ties keep the client's order
  return clauses.sort((a, b) => b.q - a.q || a.index - b.index);
}

/**
 * Which Table version an Accept header asks for: the first acceptable `application/json;as=Table` clause
 * with g=meta.k8s.io and v=v1 or v1beta1, or undefined when the client wants plain objects. Like kube's
 * negotiation, a plain media type listed before the Table clause wins.
 */
export function parseTableAccept(acceptHeader: string | undefined): TableVersion | undefined {
  for (const c of parseAccept(acceptHeader ?? '')) {
    if (c.q <= 0) continue;
    const asTable = c.params['as'];
    if (asTable === undefined) {
      if (c.type === 'application/json' || c.type === 'application/*' || c.type === '*/*') return undefined;
      continue;
    }
    if (c.type !== 'application/json') continue;
    if (asTable !== 'Table' || c.params['g'] !== 'meta.k8s.io') continue;
    const v = c.params['v'];
    if (v === 'v1' || v === 'v1beta1') return v;
  }
  return undefined;
}

export { humanDuration };
