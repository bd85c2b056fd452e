// What kube-apiserver's write handlers fix up around mutating admission, with the warning the client gets:
// duplicate ownerReferences are dropped (handlers/rest.go dedupOwnerReferencesAndAddWarning; create and update also
// before admission, patch only after), and managedFields a mutating plugin left invalid are put back as they were
// before admission (handlers/fieldmanager/admission.go, managedFieldsValidatingAdmissionController).
import { deepCopyJSON } from '../api/deep-copy.js';
import type { KubeObject } from '../api/types.js';
import { goQuote } from '../options/go-strconv.js';

/** handlers.DuplicateOwnerReferencesWarningFormat */
export const duplicateOwnerReferencesWarning = (uids: readonly string[]): string =>
  `.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids.join(', ')}`;

/** handlers.DuplicateOwnerReferencesAfterMutatingAdmissionWarningFormat */
export const duplicateOwnerReferencesAfterMutatingAdmissionWarning = (uids: readonly string[]): string =>
  `.metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids.join(', ')}`;

/** fieldmanager.InvalidManagedFieldsAfterMutatingAdmissionWarningFormat */
export const invalidManagedFieldsAfterMutatingAdmissionWarning = (error: string): string =>
  `.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${error}`;

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * apiequality.Semantic.DeepEqual of two metav1.OwnerReference values: the struct's six fields, pointers (controller,
 * blockOwnerDeletion) told apart from false when unset. Fields the type does not have were dropped by decoding.
 */
function ownerReferenceKey(ref: unknown): string {
  const r = isMap(ref) ? ref : {};
  const str = (k: string): string => (typeof r[k] === 'string' ? (r[k] as string) : '');
  const ptr = (k: string): boolean | null => (typeof r[k] === 'boolean' ? (r[k] as boolean) : null);
  return JSON.stringify([str('apiVersion'), str('kind'), str('name'), str('uid'), ptr('controller'), ptr('blockOwnerDeletion')]);
}

/**
 * dedupOwnerReferences: a reference equal to one already kept is dropped; references sharing only a UID stay.
 * Returns the UIDs of the dropped ones, in order (with repeats, as kube lists them).
 */
export function dedupOwnerReferences(refs: readonly unknown[]): { refs: unknown[]; duplicates: string[] } {
  const kept: unknown[] = [];
  const keptKeys = new Set<string>();
  const duplicates: string[] = [];
  for (const ref of refs) {
    const key = ownerReferenceKey(ref);
    if (keptKeys.has(key)) {
      duplicates.push(isMap(ref) && typeof ref['uid'] === 'string' ? ref['uid'] : '');
      continue;
    }
    keptKeys.add(key);
    kept.push(ref);
  }
  return { refs: kept, duplicates };
}

/** dedupOwnerReferencesAndAddWarning: dedups the object's ownerReferences in place; the warning, if any. */
export function dedupOwnerReferencesWithWarning(obj: KubeObject, afterMutatingAdmission: boolean): string | undefined {
  const meta = obj.metadata as Json | undefined;
  const refs = meta?.['ownerReferences'];
  if (!meta || !Array.isArray(refs) || refs.length < 2) return undefined;
  const { refs: deduped, duplicates } = dedupOwnerReferences(refs);
  if (duplicates.length === 0) return undefined;
  meta['ownerReferences'] = deduped;
  return afterMutatingAdmission ? duplicateOwnerReferencesAfterMutatingAdmissionWarning(duplicates) : duplicateOwnerReferencesWarning(duplicates);
}

/**
 * managedfields.ValidateManagedFields (internal.DecodeManagedFields): the first problem, entry by entry. The
 * decoding of fieldsV1 itself is not checked here (see README deviations).
 */
export function validateManagedFields(entries: unknown): string | undefined {
  if (!Array.isArray(entries)) return undefined;
  for (let i = 0; i < entries.length; i++) {
    const e = isMap(entries[i]) ? (entries[i] as Json) : {};
    const operation = e['operation'];
    if (operation !== 'Apply' && operation !== 'Update') return 'operation must be `Apply` or `Update`';
    if (typeof e['apiVersion'] !== 'string' || e['apiVersion'].length < 1) return 'apiVersion must not be empty';
    const fieldsType = typeof e['fieldsType'] === 'string' ? e['fieldsType'] : '';
    if (fieldsType === '') return `missing fieldsType in managed fields entry ${i}`;
    if (fieldsType !== 'FieldsV1') return `invalid fieldsType ${goQuote(fieldsType)} in managed fields entry ${i}`;
  }
  return undefined;
}

/**
 * managedFieldsValidatingAdmissionController.Admit, after the mutating chain: invalid managedFields are reset to
 * `before` (what the field manager recorded before admission). Returns the warning, if any.
 */
export function resetInvalidManagedFields(obj: KubeObject, before: unknown): string | undefined {
  const meta = obj.metadata as Json | undefined;
  if (!meta) return undefined;
  const error = validateManagedFields(meta['managedFields']);
  if (error === undefined) return undefined;
  if (before === undefined) delete meta['managedFields'];
  else meta['managedFields'] = deepCopyJSON(before);
  return invalidManagedFieldsAfterMutatingAdmissionWarning(error);
}
