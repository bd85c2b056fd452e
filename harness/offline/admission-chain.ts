// The apiserver's admission chain for one offline request (`kah admit`), assembled as ApiServer.buildAdmission
// assembles it, with storage replaced by what was loaded: the static manifests (origin static, first) and the
// --manifests objects (origin api, as REST-created configurations), parameters from --manifests, namespaces made up
// from --namespace-labels, and the AlwaysAllow authorizer for `authorizer.*` in CEL.
import { Registry } from 'prom-client';
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  WebhookAccessor,
} from '../../server/api/admissionregistration.js';
import type { KubeObject } from '../../server/api/types.js';
import { apiVersionOf } from '../../server/api/types.js';
import { buildAdmissionChain } from '../../server/admission/build-chain.js';
import type { CelEnvironment } from '../../server/admission/cel/environment.js';
import type { ManifestSnapshotProvider } from '../../server/admission/manifest/static-source.js';
import { staticPolicySources, staticWebhookSource } from '../../server/admission/manifest/static-source.js';
import type { OrderedAdmissionChain } from '../../server/admission/ordered-chain.js';
import type { ParamLookup, ParamResource } from '../../server/admission/policy/generic/types.js';
import { newValidatingAdmissionPolicyMetrics } from '../../server/admission/policy/metrics.js';
import { newMutatingAdmissionPolicyMetrics } from '../../server/admission/policy/mutating/metrics.js';
import { bindingItemsOf, compositePolicySources, policyItemsOf, type PolicySources } from '../../server/admission/policy/sources.js';
import { compositeSource } from '../../server/admission/sources/api-source.js';
import { staticSnapshotSource, type ConfigurationSource } from '../../server/admission/sources/source.js';
import { webhookAccessorsOf } from '../../server/admission/sources/webhook-accessors.js';
import { createWebhookClient, serviceResolverFor, type WebhookCall, type WebhookClient } from '../../server/admission/webhook/client.js';
import { celWebhookMatchConditions } from '../../server/admission/webhook/match-conditions.js';
import { AlwaysAllowAuthorizer } from '../../server/authz/index.js';
import type { Logger } from '../../server/log.js';
import { newAdmissionMetrics, type AdmissionMetrics } from '../../server/metrics/admission.js';
import type { AdmissionStepType } from '../../server/metrics/admission.js';
import type { AdmissionConfig, FeatureGates, WebhookServiceMapping } from '../../server/options/index.js';
import type { ResourceIndex } from '../../server/registry/resource-index.js';
import { objectsOfKind, type RestObject } from './rest-manifests.js';
import type { LoadedStaticDir } from './startup-check.js';

export interface OfflineChainConfig {
  /** the enabled admission plugins, in kube's order (the server's --enable/--disable-admission-plugins result) */
  plugins: readonly string[];
  gates: FeatureGates;
  admissionConfig: AdmissionConfig | undefined;
  staticDirs: readonly LoadedStaticDir[];
  manifests: readonly RestObject[];
  serviceResolver: readonly WebhookServiceMapping[];
  cel: CelEnvironment;
  index: ResourceIndex;
  /** the request's namespace and the labels --namespace-labels gives it */
  namespace: { name: string; labels: Readonly<Record<string, string>> };
}

/** A plugin that refused the request, as the chain's observer saw it. */
export interface PluginRejection {
  plugin: string;
  phase: AdmissionStepType;
}

export interface OfflineChain {
  chain: OrderedAdmissionChain;
  /** every plugin that rejected, in order; the chain stops at the first, so the last is the decider */
  rejections: PluginRejection[];
  /** webhooks actually called, in call order */
  calledWebhooks: WebhookAccessor[];
  webhooks: { validating: ConfigurationSource<WebhookAccessor>; mutating: ConfigurationSource<WebhookAccessor> };
  /** closes the webhook clients' keep-alive connections */
  close(): void;
}

const quietLogger: Logger = { info() {}, error() {}, v: () => ({ info() {} }) };

/** A loaded directory as the static sources read a manifest controller: one fixed snapshot. */
function fixedProvider(d: LoadedStaticDir): ManifestSnapshotProvider {
  const snapshot = Object.freeze({ generation: 1, objects: d.objects, hash: d.hash });
  return { plugin: d.plugin, snapshot: () => snapshot, hasSynced: () => true };
}

/** Parameters from --manifests: a served kind resolves as the server resolves it; a kind only --manifests holds, to a resource of its own. */
function manifestParamLookup(index: ResourceIndex, objects: readonly RestObject[]): ParamLookup {
  const ofResource = (p: ParamResource): KubeObject[] =>
    objects.map((o) => o.object).filter((o) => o.apiVersion === apiVersionOf(p.kind.group, p.kind.version) && o.kind === p.kind.kind);
  return {
    resolve(kind) {
      const info = index.lookupKind(apiVersionOf(kind.group, kind.version), kind.kind);
      if (info) {
        if (info.virtual) return undefined;
        return { resource: { group: info.group, version: info.version, resource: info.resource }, kind: { group: info.group, version: info.version, kind: info.kind }, namespaced: info.namespaced };
      }
      const given = objects.filter((o) => o.object.apiVersion === apiVersionOf(kind.group, kind.version) && o.object.kind === kind.kind);
      if (given.length === 0) return undefined;
      return {
        resource: { group: kind.group, version: kind.version, resource: `${kind.kind.toLowerCase()}s` },
        kind: { ...kind },
        namespaced: given.some((o) => (o.object.metadata?.namespace ?? '') !== ''),
      };
    },
    async get(p, namespace, name) {
      return ofResource(p).find((o) => o.metadata?.name === name && (!p.namespaced || (o.metadata?.namespace ?? '') === namespace));
    },
    async list(p, namespace, selector) {
      return ofResource(p).filter((o) => (namespace === '' || !p.namespaced || o.metadata?.namespace === namespace) && selector.matches(o.metadata?.labels));
    },
  };
}

function restPolicySources<P extends KubeObject, B extends KubeObject>(manifests: readonly RestObject[], policyKind: string, bindingKind: string): PolicySources<P, B> {
  return {
    policies: staticSnapshotSource(objectsOfKind(manifests, policyKind).flatMap((o) => policyItemsOf<P>(o, 'api'))),
    bindings: staticSnapshotSource(objectsOfKind(manifests, bindingKind).flatMap((o) => bindingItemsOf<B>(o, 'api'))),
  };
}

/** Records the webhooks called: the dispatchers pass the accessor's own clientConfig object to the client. */
function recordingClient(client: WebhookClient, accessors: () => WebhookAccessor[], called: WebhookAccessor[]): WebhookClient {
  return {
    call(c: WebhookCall) {
      const accessor = accessors().find((a) => a.webhook.clientConfig === c.clientConfig && a.webhook.name === c.webhookName);
      if (accessor) called.push(accessor);
      return client.call(c);
    },
    post: (p) => client.post(p),
    close: () => client.close(),
  };
}

export function buildOfflineChain(cfg: OfflineChainConfig): OfflineChain {
  const staticDir = (plugin: LoadedStaticDir['plugin']) => cfg.staticDirs.find((d) => d.plugin === plugin);
  const webhookSource = (plugin: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook'): ConfigurationSource<WebhookAccessor> => {
    const kind = plugin === 'ValidatingAdmissionWebhook' ? 'validating' : 'mutating';
    const configurationKind = plugin === 'ValidatingAdmissionWebhook' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
    const api = staticSnapshotSource(objectsOfKind(cfg.manifests, configurationKind).flatMap((o) => webhookAccessorsOf(o, kind, 'api')));
    const dir = staticDir(plugin);
    return dir ? compositeSource(staticWebhookSource(fixedProvider(dir)), api) : api;
  };
  const validating = webhookSource('ValidatingAdmissionWebhook');
  const mutating = webhookSource('MutatingAdmissionWebhook');

  const rejections: PluginRejection[] = [];
  const base = newAdmissionMetrics(new Registry());
  // The chain reports each plugin's outcome to its observer: that is how the deciding plugin is known.
  const metrics: AdmissionMetrics = Object.assign(Object.create(base) as AdmissionMetrics, {
    plugin(name: string, type: AdmissionStepType, operation: Parameters<AdmissionMetrics['plugin']>[2], rejected: boolean, seconds: number) {
      if (rejected) rejections.push({ plugin: name, phase: type });
      base.plugin(name, type, operation, rejected, seconds);
    },
  });

  const called: WebhookAccessor[] = [];
  const serviceResolver = serviceResolverFor(cfg.serviceResolver);
  const validatingClient = recordingClient(
    createWebhookClient({ serviceResolver, kubeconfigPath: cfg.admissionConfig?.plugins.ValidatingAdmissionWebhook?.kubeConfigFile }),
    () => [...validating.snapshot().items],
    called,
  );
  const mutatingClient = recordingClient(
    createWebhookClient({ serviceResolver, kubeconfigPath: cfg.admissionConfig?.plugins.MutatingAdmissionWebhook?.kubeConfigFile }),
    () => [...mutating.snapshot().items],
    called,
  );

  const vapDir = staticDir('ValidatingAdmissionPolicy');
  const staticVap = vapDir ? staticPolicySources<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding>(fixedProvider(vapDir)) : undefined;
  const restVap = restPolicySources<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding>(cfg.manifests, 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding');
  // kube's MutatingAdmissionPolicy plugin does nothing while its gate is off (InspectFeatureGates)
  const mapEnabled = cfg.gates.enabled('MutatingAdmissionPolicy');
  const mapDir = mapEnabled ? staticDir('MutatingAdmissionPolicy') : undefined;
  const staticMap = mapDir ? staticPolicySources<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding>(fixedProvider(mapDir)) : undefined;
  const restMap = restPolicySources<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding>(cfg.manifests, 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding');

  const namespacesInfo = cfg.index.lookup('', 'v1', 'namespaces')!;
  const authorizer = new AlwaysAllowAuthorizer();
  const registry = new Registry();
  const chain = buildAdmissionChain({
    plugins: cfg.plugins,
    metrics,
    webhooks: { validating, mutating, validatingClient, mutatingClient },
    // Every namespace exists and is Active; the request's own carries the --namespace-labels.
    getNamespace: async (name) => {
      const labels = name === cfg.namespace.name ? { ...cfg.namespace.labels } : {};
      const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
      namespacesInfo.strategy.applyDefaults?.(ns);
      return ns;
    },
    isNamespaced: (group, resource) => cfg.index.all().some((r) => r.group === group && r.resource === resource && r.namespaced),
    excludeVirtualResources: () => cfg.gates.enabled('ExcludeAdmissionWebhookVirtualResources'),
    defaultObject: (object, attrs) => {
      const info = cfg.index.lookup(attrs.resource.group, attrs.resource.version, attrs.resource.resource);
      // Only the resource's own kind: a /scale write is admitted as an autoscaling/v1 Scale.
      if (info && attrs.kind.kind === info.kind) info.strategy.applyDefaults?.(object);
    },
    log: quietLogger,
    webhookMatchConditions: celWebhookMatchConditions(cfg.cel, authorizer),
    policies: {
      validating: staticVap ? compositePolicySources(staticVap, restVap) : restVap,
      ...(staticVap ? { validatingStatic: staticVap } : {}),
      cel: cfg.cel,
      params: manifestParamLookup(cfg.index, cfg.manifests),
      metrics: newValidatingAdmissionPolicyMetrics(registry),
      authorizer,
      ...(mapEnabled
        ? {
            mutating: staticMap ? compositePolicySources(staticMap, restMap) : restMap,
            ...(staticMap ? { mutatingStatic: staticMap } : {}),
            mutatingMetrics: newMutatingAdmissionPolicyMetrics(registry),
          }
        : {}),
    },
  });
  return {
    chain,
    rejections,
    calledWebhooks: called,
    webhooks: { validating, mutating },
    close() {
      validatingClient.close();
      mutatingClient.close();
    },
  };
}
