// kube's validating admission policy metrics (admission/plugin/policy/validating/metrics): the same names, help
// texts with component-base's "[BETA] " prefix, labels and buckets. Label values are passed in alphabetical key
// order so the exposition reads like client_golang's.
import { Counter, Histogram, type Registry } from 'prom-client';

/** The `error_type` label: kube's ValidationErrorType. A validation that evaluated to false counts as invalid_error. */
export type ValidationErrorType = 'compile_error' | 'invalid_error' | 'out_of_budget' | 'no_error';
/** The `enforcement_action` label. */
export type EnforcementAction = 'allow' | 'deny' | 'audit' | 'warn';

/** From 500 ns (a field access) to 1 s (an expression near the estimated cost limit). */
export const policyCheckDurationBuckets: readonly number[] = [0.0000005, 0.001, 0.01, 0.1, 1.0];

export interface ValidatingAdmissionPolicyMetrics {
  /** apiserver_validating_admission_policy_check_total and …_check_duration_seconds */
  observe(action: EnforcementAction, policy: string, binding: string, errorType: ValidationErrorType, seconds: number): void;
}

/** Registers the ValidatingAdmissionPolicy metrics in `registry`. */
export function newValidatingAdmissionPolicyMetrics(registry: Registry): ValidatingAdmissionPolicyMetrics {
  const registers = [registry];
  const check = new Counter({
    name: 'apiserver_validating_admission_policy_check_total',
    help: '[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    labelNames: ['enforcement_action', 'error_type', 'policy', 'policy_binding'],
    registers,
  });
  const latency = new Histogram({
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: '[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    labelNames: ['enforcement_action', 'error_type', 'policy', 'policy_binding'],
    buckets: [...policyCheckDurationBuckets],
    registers,
  });
  return {
    observe(action, policy, binding, errorType, seconds) {
      const labels = { enforcement_action: action, error_type: errorType, policy, policy_binding: binding };
      check.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
