// kube's matchconditions.Matcher as policies use it: every condition is evaluated (with the policy's params,
// variables and the authorizer, against its own budget); any false skips the policy, even when another one
// failed; errors without a false are the policy's error under failurePolicy Fail and a skip under Ignore.
import type { FailurePolicyType } from '../../../api/admissionregistration.js';
import type { AdmissionOperation } from '../../attributes.js';
import { aggregateMessage, evaluatePass, runtimeCostBudgetMatchConditions, type Activation, type CompiledSlot, type CompiledVariable } from './expressions.js';

export interface CompiledMatchCondition {
  readonly name: string;
  readonly slot: CompiledSlot;
}

export type MatchConditionsResult =
  | { matches: true }
  | { matches: false; failedCondition?: string }
  /** failurePolicy Fail only */
  | { matches: false; error: string };

/** The match condition metrics (apiserver_admission_match_condition_*), kind "policy". */
export interface MatchConditionObserver {
  evalError(): void;
  evaluationTime(seconds: number): void;
}

export interface MatchConditionOptions {
  failurePolicy: FailurePolicyType;
  budget?: number;
  observer?: MatchConditionObserver;
  operation?: AdmissionOperation;
}

export function evaluateMatchConditions(
  conditions: readonly CompiledMatchCondition[],
  variables: readonly CompiledVariable[],
  activation: Activation,
  opts: MatchConditionOptions,
): MatchConditionsResult {
  const start = process.hrtime.bigint();
  const elapsed = (): number => Number(process.hrtime.bigint() - start) / 1e9;
  // kube passes no namespace object to matchConditions
  const pass = evaluatePass(
    conditions.map((c) => c.slot),
    variables,
    { ...activation, namespaceObject: null },
    opts.budget ?? runtimeCostBudgetMatchConditions,
    { authorizer: true },
  );
  if (!pass.ok) {
    opts.observer?.evaluationTime(elapsed());
    return opts.failurePolicy === 'Ignore' ? { matches: false } : { matches: false, error: pass.error };
  }
  const errors: string[] = [];
  for (let i = 0; i < conditions.length; i++) {
    const r = pass.results[i];
    if (!r) continue;
    if (!r.ok) {
      errors.push(r.error);
      opts.observer?.evalError();
      continue;
    }
    if (r.value === false) {
      opts.observer?.evaluationTime(elapsed());
      return { matches: false, failedCondition: conditions[i]!.name };
    }
  }
  if (errors.length > 0) {
    opts.observer?.evaluationTime(elapsed());
    return opts.failurePolicy === 'Ignore' ? { matches: false } : { matches: false, error: aggregateMessage(errors) };
  }
  return { matches: true };
}
