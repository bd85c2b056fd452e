// The core of kube's resource.k8s.io validation (pkg/apis/resource/validation/validation.go) and defaults
// (pkg/apis/resource/v1/defaults.go) for what claims and templates share: spec.devices.requests, each named
// (a DNS label, unique) and either `exactly` (with a deviceClassName) or `firstAvailable` (named subrequests).
// Selectors' CEL expressions are not compiled, constraints and config are not checked.
import { fieldErrors, type FieldError, type FieldPath } from '../../../api/field.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/name.js';
import { listAt, objAt, setDefault, type Obj } from '../fields.js';

const exactlyOneOf = 'exactly one of `exactly` or `firstAvailable` is required';

/** SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest: allocationMode ExactCount with count 1. */
function defaultCountRequest(r: Obj): void {
  setDefault(r, 'allocationMode', 'ExactCount');
  if (r['allocationMode'] === 'ExactCount' && !r['count']) r['count'] = 1;
  for (const t of listAt(r, 'tolerations')) setDefault(t, 'operator', 'Equal');
}

export function defaultDeviceClaim(claimSpec: Obj): void {
  const devices = claimSpec['devices'];
  if (!devices || typeof devices !== 'object') return;
  for (const req of listAt(objAt(claimSpec, 'devices'), 'requests')) {
    if (req['exactly'] && typeof req['exactly'] === 'object') defaultCountRequest(req['exactly'] as Obj);
    for (const sub of listAt(req, 'firstAvailable')) defaultCountRequest(sub);
  }
}

function validateCountRequest(r: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const className = typeof r['deviceClassName'] === 'string' ? r['deviceClassName'] : '';
  if (className.length === 0) errs.push(fieldErrors.required(path.child('deviceClassName')));
  else for (const msg of isDNS1123Subdomain(className)) errs.push(fieldErrors.invalid(path.child('deviceClassName'), className, msg));
  const modes = ['All', 'ExactCount'];
  if (!modes.includes(String(r['allocationMode']))) errs.push(fieldErrors.notSupported(path.child('allocationMode'), r['allocationMode'] ?? '', modes));
  const count = typeof r['count'] === 'number' ? r['count'] : 0;
  if (r['allocationMode'] === 'ExactCount' && count <= 0) errs.push(fieldErrors.invalid(path.child('count'), count, 'must be greater than zero'));
  if (r['allocationMode'] === 'All' && count !== 0) errs.push(fieldErrors.invalid(path.child('count'), count, "must not be specified when allocationMode is 'All'"));
  return errs;
}

export function validateDeviceClaim(claimSpec: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const devices = (claimSpec['devices'] ?? {}) as Obj;
  const reqPath = path.child('devices', 'requests');
  const seen = new Set<string>();
  listAt(devices, 'requests').forEach((req, i) => {
    const p = reqPath.index(i);
    const name = typeof req['name'] === 'string' ? req['name'] : '';
    if (name.length === 0) errs.push(fieldErrors.required(p.child('name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(p.child('name'), name, msg));
      if (seen.has(name)) errs.push(fieldErrors.duplicate(p.child('name'), name));
      seen.add(name);
    }
    const exactly = req['exactly'] as Obj | undefined | null;
    const first = listAt(req, 'firstAvailable');
    if (!exactly && first.length === 0) errs.push(fieldErrors.required(p, exactlyOneOf));
    else if (exactly && first.length > 0) errs.push(fieldErrors.invalid(p, null, `${exactlyOneOf}, but multiple fields are set`));
    else if (exactly) errs.push(...validateCountRequest(exactly, p.child('exactly')));
    else {
      const subNames = new Set<string>();
      first.forEach((sub, j) => {
        const sp = p.child('firstAvailable').index(j);
        const subName = typeof sub['name'] === 'string' ? sub['name'] : '';
        if (subName.length === 0) errs.push(fieldErrors.required(sp.child('name')));
        else {
          for (const msg of isDNS1123Label(subName)) errs.push(fieldErrors.invalid(sp.child('name'), subName, msg));
          if (subNames.has(subName)) errs.push(fieldErrors.duplicate(sp.child('name'), subName));
          subNames.add(subName);
        }
        errs.push(...validateCountRequest(sub, sp));
      });
    }
  });
  return errs;
}
