// How kube-apiserver sees a decoded JSON value: unstructured JSON decodes integral numbers as int64 and the
// others as float64, objects as map[string]interface{}, arrays as []interface{}. kube-openapi's validators pick
// what applies by that Go kind, and messages print numbers with Go's %v.

export type JSONKind = 'null' | 'string' | 'bool' | 'int' | 'float' | 'slice' | 'map';

export type JSONObject = Record<string, unknown>;

export function kindOf(v: unknown): JSONKind {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float';
    case 'bigint':
      return 'int';
    default:
      return Array.isArray(v) ? 'slice' : 'map';
  }
}

export const isObject = (v: unknown): v is JSONObject => kindOf(v) === 'map';

/** Go's %v of a float64: strconv 'g' with the shortest digits, %e when the exponent is < -4 or >= 6 (1e+06). */
export function goFloat(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa, expText] = v.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mantissa}e${sign}${abs < 10 ? `0${abs}` : abs}`;
  }
  // between 1e-4 and 1e6 JS and Go print the same plain decimal form
  return String(v);
}

/** Go's %v of a number as kube holds it: int64 plainly, float64 as goFloat. */
export const goNumber = (v: number, asInt: boolean): string => (asInt ? String(Math.trunc(v)) : goFloat(v));

/** reflect.DeepEqual over decoded JSON; numbers compare by value (int64 and float64 are converted for enums). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ka = kindOf(a);
  const kb = kindOf(b);
  if ((ka === 'int' || ka === 'float') && (kb === 'int' || kb === 'float')) return Number(a) === Number(b);
  if (ka !== kb) return false;
  if (ka === 'slice') {
    const x = a as unknown[];
    const y = b as unknown[];
    return x.length === y.length && x.every((v, i) => jsonEqual(v, y[i]));
  }
  if (ka === 'map') {
    const x = a as JSONObject;
    const y = b as JSONObject;
    const keys = Object.keys(x);
    return keys.length === Object.keys(y).length && keys.every((k) => Object.prototype.hasOwnProperty.call(y, k) && jsonEqual(x[k], y[k]));
  }
  return ka === 'null' && kb === 'null';
}

/** runtime.DeepCopyJSONValue */
export { deepCopyJSON } from '../../api/deep-copy.js';

/** json.Marshal of a value with Go's sorted map keys: the identity kube uses for set and map list elements. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
