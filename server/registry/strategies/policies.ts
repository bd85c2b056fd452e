// ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, MutatingAdmissionPolicy and
// MutatingAdmissionPolicyBinding: kube's registry strategies, wired to the shared validators of
// server/admission/policy/validation.ts (v1 defaulting, create/update validation, the status subresource) and to
// the reserved-name rules of manifest-based admission (KEP-5793).
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from '../../api/admissionregistration.js';
import { FieldPath, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import type { CelEnvironment } from '../../admission/cel/environment.js';
import {
  setDefaultsMutatingAdmissionPolicy,
  setDefaultsMutatingAdmissionPolicyBinding,
  setDefaultsValidatingAdmissionPolicy,
  setDefaultsValidatingAdmissionPolicyBinding,
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateMutatingAdmissionPolicyBindingUpdate,
  validateMutatingAdmissionPolicyUpdate,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyBindingUpdate,
  validateValidatingAdmissionPolicyStatus,
  validateValidatingAdmissionPolicyUpdate,
  type PolicyValidationOptions,
} from '../../admission/policy/validation.js';
import { validateStaticSuffix, warningsForStaticSuffix } from '../../admission/webhook/validation.js';
import { jsonEqual } from '../object-fields.js';
import type { Strategy } from '../resource.js';

export interface PolicyStrategyOptions {
  /** the ManifestBasedAdmissionControlConfig gate (default off): names ending in .static.k8s.io are then refused */
  manifestBasedAdmissionControlConfig?: boolean;
  /** compile the policies' CEL expressions on write; without it only their structure is validated */
  cel?: CelEnvironment;
}

const nameOf = (obj: KubeObject): string => obj.metadata?.name ?? '';
const policyNameOf = (obj: KubeObject): string => {
  const spec = obj['spec'] as { policyName?: unknown } | undefined;
  return typeof spec?.policyName === 'string' ? spec.policyName : '';
};

interface Validators<T extends KubeObject> {
  defaults(obj: T): void;
  validate(obj: T, opts: PolicyValidationOptions): FieldError[];
  validateUpdate(obj: T, old: T, opts: PolicyValidationOptions): FieldError[];
  /** the status subresource's validation, for kinds that have one */
  validateStatus?(obj: T): FieldError[];
  /** bindings: spec.policyName may not name a static policy either */
  binding?: boolean;
}

function policyStrategy<T extends KubeObject>(v: Validators<T>, opts: PolicyStrategyOptions): Strategy {
  const manifestBased = opts.manifestBasedAdmissionControlConfig ?? false;
  const validationOpts: PolicyValidationOptions = opts.cel ? { cel: opts.cel } : {};
  const reserved = (obj: KubeObject): FieldError[] =>
    manifestBased ? [...validateStaticSuffix(nameOf(obj)), ...(v.binding ? validateStaticSuffix(policyNameOf(obj), FieldPath.root('spec', 'policyName')) : [])] : [];
  return {
    applyDefaults(obj) {
      v.defaults(obj as T);
    },
    validate(obj) {
      // only creates are refused: an object with the suffix stored before the gate was turned on stays updatable
      return [...v.validate(obj as T, validationOpts), ...reserved(obj)];
    },
    validateUpdate(obj, old) {
      // The store has one update path: a write to /status keeps the stored spec, a write to the object keeps the
      // stored status. A changed status therefore means /status, which kube validates on its own (status strategy).
      if (v.validateStatus && !jsonEqual(obj['status'], old['status']) && jsonEqual(obj['spec'], old['spec'])) return v.validateStatus(obj as T);
      return v.validateUpdate(obj as T, old as T, validationOpts);
    },
    warningsOnCreate(obj) {
      return manifestBased ? [] : warningsForStaticSuffix(nameOf(obj));
    },
    // kube warns about the suffix on every update, whatever the gate
    warningsOnUpdate(obj) {
      return warningsForStaticSuffix(nameOf(obj));
    },
  };
}

export function validatingAdmissionPolicyStrategyWith(opts: PolicyStrategyOptions = {}): Strategy {
  return policyStrategy<ValidatingAdmissionPolicy>(
    {
      defaults: setDefaultsValidatingAdmissionPolicy,
      validate: validateValidatingAdmissionPolicy,
      validateUpdate: validateValidatingAdmissionPolicyUpdate,
      validateStatus: validateValidatingAdmissionPolicyStatus,
    },
    opts,
  );
}

export function validatingAdmissionPolicyBindingStrategyWith(opts: PolicyStrategyOptions = {}): Strategy {
  return policyStrategy<ValidatingAdmissionPolicyBinding>(
    {
      defaults: setDefaultsValidatingAdmissionPolicyBinding,
      validate: validateValidatingAdmissionPolicyBinding,
      validateUpdate: validateValidatingAdmissionPolicyBindingUpdate,
      binding: true,
    },
    opts,
  );
}

export function mutatingAdmissionPolicyStrategyWith(opts: PolicyStrategyOptions = {}): Strategy {
  return policyStrategy<MutatingAdmissionPolicy>(
    {
      defaults: setDefaultsMutatingAdmissionPolicy,
      validate: validateMutatingAdmissionPolicy,
      validateUpdate: validateMutatingAdmissionPolicyUpdate,
    },
    opts,
  );
}

export function mutatingAdmissionPolicyBindingStrategyWith(opts: PolicyStrategyOptions = {}): Strategy {
  return policyStrategy<MutatingAdmissionPolicyBinding>(
    {
      defaults: setDefaultsMutatingAdmissionPolicyBinding,
      validate: validateMutatingAdmissionPolicyBinding,
      validateUpdate: validateMutatingAdmissionPolicyBindingUpdate,
      binding: true,
    },
    opts,
  );
}

/** The four strategies keyed as strategiesFor registers them. */
export function policyStrategiesFor(opts: PolicyStrategyOptions = {}): Record<string, Strategy> {
  return {
    'admissionregistration.k8s.io/v1/validatingadmissionpolicies': validatingAdmissionPolicyStrategyWith(opts),
    'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings': validatingAdmissionPolicyBindingStrategyWith(opts),
    'admissionregistration.k8s.io/v1/mutatingadmissionpolicies': mutatingAdmissionPolicyStrategyWith(opts),
    'admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings': mutatingAdmissionPolicyBindingStrategyWith(opts),
  };
}
