// CSIDriver: kube's SetDefaults_CSIDriver (pkg/apis/storage/v1/defaults.go, with the feature gates on by default
// in 1.36: volumeLifecycleModes and fsGroupPolicy defaulted, seLinuxMount false) and the core of
// ValidateCSIDriver (name as a CSI driver name, enums of volumeLifecycleModes and fsGroupPolicy).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { validateCSIDriverName } from './csi-driver-name.js';

const lifecycleModes = ['Ephemeral', 'Persistent'];
const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];

export const csiDriverStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'attachRequired', true);
    setDefault(spec, 'podInfoOnMount', false);
    setDefault(spec, 'storageCapacity', false);
    setDefault(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
    if (!Array.isArray(spec['volumeLifecycleModes']) || spec['volumeLifecycleModes'].length === 0) spec['volumeLifecycleModes'] = ['Persistent'];
    setDefault(spec, 'requiresRepublish', false);
    setDefault(spec, 'seLinuxMount', false);
  },
  validate: (obj) => validateCSIDriver(obj as Obj),
  validateUpdate: (obj) => validateCSIDriver(obj as Obj),
};

function validateCSIDriver(obj: Obj): FieldError[] {
  const errs = validateCSIDriverName(String((obj['metadata'] as Obj | undefined)?.['name'] ?? ''), FieldPath.root('metadata', 'name'));
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  if (spec['attachRequired'] === undefined || spec['attachRequired'] === null) errs.push(fieldErrors.required(path.child('attachRequired'), 'attachRequired must be specified'));
  if (spec['podInfoOnMount'] === undefined || spec['podInfoOnMount'] === null) errs.push(fieldErrors.required(path.child('podInfoOnMount'), 'podInfoOnMount must be specified'));
  const modes = Array.isArray(spec['volumeLifecycleModes']) ? (spec['volumeLifecycleModes'] as unknown[]) : [];
  modes.forEach((m, i) => {
    if (!lifecycleModes.includes(String(m))) errs.push(fieldErrors.notSupported(path.child('volumeLifecycleModes').index(i), m, lifecycleModes));
  });
  const policy = spec['fsGroupPolicy'];
  if (policy !== undefined && policy !== null && !fsGroupPolicies.includes(String(policy))) errs.push(fieldErrors.notSupported(path.child('fsGroupPolicy'), policy, fsGroupPolicies));
  return errs;
}
