// What each admission plugin's manifest directory may hold (KEP-5793: only that plugin's v1 types), and the REST
// API's defaulting and validation for each kind, which the loader runs before its own static rules.
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
} from '../../api/admissionregistration.js';
import type { FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import {
  setDefaultsMutatingAdmissionPolicy,
  setDefaultsMutatingAdmissionPolicyBinding,
  setDefaultsValidatingAdmissionPolicy,
  setDefaultsValidatingAdmissionPolicyBinding,
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  type PolicyValidationOptions,
} from '../policy/validation.js';
import {
  setDefaultsMutatingWebhookConfiguration,
  setDefaultsValidatingWebhookConfiguration,
  validateMutatingWebhookConfiguration,
  validateValidatingWebhookConfiguration,
  type WebhookConfigurationValidationOptions,
} from '../webhook/validation.js';
import type { ManifestKind } from './schema.js';

/** The admission plugins with a staticManifestsDir; also the `plugin` label of the reload metrics. */
export type ManifestPlugin = 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';

export const manifestPluginNames: readonly ManifestPlugin[] = Object.freeze([
  'ValidatingAdmissionWebhook',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'MutatingAdmissionPolicy',
]);

/** The order kube-apiserver initializes these plugins in (its AllOrderedPlugins): the first failing one is reported. */
export const kubeAdmissionPluginOrder: readonly ManifestPlugin[] = Object.freeze([
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
]);

export type ManifestPluginSpec =
  | { readonly family: 'webhook'; readonly kinds: readonly [ManifestKind]; readonly configurationKind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration' }
  | {
      readonly family: 'policy';
      /** policies first, then bindings: the order of the loaded objects */
      readonly kinds: readonly [ManifestKind, ManifestKind];
      readonly policyKind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';
      readonly bindingKind: 'ValidatingAdmissionPolicyBinding' | 'MutatingAdmissionPolicyBinding';
    };

export const manifestPlugins: Readonly<Record<ManifestPlugin, ManifestPluginSpec>> = {
  ValidatingAdmissionWebhook: { family: 'webhook', kinds: ['ValidatingWebhookConfiguration'], configurationKind: 'ValidatingWebhookConfiguration' },
  MutatingAdmissionWebhook: { family: 'webhook', kinds: ['MutatingWebhookConfiguration'], configurationKind: 'MutatingWebhookConfiguration' },
  ValidatingAdmissionPolicy: {
    family: 'policy',
    kinds: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
    policyKind: 'ValidatingAdmissionPolicy',
    bindingKind: 'ValidatingAdmissionPolicyBinding',
  },
  MutatingAdmissionPolicy: {
    family: 'policy',
    kinds: ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'],
    policyKind: 'MutatingAdmissionPolicy',
    bindingKind: 'MutatingAdmissionPolicyBinding',
  },
};

/** The REST API's handling of one kind: v1 defaulting, then create validation including ObjectMeta. */
export interface ManifestKindHandler {
  /** SetObjectDefaults_<Kind>, in place */
  setDefaults?(obj: KubeObject): void;
  /** Validate<Kind> as on create, with ValidateObjectMeta */
  validate(obj: KubeObject): FieldError[];
}

export type ManifestKindHandlers = Partial<Record<ManifestKind, ManifestKindHandler>>;

/** ValidatingWebhookConfiguration and MutatingWebhookConfiguration: the shared validators with metadata checks on. */
export function webhookKindHandlers(opts: Omit<WebhookConfigurationValidationOptions, 'validateObjectMeta'> = {}): ManifestKindHandlers {
  const validation: WebhookConfigurationValidationOptions = { ...opts, validateObjectMeta: true };
  return {
    ValidatingWebhookConfiguration: {
      setDefaults: (obj) => setDefaultsValidatingWebhookConfiguration(obj as ValidatingWebhookConfiguration),
      validate: (obj) => validateValidatingWebhookConfiguration(obj as ValidatingWebhookConfiguration, validation),
    },
    MutatingWebhookConfiguration: {
      setDefaults: (obj) => setDefaultsMutatingWebhookConfiguration(obj as MutatingWebhookConfiguration),
      validate: (obj) => validateMutatingWebhookConfiguration(obj as MutatingWebhookConfiguration, validation),
    },
  };
}

/**
 * ValidatingAdmissionPolicy(Binding) and MutatingAdmissionPolicy(Binding): the shared policy validators with
 * metadata checks on; pass `cel` to compile the expressions as the REST API does.
 */
export function policyKindHandlers(opts: Omit<PolicyValidationOptions, 'validateObjectMeta'> = {}): ManifestKindHandlers {
  const validation: PolicyValidationOptions = { ...opts, validateObjectMeta: true };
  return {
    ValidatingAdmissionPolicy: {
      setDefaults: (obj) => setDefaultsValidatingAdmissionPolicy(obj as ValidatingAdmissionPolicy),
      validate: (obj) => validateValidatingAdmissionPolicy(obj as ValidatingAdmissionPolicy, validation),
    },
    ValidatingAdmissionPolicyBinding: {
      setDefaults: (obj) => setDefaultsValidatingAdmissionPolicyBinding(obj as ValidatingAdmissionPolicyBinding),
      validate: (obj) => validateValidatingAdmissionPolicyBinding(obj as ValidatingAdmissionPolicyBinding, validation),
    },
    MutatingAdmissionPolicy: {
      setDefaults: (obj) => setDefaultsMutatingAdmissionPolicy(obj as MutatingAdmissionPolicy),
      validate: (obj) => validateMutatingAdmissionPolicy(obj as MutatingAdmissionPolicy, validation),
    },
    MutatingAdmissionPolicyBinding: {
      setDefaults: (obj) => setDefaultsMutatingAdmissionPolicyBinding(obj as MutatingAdmissionPolicyBinding),
      validate: (obj) => validateMutatingAdmissionPolicyBinding(obj as MutatingAdmissionPolicyBinding, validation),
    },
  };
}

/** The handlers a plugin gets when none are passed: the shared validators, without CEL compilation. */
export function defaultKindHandlers(plugin: ManifestPlugin): ManifestKindHandlers {
  return manifestPlugins[plugin].family === 'webhook' ? webhookKindHandlers() : policyKindHandlers();
}
