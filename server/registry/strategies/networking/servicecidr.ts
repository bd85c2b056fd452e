// ServiceCIDRs (networking.k8s.io/v1): kube's ValidateServiceCIDR (one or two CIDRs, canonical, one per IP family)
// and ValidateServiceCIDRUpdate (immutable, except adding the second family to a single-stack one).
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { ipFamilyOfCIDR, isValidCIDR } from '../../validation/ip.js';
import type { Obj } from '../fields.js';

const cidrsOf = (o: Record<string, unknown>): string[] => {
  const v = (o['spec'] as Obj | undefined)?.['cidrs'];
  return Array.isArray(v) ? v.map(String) : [];
};
const goStrings = (xs: string[]): string => `[]string{${xs.map((x) => JSON.stringify(x)).join(', ')}}`;

function validateCIDRs(cidrs: string[]): FieldError[] {
  const path = FieldPath.root('spec', 'cidrs');
  if (cidrs.length === 0) return [fieldErrors.required(path, 'at least one CIDR required')];
  // kube prints the whole ServiceCIDRSpec (%#v) as the bad value
  if (cidrs.length > 2) return [fieldErrors.invalid(path, new GoStructValue(`networking.ServiceCIDRSpec{CIDRs:${goStrings(cidrs)}}`), 'may only hold up to 2 values')];
  const errs = cidrs.flatMap((c, i) => isValidCIDR(path.index(i), c));
  if (cidrs.length === 2 && ipFamilyOfCIDR(cidrs[0]!) !== '' && ipFamilyOfCIDR(cidrs[0]!) === ipFamilyOfCIDR(cidrs[1]!)) {
    errs.push(fieldErrors.invalid(path, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return errs;
}

export const serviceCIDRStrategy: Strategy = {
  validate(o) {
    return validateCIDRs(cidrsOf(o));
  },
  validateUpdate(o, old) {
    const next = cidrsOf(o);
    const prev = cidrsOf(old);
    const path = FieldPath.root('spec', 'cidrs');
    if (next.length === prev.length) {
      return prev.flatMap((c, i) => (c !== next[i] ? [fieldErrors.invalid(path.index(i), next[i], 'field is immutable')] : []));
    }
    if (prev.length === 1 && next.length === 2) {
      // adding the other family turns a single-stack range into dual-stack (kubernetes#131261)
      const errs = next[0] !== prev[0] ? [fieldErrors.invalid(path.index(0), next[0], 'field is immutable')] : [];
      return [...errs, ...validateCIDRs(next)];
    }
    return [fieldErrors.invalid(path, next, 'field is immutable')];
  },
};
