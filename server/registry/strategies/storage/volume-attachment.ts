// VolumeAttachment: kube's ValidateVolumeAttachment plus ValidateVolumeAttachmentV1 (the v1 strategy applies
// both: attacher a CSI driver name, exactly one source, nodeName a node name) and ValidateVolumeAttachmentUpdate
// (spec immutable). pkg/apis/storage/validation/validation.go, pkg/registry/storage/volumeattachment/strategy.go.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Subdomain } from '../../validation/name.js';
import type { Obj } from '../fields.js';
import { validateCSIDriverName } from './csi-driver-name.js';

const exactlyOneSource = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

function validateVolumeAttachment(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const attacher = typeof spec['attacher'] === 'string' ? spec['attacher'] : '';
  if (attacher.length === 0) errs.push(fieldErrors.required(path.child('attacher')));
  const source = (spec['source'] ?? {}) as Obj;
  const pv = source['persistentVolumeName'];
  const inline = source['inlineVolumeSpec'];
  const hasPV = pv !== undefined && pv !== null;
  const hasInline = inline !== undefined && inline !== null;
  if (!hasPV && !hasInline) errs.push(fieldErrors.required(path.child('source'), exactlyOneSource));
  else if (hasPV && hasInline) errs.push(fieldErrors.forbidden(path.child('source'), exactlyOneSource));
  else if (hasPV && String(pv).length === 0) errs.push(fieldErrors.required(path.child('source', 'persistentVolumeName'), 'must specify non empty persistentVolumeName'));
  const nodeName = typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
  for (const msg of isDNS1123Subdomain(nodeName)) errs.push(fieldErrors.invalid(path.child('nodeName'), nodeName, msg));
  // ValidateVolumeAttachmentV1: newly created v1 attachments name a CSI driver and a valid PV name
  errs.push(...validateCSIDriverName(attacher, path.child('attacher')));
  if (hasPV) for (const msg of isDNS1123Subdomain(String(pv))) errs.push(fieldErrors.invalid(path.child('source', 'persistentVolumeName'), pv, msg));
  return errs;
}

export const volumeAttachmentStrategy: Strategy = {
  validate: (obj) => validateVolumeAttachment(obj as Obj),
  validateUpdate(obj, old) {
    const errs = validateVolumeAttachment(obj as Obj);
    // "Spec is read-only": kube prints the whole spec struct as the bad value; here it is the spec's JSON
    if (!jsonEqual(obj['spec'], old['spec'])) errs.push(fieldErrors.invalid('spec', obj['spec'], 'field is immutable'));
    return errs;
  },
};
