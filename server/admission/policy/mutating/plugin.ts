// The MutatingAdmissionPolicy admission plugin (admit phase; kube's recommended order runs it before
// MutatingAdmissionWebhook): kube's generic.Plugin.Dispatch (which requests policies see, readiness) around the
// mutating dispatcher. It handles CREATE, UPDATE and CONNECT — there is no object to mutate on DELETE.
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from '../../../api/admissionregistration.js';
import type { KubeObject } from '../../../api/types.js';
import type { AdmissionAttributes, AdmissionOperation } from '../../attributes.js';
import type { AdmissionPlugin } from '../../chain.js';
import { PolicyHookSet } from '../generic/policy-hook-set.js';
import { sharedDispatchOptions, type PolicyPluginOptions } from '../generic/plugin-options.js';
import type { MutatingPolicySources } from '../sources.js';
import { compileMutatingPolicy, type MutatingPolicyEvaluator } from './compile.js';
import { dispatchMutatingPolicies, mutatingAdmissionPolicyPluginName } from './dispatcher.js';
import type { MutatingAdmissionPolicyMetrics } from './metrics.js';

export interface MutatingAdmissionPolicyPluginOptions extends PolicyPluginOptions<MutatingPolicySources> {
  /** the resource's defaulting, run on the object after each mutation, as for mutating webhooks */
  defaultObject?(object: KubeObject, attrs: AdmissionAttributes): KubeObject | void;
  metrics?: MutatingAdmissionPolicyMetrics;
  /** cost budgets, for tests */
  runtimeCostBudget?: number;
  matchConditionBudget?: number;
}

type Hooks = PolicyHookSet<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, MutatingPolicyEvaluator>;

const handledOperations: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'CONNECT'];

export class MutatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = mutatingAdmissionPolicyPluginName;
  private readonly hooks: Hooks;

  constructor(private readonly opts: MutatingAdmissionPolicyPluginOptions) {
    const hookOptions = {
      compile: (p: MutatingAdmissionPolicy) => compileMutatingPolicy(p, opts.cel),
      paramKindOf: (p: MutatingAdmissionPolicy) => p.spec?.paramKind ?? undefined,
      params: opts.params,
    };
    this.hooks = new PolicyHookSet(opts.sources, opts.staticSources, hookOptions);
  }

  handles(operation: AdmissionOperation): boolean {
    // admission.NewHandler(Create, Update, Connect)
    return handledOperations.includes(operation);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const { opts } = this;
    const hooks = await this.hooks.forRequest(attrs, opts.excludedResources, opts.readyTimeoutMs ?? 10_000);
    if (hooks.length === 0) return;

    await dispatchMutatingPolicies(hooks, attrs, {
      ...sharedDispatchOptions(opts, attrs),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(opts.defaultObject ? { defaultObject: (o: KubeObject, a: AdmissionAttributes) => opts.defaultObject!(o, a) } : {}),
      ...(opts.runtimeCostBudget !== undefined ? { runtimeCostBudget: opts.runtimeCostBudget } : {}),
      ...(opts.matchConditionBudget !== undefined ? { matchConditionBudget: opts.matchConditionBudget } : {}),
    });
  }
}
