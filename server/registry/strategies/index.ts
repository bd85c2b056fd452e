// Per-resource defaulting and validation (kube-apiserver's registry strategies), keyed by "group/version/resource".
import type { Strategy } from '../resource.js';
import { mutatingWebhookConfigurationStrategyWith, validatingWebhookConfigurationStrategyWith, type WebhookConfigurationStrategyOptions } from './admissionregistration.js';
import { appsStrategies } from './apps/index.js';
import { autoscalingStrategies } from './autoscaling/index.js';
import { batchStrategies } from './batch/index.js';
import { coreStrategies } from './core/index.js';
import { apiregistrationStrategies } from './apiregistration/index.js';
import { certificatesStrategies } from './certificates/index.js';
import { flowcontrolStrategies } from './flowcontrol/index.js';
import { resourceStrategies } from './resource/index.js';
import { storageStrategies } from './storage/index.js';
import { policyStrategiesFor, type PolicyStrategyOptions } from './policies.js';
// issue #15 networking, rbac, scheduling, coordination, discovery, events, node
import { coordinationStrategies } from './coordination/index.js';
import { discoveryStrategies } from './discovery/index.js';
import { eventsStrategies } from './events/index.js';
import { networkingStrategies } from './networking/index.js';
import { nodeStrategies } from './node/index.js';
import { rbacStrategies } from './rbac/index.js';
import { schedulingStrategies } from './scheduling/index.js';
import { policyStrategies } from './policy/index.js';

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

// One module per API group (a folder when the group has many resources), each a record keyed by group/version/resource.
const strategies: Record<string, Strategy> = {
  ...coreStrategies,
  ...appsStrategies,
  // issue #15 networking, rbac, scheduling, coordination, discovery, events, node
  ...networkingStrategies,
  ...rbacStrategies,
  ...schedulingStrategies,
  ...coordinationStrategies,
  ...discoveryStrategies,
  ...eventsStrategies,
  ...nodeStrategies,
  // batch/v1, autoscaling/v2+v1, policy/v1
  ...batchStrategies,
  ...autoscalingStrategies,
  ...policyStrategies,
  // storage, certificates, resource, flowcontrol, apiregistration
  ...storageStrategies,
  ...certificatesStrategies,
  ...resourceStrategies,
  ...flowcontrolStrategies,
  ...apiregistrationStrategies,
};
