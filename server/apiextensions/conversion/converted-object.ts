// What kube checks on each object a conversion webhook returns (webhook_converter.go getRawExtensionObject,
// validateConvertedObject, restoreObjectMeta): it must decode as an object with a kind, keep kind, name,
// namespace and uid, and may only change labels and annotations; all other metadata is restored from the original.
import { FieldPath, formatFieldErrors } from '../../api/field.js';
import { parseGroupVersion } from '../../api/go-json-document.js';
import { goDynamicTypeName, goJsonKind, goUnmarshalTypeError } from '../../endpoints/patch/go-json.js';
import type { KubeObject } from '../../api/types.js';
import { validateAnnotations, validateLabels } from '../../registry/validation/object-meta.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A group, version and kind as Go's schema.GroupVersionKind prints it: "stable.example.com/v1, Kind=CronTab". */
export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

export const formatGvk = (gvk: Gvk): string => `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;

/** schema.GroupVersion.String(): "group/version", or the bare version for the core group. */
export const formatGroupVersion = (gv: { group: string; version: string }): string => (gv.group ? `${gv.group}/${gv.version}` : gv.version);

/** unstructured's nested string getters: anything but a string reads as "". */
function nestedString(obj: Record<string, unknown>, ...path: string[]): string {
  let cur: unknown = obj;
  for (const p of path) {
    if (!isObject(cur)) return '';
    cur = cur[p];
  }
  return typeof cur === 'string' ? cur : '';
}

/** Unstructured.GroupVersionKind(): an unparsable apiVersion gives the empty GVK. */
export function gvkOf(obj: Record<string, unknown>): Gvk {
  const gv = parseGroupVersion(nestedString(obj, 'apiVersion'));
  if (!gv.ok) return { group: '', version: '', kind: '' };
  return { group: gv.group, version: gv.version, kind: nestedString(obj, 'kind') };
}

export type RawObjectResult = { ok: true; object: Record<string, unknown> } | { ok: false; error: string };

/**
 * getRawExtensionObject: Unstructured.UnmarshalJSON of one convertedObjects element. `null` leaves the
 * RawExtension empty, which then fails to decode; a value without a kind is a MissingKindErr quoting the raw JSON.
 */
export function rawExtensionObject(value: unknown): RawObjectResult {
  if (value === null || value === undefined) return { ok: false, error: 'unexpected end of JSON input' };
  if (!isObject(value)) return { ok: false, error: goUnmarshalTypeError(goJsonKind(value), 'map[string]interface {}') };
  if (gvkOf(value).kind === '') return { ok: false, error: `Object 'Kind' is missing in '${JSON.stringify(value)}'` };
  return { ok: true, object: value };
}

/** validateConvertedObject: ObjectMeta identity must survive conversion (labels and annotations may change). */
export function validateConvertedObject(original: KubeObject, converted: Record<string, unknown>): string | undefined {
  const inObj = original as Record<string, unknown>;
  const pairs: Array<[string, string, string]> = [
    ['kind', nestedString(inObj, 'kind'), nestedString(converted, 'kind')],
    ['name', nestedString(inObj, 'metadata', 'name'), nestedString(converted, 'metadata', 'name')],
    ['namespace', nestedString(inObj, 'metadata', 'namespace'), nestedString(converted, 'metadata', 'namespace')],
    ['UID', nestedString(inObj, 'metadata', 'uid'), nestedString(converted, 'metadata', 'uid')],
  ];
  for (const [what, e, a] of pairs) {
    if (e !== a) return `must have the same ${what}: ${e} != ${a}`;
  }
  return undefined;
}

export type RestoreResult = { ok: true; object: KubeObject } | { ok: false; error: string };

/**
 * restoreObjectMeta: the converted object gets a deep copy of the original's metadata, with the webhook's labels and
 * annotations (absent or null ones are removed). Changed maps are validated as on any write; kube reports
 * annotation errors under `metadata.annotation` (sic).
 */
export function restoreObjectMeta(original: KubeObject, converted: Record<string, unknown>): RestoreResult {
  if (!('metadata' in converted)) return { ok: false, error: 'missing metadata in converted object' };
  const responseMeta = converted['metadata'];
  if (!isObject(responseMeta)) return { ok: false, error: `invalid metadata of type ${goDynamicTypeName(responseMeta)} in converted object` };
  const restored: Record<string, unknown> = original.metadata === undefined ? {} : (structuredClone(original.metadata) as Record<string, unknown>);
  for (const fld of ['labels', 'annotations'] as const) {
    const resp = responseMeta[fld];
    if (resp === undefined || resp === null) {
      delete restored[fld];
      continue;
    }
    if (!isObject(resp)) return { ok: false, error: `invalid metadata.${fld} of type ${goDynamicTypeName(resp)} in converted object` };
    const orig = restored[fld];
    if (orig !== undefined && orig !== null && !isObject(orig)) return { ok: false, error: `invalid metadata.${fld} of type ${goDynamicTypeName(orig)} in original object` };
    const origMap = (orig ?? {}) as Record<string, unknown>;
    let changed = Object.keys(origMap).length !== Object.keys(resp).length;
    for (const [k, v] of Object.entries(resp)) {
      if (typeof v !== 'string') return { ok: false, error: `metadata.${fld}[${k}] must be a string, but is ${goDynamicTypeName(v)} in converted object` };
      if (origMap[k] !== v) changed = true;
    }
    if (changed) {
      const strings = resp as Record<string, string>;
      const errs = fld === 'labels' ? validateLabels(strings, FieldPath.root('metadata', 'labels')) : validateAnnotations(strings, FieldPath.root('metadata', 'annotation'));
      if (errs.length > 0) return { ok: false, error: formatFieldErrors(errs) };
    }
    restored[fld] = resp;
  }
  return { ok: true, object: { ...converted, metadata: restored } as KubeObject };
}
