// The admission configurations the benchmark installs, as plain v1 objects: ValidatingAdmissionPolicies over
// ConfigMaps with a typical rule, their bindings, and webhook configurations that are loaded but never called.
// The same builders serve the REST-created (create case) and the static manifest (startup, reload) variants.
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration } from '../server/api/admissionregistration.js';

const apiVersion = 'admissionregistration.k8s.io/v1';

/**
 * A typical policy rule over a ConfigMap: a bounded name, and a label that must not be set. Each policy names its
 * own label, so that no two policies share a compiled expression.
 */
export function labelRuleExpression(deniedLabel: string): string {
  return `object.metadata.name.size() < 64 && (!has(object.metadata.labels) || !('${deniedLabel}' in object.metadata.labels))`;
}

/** A Deny policy on ConfigMap creates and updates whose rule refuses the label `deniedLabel`. */
export function configMapPolicy(name: string, deniedLabel: string): ValidatingAdmissionPolicy {
  return {
    apiVersion,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }] },
      validations: [{ expression: labelRuleExpression(deniedLabel), message: `the label ${deniedLabel} is not allowed on ConfigMaps` }],
    },
  };
}

export function policyBinding(name: string, policyName: string): ValidatingAdmissionPolicyBinding {
  return { apiVersion, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: ['Deny'] } };
}

/**
 * A webhook configuration that is loaded and matched but never called: its rule names a resource the server does
 * not serve, so its URL (loopback, nothing listening) is never dialled.
 */
export function neverCalledWebhookConfiguration(name: string, index: number, caBundle: string): ValidatingWebhookConfiguration {
  return {
    apiVersion,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: `validate-${index}.bench.kah.dev`,
        clientConfig: { url: `https://127.0.0.1:9/validate/${index}`, caBundle },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['bench.kah.dev'], apiVersions: ['v1'], resources: [`widgets${index}`], scope: 'Namespaced' }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
        timeoutSeconds: 5,
      },
    ],
  };
}
