// Server-side field validation (the fieldValidation query parameter): Strict rejects unknown fields with
// kube's "strict decoding error", Warn (the default since 1.27) sends them as warnings, Ignore drops the check.
import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { unknownFields } from '../registry/known-fields.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function parseFieldValidation(value: unknown): FieldValidation {
  const v = value === undefined ? '' : String(Array.isArray(value) ? value[0] : value);
  if (v === '' ) return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw errors.badRequest(`fieldValidation parameter unsupported: ${v}`);
}

export function checkFields(kind: string, obj: KubeObject, mode: FieldValidation, warnings: string[]): void {
  if (mode === 'Ignore') return;
  const unknown = unknownFields(kind, obj as Record<string, unknown>).map((f) => `unknown field "${f}"`);
  if (unknown.length === 0) return;
  if (mode === 'Strict') throw errors.badRequest(`strict decoding error: ${unknown.join(', ')}`);
  warnings.push(...unknown);
}
