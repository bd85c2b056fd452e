// PersistentVolumes: SetDefaults_PersistentVolume (reclaim policy Retain, volumeMode Filesystem, phase Pending),
// the PV strategy's PrepareForCreate (status Pending with lastPhaseTransitionTime) and the core of
// ValidatePersistentVolumeSpec/ValidatePersistentVolumeUpdate (pkg/apis/core/validation/validation.go).
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { resourceList, validatePositiveQuantity } from './resources.js';
import { persistentVolumeWarnings } from './storage-warnings.js';
import { nowRFC3339, specDiff, validateAccessModes, validateClassName, validateVolumeMode } from './storage-fields.js';
import type { KubeObject } from '../../../api/types.js';

// The PersistentVolumeSource members, in the order ValidatePersistentVolumeSpec checks them (the second one found is
// the one reported); flexVolume is counted without the check, as kube does.
const sources = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cephfs', 'iscsi', 'cinder', 'fc',
  'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO', 'local', 'storageos', 'csi',
];
// kube names a few of the Forbidden paths differently from the JSON field (cephFS for cephfs)
const forbiddenPathName: Record<string, string> = { cephfs: 'cephFS' };
const reclaimPolicies = ['Delete', 'Recycle', 'Retain'];
const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function validateSource(name: string, src: Obj, path: FieldPath, spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const str = (k: string): string => (typeof src[k] === 'string' ? (src[k] as string) : '');
  switch (name) {
    case 'hostPath':
      if (str('path') === '') errs.push(fieldErrors.required(path.child('path')));
      else if (str('path').split('/').includes('..')) errs.push(fieldErrors.invalid(path.child('path'), str('path'), "must not contain '..'"));
      if (src['type'] !== undefined && src['type'] !== null && !hostPathTypes.includes(String(src['type']))) errs.push(fieldErrors.notSupported(path.child('type'), src['type'], hostPathTypes));
      break;
    case 'nfs':
      if (str('server') === '') errs.push(fieldErrors.required(path.child('server')));
      if (str('path') === '') errs.push(fieldErrors.required(path.child('path')));
      else if (!str('path').startsWith('/')) errs.push(fieldErrors.invalid(path.child('path'), str('path'), 'must be an absolute path'));
      break;
    case 'local':
      if (str('path') === '') errs.push(fieldErrors.required(path.child('path')));
      if (spec['nodeAffinity'] === undefined || spec['nodeAffinity'] === null) errs.push(fieldErrors.required(FieldPath.root('spec', 'nodeAffinity'), 'Local volume requires node affinity'));
      break;
    case 'csi':
      if (str('driver') === '') errs.push(fieldErrors.required(path.child('driver')));
      if (str('volumeHandle') === '') errs.push(fieldErrors.required(path.child('volumeHandle')));
      break;
  }
  return errs;
}

function validatePersistentVolume(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  errs.push(...validateAccessModes(spec['accessModes'], path.child('accessModes'), ''));
  const capacity = resourceList(spec['capacity']);
  const keys = Object.keys(capacity);
  if (keys.length === 0) errs.push(fieldErrors.required(path.child('capacity')));
  if (!('storage' in capacity) || keys.length > 1) {
    // kube prints the ResourceList with %#v; the nil map is the common case
    const bad = keys.length === 0 ? new GoStructValue('core.ResourceList(nil)') : capacity;
    errs.push(fieldErrors.notSupported(path.child('capacity'), bad, ['storage']));
  }
  for (const [k, q] of Object.entries(capacity)) errs.push(...validatePositiveQuantity(q, path.child('capacity').key(k)));
  const policy = spec['persistentVolumeReclaimPolicy'];
  if (typeof policy === 'string' && policy !== '' && !reclaimPolicies.includes(policy)) errs.push(fieldErrors.notSupported(path.child('persistentVolumeReclaimPolicy'), policy, reclaimPolicies));
  let found = 0;
  for (const name of sources) {
    const src = spec[name];
    if (src === undefined || src === null) continue;
    if (found > 0 && name !== 'flexVolume') errs.push(fieldErrors.forbidden(path.child(forbiddenPathName[name] ?? name), 'may not specify more than 1 volume type'));
    else errs.push(...validateSource(name, src as Obj, path.child(name), spec));
    found++;
  }
  if (found === 0) errs.push(fieldErrors.required(path, 'must specify a volume type'));
  const hostPath = spec['hostPath'] as Obj | undefined;
  if (hostPath && typeof hostPath['path'] === 'string' && /^\/+$/.test(hostPath['path']) && policy === 'Recycle') {
    errs.push(fieldErrors.forbidden(path.child('persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  errs.push(...validateClassName(spec['storageClassName'], path.child('storageClassName')));
  errs.push(...validateVolumeMode(spec['volumeMode'], path.child('volumeMode')));
  const vac = spec['volumeAttributesClassName'];
  if (vac !== undefined && vac !== null) {
    if (vac === '') errs.push(fieldErrors.required(path.child('volumeAttributesClassName'), 'an empty string is disallowed'));
    else errs.push(...validateClassName(vac, path.child('volumeAttributesClassName')));
    if (spec['csi'] === undefined || spec['csi'] === null) errs.push(fieldErrors.required(path.child('csi'), 'has to be specified when using volumeAttributesClassName'));
  }
  return errs;
}

function sourceOf(spec: Obj): Obj {
  const out: Obj = {};
  for (const name of sources) if (spec[name] !== undefined && spec[name] !== null) out[name] = spec[name];
  return out;
}

export const persistentVolumeStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    setDefault(spec, 'volumeMode', 'Filesystem');
    const hostPath = spec['hostPath'];
    if (hostPath && typeof hostPath === 'object') setDefault(hostPath as Obj, 'type', '');
    // A create arrives without status (the store resets it): PrepareForCreate makes it Pending since now. Otherwise
    // SetDefaults_PersistentVolume only defaults the phase; a /status write's time is prepareStatusUpdate's.
    const creating = obj['status'] === undefined;
    const status = objAt(obj as Obj, 'status');
    if (status['phase'] === undefined || status['phase'] === '') status['phase'] = 'Pending';
    if (creating) status['lastPhaseTransitionTime'] = nowRFC3339();
  },
  prepareStatusUpdate(obj, old) {
    const status = objAt(obj as Obj, 'status');
    const oldStatus = (old['status'] ?? {}) as Obj;
    const stamp = status['lastPhaseTransitionTime'];
    if (status['phase'] === oldStatus['phase']) {
      // phase unchanged: the existing time stays unless the client set one
      if (stamp === undefined || stamp === null) {
        if (oldStatus['lastPhaseTransitionTime'] === undefined) delete status['lastPhaseTransitionTime'];
        else status['lastPhaseTransitionTime'] = oldStatus['lastPhaseTransitionTime'];
      }
    } else if (stamp === undefined || stamp === null || stamp === oldStatus['lastPhaseTransitionTime']) {
      status['lastPhaseTransitionTime'] = nowRFC3339();
    }
  },
  validate: validatePersistentVolume,
  warningsOnCreate: persistentVolumeWarnings,
  warningsOnUpdate: (obj) => persistentVolumeWarnings(obj),
  validateUpdate(obj, old) {
    const errs = validatePersistentVolume(obj);
    const spec = (obj['spec'] ?? {}) as Obj;
    const oldSpec = (old['spec'] ?? {}) as Obj;
    const newSource = structuredClone(sourceOf(spec));
    const oldSource = sourceOf(oldSpec);
    // csi.controllerExpandSecretRef may be added to a volume that had none
    const oldCsi = oldSource['csi'] as Obj | undefined;
    const newCsi = newSource['csi'] as Obj | undefined;
    if (oldCsi && newCsi && oldCsi['controllerExpandSecretRef'] === undefined) delete newCsi['controllerExpandSecretRef'];
    if (!jsonEqual(newSource, oldSource)) {
      errs.push(fieldErrors.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${specDiff('core.PersistentVolumeSource', oldSource, newSource)}`));
    }
    // kube's path for these two omits "spec"
    if (!jsonEqual(spec['volumeMode'], oldSpec['volumeMode'])) errs.push(fieldErrors.invalid('volumeMode', spec['volumeMode'] ?? null, 'field is immutable'));
    if (oldSpec['nodeAffinity'] !== undefined && oldSpec['nodeAffinity'] !== null && !jsonEqual(spec['nodeAffinity'], oldSpec['nodeAffinity'])) {
      errs.push(fieldErrors.invalid('nodeAffinity', spec['nodeAffinity'] ?? null, 'field is immutable, except for updating from beta label to GA'));
    }
    const oldVac = oldSpec['volumeAttributesClassName'];
    const vac = spec['volumeAttributesClassName'];
    if (oldVac !== undefined && oldVac !== null && (vac === undefined || vac === null)) errs.push(fieldErrors.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
    return errs;
  },
};
