// CSINode and CSIStorageCapacity: the core of kube's ValidateCSINode (each driver a CSI driver name with a
// nodeID, no duplicates) and ValidateCSIStorageCapacity (storageClassName a class name).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Subdomain } from '../../validation/name.js';
import { listAt, type Obj } from '../fields.js';
import { validateCSIDriverName } from './csi-driver-name.js';

function validateCSINode(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root('spec', 'drivers');
  const seen = new Set<string>();
  listAt((obj['spec'] ?? {}) as Obj, 'drivers').forEach((d, i) => {
    const name = typeof d['name'] === 'string' ? d['name'] : '';
    errs.push(...validateCSIDriverName(name, path.index(i).child('name')));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(path.index(i).child('name'), name));
    seen.add(name);
    if (typeof d['nodeID'] !== 'string' || d['nodeID'].length === 0) errs.push(fieldErrors.required(path.index(i).child('nodeID'), 'nodeID must be provided'));
  });
  return errs;
}

export const csiNodeStrategy: Strategy = {
  validate: (obj) => validateCSINode(obj as Obj),
  validateUpdate: (obj) => validateCSINode(obj as Obj),
};

function validateCSIStorageCapacity(obj: Obj): FieldError[] {
  const name = typeof obj['storageClassName'] === 'string' ? obj['storageClassName'] : '';
  return isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid('storageClassName', name, msg));
}

export const csiStorageCapacityStrategy: Strategy = {
  validate: (obj) => validateCSIStorageCapacity(obj as Obj),
  validateUpdate: (obj) => validateCSIStorageCapacity(obj as Obj),
};
