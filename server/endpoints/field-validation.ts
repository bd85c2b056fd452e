// Server-side field validation (the fieldValidation query parameter): Strict rejects unknown fields with
// kube's "strict decoding error", Warn (the default since 1.27) sends them as warnings, Ignore drops the check.
import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { unknownFields, unknownObjectMetaFields } from '../registry/known-fields.js';
import type { ResourceInfo } from '../registry/resource.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function parseFieldValidation(value: unknown): FieldValidation {
  const v = value === undefined ? '' : String(Array.isArray(value) ? value[0] : value);
  if (v === '' ) return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw errors.badRequest(`fieldValidation parameter unsupported: ${v}`);
}

/** The resource's own unknown fields when its schema is known (custom resources: what pruning drops), else its kind's. */
export function checkResourceFields(info: ResourceInfo, obj: KubeObject, mode: FieldValidation, warnings: string[]): void {
  const own = info.strategy.unknownFields;
  if (!own) return checkFields(info.kind, obj, mode, warnings);
  if (mode === 'Ignore') return;
  report([...unknownObjectMetaFields(obj as Record<string, unknown>), ...own(obj)], mode, warnings);
}

export function checkFields(kind: string, obj: KubeObject, mode: FieldValidation, warnings: string[]): void {
  if (mode === 'Ignore') return;
  report(unknownFields(kind, obj as Record<string, unknown>), mode, warnings);
}

function report(fields: string[], mode: FieldValidation, warnings: string[]): void {
  const unknown = fields.map((f) => `unknown field "${f}"`);
  if (unknown.length === 0) return;
  if (mode === 'Strict') throw errors.badRequest(`strict decoding error: ${unknown.join(', ')}`);
  warnings.push(...unknown);
}
