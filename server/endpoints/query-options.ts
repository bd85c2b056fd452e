// Query parameters as kube-apiserver reads them. kube takes req.URL.Query() (Go's url.ParseQuery: every value of
// every key, in order) and converts it into ListOptions, GetOptions, CreateOptions, UpdateOptions, PatchOptions,
// DeleteOptions or TableOptions with its parameter codec (k8s.io/apimachinery/pkg/apis/meta/v1
// zz_generated.conversion.go Convert_url_Values_To_v1_*). Each field reads the FIRST value of its key, through
// the conversions of k8s.io/apimachinery/pkg/runtime/conversion.go:
// - bool (Convert_Slice_string_To_bool): absent is false; present, it is false only for "0" or "false" in any
//   case, and true for anything else, "True", "yes" and an empty value included;
// - int64 (Convert_Slice_string_To_int64): strconv.ParseInt(s, 10, 64), whose error text the handlers return
//   as a 400 BadRequest ("strconv.ParseInt: parsing \"abc\": invalid syntax");
// - string: the first value. Unknown keys are ignored.
// The `timeout` parameter is not an option field: the request-deadline filter reads it with time.ParseDuration.
import { errors } from '../api/errors.js';
import { formatFieldError, type FieldError } from '../api/field.js';
import { parseGoInt } from '../options/go-strconv.js';

/** Go's url.Values: every value of every key, in the order sent. */
export type UrlValues = Readonly<Record<string, readonly string[]>>;

export type Conversion<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Conversion<T> => ({ ok: true, value });
const fail = <T>(error: string): Conversion<T> => ({ ok: false, error });

/** Go's url.QueryUnescape: "+" is a space, %XX a byte; a bad escape fails the whole key or value. */
function queryUnescape(s: string): string | undefined {
  if (!s.includes('%') && !s.includes('+')) return s;
  const bytes = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x2b) out[n++] = 0x20;
    else if (c !== 0x25) out[n++] = c;
    else {
      const hex = i + 2 < bytes.length ? String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!) : '';
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      out[n++] = parseInt(hex, 16);
      i += 2;
    }
  }
  return out.subarray(0, n).toString('utf8');
}

/**
 * Go's url.ParseQuery as req.URL.Query() uses it: pairs split on "&", a pair holding ";" or a bad escape is
 * dropped (ParseQuery's error is ignored by Query()), empty pairs are skipped, a key without "=" has an empty value.
 */
export function parseGoQuery(rawQuery: string): UrlValues {
  const values: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const pair of rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    (values[key] ??= []).push(value);
  }
  return values;
}

const parsedQueries = new WeakMap<object, UrlValues>();

/** The query of a request as Go's req.URL.Query() sees it (parsed once per request). */
export function requestQuery(req: { originalUrl?: string; url: string }): UrlValues {
  let values = parsedQueries.get(req);
  if (!values) {
    const url = req.originalUrl ?? req.url;
    const q = url.indexOf('?');
    values = parseGoQuery(q < 0 ? '' : url.slice(q + 1));
    parsedQueries.set(req, values);
  }
  return values;
}

/**
 * url.Values from an already parsed query object ({key: value | value[]}), for callers that hold one; values that
 * are neither strings nor lists of strings (nested objects of an "extended" parser) are not Go query values.
 */
export function urlValuesFrom(query: Readonly<Record<string, unknown>>): UrlValues {
  const values: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [k, v] of Object.entries(query)) {
    if (typeof v === 'string') values[k] = [v];
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) values[k] = [...(v as string[])];
  }
  return values;
}

/** Convert_Slice_string_To_string: the first value; undefined when the key is absent (or has no values). */
export function firstValue(values: UrlValues, key: string): string | undefined {
  const v = values[key];
  return v && v.length > 0 ? v[0] : undefined;
}

/** Convert_Slice_string_To_bool over one key's values. */
export function sliceToBool(values: readonly string[] | undefined): boolean {
  if (!values || values.length === 0) return false;
  const v = values[0]!;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** Convert_Slice_string_To_Pointer_bool: like sliceToBool, but absent is nil (undefined). */
export function sliceToOptionalBool(values: readonly string[] | undefined): boolean | undefined {
  return values && values.length > 0 ? sliceToBool(values) : undefined;
}

/** Convert_Slice_string_To_int64 / _Pointer_int64: undefined when absent, strconv.ParseInt's error when malformed. */
export function sliceToInt64(values: readonly string[] | undefined): Conversion<number | undefined> {
  if (!values || values.length === 0) return ok(undefined);
  const parsed = parseGoInt(values[0]!, 10, 64);
  return parsed.ok ? ok(parsed.value) : fail(parsed.error);
}

/** Go's time package quoting (time.quote): bytes outside printable ASCII as \xNN, `"` and `\` escaped. */
function goTimeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

const durationUnits: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const maxUint63 = 1n << 63n;

/** Go's time.ParseDuration, in nanoseconds, with its exact error texts ("time: unknown unit \"x\" in duration \"10x\""). */
export function parseGoDuration(orig: string): Conversion<bigint> {
  const invalid = (): Conversion<bigint> => fail(`time: invalid duration ${goTimeQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return ok(0n);
  if (s === '') return invalid();
  let d = 0n;
  let i = 0;
  while (i < s.length) {
    if (!(s[i] === '.' || isDigit(s[i]))) return invalid();
    // leadingInt: digits before the point; more than 1<<63 is an error
    const start = i;
    let v = 0n;
    for (; isDigit(s[i]); i++) {
      if (v > maxUint63 / 10n) return invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > maxUint63) return invalid();
    }
    const pre = i !== start;
    // leadingFraction: digits after the point, as many as fit, the rest consumed and ignored
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[i] === '.') {
      i++;
      const fracStart = i;
      let overflow = false;
      for (; isDigit(s[i]); i++) {
        if (overflow) continue;
        if (f > (maxUint63 - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(i) - 48);
        if (y > maxUint63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i !== fracStart;
    }
    if (!pre && !post) return invalid();
    const unitStart = i;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i])) i++;
    if (i === unitStart) return fail(`time: missing unit in duration ${goTimeQuote(orig)}`);
    const u = s.slice(unitStart, i);
    const unit = durationUnits[u];
    if (unit === undefined) return fail(`time: unknown unit ${goTimeQuote(u)} in duration ${goTimeQuote(orig)}`);
    if (v > maxUint63 / unit) return invalid();
    v *= unit;
    if (f > 0n) {
      // float64, as Go computes the fraction's nanoseconds
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > maxUint63) return invalid();
    }
    d += v;
    if (d > maxUint63) return invalid();
  }
  if (neg) return ok(-d);
  if (d > maxUint63 - 1n) return invalid();
  return ok(d);
}

/** kube's request-deadline filter text for a `timeout` it cannot parse (k8s.io/apiserver/pkg/endpoints/filters/request_deadline.go). */
export const invalidTimeoutInURL = 'invalid timeout specified in the request URL';

/**
 * The `timeout` query parameter as kube's WithRequestDeadline reads it (req.URL.Query().Get: the first value):
 * absent or empty is no timeout; otherwise a Go duration, or the 400 text `invalid timeout specified in the request
 * URL - time: ...`.
 */
export function requestTimeout(values: UrlValues): Conversion<bigint | undefined> {
  const v = firstValue(values, 'timeout');
  if (v === undefined || v === '') return ok(undefined);
  const d = parseGoDuration(v);
  return d.ok ? d : fail(`${invalidTimeoutInURL} - ${d.error}`);
}

/** metav1.ListOptions (through internalversion: selectors are parsed later, by the handler's predicate). */
export interface ListOptions {
  labelSelector: string;
  fieldSelector: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  timeoutSeconds?: number;
  limit: number;
  continue: string;
  sendInitialEvents?: boolean;
}

/** Convert_url_Values_To_v1_ListOptions; the error is the conversion's (a 400 BadRequest in the handlers). */
export function decodeListOptions(values: UrlValues): Conversion<ListOptions> {
  const timeoutSeconds = sliceToInt64(values['timeoutSeconds']);
  if (!timeoutSeconds.ok) return timeoutSeconds;
  const limit = sliceToInt64(values['limit']);
  if (!limit.ok) return limit;
  const opts: ListOptions = {
    labelSelector: firstValue(values, 'labelSelector') ?? '',
    fieldSelector: firstValue(values, 'fieldSelector') ?? '',
    watch: sliceToBool(values['watch']),
    allowWatchBookmarks: sliceToBool(values['allowWatchBookmarks']),
    resourceVersion: firstValue(values, 'resourceVersion') ?? '',
    resourceVersionMatch: firstValue(values, 'resourceVersionMatch') ?? '',
    limit: limit.value ?? 0,
    continue: firstValue(values, 'continue') ?? '',
  };
  if (timeoutSeconds.value !== undefined) opts.timeoutSeconds = timeoutSeconds.value;
  const sendInitialEvents = sliceToOptionalBool(values['sendInitialEvents']);
  if (sendInitialEvents !== undefined) opts.sendInitialEvents = sendInitialEvents;
  return ok(opts);
}

/**
 * k8s.io/apimachinery/pkg/apis/meta/internalversion/validation ValidateListOptions, with the WatchList feature on
 * (as in kube 1.32+). Errors become a 422 Invalid of meta.k8s.io ListOptions.
 */
export function validateListOptions(opts: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.watch) {
    if (opts.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errs.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' });
    }
    if (match !== '') {
      if (opts.sendInitialEvents === undefined) errs.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' });
      if (match !== 'NotOlderThan') errs.push({ type: 'NotSupported', field: 'resourceVersionMatch', badValue: match, detail: 'supported values: "NotOlderThan"' });
      if (opts.continue !== '') errs.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden when continue is provided' });
    }
    return errs;
  }
  if (match !== '') {
    if (opts.resourceVersion === '') errs.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided' });
    if (opts.continue !== '') errs.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden when continue is provided' });
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push({ type: 'NotSupported', field: 'resourceVersionMatch', badValue: match, detail: 'supported values: "Exact", "NotOlderThan", ""' });
    if (match === 'Exact' && opts.resourceVersion === '0') errs.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' });
  }
  if (opts.sendInitialEvents !== undefined) errs.push({ type: 'Forbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for list' });
  return errs;
}

/**
 * The ListOptions of a list, watch or deletecollection as kube's handlers take them (handlers/get.go listOpts):
 * a value that does not convert is a 400 BadRequest with the conversion's text, invalid options a 422 Invalid.
 * @throws StatusError
 */
export function listOptionsOf(values: UrlValues): ListOptions {
  const opts = decodeListOptions(values);
  if (!opts.ok) throw errors.badRequest(opts.error);
  const invalid = validateListOptions(opts.value);
  if (invalid.length > 0) throw errors.invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', invalid);
  return opts.value;
}

/**
 * The dry_run label of kube's request metrics (endpoints/metrics cleanDryRun): "" without dryRun, "invalid" unless
 * every value is All, else the distinct values sorted and joined with ",".
 */
export function metricsDryRun(values: UrlValues): string {
  const dryRun = values['dryRun'];
  if (!dryRun) return '';
  if (dryRun.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(dryRun)].sort().join(',');
}

/** PatchOptions.force (Convert_Slice_string_To_Pointer_bool): undefined (nil) when absent. */
export function patchForce(values: UrlValues): boolean | undefined {
  return sliceToOptionalBool(values['force']);
}

/** DeleteOptions.gracePeriodSeconds (Convert_Slice_string_To_Pointer_int64). */
export function deleteGracePeriodSeconds(values: UrlValues): Conversion<number | undefined> {
  return sliceToInt64(values['gracePeriodSeconds']);
}

/** DeleteOptions.orphanDependents (Convert_Slice_string_To_Pointer_bool). */
export function deleteOrphanDependents(values: UrlValues): boolean | undefined {
  return sliceToOptionalBool(values['orphanDependents']);
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/**
 * TableOptions.includeObject, validated as kube's optionsForTransform does (handlers/response.go): "" is
 * Metadata, anything else but None/Metadata/Object is a 400 "Unable to convert to Table as requested: ...".
 */
export function tableIncludeObject(values: UrlValues): Conversion<IncludeObject> {
  const v = firstValue(values, 'includeObject') ?? '';
  if (v === '') return ok('Metadata');
  if (v === 'None' || v === 'Metadata' || v === 'Object') return ok(v);
  const invalid: FieldError = { type: 'Invalid', field: 'includeObject', badValue: v, detail: "must be 'Metadata', 'Object', 'None', or empty" };
  return fail(`Unable to convert to Table as requested: ${formatFieldError(invalid)}`);
}

/**
 * kube's isPrettyPrint (handlers/negotiation/negotiate.go): a non-empty `pretty` is read with strconv.ParseBool
 * (a bad value is false); without one, curl, Wget and browsers get indented JSON.
 */
export function prettyPrint(values: UrlValues, userAgent: string | undefined): boolean {
  const pp = firstValue(values, 'pretty');
  if (pp !== undefined && pp !== '') return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(pp);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
