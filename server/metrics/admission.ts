// kube-apiserver's admission metrics (k8s.io/apiserver/pkg/admission/metrics): the same names, help texts (with
// component-base's "[STABLE] "/"[ALPHA] " prefix, as /metrics prints them), label sets and buckets.
// Label values are passed in alphabetical key order so the exposition reads like client_golang's.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { AdmissionOperation } from '../admission/attributes.js';
import { SumCountSummary } from './sum-count-summary.js';

/** The `type` label of the step and controller metrics. */
export type AdmissionStepType = 'admit' | 'validate';
/** The `type` label of the webhook metrics: kube's webhook accessors say "admit" and "validating". */
export type WebhookStepType = 'admit' | 'validating';
/** The `kind` label of the match condition metrics. */
export type MatchConditionKind = 'webhook' | 'policy';
export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

/** Step and controller latency buckets: 5 ms to 2.5 s. */
export const admissionLatencyBuckets: readonly number[] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** Webhook latency buckets: up to 25 s, since webhooks time out at 10 s by default and 30 s at most. */
export const webhookLatencyBuckets: readonly number[] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];

export interface AdmissionMetrics {
  /** apiserver_admission_step_admission_duration_seconds (+ _summary): one admit or validate phase. */
  observeAdmissionStep(type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void;
  /** apiserver_admission_controller_admission_duration_seconds: one plugin, identified by name. */
  observeAdmissionController(name: string, type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void;
  /** apiserver_admission_webhook_request_total and apiserver_admission_webhook_admission_duration_seconds. */
  observeWebhook(name: string, type: WebhookStepType, operation: AdmissionOperation, rejected: boolean, code: number, seconds: number): void;
  /** apiserver_admission_webhook_rejection_count */
  observeWebhookRejection(name: string, type: WebhookStepType, operation: AdmissionOperation, errorType: WebhookRejectionErrorType, rejectionCode: number): void;
  /** apiserver_admission_webhook_fail_open_count */
  observeWebhookFailOpen(name: string, type: WebhookStepType): void;
  /** apiserver_admission_match_condition_exclusions_total */
  observeMatchConditionExclusion(name: string, kind: MatchConditionKind, type: WebhookStepType | AdmissionStepType, operation: AdmissionOperation): void;
  /** apiserver_admission_match_condition_evaluation_errors_total */
  observeMatchConditionEvalError(name: string, kind: MatchConditionKind, type: WebhookStepType | AdmissionStepType, operation: AdmissionOperation): void;
  /** apiserver_admission_match_condition_evaluation_seconds */
  observeMatchConditionEvaluationTime(name: string, kind: MatchConditionKind, type: WebhookStepType | AdmissionStepType, operation: AdmissionOperation, seconds: number): void;

  /** The chain's AdmissionObserver (server/admission/ordered-chain.ts), backed by the controller metric. */
  plugin(name: string, type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void;
  /** The chain's AdmissionObserver, backed by the step metrics. */
  step(type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void;
}

// Codes greater than 600 are truncated to 600, to keep the cardinality bounded (kube does the same).
const boundedCode = (code: number): string => String(code > 600 ? 600 : code);

/** Registers kube-apiserver's admission metrics in `registry`. */
export function newAdmissionMetrics(registry: Registry): AdmissionMetrics {
  const registers = [registry];

  const stepLatency = new Histogram({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: '[STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['operation', 'rejected', 'type'],
    buckets: [...admissionLatencyBuckets],
    registers,
  });
  const stepSummary = new SumCountSummary({
    name: 'apiserver_admission_step_admission_duration_seconds_summary',
    help: '[ALPHA] Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['operation', 'rejected', 'type'],
    // component-base summaries have no objectives unless asked: only _sum and _count are exported (kube's window,
    // latencySummaryMaxAge, only shapes quantiles, so there is none to keep)
    registers,
  });
  const controllerLatency = new Histogram({
    name: 'apiserver_admission_controller_admission_duration_seconds',
    help: '[STABLE] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'operation', 'rejected', 'type'],
    buckets: [...admissionLatencyBuckets],
    registers,
  });
  const webhookLatency = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: '[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'operation', 'rejected', 'type'],
    buckets: [...webhookLatencyBuckets],
    registers,
  });
  const webhookRejection = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: '[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['error_type', 'name', 'operation', 'rejection_code', 'type'],
    registers,
  });
  const webhookFailOpen = new Counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: '[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
    labelNames: ['name', 'type'],
    registers,
  });
  const webhookRequest = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: '[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['code', 'name', 'operation', 'rejected', 'type'],
    registers,
  });
  const matchConditionEvalErrors = new Counter({
    name: 'apiserver_admission_match_condition_evaluation_errors_total',
    help: '[ALPHA] Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
    labelNames: ['kind', 'name', 'operation', 'type'],
    registers,
  });
  const matchConditionExclusions = new Counter({
    name: 'apiserver_admission_match_condition_exclusions_total',
    help: '[ALPHA] Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
    labelNames: ['kind', 'name', 'operation', 'type'],
    registers,
  });
  const matchConditionEvaluation = new Histogram({
    name: 'apiserver_admission_match_condition_evaluation_seconds',
    help: '[ALPHA] Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook or policy), operation and type (validate or admit).',
    labelNames: ['kind', 'name', 'operation', 'type'],
    buckets: [...admissionLatencyBuckets],
    registers,
  });

  const metrics: AdmissionMetrics = {
    observeAdmissionStep(type, operation, rejected, seconds) {
      const labels = { operation, rejected: String(rejected), type };
      stepLatency.observe(labels, seconds);
      stepSummary.observe(labels, seconds);
    },
    observeAdmissionController(name, type, operation, rejected, seconds) {
      controllerLatency.observe({ name, operation, rejected: String(rejected), type }, seconds);
    },
    observeWebhook(name, type, operation, rejected, code, seconds) {
      webhookRequest.inc({ code: boundedCode(code), name, operation, rejected: String(rejected), type });
      webhookLatency.observe({ name, operation, rejected: String(rejected), type }, seconds);
    },
    observeWebhookRejection(name, type, operation, errorType, rejectionCode) {
      webhookRejection.inc({ error_type: errorType, name, operation, rejection_code: boundedCode(rejectionCode), type });
    },
    observeWebhookFailOpen(name, type) {
      webhookFailOpen.inc({ name, type });
    },
    observeMatchConditionExclusion(name, kind, type, operation) {
      matchConditionExclusions.inc({ kind, name, operation, type });
    },
    observeMatchConditionEvalError(name, kind, type, operation) {
      matchConditionEvalErrors.inc({ kind, name, operation, type });
    },
    observeMatchConditionEvaluationTime(name, kind, type, operation, seconds) {
      matchConditionEvaluation.observe({ kind, name, operation, type }, seconds);
    },
    plugin(name, type, operation, rejected, seconds) {
      metrics.observeAdmissionController(name, type, operation, rejected, seconds);
    },
    step(type, operation, rejected, seconds) {
      metrics.observeAdmissionStep(type, operation, rejected, seconds);
    },
  };
  return metrics;
}
