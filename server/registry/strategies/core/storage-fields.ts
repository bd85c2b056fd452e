// What PersistentVolumes and PersistentVolumeClaims share in kube's core validation: access modes, volume modes,
// class names, and the diff kube appends to its "immutable after creation" errors.
import { fieldErrors, type FieldError, type FieldPath } from '../../../api/field.js';
import { isDNS1123Subdomain } from '../../validation/name.js';
import type { Obj } from '../fields.js';

// sets.List(supportedAccessModes) and sets.List(supportedVolumeModes): sorted
const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const volumeModes = ['Block', 'Filesystem'];

/** The accessModes checks of ValidatePersistentVolumeSpec and ValidatePersistentVolumeClaimSpec. */
export function validateAccessModes(modes: unknown, path: FieldPath, requiredDetail: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = Array.isArray(modes) ? modes : [];
  if (list.length === 0) errs.push(fieldErrors.required(path, requiredDetail));
  let rwop = false;
  let other = false;
  for (const mode of list) {
    if (!accessModes.includes(String(mode))) errs.push(fieldErrors.notSupported(path, mode, accessModes));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (accessModes.includes(String(mode))) other = true;
  }
  if (rwop && other) errs.push(fieldErrors.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

export function validateVolumeMode(mode: unknown, path: FieldPath): FieldError[] {
  return mode !== undefined && mode !== null && !volumeModes.includes(String(mode)) ? [fieldErrors.notSupported(path, mode, volumeModes)] : [];
}

/** ValidateClassName: a DNS subdomain. */
export function validateClassName(name: unknown, path: FieldPath): FieldError[] {
  if (typeof name !== 'string' || name === '') return [];
  return isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

const goFieldName = (k: string): string => k.charAt(0).toUpperCase() + k.slice(1);

/**
 * A short rendering of the cmp.Diff kube appends to its immutability errors: one "-"/"+" pair per changed field.
 * kube prints Go values; here they are JSON, so only the first line of such a message is kube's exact text.
 */
export function specDiff(goType: string, oldSpec: Obj, newSpec: Obj): string {
  const lines = [`  ${goType}{`];
  for (const k of [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])].sort()) {
    const a = JSON.stringify(oldSpec[k]);
    const b = JSON.stringify(newSpec[k]);
    if (a === b) continue;
    if (a !== undefined) lines.push(`- \t${goFieldName(k)}: ${a},`);
    if (b !== undefined) lines.push(`+ \t${goFieldName(k)}: ${b},`);
  }
  lines.push('  }');
  return lines.join('\n');
}

export function nowRFC3339(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
