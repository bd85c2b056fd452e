// The ValidatingAdmissionPolicy admission plugin (validate phase): kube's generic.Plugin.Dispatch (which
// requests policies see, readiness) around the validating dispatcher.
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../api/admissionregistration.js';
import type { Logger } from '../../../log.js';
import type { AdmissionAttributes, AdmissionOperation } from '../../attributes.js';
import type { AdmissionPlugin } from '../../chain.js';
import { PolicyHookSet } from '../generic/policy-hook-set.js';
import { sharedDispatchOptions, type PolicyPluginOptions } from '../generic/plugin-options.js';
import type { ValidatingAdmissionPolicyMetrics } from '../metrics.js';
import type { ValidatingPolicySources } from '../sources.js';
import { compileValidatingPolicy, type ValidatingPolicyEvaluator } from './compile.js';
import { dispatchValidatingPolicies } from './dispatcher.js';
import type { ValidateOptions } from './validator.js';

export const validatingAdmissionPolicyPluginName = 'ValidatingAdmissionPolicy';

export interface ValidatingAdmissionPolicyPluginOptions extends PolicyPluginOptions<ValidatingPolicySources> {
  metrics?: ValidatingAdmissionPolicyMetrics;
  logger?: Logger;
  /** cost budgets, for tests */
  validateOptions?: ValidateOptions;
}

type Hooks = PolicyHookSet<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingPolicyEvaluator>;

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = validatingAdmissionPolicyPluginName;
  private readonly hooks: Hooks;

  constructor(private readonly opts: ValidatingAdmissionPolicyPluginOptions) {
    const hookOptions = {
      compile: (p: ValidatingAdmissionPolicy) => compileValidatingPolicy(p, opts.cel),
      paramKindOf: (p: ValidatingAdmissionPolicy) => p.spec?.paramKind ?? undefined,
      params: opts.params,
    };
    this.hooks = new PolicyHookSet(opts.sources, opts.staticSources, hookOptions);
  }

  handles(_operation: AdmissionOperation): boolean {
    // admission.NewHandler(Connect, Create, Delete, Update)
    return true;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { opts } = this;
    const hooks = await this.hooks.forRequest(attrs, opts.excludedResources, opts.readyTimeoutMs ?? 10_000);
    if (hooks.length === 0) return;

    await dispatchValidatingPolicies(hooks, attrs, {
      ...sharedDispatchOptions(opts, attrs),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(opts.validateOptions ? { validateOptions: opts.validateOptions } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }
}
