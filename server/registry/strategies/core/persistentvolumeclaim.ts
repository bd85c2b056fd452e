// PersistentVolumeClaims: SetDefaults_PersistentVolumeClaim(Spec) (volumeMode Filesystem, phase Pending) and the
// core of ValidatePersistentVolumeClaimSpec/ValidatePersistentVolumeClaimUpdate (pkg/apis/core/validation): the
// spec is immutable after creation but for volumeName (set once), a storage class set from nil, and, for bound
// claims, resources.requests.storage; volumeAttributesClassName may change but not back to nil.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { validateLabelSelector, type LabelSelectorLike } from '../../selectors/label-selector.js';
import { compareQuantities, quantityValue } from '../../validation/quantity.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { resourceList, validatePositiveQuantity, validateResourceQuantityValue } from './resources.js';
import { persistentVolumeClaimWarnings } from './storage-warnings.js';
import { specDiff, validateAccessModes, validateClassName, validateVolumeMode } from './storage-fields.js';

const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

function validateClaim(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  errs.push(...validateAccessModes(spec['accessModes'], path.child('accessModes'), 'at least 1 access mode is required'));
  if (spec['selector'] && typeof spec['selector'] === 'object') errs.push(...validateLabelSelector(spec['selector'] as LabelSelectorLike, path.child('selector')));
  const requests = resourceList((spec['resources'] as Obj | undefined)?.['requests']);
  const storagePath = path.child('resources').key('storage');
  if (!('storage' in requests)) errs.push(fieldErrors.required(storagePath));
  else {
    const positive = validatePositiveQuantity(requests['storage'], storagePath);
    errs.push(...(positive.length > 0 ? positive : validateResourceQuantityValue('storage', requests['storage'], storagePath)));
  }
  errs.push(...validateClassName(spec['storageClassName'], path.child('storageClassName')));
  errs.push(...validateVolumeMode(spec['volumeMode'], path.child('volumeMode')));
  errs.push(...validateClassName(spec['volumeAttributesClassName'], path.child('volumeAttributesClassName')));
  errs.push(...validateDataSource(spec['dataSource'], path.child('dataSource')));
  errs.push(...validateDataSource(spec['dataSourceRef'], path.child('dataSourceRef')));
  return errs;
}

/** validateDataSource / validateDataSourceRef: a name, a kind, and a group unless the kind is a claim. */
function validateDataSource(ref: unknown, path: FieldPath): FieldError[] {
  if (!ref || typeof ref !== 'object') return [];
  const r = ref as Obj;
  const errs: FieldError[] = [];
  if (!r['name']) errs.push(fieldErrors.required(path.child('name')));
  if (!r['kind']) errs.push(fieldErrors.required(path.child('kind')));
  const group = typeof r['apiGroup'] === 'string' ? r['apiGroup'] : '';
  const kind = String(r['kind'] ?? '');
  // GroupKind.String() of a core kind is the kind alone
  if (group === '' && kind !== 'PersistentVolumeClaim') errs.push(fieldErrors.notSupported(path, kind, ['PersistentVolumeClaim']));
  return errs;
}

/** NormalizeDataSources (PrepareForCreate, AnyVolumeDataSource on): dataSource and dataSourceRef mirror each other. */
function normalizeDataSources(spec: Obj): void {
  const pick = (r: Obj): Obj => Object.fromEntries(['apiGroup', 'kind', 'name'].filter((k) => r[k] !== undefined).map((k) => [k, r[k]]));
  const source = spec['dataSource'] as Obj | undefined;
  const ref = spec['dataSourceRef'] as Obj | undefined;
  if (source && typeof source === 'object' && !ref) spec['dataSourceRef'] = pick(source);
  else if (ref && typeof ref === 'object' && !source && !ref['namespace']) spec['dataSource'] = pick(ref);
}

/** A spec with its quantities as numbers, for apiequality.Semantic.DeepEqual (1Gi equals 1024Mi). */
function semantic(spec: Obj): Obj {
  const copy = structuredClone(spec);
  const resources = copy['resources'] as Obj | undefined;
  for (const list of ['requests', 'limits']) {
    const l = resources?.[list] as Obj | undefined;
    if (l) for (const k of Object.keys(l)) l[k] = quantityValue(l[k]) ?? l[k];
  }
  for (const k of Object.keys(copy)) if (copy[k] === null) delete copy[k];
  return copy;
}

function annotation(obj: KubeObject, key: string): string | undefined {
  return obj.metadata?.annotations?.[key];
}

export const persistentVolumeClaimStrategy: Strategy = {
  applyDefaults(obj) {
    // a create arrives without status (the store resets it)
    if (obj['status'] === undefined) normalizeDataSources(objAt(obj as Obj, 'spec'));
    setDefault(objAt(obj as Obj, 'spec'), 'volumeMode', 'Filesystem');
    const status = objAt(obj as Obj, 'status');
    if (status['phase'] === undefined || status['phase'] === '') status['phase'] = 'Pending';
  },
  validate: validateClaim,
  warningsOnCreate: persistentVolumeClaimWarnings,
  warningsOnUpdate: (obj) => persistentVolumeClaimWarnings(obj),
  validateUpdate(obj, old) {
    const errs = validateClaim(obj);
    const spec = (obj['spec'] ?? {}) as Obj;
    const oldSpec = (old['spec'] ?? {}) as Obj;
    const newClone = structuredClone(spec);
    const oldClone = structuredClone(oldSpec);
    // the PV controller sets volumeName once
    if (!oldSpec['volumeName']) {
      if (newClone['volumeName'] === undefined) delete oldClone['volumeName'];
      else oldClone['volumeName'] = newClone['volumeName'];
    }
    const oldAnno = annotation(old, betaStorageClassAnnotation);
    const newAnno = annotation(obj, betaStorageClassAnnotation);
    const oldSc = oldSpec['storageClassName'];
    const newSc = spec['storageClassName'];
    const unset = (v: unknown): boolean => v === undefined || v === null;
    if (oldAnno !== undefined && unset(oldSc) && !unset(newSc) && newSc === oldAnno && (newAnno === undefined || newAnno === oldAnno)) {
      // the upgrade from the beta annotation to the field
      delete newClone['storageClassName'];
    } else {
      // ValidateImmutableAnnotation: Go's map lookup gives "" for an absent annotation
      if ((oldAnno ?? '') !== (newAnno ?? '')) errs.push(fieldErrors.invalid(FieldPath.root('metadata', 'annotations', betaStorageClassAnnotation), newAnno ?? '', 'field is immutable'));
      if (!unset(newSc) && unset(oldSc) && (oldAnno === undefined || newSc === oldAnno)) delete newClone['storageClassName'];
    }
    const status = (obj['status'] ?? {}) as Obj;
    const newRequests = (newClone['resources'] as Obj | undefined)?.['requests'] as Obj | undefined;
    const oldRequests = resourceList((oldSpec['resources'] as Obj | undefined)?.['requests']);
    if (status['phase'] === 'Bound' && newRequests) {
      if (oldRequests['storage'] === undefined) delete newRequests['storage'];
      else newRequests['storage'] = oldRequests['storage'];
    }
    if (oldClone['volumeAttributesClassName'] === undefined) delete newClone['volumeAttributesClassName'];
    else newClone['volumeAttributesClassName'] = oldClone['volumeAttributesClassName'];
    if (!jsonEqual(semantic(newClone), semantic(oldClone))) {
      errs.push(fieldErrors.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${specDiff('core.PersistentVolumeClaimSpec', oldClone, newClone)}`));
    }
    // RecoverVolumeExpansionFailure (on by default): a claim may shrink down to just above status.capacity
    const newSize = resourceList((spec['resources'] as Obj | undefined)?.['requests'])['storage'] ?? '0';
    const oldSize = oldRequests['storage'] ?? '0';
    const statusSize = resourceList(((old['status'] ?? {}) as Obj)['capacity'])['storage'] ?? '0';
    if ((compareQuantities(newSize, oldSize) ?? 0) < 0 && (compareQuantities(newSize, statusSize) ?? 1) <= 0) {
      errs.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
    }
    if (!jsonEqual(spec['volumeMode'], oldSpec['volumeMode'])) errs.push(fieldErrors.invalid('volumeMode', spec['volumeMode'] ?? null, 'field is immutable'));
    const oldVac = oldSpec['volumeAttributesClassName'];
    const vac = spec['volumeAttributesClassName'];
    if (!unset(oldVac)) {
      if (unset(vac)) errs.push(fieldErrors.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
      else if (vac === '') errs.push(fieldErrors.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to an empty string is forbidden'));
    }
    return errs;
  },
};
