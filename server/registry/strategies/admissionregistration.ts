// ValidatingWebhookConfiguration and MutatingWebhookConfiguration: kube's validatingwebhookconfiguration and
// mutatingwebhookconfiguration registry strategies, wired to the shared validators of
// server/admission/webhook/validation.ts (v1 defaulting, create/update validation, warnings).
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from '../../api/admissionregistration.js';
import type { FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import {
  setDefaultsMutatingWebhookConfiguration,
  setDefaultsValidatingWebhookConfiguration,
  validateMutatingWebhookConfiguration,
  validateMutatingWebhookConfigurationUpdate,
  validateStaticSuffix,
  validateValidatingWebhookConfiguration,
  validateValidatingWebhookConfigurationUpdate,
  warningsForMutatingWebhookRules,
  warningsForStaticSuffix,
  warningsForValidatingWebhookRules,
  type WebhookConfigurationValidationOptions,
} from '../../admission/webhook/validation.js';
import type { Strategy } from '../resource.js';

export interface WebhookConfigurationStrategyOptions {
  /** the ExcludeAdmissionWebhookVirtualResources gate (default on): warn about rules naming excluded resources */
  excludeVirtualResources?: boolean;
  /** the ManifestBasedAdmissionControlConfig gate (default off): names ending in .static.k8s.io are then refused */
  manifestBasedAdmissionControlConfig?: boolean;
  /** CEL compilation of matchConditions, once the CEL environment exists */
  compileMatchCondition?: WebhookConfigurationValidationOptions['compileMatchCondition'];
}

const nameOf = (obj: KubeObject): string => obj.metadata?.name ?? '';

interface Validators<T extends KubeObject> {
  defaults(obj: T): void;
  validate(obj: T, opts: WebhookConfigurationValidationOptions): FieldError[];
  validateUpdate(obj: T, old: T, opts: WebhookConfigurationValidationOptions): FieldError[];
  ruleWarnings(obj: T): string[];
}

function webhookConfigurationStrategy<T extends KubeObject>(v: Validators<T>, opts: WebhookConfigurationStrategyOptions): Strategy {
  const excludeVirtualResources = opts.excludeVirtualResources ?? true;
  const manifestBased = opts.manifestBasedAdmissionControlConfig ?? false;
  const validationOpts: WebhookConfigurationValidationOptions = opts.compileMatchCondition ? { compileMatchCondition: opts.compileMatchCondition } : {};
  const ruleWarnings = (obj: T): string[] => (excludeVirtualResources ? v.ruleWarnings(obj) : []);
  return {
    applyDefaults(obj) {
      v.defaults(obj as T);
    },
    validate(obj) {
      const errs = v.validate(obj as T, validationOpts);
      // only creates are refused: an object with the suffix stored before the gate was turned on stays updatable
      if (manifestBased) errs.push(...validateStaticSuffix(nameOf(obj)));
      return errs;
    },
    validateUpdate(obj, old) {
      return v.validateUpdate(obj as T, old as T, validationOpts);
    },
    warningsOnCreate(obj) {
      return [...(manifestBased ? [] : warningsForStaticSuffix(nameOf(obj))), ...ruleWarnings(obj as T)];
    },
    // kube warns about the suffix on every update, whatever the gate
    warningsOnUpdate(obj) {
      return [...warningsForStaticSuffix(nameOf(obj)), ...ruleWarnings(obj as T)];
    },
  };
}

export function validatingWebhookConfigurationStrategyWith(opts: WebhookConfigurationStrategyOptions = {}): Strategy {
  return webhookConfigurationStrategy<ValidatingWebhookConfiguration>(
    {
      defaults: setDefaultsValidatingWebhookConfiguration,
      validate: validateValidatingWebhookConfiguration,
      validateUpdate: validateValidatingWebhookConfigurationUpdate,
      ruleWarnings: (obj) => warningsForValidatingWebhookRules(obj),
    },
    opts,
  );
}

export function mutatingWebhookConfigurationStrategyWith(opts: WebhookConfigurationStrategyOptions = {}): Strategy {
  return webhookConfigurationStrategy<MutatingWebhookConfiguration>(
    {
      defaults: setDefaultsMutatingWebhookConfiguration,
      validate: validateMutatingWebhookConfiguration,
      validateUpdate: validateMutatingWebhookConfigurationUpdate,
      ruleWarnings: (obj) => warningsForMutatingWebhookRules(obj),
    },
    opts,
  );
}

/** With the feature gates at their defaults; build others with the *With factories for other gate settings. */
export const validatingWebhookConfigurationStrategy: Strategy = validatingWebhookConfigurationStrategyWith();
export const mutatingWebhookConfigurationStrategy: Strategy = mutatingWebhookConfigurationStrategyWith();
