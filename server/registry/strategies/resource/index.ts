// resource.k8s.io/v1 registry strategies (dynamic resource allocation), keyed by "group/version/resource".
// The core of kube's validation: required fields and names, spec immutability of claims and templates; CEL
// selectors are not compiled and device attributes/capacities are not checked (see the README).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/name.js';
import { listAt, objAt, type Obj } from '../fields.js';
import { defaultDeviceClaim, validateDeviceClaim } from './device-claim.js';

const specOf = (o: KubeObject): Obj => ((o['spec'] ?? {}) as Obj);
const immutableSpec = (obj: KubeObject, old: KubeObject, path = 'spec'): FieldError[] =>
  jsonEqual(obj['spec'], old['spec']) ? [] : [fieldErrors.invalid(path, obj['spec'], 'field is immutable')];

function validateDeviceClass(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  listAt(specOf(obj), 'selectors').forEach((s, i) => {
    const cel = s['cel'] as Obj | undefined | null;
    // kube compiles the expression (not done here); a selector without `cel` is the one structural error
    if (!cel) errs.push(fieldErrors.required(FieldPath.root('spec', 'selectors').index(i).child('cel')));
  });
  return errs;
}

const exactlyOneNodeSelection = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';

function validateResourceSlice(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(obj);
  const path = FieldPath.root('spec');
  const driver = typeof spec['driver'] === 'string' ? spec['driver'] : '';
  if (driver.length === 0) errs.push(fieldErrors.required(path.child('driver')));
  else for (const msg of isDNS1123Subdomain(driver)) errs.push(fieldErrors.invalid(path.child('driver'), driver, msg));
  const pool = (spec['pool'] ?? {}) as Obj;
  if (typeof pool['name'] !== 'string' || pool['name'].length === 0) errs.push(fieldErrors.required(path.child('pool', 'name')));
  const count = typeof pool['resourceSliceCount'] === 'number' ? pool['resourceSliceCount'] : 0;
  if (count <= 0) errs.push(fieldErrors.invalid(path.child('pool', 'resourceSliceCount'), count, 'must be greater than zero'));
  const set: string[] = [];
  if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') set.push('`nodeName`');
  if (spec['nodeSelector'] !== undefined && spec['nodeSelector'] !== null) set.push('`nodeSelector`');
  if (spec['allNodes'] === true) set.push('`allNodes`');
  if (spec['perDeviceNodeSelection'] === true) set.push('`perDeviceNodeSelection`');
  if (set.length === 0) errs.push(fieldErrors.required(path, exactlyOneNodeSelection));
  else if (set.length > 1) errs.push(fieldErrors.invalid(path, `{${set.join(', ')}}`, `${exactlyOneNodeSelection}, but multiple fields are set`));
  const seen = new Set<string>();
  listAt(spec, 'devices').forEach((d, i) => {
    const p = path.child('devices').index(i).child('name');
    const name = typeof d['name'] === 'string' ? d['name'] : '';
    if (name.length === 0) errs.push(fieldErrors.required(p));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(p, name, msg));
      if (seen.has(name)) errs.push(fieldErrors.duplicate(p, name));
      seen.add(name);
    }
  });
  return errs;
}

export const resourceStrategies: Record<string, Strategy> = {
  'resource.k8s.io/v1/deviceclasses': { validate: validateDeviceClass, validateUpdate: (obj) => validateDeviceClass(obj) },
  'resource.k8s.io/v1/resourceclaims': {
    applyDefaults: (obj) => defaultDeviceClaim(objAt(obj as Obj, 'spec')),
    validate: (obj) => validateDeviceClaim(specOf(obj), FieldPath.root('spec')),
    // kube's ValidateResourceClaimUpdate: the spec is immutable once created
    validateUpdate: (obj, old) => immutableSpec(obj, old),
  },
  'resource.k8s.io/v1/resourceclaimtemplates': {
    applyDefaults: (obj) => defaultDeviceClaim(objAt(objAt(obj as Obj, 'spec'), 'spec')),
    validate: (obj) => validateDeviceClaim((specOf(obj)['spec'] ?? {}) as Obj, FieldPath.root('spec', 'spec')),
    validateUpdate: (obj, old) => immutableSpec(obj, old),
  },
  'resource.k8s.io/v1/resourceslices': { validate: validateResourceSlice, validateUpdate: (obj) => validateResourceSlice(obj) },
};
