// IPAddresses (networking.k8s.io/v1): kube's ValidateIPAddress (the name is an IP address in canonical form:
// ValidateIPAddressName; parentRef required with resource and name) and ValidateIPAddressUpdate (parentRef
// immutable).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { isValidIP } from '../../validation/ip.js';
import { isDNS1123Subdomain, isValidPathSegmentName } from '../../validation/name.js';
import { jsonEqual } from '../../object-fields.js';
import type { Obj } from '../fields.js';

function validateParentRef(ref: unknown): FieldError[] {
  const path = FieldPath.root('spec', 'parentRef');
  if (!ref || typeof ref !== 'object') return [fieldErrors.required(path)];
  const r = ref as Obj;
  const errs: FieldError[] = [];
  const s = (k: string): string => (typeof r[k] === 'string' ? (r[k] as string) : '');
  // the core group of Services is "", so group cannot be required
  if (s('group') !== '') for (const m of isDNS1123Subdomain(s('group'))) errs.push(fieldErrors.invalid(path.child('group'), s('group'), m));
  for (const key of ['resource', 'name']) {
    if (s(key) === '') errs.push(fieldErrors.required(path.child(key)));
    else for (const m of isValidPathSegmentName(s(key))) errs.push(fieldErrors.invalid(path.child(key), s(key), m));
  }
  if (s('namespace') !== '') for (const m of isValidPathSegmentName(s('namespace'))) errs.push(fieldErrors.invalid(path.child('namespace'), s('namespace'), m));
  return errs;
}

export const ipAddressStrategy: Strategy = {
  validate(o) {
    const name = o.metadata?.name ?? '';
    // ValidateIPAddressName: IsValidIP's details, reported on metadata.name (no generateName for IPAddresses)
    const nameErrs = name === '' ? [] : isValidIP('metadata.name', name);
    return [...nameErrs, ...validateParentRef((o['spec'] as Obj | undefined)?.['parentRef'])];
  },
  validateUpdate(o, old) {
    const ref = (o['spec'] as Obj | undefined)?.['parentRef'];
    const oldRef = (old['spec'] as Obj | undefined)?.['parentRef'];
    if (jsonEqual(ref ?? null, oldRef ?? null)) return [];
    return [fieldErrors.invalid('spec.parentRef', ref ?? null, 'field is immutable')];
  },
};
