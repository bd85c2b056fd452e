// Assembles the admission chain from the enabled plugin names, in kube-apiserver's order. Plugins this server does
// not run are accepted by the flags and skipped here.
import type { WebhookAccessor } from '../api/admissionregistration.js';
import type { KubeObject } from '../api/types.js';
import type { Logger } from '../log.js';
import type { AdmissionMetrics } from '../metrics/admission.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionPlugin } from './chain.js';
import { matchWebhook, webhookCandidates } from './matching/index.js';
import { OrderedAdmissionChain } from './ordered-chain.js';
import { NamespaceLifecycle } from './plugins/namespace-lifecycle.js';
import { PriorityAdmission } from './plugins/priority.js';
import { DefaultStorageClass } from './plugins/default-storage-class.js';
import { DefaultTolerationSeconds } from './plugins/default-toleration-seconds.js';
import { LimitRanger } from './plugins/limit-ranger.js';
import type { ObjectLister } from './plugins/object-lister.js';
import { ResourceQuotaAdmission } from './plugins/resource-quota.js';
import { ServiceAccountAdmission } from './plugins/service-account.js';
import type { ConfigurationSource } from './sources/source.js';
import type { Authorizer } from '../authz/types.js';
import type { CelEnvironment } from './cel/environment.js';
import { requestAuthorizer } from './policy/generic/authorizer.js';
import type { ParamLookup } from './policy/generic/types.js';
import type { ValidatingAdmissionPolicyMetrics } from './policy/metrics.js';
import type { MutatingAdmissionPolicyMetrics } from './policy/mutating/metrics.js';
import { MutatingAdmissionPolicyPlugin } from './policy/mutating/plugin.js';
import type { MutatingPolicySources, ValidatingPolicySources } from './policy/sources.js';
import { ValidatingAdmissionPolicyPlugin } from './policy/validating/plugin.js';
import type { WebhookClient } from './webhook/client.js';
import type { AdmissionCoverageObserver } from './coverage/recorder.js';
import type { MatchConditionsEvaluator, ObjectConverterFor } from './webhook/dispatch.js';
import { MutatingAdmissionWebhook } from './webhook/mutating.js';
import { ValidatingAdmissionWebhook } from './webhook/validating.js';

export interface AdmissionChainDeps {
  /** enabled plugin names, in kube's order */
  plugins: readonly string[];
  metrics: AdmissionMetrics;
  webhooks: {
    validating: ConfigurationSource<WebhookAccessor>;
    mutating: ConfigurationSource<WebhookAccessor>;
    validatingClient: WebhookClient;
    mutatingClient: WebhookClient;
  };
  getNamespace(name: string): Promise<KubeObject | undefined>;
  isNamespaced(group: string, resource: string): boolean;
  /** every stored PriorityClass, for the Priority plugin's one-global-default rule */
  listPriorityClasses?(): Promise<KubeObject[]>;
  excludeVirtualResources: () => boolean;
  /** reads of stored objects (service accounts, limit ranges, quotas, storage classes) for the built-in plugins */
  lister?: ObjectLister;
  /** false when a namespace surely holds no ResourceQuota */
  mayHaveQuotas?(namespace: string): boolean;
  /** CEL evaluation of webhook matchConditions; without it they are not evaluated */
  webhookMatchConditions?: MatchConditionsEvaluator;
  /** converters of resources served at several versions, for webhooks and policies matched through an equivalent version */
  converterFor?: ObjectConverterFor;
  /** the resource's defaulting, run on each mutating webhook's result as kube's decoder does */
  defaultObject(object: KubeObject, attrs: AdmissionAttributes): void;
  log: Logger;
  /** the admission coverage recorder (--admission-coverage); undefined when coverage is off */
  coverage?: AdmissionCoverageObserver;
  policies?: {
    /** every ValidatingAdmissionPolicy and binding: static (manifest) ones first, then the API ones */
    validating: ValidatingPolicySources;
    /** the static ones alone, when manifests are configured (KEP-5793) */
    validatingStatic?: ValidatingPolicySources;
    cel: CelEnvironment;
    params: ParamLookup;
    metrics: ValidatingAdmissionPolicyMetrics;
    /** answers the `authorizer` CEL variable */
    authorizer?: Authorizer;
    /** every MutatingAdmissionPolicy and binding, static ones first; absent when the MutatingAdmissionPolicy gate is off */
    mutating?: MutatingPolicySources;
    /** the static ones alone, when manifests are configured (KEP-5793) */
    mutatingStatic?: MutatingPolicySources;
    mutatingMetrics?: MutatingAdmissionPolicyMetrics;
  };
}

export function buildAdmissionChain(deps: AdmissionChainDeps): OrderedAdmissionChain {
  const namespaceLabels = async (name: string) => (await deps.getNamespace(name))?.metadata?.labels ?? undefined;
  const webhookCommon = {
    matchWebhook,
    candidates: webhookCandidates,
    namespaceLabels,
    metrics: deps.metrics,
    excludeVirtualResources: deps.excludeVirtualResources,
    ...(deps.webhookMatchConditions ? { matchConditions: deps.webhookMatchConditions } : {}),
    ...(deps.converterFor ? { converterFor: deps.converterFor } : {}),
    ...(deps.coverage ? { coverage: deps.coverage } : {}),
  };
  const factories: Record<string, () => AdmissionPlugin> = {
    NamespaceLifecycle: () => new NamespaceLifecycle({ getNamespace: deps.getNamespace, isNamespaced: deps.isNamespaced }),
    MutatingAdmissionWebhook: () =>
      new MutatingAdmissionWebhook({ ...webhookCommon, source: deps.webhooks.mutating, client: deps.webhooks.mutatingClient, defaultObject: deps.defaultObject }),
    ValidatingAdmissionWebhook: () => new ValidatingAdmissionWebhook({ ...webhookCommon, source: deps.webhooks.validating, client: deps.webhooks.validatingClient }),
  };
  const listPriorityClasses = deps.listPriorityClasses;
  if (listPriorityClasses) factories['Priority'] = () => new PriorityAdmission({ listPriorityClasses });
  factories['DefaultTolerationSeconds'] = () => new DefaultTolerationSeconds();
  const lister = deps.lister;
  if (lister) {
    factories['LimitRanger'] = () => new LimitRanger({ lister });
    factories['ServiceAccount'] = () => new ServiceAccountAdmission({ lister });
    factories['DefaultStorageClass'] = () => new DefaultStorageClass({ lister });
    factories['ResourceQuota'] = () => new ResourceQuotaAdmission({ lister, isNamespaced: deps.isNamespaced, ...(deps.mayHaveQuotas ? { mayHaveQuotas: deps.mayHaveQuotas } : {}) });
  }
  const policies = deps.policies;
  if (policies) {
    factories['ValidatingAdmissionPolicy'] = () =>
      new ValidatingAdmissionPolicyPlugin({
        sources: policies.validating,
        ...(policies.validatingStatic ? { staticSources: policies.validatingStatic } : {}),
        cel: policies.cel,
        params: policies.params,
        getNamespace: deps.getNamespace,
        metrics: policies.metrics,
        admissionMetrics: deps.metrics,
        ...(policies.authorizer ? { authorizerFor: (attrs: AdmissionAttributes) => requestAuthorizer(policies.authorizer!, attrs) } : {}),
        ...(deps.converterFor ? { converterFor: deps.converterFor } : {}),
        ...(deps.coverage ? { coverage: deps.coverage } : {}),
        logger: deps.log,
      });
    const mutating = policies.mutating;
    if (mutating) {
      factories['MutatingAdmissionPolicy'] = () =>
        new MutatingAdmissionPolicyPlugin({
          sources: mutating,
          ...(policies.mutatingStatic ? { staticSources: policies.mutatingStatic } : {}),
          cel: policies.cel,
          params: policies.params,
          getNamespace: deps.getNamespace,
          // kube defaults the object after each mutation, as it does after each webhook patch
          defaultObject: deps.defaultObject,
          ...(policies.mutatingMetrics ? { metrics: policies.mutatingMetrics } : {}),
          admissionMetrics: deps.metrics,
          ...(policies.authorizer ? { authorizerFor: (attrs: AdmissionAttributes) => requestAuthorizer(policies.authorizer!, attrs) } : {}),
          ...(deps.converterFor ? { converterFor: deps.converterFor } : {}),
          ...(deps.coverage ? { coverage: deps.coverage } : {}),
        });
    }
  }
  const plugins = deps.plugins.filter((name) => factories[name]).map((name) => factories[name]!());
  deps.log.info('admission chain', { plugins: plugins.map((p) => p.name) });
  return new OrderedAdmissionChain(plugins, deps.metrics);
}
