// coordination.k8s.io/v1 leases: the core of kube's ValidateLeaseSpec (pkg/apis/coordination/validation); kube
// defaults nothing.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import type { Obj } from '../fields.js';

function validateLeaseSpec(specValue: unknown): FieldError[] {
  const spec = (specValue ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const duration = spec['leaseDurationSeconds'];
  if (typeof duration === 'number' && duration <= 0) errs.push(fieldErrors.invalid(path.child('leaseDurationSeconds'), duration, 'must be greater than 0'));
  const transitions = spec['leaseTransitions'];
  if (typeof transitions === 'number' && transitions < 0) errs.push(fieldErrors.invalid(path.child('leaseTransitions'), transitions, 'must be greater than or equal to 0'));
  if (typeof spec['preferredHolder'] === 'string' && spec['preferredHolder'] !== '' && !spec['strategy']) {
    errs.push(fieldErrors.forbidden(path.child('preferredHolder'), 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

const leaseStrategy: Strategy = {
  validate: (o) => validateLeaseSpec(o['spec']),
  validateUpdate: (o) => validateLeaseSpec(o['spec']),
};

export const coordinationStrategies: Record<string, Strategy> = {
  'coordination.k8s.io/v1/leases': leaseStrategy,
};
