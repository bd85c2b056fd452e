// kube's validating.compilePolicy: every expression of a ValidatingAdmissionPolicy compiled once per policy
// version. Variables may be used by every other expression; validations, matchConditions and variables see the
// authorizer, messageExpressions and auditAnnotation values are compiled without it.
import type { FailurePolicyType, ValidatingAdmissionPolicy, Validation } from '../../../api/admissionregistration.js';
import type { CelEnvironment } from '../../cel/environment.js';
import { compileSlot, compileVariables, type CompiledSlot, type CompiledVariable, type PolicyCompileBase } from '../generic/expressions.js';
import type { CompiledMatchCondition } from '../generic/match-conditions.js';

export interface CompiledValidation {
  readonly validation: Validation;
  readonly slot: CompiledSlot;
  /** undefined when the validation has no messageExpression */
  readonly message?: CompiledSlot;
}

export interface CompiledAuditAnnotation {
  readonly key: string;
  readonly valueExpression: string;
  readonly slot: CompiledSlot;
}

/** kube's validating.Validator, as data. */
export interface ValidatingPolicyEvaluator {
  readonly policyName: string;
  readonly failurePolicy: FailurePolicyType;
  readonly matchConditions: readonly CompiledMatchCondition[];
  readonly variables: readonly CompiledVariable[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
}

export function compileValidatingPolicy(policy: ValidatingAdmissionPolicy, cel: CelEnvironment): ValidatingPolicyEvaluator {
  const spec = policy.spec ?? {};
  const base: PolicyCompileBase = { cel, hasParams: spec.paramKind !== undefined && spec.paramKind !== null };
  const variables = compileVariables(base, spec.variables ?? []);
  const variableNames = variables.map((v) => v.name);
  return Object.freeze({
    policyName: policy.metadata?.name ?? '',
    // defaulted on write; a policy built by hand without one fails closed, as kube's dispatcher assumes
    failurePolicy: spec.failurePolicy ?? 'Fail',
    matchConditions: (spec.matchConditions ?? []).map((c) =>
      Object.freeze({ name: c.name ?? '', slot: compileSlot(base, c.expression ?? '', { kind: 'bool', hasAuthorizer: true, variableNames }) }),
    ),
    variables,
    validations: (spec.validations ?? []).map((v) => {
      const slot = compileSlot(base, v.expression ?? '', { kind: 'bool', hasAuthorizer: true, variableNames });
      const message = v.messageExpression ? compileSlot(base, v.messageExpression, { kind: 'string', hasAuthorizer: false, variableNames }) : undefined;
      return Object.freeze({ validation: v, slot, ...(message ? { message } : {}) });
    }),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) =>
      Object.freeze({ key: a.key ?? '', valueExpression: a.valueExpression ?? '', slot: compileSlot(base, a.valueExpression ?? '', { kind: 'string', hasAuthorizer: true, variableNames }) }),
    ),
  });
}
