// kube's mutating admission policy metrics (admission/plugin/policy/mutating/metrics): the same names, ALPHA help
// texts (component-base's "[ALPHA] " prefix), labels and buckets. Every mutation evaluated is observed once,
// successful or not. Label values are passed in alphabetical key order so the exposition reads like client_golang's.
import { Counter, Histogram, type Registry } from 'prom-client';
import { policyCheckDurationBuckets } from '../metrics.js';

/** The `error_type` label: kube's MutationErrorType. */
export type MutationErrorType = 'compile_error' | 'invalid_error' | 'out_of_budget' | 'no_error';

export interface MutatingAdmissionPolicyMetrics {
  /** apiserver_mutating_admission_policy_check_total and …_check_duration_seconds */
  observe(policy: string, binding: string, errorType: MutationErrorType, seconds: number): void;
}

/** mutating.ErrorType: decoded from the error's text, as kube does. */
export function mutationErrorTypeOf(error: string | undefined): MutationErrorType {
  if (error === undefined) return 'no_error';
  if (error.startsWith('compilation')) return 'compile_error';
  if (error.startsWith('validation failed due to running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

/** Registers the MutatingAdmissionPolicy metrics in `registry`. */
export function newMutatingAdmissionPolicyMetrics(registry: Registry): MutatingAdmissionPolicyMetrics {
  const registers = [registry];
  const check = new Counter({
    name: 'apiserver_mutating_admission_policy_check_total',
    help: '[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.',
    labelNames: ['error_type', 'policy', 'policy_binding'],
    registers,
  });
  const latency = new Histogram({
    name: 'apiserver_mutating_admission_policy_check_duration_seconds',
    help: '[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.',
    labelNames: ['error_type', 'policy', 'policy_binding'],
    buckets: [...policyCheckDurationBuckets],
    registers,
  });
  return {
    observe(policy, binding, errorType, seconds) {
      const labels = { error_type: errorType, policy, policy_binding: binding };
      check.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
