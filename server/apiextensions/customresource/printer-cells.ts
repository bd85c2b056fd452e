// The cells of a CRD's additionalPrinterColumns as apiextensions-apiserver's tableconvertor renders them: the
// column's JSONPath is a client-go template (`{<jsonPath>}`, missing keys allowed), so filters
// (`[?(@.type=="Ready")]`), wildcards, slices and recursive descent work; only the first result is printed.
// A missing or mistyped value is a null cell (kubectl prints `<none>`). String columns print the value as
// client-go's jsonpath does (maps and lists as JSON, numbers as Go's %v); the other types keep the JSON value.
import { JSONPath } from 'jsonpath-plus';
import type { KubeObject } from '../../api/types.js';
import { humanDuration } from '../../api/human-duration.js';
import type { PrinterColumn } from '../../registry/resource.js';

export type PrinterCell = string | number | boolean | null;

/** A client-go column path as jsonpath-plus reads it: rooted at `$`, `[-n]` as the slice client-go means. */
function toJsonPathPlus(path: string): string {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  p = p.replace(/\[\s*(-\d+)\s*\]/g, (_m, n: string) => (n === '-1' ? '[-1:]' : `[${n}:${Number(n) + 1}]`));
  return p.startsWith('$') ? p : `$${p}`;
}

/** The values a column's path finds, in client-go's order; [] when nothing matches or the path does not apply. */
export function findColumnResults(obj: unknown, jsonPath: string): unknown[] {
  try {
    // jsonpath-plus's default 'safe' evaluator runs the filter expressions without JavaScript eval
    const found: unknown = JSONPath({ path: toJsonPathPlus(jsonPath), json: obj as object, wrap: true, eval: 'safe' });
    return Array.isArray(found) ? found : [];
  } catch {
    return [];
  }
}

/** Go's %v of a float64 (strconv 'g', shortest): exponent form below 1e-4 and from 1e6 on ("1e+06"). */
export function goFloatText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  const [mantissa = '0', expText = '0'] = v.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

/** A JSON number as the unstructured decoder holds it: whole numbers are int64, printed in full. */
function numberText(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) return BigInt(v).toString();
  return goFloatText(v);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** Go's json.Marshal: map keys sorted, HTML characters and line separators escaped. */
export function goJsonMarshal(v: unknown): string {
  return JSON.stringify(sortKeys(v)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** client-go jsonpath's PrintResults of one value (what a string column shows). */
export function jsonPathText(v: unknown): string {
  // text/template's printableValue of a nil interface
  if (v === null || v === undefined) return '<no value>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'boolean') return String(v);
  return goJsonMarshal(v);
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** metav1.Time.UnmarshalQueryParameter, then ConvertToHumanReadableDateType. */
function dateCell(value: string, now: Date): string {
  if (value === '' || value === 'null') return '<unknown>';
  const t = rfc3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(t)) return '<invalid>';
  return humanDuration(now.getTime() - t);
}

/** tableconvertor's cellForJSONValue for the non-string column types. */
function typedCell(type: PrinterColumn['type'], value: unknown, now: Date): PrinterCell {
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return typeof value === 'string' ? value : null;
  }
}

/** The cell of one object in one column. */
export function customResourceCell(column: { type: PrinterColumn['type']; jsonPath: string }, obj: KubeObject, now: Date): PrinterCell {
  const results = findColumnResults(obj, column.jsonPath);
  if (results.length === 0) return null;
  const value = results[0];
  if (column.type === 'string') return jsonPathText(value);
  if (value === null || value === undefined) return null;
  return typedCell(column.type, value, now);
}
