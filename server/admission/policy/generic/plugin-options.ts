// What both policy plugins (ValidatingAdmissionPolicy, MutatingAdmissionPolicy) are built with besides their own
// sources and metrics: kube's generic.Plugin dependencies.
import type { GroupResource } from '../../../api/errors.js';
import type { KubeObject } from '../../../api/types.js';
import type { AdmissionMetrics } from '../../../metrics/admission.js';
import type { AdmissionAttributes } from '../../attributes.js';
import type { CelAuthorizer, CelEnvironment } from '../../cel/environment.js';
import type { EquivalentResourceMapper } from '../../matching/equivalence.js';
import type { ObjectConverterFor } from '../../webhook/dispatch.js';
import type { AdmissionCoverageObserver } from '../../coverage/recorder.js';
import { RequestNamespace } from './scope.js';
import type { ParamLookup } from './types.js';

export interface PolicyPluginOptions<Sources> {
  /** every policy and binding: the static (manifest) ones first, then the API ones */
  sources: Sources;
  /** the static ones alone, when manifests are configured: the only policies that see the policy resources */
  staticSources?: Sources;
  cel: CelEnvironment;
  params: ParamLookup;
  /** a namespace object; undefined when it does not exist */
  getNamespace(name: string): Promise<KubeObject | undefined>;
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
  /** how long a request waits for the sources' first load before it is refused (kube: 10 s) */
  readyTimeoutMs?: number;
  /** the admission coverage recorder (--admission-coverage); undefined when coverage is off */
  coverage?: AdmissionCoverageObserver;
}

/**
 * The dispatch options both plugins derive from their own options for one request: params, the namespace, the
 * equivalent-resource mapping, the `authorizer` variable, version conversion and the match condition metrics (kube's
 * policy compilers both register their matchers as type "validate").
 */
export function sharedDispatchOptions<S>(opts: PolicyPluginOptions<S>, attrs: AdmissionAttributes) {
  const authorizer = opts.authorizerFor?.(attrs);
  const convert = opts.converterFor?.(attrs.resource);
  const metrics = opts.admissionMetrics;
  return {
    params: opts.params,
    namespace: new RequestNamespace(attrs, opts.getNamespace),
    ...(opts.equivalentResources ? { equivalentResources: opts.equivalentResources } : {}),
    ...(authorizer ? { authorizer } : {}),
    ...(convert ? { convert } : {}),
    ...(opts.coverage ? { coverage: opts.coverage } : {}),
    ...(metrics
      ? {
          matchConditionObserver: (policyName: string) => ({
            evalError: () => metrics.observeMatchConditionEvalError(policyName, 'policy', 'validate', attrs.operation),
            evaluationTime: (seconds: number) => metrics.observeMatchConditionEvaluationTime(policyName, 'policy', 'validate', attrs.operation, seconds),
          }),
        }
      : {}),
  };
}
