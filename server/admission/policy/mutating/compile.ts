// kube's mutating.compilePolicy: every expression of a MutatingAdmissionPolicy compiled once per policy version.
// Variables may be used by every other expression; matchConditions and mutations see the authorizer; mutations are
// compiled with the patch types (`Object{…}` for ApplyConfiguration, `JSONPatch{…}` for JSONPatch). A mutation
// whose patchType has no expression block gets no patcher, as in kube (validation keeps such policies out).
import type { FailurePolicyType, MutatingAdmissionPolicy, PatchType, ReinvocationPolicyType } from '../../../api/admissionregistration.js';
import type { CelEnvironment } from '../../cel/environment.js';
import { compileSlot, compileVariables, type CompiledSlot, type CompiledVariable, type PolicyCompileBase } from '../generic/expressions.js';
import type { CompiledMatchCondition } from '../generic/match-conditions.js';

export interface CompiledMutation {
  readonly patchType: PatchType;
  readonly slot: CompiledSlot;
}

/** kube's mutating.PolicyEvaluator, as data. */
export interface MutatingPolicyEvaluator {
  readonly policyName: string;
  readonly failurePolicy: FailurePolicyType;
  readonly reinvocationPolicy: ReinvocationPolicyType;
  readonly matchConditions: readonly CompiledMatchCondition[];
  readonly variables: readonly CompiledVariable[];
  readonly mutations: readonly CompiledMutation[];
  /** spec.mutations' length: a mismatch with `mutations` is kube's internal error */
  readonly mutationCount: number;
}

export function compileMutatingPolicy(policy: MutatingAdmissionPolicy, cel: CelEnvironment): MutatingPolicyEvaluator {
  const spec = policy.spec ?? {};
  const base: PolicyCompileBase = { cel, hasParams: spec.paramKind !== undefined && spec.paramKind !== null };
  const variables = compileVariables(base, spec.variables ?? []);
  const variableNames = variables.map((v) => v.name);
  const mutations: CompiledMutation[] = [];
  for (const m of spec.mutations ?? []) {
    const block = m.patchType === 'JSONPatch' ? m.jsonPatch : m.patchType === 'ApplyConfiguration' ? m.applyConfiguration : undefined;
    if (!block) continue;
    const slot = compileSlot(base, block.expression ?? '', { kind: 'any', hasAuthorizer: true, variableNames, mutation: m.patchType });
    mutations.push(Object.freeze({ patchType: m.patchType, slot }));
  }
  return Object.freeze({
    policyName: policy.metadata?.name ?? '',
    // both defaulted on write; a policy built by hand without them fails closed and is not reinvoked
    failurePolicy: spec.failurePolicy ?? 'Fail',
    reinvocationPolicy: spec.reinvocationPolicy ?? 'Never',
    matchConditions: (spec.matchConditions ?? []).map((c) =>
      Object.freeze({ name: c.name ?? '', slot: compileSlot(base, c.expression ?? '', { kind: 'bool', hasAuthorizer: true, variableNames }) }),
    ),
    variables,
    mutations: Object.freeze(mutations),
    mutationCount: (spec.mutations ?? []).length,
  });
}
