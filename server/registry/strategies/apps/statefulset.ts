// StatefulSets: kube's SetDefaults_StatefulSet (podManagementPolicy, updateStrategy with its partition and, with
// MaxUnavailableStatefulSet on by default since 1.35, maxUnavailable; the PVC retention policy, replicas,
// revisionHistoryLimit; the volume claim templates' PVC defaults) and the core of ValidateStatefulSetSpec and
// ValidateStatefulSetUpdate (only replicas, ordinals, template, updateStrategy, revisionHistoryLimit, the PVC
// retention policy and minReadySeconds may change).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label } from '../../validation/name.js';
import { listAt, objAt, setDefault, type Obj } from '../fields.js';
import { defaultTemplate, intOrPercentValue, nonNegative, specOf, validateControllerTemplate, validateIntOrPercent, validateSelectorAndTemplate } from './workload.js';

/** SetDefaults_PersistentVolumeClaim / PersistentVolumeClaimSpec, as the generated defaulters run them on each template. */
function defaultVolumeClaimTemplate(pvc: Obj): void {
  setDefault(objAt(pvc, 'spec'), 'volumeMode', 'Filesystem');
  setDefault(objAt(pvc, 'status'), 'phase', 'Pending');
}

export const statefulSetStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'podManagementPolicy', 'OrderedReady');
    const strategy = objAt(spec, 'updateStrategy');
    if (strategy['type'] === undefined || strategy['type'] === null || strategy['type'] === '') {
      strategy['type'] = 'RollingUpdate';
      // only a defaulted type brings a rollingUpdate of its own
      setDefault(strategy, 'rollingUpdate', {});
    }
    if (strategy['type'] === 'RollingUpdate' && strategy['rollingUpdate'] && typeof strategy['rollingUpdate'] === 'object') {
      const ru = strategy['rollingUpdate'] as Obj;
      setDefault(ru, 'partition', 0);
      setDefault(ru, 'maxUnavailable', 1);
    }
    const retention = objAt(spec, 'persistentVolumeClaimRetentionPolicy');
    if (!retention['whenDeleted']) retention['whenDeleted'] = 'Retain';
    if (!retention['whenScaled']) retention['whenScaled'] = 'Retain';
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultTemplate(spec);
    for (const pvc of listAt(spec, 'volumeClaimTemplates')) defaultVolumeClaimTemplate(pvc);
  },
  validate(obj) {
    return validateStatefulSetSpec(specOf(obj), { allowInvalidServiceName: false });
  },
  validateUpdate(obj, old) {
    const spec = specOf(obj);
    const oldSpec = specOf(old);
    // kube ratchets the serviceName rule: a stored object that predates it keeps passing
    const allowInvalidServiceName = serviceNameErrors(oldSpec).length > 0;
    const errs = validateStatefulSetSpec(spec, { allowInvalidServiceName });
    if (!jsonEqual(immutableView(spec, oldSpec), oldSpec)) {
      errs.push(
        fieldErrors.forbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      );
    }
    return errs;
  },
};

const mutableFields = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

/** The new spec with every mutable field taken from the old one: what must equal the old spec. */
function immutableView(spec: Obj, oldSpec: Obj): Obj {
  const view: Obj = { ...spec };
  for (const f of mutableFields) {
    if (oldSpec[f] === undefined) delete view[f];
    else view[f] = oldSpec[f];
  }
  return view;
}

function serviceNameErrors(spec: Obj): FieldError[] {
  const name = spec['serviceName'];
  if (typeof name !== 'string' || name === '') return [];
  return isDNS1123Label(name).map((msg) => fieldErrors.invalid(FieldPath.root('spec', 'serviceName'), name, msg));
}

/** ValidatePersistentVolumeClaimSpec's core for each volume claim template. */
function validateVolumeClaimTemplates(spec: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  listAt(spec, 'volumeClaimTemplates').forEach((pvc, i) => {
    const p = path.child('volumeClaimTemplates').index(i).child('spec');
    const pvcSpec = (pvc['spec'] ?? {}) as Obj;
    const accessModes = pvcSpec['accessModes'];
    if (!Array.isArray(accessModes) || accessModes.length === 0) {
      errs.push(fieldErrors.required(p.child('accessModes'), 'at least 1 access mode is required'));
    }
    const requests = (((pvcSpec['resources'] ?? {}) as Obj)['requests'] ?? {}) as Obj;
    if (requests['storage'] === undefined) errs.push(fieldErrors.required(p.child('resources').key('storage')));
  });
  return errs;
}

function validateUpdateStrategy(spec: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const strategy = (spec['updateStrategy'] ?? {}) as Obj;
  const ru = strategy['rollingUpdate'] as Obj | undefined | null;
  const ruPath = path.child('updateStrategy', 'rollingUpdate');
  switch (strategy['type'] ?? '') {
    case '':
      errs.push(fieldErrors.required(path.child('updateStrategy')));
      break;
    case 'OnDelete':
      if (ru) errs.push(fieldErrors.invalid(ruPath, ru, "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      if (ru) {
        errs.push(...nonNegative(ru['partition'], ruPath.child('partition')));
        const mu = ru['maxUnavailable'];
        if (mu !== undefined && mu !== null) {
          errs.push(...validateIntOrPercent(mu, ruPath.child('maxUnavailable')));
          if (intOrPercentValue(mu) === 0) errs.push(fieldErrors.invalid(ruPath.child('maxUnavailable'), mu, 'cannot be 0'));
          if (typeof mu === 'string' && /^[0-9]+%$/.test(mu) && intOrPercentValue(mu) > 100) errs.push(fieldErrors.invalid(ruPath.child('maxUnavailable'), mu, 'must not be greater than 100%'));
        }
      }
      break;
    default:
      errs.push(fieldErrors.invalid(path.child('updateStrategy'), strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  return errs;
}

function validateStatefulSetSpec(spec: Obj, opts: { allowInvalidServiceName: boolean }): FieldError[] {
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const pmp = spec['podManagementPolicy'] ?? '';
  if (pmp === '') errs.push(fieldErrors.required(path.child('podManagementPolicy')));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(fieldErrors.invalid(path.child('podManagementPolicy'), pmp, "must be 'OrderedReady' or 'Parallel'"));
  errs.push(...validateUpdateStrategy(spec, path));
  const retention = spec['persistentVolumeClaimRetentionPolicy'] as Obj | undefined | null;
  if (retention) {
    for (const key of ['whenDeleted', 'whenScaled']) {
      const v = retention[key] ?? '';
      if (v !== 'Retain' && v !== 'Delete') errs.push(fieldErrors.notSupported(path.child('persistentVolumeClaimRetentionPolicy', key), v, ['Retain', 'Delete']));
    }
  }
  errs.push(...validateVolumeClaimTemplates(spec, path));
  errs.push(...nonNegative(spec['replicas'], path.child('replicas')));
  errs.push(...nonNegative(spec['minReadySeconds'], path.child('minReadySeconds')));
  const ordinals = spec['ordinals'] as Obj | undefined | null;
  if (ordinals) errs.push(...nonNegative(ordinals['start'], path.child('ordinals.start')));
  // serviceName is optional (empty: no governing service), but when set it must be a DNS label
  if (!opts.allowInvalidServiceName) errs.push(...serviceNameErrors(spec));
  errs.push(...validateSelectorAndTemplate(spec, path, { emptyName: 'statefulset', unconvertibleDetail: '' }));
  // ValidatePodTemplateSpecForStatefulSet leaves the pod spec unvalidated (kube's TODO: volumes vs volumeClaimTemplates)
  errs.push(...validateControllerTemplate(spec, path, 'StatefulSet', { validatePodSpec: false }));
  return errs;
}
