// ValidateCSIDriverName of kube's pkg/apis/core/validation: required, at most 63 characters, a DNS-1123
// subdomain once lowercased. Shared by CSIDriver names, VolumeAttachment attachers, CSINode drivers and
// VolumeAttributesClass driver names.
import { fieldErrors, type FieldError, type FieldPath } from '../../../api/field.js';
import { isDNS1123Subdomain } from '../../validation/name.js';

export function validateCSIDriverName(driverName: string, path: FieldPath | string): FieldError[] {
  const errs: FieldError[] = [];
  if (driverName.length === 0) errs.push(fieldErrors.required(path));
  if (driverName.length > 63) errs.push(fieldErrors.tooLong(path, driverName, 63));
  for (const msg of isDNS1123Subdomain(driverName.toLowerCase())) errs.push(fieldErrors.invalid(path, driverName, msg));
  return errs;
}
