// The ValidatingAdmissionPolicy admission plugin (validate phase): kube's generic.Plugin.Dispatch (which
// requests policies see, readiness) around the validating dispatcher.
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../api/admissionregistration.js';
import type { GroupResource } from '../../../api/errors.js';
import type { KubeObject } from '../../../api/types.js';
import type { Logger } from '../../../log.js';
import type { AdmissionMetrics } from '../../../metrics/admission.js';
import type { AdmissionAttributes, AdmissionOperation } from '../../attributes.js';
import type { CelAuthorizer, CelEnvironment } from '../../cel/environment.js';
import type { AdmissionPlugin } from '../../chain.js';
import type { EquivalentResourceMapper } from '../../matching/equivalence.js';
import type { ObjectConverterFor } from '../../webhook/dispatch.js';
import { PolicyHookSource } from '../generic/hooks.js';
import { policyScopeOf, RequestNamespace, waitUntilSynced } from '../generic/scope.js';
import type { ParamLookup } from '../generic/types.js';
import type { ValidatingAdmissionPolicyMetrics } from '../metrics.js';
import type { ValidatingPolicySources } from '../sources.js';
import { compileValidatingPolicy, type ValidatingPolicyEvaluator } from './compile.js';
import { dispatchValidatingPolicies } from './dispatcher.js';
import type { ValidateOptions } from './validator.js';

export const validatingAdmissionPolicyPluginName = 'ValidatingAdmissionPolicy';

export interface ValidatingAdmissionPolicyPluginOptions {
  /** every policy and binding: the static (manifest) ones first, then the API ones */
  sources: ValidatingPolicySources;
  /** the static ones alone, when manifests are configured: the only policies that see the policy resources */
  staticSources?: ValidatingPolicySources;
  cel: CelEnvironment;
  params: ParamLookup;
  /** a namespace object; undefined when it does not exist */
  getNamespace(name: string): Promise<KubeObject | undefined>;
  metrics?: ValidatingAdmissionPolicyMetrics;
  /** apiserver_admission_match_condition_* (kind "policy") */
  admissionMetrics?: AdmissionMetrics;
  /** the `authorizer` variable for one request; without it expressions using `authorizer` fail at runtime */
  authorizerFor?(attrs: AdmissionAttributes): CelAuthorizer | undefined;
  equivalentResources?: EquivalentResourceMapper;
  /**
   * converters of resources served at several versions (custom resources): a policy matched through another
   * version (matchPolicy Equivalent) sees the objects converted to it, as webhooks do
   */
  converterFor?: ObjectConverterFor;
  /** the virtual resources policies never see (kube's excluded admission resources) */
  excludedResources?: readonly GroupResource[];
  logger?: Logger;
  /** how long a request waits for the sources' first load before it is refused (kube: 10 s) */
  readyTimeoutMs?: number;
  /** cost budgets, for tests */
  validateOptions?: ValidateOptions;
}

type Hooks = PolicyHookSource<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingPolicyEvaluator>;

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = validatingAdmissionPolicyPluginName;
  private readonly hooks: Hooks;
  private readonly staticHooks?: Hooks;

  constructor(private readonly opts: ValidatingAdmissionPolicyPluginOptions) {
    const hookOptions = {
      compile: (p: ValidatingAdmissionPolicy) => compileValidatingPolicy(p, opts.cel),
      paramKindOf: (p: ValidatingAdmissionPolicy) => p.spec?.paramKind ?? undefined,
      params: opts.params,
    };
    this.hooks = new PolicyHookSource(opts.sources, hookOptions);
    if (opts.staticSources) this.staticHooks = new PolicyHookSource(opts.staticSources, hookOptions);
  }

  handles(_operation: AdmissionOperation): boolean {
    // admission.NewHandler(Connect, Create, Delete, Update)
    return true;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { opts } = this;
    const scope = policyScopeOf(attrs, opts.excludedResources);
    if (scope === 'none') return;
    const timeout = opts.readyTimeoutMs ?? 10_000;
    let source: Hooks;
    if (scope === 'static') {
      // API policies never see the policy resources; static ones protect them
      if (!this.staticHooks) return;
      source = this.staticHooks;
    } else source = this.hooks;
    await waitUntilSynced(() => source.hasSynced(), attrs, timeout);
    const hooks = source.hooks();
    if (hooks.length === 0) return;

    const authorizer = opts.authorizerFor?.(attrs);
    const convert = opts.converterFor?.(attrs.resource);
    const metrics = opts.admissionMetrics;
    await dispatchValidatingPolicies(hooks, attrs, {
      params: opts.params,
      namespace: new RequestNamespace(attrs, opts.getNamespace),
      ...(opts.equivalentResources ? { equivalentResources: opts.equivalentResources } : {}),
      ...(authorizer ? { authorizer } : {}),
      ...(convert ? { convert } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(metrics
        ? {
            matchConditionObserver: (policyName: string) => ({
              evalError: () => metrics.observeMatchConditionEvalError(policyName, 'policy', 'validate', attrs.operation),
              evaluationTime: (seconds: number) => metrics.observeMatchConditionEvaluationTime(policyName, 'policy', 'validate', attrs.operation, seconds),
            }),
          }
        : {}),
      ...(opts.validateOptions ? { validateOptions: opts.validateOptions } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }
}
