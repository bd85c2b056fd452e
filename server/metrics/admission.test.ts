import { Registry } from 'prom-client';
import { newAdmissionMetrics } from './admission.js';

describe('kube-apiserver admission metrics', () => {
  it('registers kube\'s names, help texts, types and label sets', async () => {
    const registry = new Registry();
    const m = newAdmissionMetrics(registry);
    m.observeWebhook('w.example.com', 'validating', 'CREATE', true, 403, 0.02);
    m.observeWebhookRejection('w.example.com', 'validating', 'CREATE', 'no_error', 403);
    m.observeWebhookFailOpen('m.example.com', 'admit');
    m.step('admit', 'UPDATE', false, 0.003);
    m.plugin('MutatingAdmissionWebhook', 'admit', 'UPDATE', false, 0.003);
    const text = await registry.metrics();
    for (const line of [
      '# HELP apiserver_admission_webhook_rejection_count [ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      '# TYPE apiserver_admission_webhook_rejection_count counter',
      'apiserver_admission_webhook_rejection_count{error_type="no_error",name="w.example.com",operation="CREATE",rejection_code="403",type="validating"} 1',
      '# TYPE apiserver_admission_webhook_request_total counter',
      'apiserver_admission_webhook_request_total{code="403",name="w.example.com",operation="CREATE",rejected="true",type="validating"} 1',
      '# HELP apiserver_admission_webhook_admission_duration_seconds [STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      'apiserver_admission_webhook_admission_duration_seconds_bucket{le="0.025",name="w.example.com",operation="CREATE",rejected="true",type="validating"} 1',
      'apiserver_admission_webhook_admission_duration_seconds_bucket{le="25",name="w.example.com",operation="CREATE",rejected="true",type="validating"} 1',
      'apiserver_admission_webhook_fail_open_count{name="m.example.com",type="admit"} 1',
      '# HELP apiserver_admission_step_admission_duration_seconds [STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      'apiserver_admission_step_admission_duration_seconds_bucket{le="0.005",operation="UPDATE",rejected="false",type="admit"} 1',
      'apiserver_admission_step_admission_duration_seconds_summary_count{operation="UPDATE",rejected="false",type="admit"} 1',
      'apiserver_admission_controller_admission_duration_seconds_bucket{le="2.5",name="MutatingAdmissionWebhook",operation="UPDATE",rejected="false",type="admit"} 1',
    ]) {
      expect(text).toContain(line);
    }
    // the step histogram's buckets stop at 2.5 s, the webhook one goes on to 25 s
    expect(text).not.toContain('apiserver_admission_step_admission_duration_seconds_bucket{le="10"');
    expect(text).not.toContain('quantile=');
  });

  it('truncates codes above 600', async () => {
    const registry = new Registry();
    const m = newAdmissionMetrics(registry);
    m.observeWebhook('w', 'admit', 'CREATE', true, 999, 0.1);
    m.observeWebhookRejection('w', 'admit', 'CREATE', 'no_error', 999);
    const text = await registry.metrics();
    expect(text).toContain('apiserver_admission_webhook_request_total{code="600",name="w",operation="CREATE",rejected="true",type="admit"} 1');
    expect(text).toContain('rejection_code="600"');
  });
});
