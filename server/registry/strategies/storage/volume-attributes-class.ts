// VolumeAttributesClass: kube's ValidateVolumeAttributesClass / ValidateVolumeAttributesClassUpdate
// (pkg/apis/storage/validation): driverName a CSI driver name, parameters bounded as a StorageClass's;
// driverName and parameters immutable.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import type { Obj } from '../fields.js';
import { validateCSIDriverName } from './csi-driver-name.js';
import { validateParameters } from './storage-class.js';

function validateVolumeAttributesClass(obj: Obj): FieldError[] {
  return [...validateCSIDriverName(typeof obj['driverName'] === 'string' ? obj['driverName'] : '', FieldPath.root('driverName')), ...validateParameters(obj['parameters'], FieldPath.root('parameters'))];
}

export const volumeAttributesClassStrategy: Strategy = {
  validate: (obj) => validateVolumeAttributesClass(obj as Obj),
  validateUpdate(obj, old) {
    const errs = validateVolumeAttributesClass(obj as Obj);
    if (!jsonEqual(obj['parameters'] ?? {}, old['parameters'] ?? {})) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
    if ((obj['driverName'] ?? '') !== (old['driverName'] ?? '')) errs.push(fieldErrors.forbidden('driverName', 'updates to driverName are forbidden.'));
    return errs;
  },
};
