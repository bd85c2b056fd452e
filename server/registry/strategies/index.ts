// Per-resource defaulting and validation (kube-apiserver's registry strategies), keyed by "group/version/resource".
import type { Strategy } from '../resource.js';
import { mutatingWebhookConfigurationStrategyWith, validatingWebhookConfigurationStrategyWith, type WebhookConfigurationStrategyOptions } from './admissionregistration.js';
import { configMapStrategy, secretStrategy } from './config.js';
import { deploymentStrategy } from './deployment.js';
import { namespaceStrategy } from './namespace.js';
import { podStrategy } from './pod.js';
import { policyStrategiesFor, type PolicyStrategyOptions } from './policies.js';
import { serviceStrategy } from './service.js';

/** Strategies whose rules depend on feature gates (warnings, reserved names) are built for the server's gates. */
export function strategiesFor(gates: WebhookConfigurationStrategyOptions & PolicyStrategyOptions = {}): Record<string, Strategy> {
  return {
    ...strategies,
    'admissionregistration.k8s.io/v1/validatingwebhookconfigurations': validatingWebhookConfigurationStrategyWith(gates),
    'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations': mutatingWebhookConfigurationStrategyWith(gates),
    // validatingadmissionpolicies, validatingadmissionpolicybindings, mutatingadmissionpolicies, mutatingadmissionpolicybindings
    ...policyStrategiesFor({
      ...(gates.manifestBasedAdmissionControlConfig !== undefined ? { manifestBasedAdmissionControlConfig: gates.manifestBasedAdmissionControlConfig } : {}),
      ...(gates.cel ? { cel: gates.cel } : {}),
    }),
  };
}

const strategies: Record<string, Strategy> = {
  '/v1/namespaces': namespaceStrategy,
  '/v1/pods': podStrategy,
  '/v1/services': serviceStrategy,
  '/v1/configmaps': configMapStrategy,
  '/v1/secrets': secretStrategy,
  'apps/v1/deployments': deploymentStrategy,
};
