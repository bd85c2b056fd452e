// StorageClass: kube's SetDefaults_StorageClass (pkg/apis/storage/v1/defaults.go) and ValidateStorageClass /
// ValidateStorageClassUpdate (pkg/apis/storage/validation/validation.go): provisioner required and a qualified
// name, parameters bounded, reclaimPolicy and volumeBindingMode enums; provisioner and parameters immutable.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { isQualifiedName } from '../../validation/name.js';
import { setDefault, type Obj } from '../fields.js';

const maxProvisionerParameterSize = 256 * (1 << 10);
const maxProvisionerParameterLen = 512;
const reclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];

export function validateParameters(params: unknown, path: FieldPath): FieldError[] {
  if (!params || typeof params !== 'object') return [];
  const entries = Object.entries(params as Record<string, string>);
  if (entries.length > maxProvisionerParameterLen) return [fieldErrors.tooLong(path, 'Provisioner Parameters exceeded max allowed', maxProvisionerParameterLen)];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(fieldErrors.invalid(path, k, 'field can not be empty.'));
    total += k.length + String(v).length;
  }
  if (total > maxProvisionerParameterSize) errs.push(fieldErrors.tooLong(path, '', maxProvisionerParameterSize));
  return errs;
}

function validateStorageClass(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = typeof obj['provisioner'] === 'string' ? obj['provisioner'] : '';
  const path = FieldPath.root('provisioner');
  if (provisioner.length === 0) errs.push(fieldErrors.required(path));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) errs.push(fieldErrors.invalid(path, provisioner, msg));
  errs.push(...validateParameters(obj['parameters'], FieldPath.root('parameters')));
  const reclaim = obj['reclaimPolicy'];
  if (typeof reclaim === 'string' && !reclaimPolicies.includes(reclaim)) errs.push(fieldErrors.notSupported('reclaimPolicy', reclaim, reclaimPolicies));
  const mode = obj['volumeBindingMode'];
  if (mode === undefined || mode === null) errs.push(fieldErrors.required('volumeBindingMode'));
  else if (!bindingModes.includes(String(mode))) errs.push(fieldErrors.notSupported('volumeBindingMode', mode, bindingModes));
  return errs;
}

export const storageClassStrategy: Strategy = {
  applyDefaults(obj) {
    setDefault(obj as Obj, 'reclaimPolicy', 'Delete');
    setDefault(obj as Obj, 'volumeBindingMode', 'Immediate');
  },
  validate: (obj) => validateStorageClass(obj as Obj),
  validateUpdate(obj, old) {
    // kube's ValidateStorageClassUpdate checks only these two (and metadata), not the whole class again
    const errs: FieldError[] = [];
    if (!jsonEqual(obj['parameters'] ?? {}, old['parameters'] ?? {})) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
    if ((obj['provisioner'] ?? '') !== (old['provisioner'] ?? '')) errs.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
    return errs;
  },
};
