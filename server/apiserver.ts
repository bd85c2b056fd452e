// Assembles one apiserver from resolved configuration: resource registry and stores over the chosen storage,
// the HTTPS listener with the filter chain, health checks, system namespaces and the namespace controller.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { WebhookAccessor } from './api/admissionregistration.js';
import { buildAdmissionChain } from './admission/build-chain.js';
import { buildCoverageReport, type ConfiguredAdmission } from './admission/coverage/build-report.js';
import { CoverageFileWriter } from './admission/coverage/coverage-file.js';
import { CoverageRecorder } from './admission/coverage/recorder.js';
import type { AdmissionCoverageReport } from './admission/coverage/report-schema.js';
import { kubernetesCelEnvironment } from './admission/cel/kubernetes.js';
import type { CelEnvironment } from './admission/cel/environment.js';
import { storeParamLookup } from './admission/policy/generic/store-params.js';
import { newValidatingAdmissionPolicyMetrics } from './admission/policy/metrics.js';
import { newMutatingAdmissionPolicyMetrics } from './admission/policy/mutating/metrics.js';
import { mutatingPolicyApiSources, validatingPolicyApiSources } from './admission/policy/sources.js';
import { ValidatingAdmissionPolicyStatusController } from './admission/policy/validating/status.js';
import { builtinPolicyTypeChecker, servedSchemaResolver } from './admission/policy/validating/typechecking.js';
import type { AdmissionChain } from './admission/chain.js';
import { ApiConfigurationSource, compositeSource, type WriteEventType } from './admission/sources/api-source.js';
import { StaticManifestController } from './admission/manifest/controller.js';
import { manifestLoadFailure } from './admission/manifest/load.js';
import { kubeAdmissionPluginOrder, type ManifestPlugin } from './admission/manifest/plugins.js';
import { staticPolicySources, staticWebhookSource } from './admission/manifest/static-source.js';
import { policyKindHandlers, webhookKindHandlers } from './admission/manifest/plugins.js';
import { compositePolicySources } from './admission/policy/sources.js';
import { celWebhookMatchConditions, compileWebhookMatchCondition } from './admission/webhook/match-conditions.js';
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from './api/admissionregistration.js';
import type { ConfigurationSource } from './admission/sources/source.js';
import { webhookAccessorsOf } from './admission/sources/webhook-accessors.js';
import { createWebhookClient, type WebhookClientOptions } from './admission/webhook/client.js';
import { apiVersionOf, type KubeObject } from './api/types.js';
import { newAdmissionMetrics } from './metrics/admission.js';
import type { FeatureGates } from './options/index.js';
import { StatusError } from './api/errors.js';
import { systemPriorityClasses, systemPriorityClassObject } from './registry/strategies/scheduling/priorityclass.js';
import type { Authenticator } from './authn/index.js';
import type { Authorizer, RbacPolicy } from './authz/index.js';
import type { RbacResource } from './authz/rbac/index.js';
import { aggregatedRules, ClusterRoleAggregationController, sameRules } from './controllers/clusterrole-aggregation.js';
import { RbacInformers, rbacResources } from './controllers/rbac-informers.js';
import { DelayedCalls } from './controllers/delayed-calls.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { updateTracker } from './endpoints/apply/index.js';
import { StartupObjects } from './controllers/bootstrap/index.js';
import { NamespaceController } from './controllers/namespace-controller.js';
import { defaultServiceAccountObject, rootCaConfigMapName, rootCaConfigMapObject, rootCaDrifted } from './controllers/namespace-default-objects.js';
import { PerNamespaceObjectController } from './controllers/per-namespace-object-controller.js';
import { ResourceQuotaStatusController } from './controllers/resource-quota-status-controller.js';
import { QuotaNamespaces } from './controllers/quota-namespaces.js';
import type { ObjectLister } from './admission/plugins/object-lister.js';
import type { ApiContext, VirtualResourceHandler } from './endpoints/api-context.js';
import { buildApp } from './http/app.js';
import { AuditLog, auditFilter } from './http/audit.js';
import { HealthChecks, informerSyncCheck } from './http/health.js';
import type { Logger } from './log.js';
import { newApiserverMetrics, type ApiserverMetrics } from './metrics/registry.js';
import { newWatchMetrics } from './metrics/watch.js';
import { builtinResourcesFor } from './registry/catalogue/index.js';
import { convertHpa } from './registry/strategies/autoscaling/hpa-conversion.js';
import { newRequestContext } from './registry/request-context.js';
import { ResourceIndex } from './registry/resource-index.js';
import { gvrKey, type ResourceInfo } from './registry/resource.js';
import { ResourceStore } from './registry/store.js';
import type { Storage } from './storage/interface.js';
import type { CustomResourceDefinitions } from './apiextensions/index.js';
import { kubernetesGitVersion } from './version.js';
import type { ServiceAccountTokenIssuer } from './endpoints/subresources/token-request.js';
import type { ServiceAccountTokenGetter } from './authn/service-account-token.js';
import type { OpenIdMetadata } from './serviceaccount/openid-metadata.js';
import { etcdCheck, etcdHealthKey, defaultEtcdCheckTimeoutMs } from './storage/etcd-health-check.js';

export interface ServingTls {
  certPem: string;
  keyPem: string;
  clientCaPem?: string;
  rootCaPem?: string;
}

export interface ApiServerConfig {
  bindAddress: string;
  /** 0 picks a free port */
  port: number;
  /**
   * The serving certificate, key and client CA, and the CA bundle published in every namespace as the
   * kube-root-ca.crt ConfigMap (kube: --root-ca-file). A promise while they are still being generated: everything
   * else is built meanwhile, and the port opens once they are there; if it rejects, start() stops what it started
   * and rejects with the same error.
   */
  tls: ServingTls | Promise<ServingTls>;
  /**
   * Runs synchronously as the port opens, before the server can accept a connection (libuv accepts only once this
   * callback has returned): what must exist before anyone can see /readyz 200, such as --write-kubeconfig's file.
   * A throw fails the start.
   */
  onListening?: (port: number) => void;
  storage: Storage;
  etcdPrefix: string;
  /** --etcd-healthcheck-timeout and --etcd-readycheck-timeout: each probe's bound; default 2 s (kube's) */
  etcdHealthcheckTimeoutMs?: number;
  etcdReadycheckTimeoutMs?: number;
  authn: Authenticator;
  authz: Authorizer;
  virtual: VirtualResourceHandler;
  log: Logger;
  auditLogPath?: string;
  admission: {
    /** enabled plugin names in kube's order (--enable/--disable-admission-plugins) */
    plugins: readonly string[];
    /** per webhook plugin: the service resolver and kubeConfigFile credentials */
    validatingWebhookClient: WebhookClientOptions;
    mutatingWebhookClient: WebhookClientOptions;
  };
  featureGates: FeatureGates;
  /** KEP-5793: each plugin's staticManifestsDir (absolute, validated by the admission config loader) */
  staticManifests?: Partial<Record<ManifestPlugin, string>>;
  /** signs TokenRequest answers (serviceaccounts/token) */
  serviceAccountTokens?: ServiceAccountTokenIssuer;
  /** receives the reader of service accounts, pods, secrets and nodes the token authenticator checks tokens against */
  bindServiceAccountTokenGetter?: (getter: ServiceAccountTokenGetter) => void;
  /** /.well-known/openid-configuration and /openid/v1/jwks; unset when the issuer is no https URL, as in kube */
  openIdMetadata?: OpenIdMetadata;
  /** how long SIGTERM waits for in-flight requests */
  shutdownTimeoutMs?: number;
  /** record admission coverage and write it here (periodically and on shutdown); not a kube-apiserver flag */
  admissionCoverageFile?: string;
  /** --authorization-mode includes RBAC: the policy its authorizer reads, which this server fills and keeps */
  rbac?: RbacPolicy;
}

/** Namespaces kube-apiserver's system namespaces controller keeps in place. */
export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const systemUser = { username: 'system:apiserver', uid: 'kah-apiserver', groups: ['system:authenticated', 'system:masters'] };

export class ApiServer {
  readonly index: ResourceIndex;
  readonly metrics: ApiserverMetrics = newApiserverMetrics();
  readonly health = new HealthChecks();
  private readonly stores = new Map<string, ResourceStore>();
  private readonly watchRegistry = new Set<() => void>();
  private server?: https.Server;
  private audit?: AuditLog;
  private namespaceController?: NamespaceController;
  private serviceAccountsController?: PerNamespaceObjectController;
  private rootCaPublisher?: PerNamespaceObjectController;
  private controllerStart?: Promise<boolean>;
  private quotaStatusController?: ResourceQuotaStatusController;
  private quotaNamespaces?: QuotaNamespaces;
  private garbageCollector?: GarbageCollector;
  private systemNamespacesReady = false;
  private systemPriorityClassesReady = false;
  private shuttingDown = false;
  /** config.tls, resolved: set before the port opens */
  private tls: ServingTls = { certPem: '', keyPem: '' };
  /** config.tls rejected: the start failed before the port opened */
  private tlsFailed = false;
  private readonly retries = new DelayedCalls();
  private chain?: AdmissionChain;
  /** the admission coverage recorder, when --admission-coverage is set */
  private coverage?: { recorder: CoverageRecorder; configured: () => ConfiguredAdmission; writer: CoverageFileWriter };
  /** the stores call admission through this, so the chain can be built after the stores it reads from */
  private readonly admission: AdmissionChain = {
    admit: (a) => this.chain!.admit(a),
    validate: (a) => this.chain!.validate(a),
  };
  private readonly writeObservers = new Map<string, (type: WriteEventType, obj: KubeObject) => void>();
  private readonly sources: Array<ApiConfigurationSource<unknown>> = [];
  private readonly manifestControllers = new Map<ManifestPlugin, StaticManifestController>();
  /** settles once every staticManifestsDir is loaded: ok, or the startup errors (one line each) */
  manifestsLoaded: Promise<{ ok: true } | { ok: false; errors: string[] }> = Promise.resolve({ ok: true });
  /** one CEL environment per server: the policies' compile cache, shared by the strategies and the plugins */
  private readonly cel: CelEnvironment = kubernetesCelEnvironment();
  private policyStatusController?: ValidatingAdmissionPolicyStatusController;
  /** CustomResourceDefinitions: serving and controllers, loaded when the server starts listening */
  private crds?: CustomResourceDefinitions;
  private rbacInformers?: RbacInformers;
  private clusterRoleAggregation?: ClusterRoleAggregationController;

  private constructor(private readonly config: ApiServerConfig) {
    const gates = config.featureGates;
    this.index = new ResourceIndex(
      builtinResourcesFor({
        excludeVirtualResources: gates.enabled('ExcludeAdmissionWebhookVirtualResources'),
        manifestBasedAdmissionControlConfig: gates.enabled('ManifestBasedAdmissionControlConfig'),
        cel: this.cel,
        compileMatchCondition: compileWebhookMatchCondition(this.cel),
      }),
    );
    config.bindServiceAccountTokenGetter?.(this.serviceAccountTokenGetter());
  }

  /** kube's token getter reads its informers' caches, falling back to a live read; the store is both here. */
  private serviceAccountTokenGetter(): ServiceAccountTokenGetter {
    const get = (resource: string, namespace: string, name: string) => this.storeFor(this.index.lookup('', 'v1', resource)!).get(newRequestContext(systemUser, namespace), name);
    return {
      getServiceAccount: (ns, name) => get('serviceaccounts', ns, name),
      getPod: (ns, name) => get('pods', ns, name),
      getSecret: (ns, name) => get('secrets', ns, name),
      getNode: (name) => get('nodes', '', name),
    };
  }

  storeFor(info: ResourceInfo): ResourceStore {
    const key = gvrKey(info.group, info.version, info.resource);
    let store = this.stores.get(key);
    // A CRD update replaces its versions' ResourceInfos (schema, columns, subresources): the store follows.
    if (!store || store.info !== info) {
      const rbacResource = this.rbacResourceOf(info);
      const rbac = this.config.rbac;
      const escalation = rbac && rbacResource ? rbac.escalationCheck(this.config.authz) : undefined;
      store = new ResourceStore(info, {
        storage: this.config.storage,
        prefix: this.config.etcdPrefix,
        admission: this.admission,
        onWrite: (type, obj) => {
          this.writeObservers.get(key)?.(type, obj);
          this.observeWriteForControllers(info, type, obj);
          // a binding written by one request is in force for the next; a copy, since the response goes on to the client
          if (rbac && rbacResource) rbac.cache.apply(rbacResource, type, structuredClone(obj));
        },
        ...(escalation && rbacResource
          ? {
              guardWrite: (ctx, name, obj, old) =>
                ctx.internal ? undefined : escalation.check({ resource: rbacResource, user: ctx.user, namespace: ctx.namespace, requestName: name, obj, ...(old ? { old } : {}) }),
            }
          : {}),
      });
      this.stores.set(key, store);
    }
    return store;
  }

  private rbacResourceOf(info: ResourceInfo): RbacResource | undefined {
    if (info.group !== 'rbac.authorization.k8s.io') return undefined;
    return rbacResources.find((r) => r === info.resource);
  }

  /** RBAC's informers, the clusterrole aggregation controller and their readiness checks. */
  private startRbac(rbac: RbacPolicy): void {
    const storeOf = (resource: RbacResource) => this.storeFor(this.index.lookup('rbac.authorization.k8s.io', 'v1', resource)!);
    const log = (m: string, f?: Record<string, unknown>) => this.config.log.info(m, f);
    this.rbacInformers = new RbacInformers({ cache: rbac.cache, storeFor: storeOf, user: systemUser, log });
    this.clusterRoleAggregation = new ClusterRoleAggregationController({
      cache: rbac.cache,
      log,
      writeRules: async (name, rules) => {
        // kube's controller runs as system:serviceaccount:kube-system:clusterrole-aggregation-controller
        const ctx = { ...newRequestContext({ username: 'system:serviceaccount:kube-system:clusterrole-aggregation-controller', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] }, ''), internal: true };
        await storeOf('clusterroles').update(ctx, name, '', (cur) => ({ ...cur, rules }), { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' }, false);
      },
    });
    this.rbacInformers.start();
    let synced = false;
    this.health.addHealthCheck({
      name: 'poststarthook/rbac/informers-synced',
      check: () => {
        if (synced) return;
        if (!this.rbacInformers?.hasSynced()) throw new Error('RBAC informers not yet synced');
        // the bootstrap aggregated roles hold their rules before the server first reports ready
        for (const name of ['admin', 'edit', 'view']) {
          const role = rbac.cache.getClusterRole(name);
          if (!role) throw new Error(`clusterrole ${name} not yet created`);
          if (role.aggregationRule && !sameRules(aggregatedRules(role, rbac.cache.listClusterRoles()), role.rules)) throw new Error(`clusterrole ${name} not yet aggregated`);
        }
        synced = true;
      },
    });
  }

  static async start(config: ApiServerConfig): Promise<ApiServer> {
    const s = new ApiServer(config);
    try {
      await s.listen();
    } catch (err) {
      // The TLS material failed: nothing listens, and nothing started for it may outlive the failed start. No
      // coverage report either, as when the certificates failed before the server was built.
      if (s.tlsFailed) {
        s.coverage = undefined;
        await s.shutdown();
      }
      throw err;
    }
    return s;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get url(): string {
    return ApiServer.urlFor(this.config.bindAddress, this.port);
  }

  /** The URL a local client reaches a server bound to bindAddress:port by (a wildcard address: the loopback). */
  static urlFor(bindAddress: string, port: number): string {
    const host = bindAddress === '0.0.0.0' || bindAddress === '::' ? '127.0.0.1' : bindAddress;
    return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  /** An API source for one admission configuration resource, fed by this server's writes and a storage watch. */
  private apiSource<T>(resource: string, itemsOf: (obj: KubeObject) => T[]): ApiConfigurationSource<T> {
    const info = this.index.lookup('admissionregistration.k8s.io', 'v1', resource)!;
    const source = new ApiConfigurationSource<T>({ store: this.storeFor(info), itemsOf, log: (m, f) => this.config.log.info(m, f) });
    this.writeObservers.set(gvrKey(info.group, info.version, info.resource), (type, obj) => source.observe(type, obj));
    this.sources.push(source as ApiConfigurationSource<unknown>);
    return source;
  }

  /** Static manifests first, then the REST-registered configurations, as kube-apiserver evaluates them. */
  private webhookSource(plugin: ManifestPlugin, api: ConfigurationSource<WebhookAccessor>): ConfigurationSource<WebhookAccessor> {
    const ctrl = this.manifestControllers.get(plugin);
    return ctrl ? compositeSource(staticWebhookSource(ctrl), api) : api;
  }

  private buildAdmission(): void {
    const { config } = this;
    for (const [plugin, dir] of Object.entries(config.staticManifests ?? {}) as Array<[ManifestPlugin, string]>) {
      // Manifests get the REST API's validation, CEL compilation included.
      const handlers = plugin.endsWith('Webhook') ? webhookKindHandlers({ compileMatchCondition: compileWebhookMatchCondition(this.cel) }) : policyKindHandlers({ cel: this.cel });
      this.manifestControllers.set(plugin, new StaticManifestController({ plugin, dir, log: config.log, registry: this.metrics.registry, handlers }));
    }
    const validating = this.webhookSource('ValidatingAdmissionWebhook', this.apiSource<WebhookAccessor>('validatingwebhookconfigurations', (o) => webhookAccessorsOf(o, 'validating', 'api')));
    const mutating = this.webhookSource('MutatingAdmissionWebhook', this.apiSource<WebhookAccessor>('mutatingwebhookconfigurations', (o) => webhookAccessorsOf(o, 'mutating', 'api')));
    const namespacesInfo = this.index.lookup('', 'v1', 'namespaces')!;
    const namespaces = this.storeFor(namespacesInfo);
    const namespaceCache = new ApiConfigurationSource<KubeObject>({ store: namespaces, itemsOf: () => [], log: (m, f) => config.log.info(m, f) });
    this.writeObservers.set(gvrKey(namespacesInfo.group, namespacesInfo.version, namespacesInfo.resource), (type, obj) => namespaceCache.observe(type, obj));
    this.sources.push(namespaceCache as ApiConfigurationSource<unknown>);
    const validatingPolicies = validatingPolicyApiSources((resource, itemsOf) => this.apiSource(resource, itemsOf));
    const vapManifests = this.manifestControllers.get('ValidatingAdmissionPolicy');
    const staticVap = vapManifests ? staticPolicySources<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding>(vapManifests) : undefined;
    // kube's MutatingAdmissionPolicy plugin does nothing while its gate is off (InspectFeatureGates)
    const mapEnabled = config.featureGates.enabled('MutatingAdmissionPolicy');
    const mutatingPolicies = mapEnabled ? mutatingPolicyApiSources((resource, itemsOf) => this.apiSource(resource, itemsOf)) : undefined;
    const mapManifests = mapEnabled ? this.manifestControllers.get('MutatingAdmissionPolicy') : undefined;
    const staticMap = mapManifests ? staticPolicySources<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding>(mapManifests) : undefined;
    const allValidatingPolicies = staticVap ? compositePolicySources(staticVap, validatingPolicies) : validatingPolicies;
    const allMutatingPolicies = mutatingPolicies && staticMap ? compositePolicySources(staticMap, mutatingPolicies) : mutatingPolicies;
    if (config.admissionCoverageFile) {
      const recorder = new CoverageRecorder();
      const configured = (): ConfiguredAdmission => ({
        webhooks: [...mutating.snapshot().items, ...validating.snapshot().items],
        validatingPolicies: allValidatingPolicies.policies.snapshot().items,
        validatingBindings: allValidatingPolicies.bindings.snapshot().items,
        mutatingPolicies: allMutatingPolicies?.policies.snapshot().items ?? [],
        mutatingBindings: allMutatingPolicies?.bindings.snapshot().items ?? [],
      });
      const file = config.admissionCoverageFile;
      // a new configuration changes the report as much as a recorded call does
      const sourceGenerations = [mutating, validating, allValidatingPolicies.policies, allValidatingPolicies.bindings, ...(allMutatingPolicies ? [allMutatingPolicies.policies, allMutatingPolicies.bindings] : [])];
      const generation = (): number => sourceGenerations.reduce((n, s) => n + s.snapshot().generation, recorder.generation);
      const writer = new CoverageFileWriter(file, () => buildCoverageReport(recorder, configured()), generation, (err) => config.log.info('Failed writing the admission coverage report', { file, error: err.message }));
      this.coverage = { recorder, configured, writer };
    }
    this.chain = buildAdmissionChain({
      plugins: config.admission.plugins,
      metrics: newAdmissionMetrics(this.metrics.registry),
      webhooks: {
        validating,
        mutating,
        validatingClient: createWebhookClient(config.admission.validatingWebhookClient),
        mutatingClient: createWebhookClient(config.admission.mutatingWebhookClient),
      },
      getNamespace: async (name) => {
        // kube's admission reads namespaces from an informer cache, so it keeps working while etcd is down;
        // a namespace not in the cache yet (just created elsewhere) is looked up live.
        const cached = namespaceCache.get(name);
        if (cached) return cached;
        try {
          return await namespaces.get(newRequestContext(systemUser, ''), name);
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return undefined;
          throw err;
        }
      },
      isNamespaced: (group, resource) => this.index.all().some((r) => r.group === group && r.resource === resource && r.namespaced),
      lister: this.objectLister(),
      mayHaveQuotas: (ns) => this.quotaNamespaces?.mayHaveQuotas(ns) ?? true,
      listPriorityClasses: async () => {
        const info = this.index.lookup('scheduling.k8s.io', 'v1', 'priorityclasses');
        return info ? (await this.storeFor(info).list(newRequestContext(systemUser, ''), {})).items : [];
      },
      excludeVirtualResources: () => config.featureGates.enabled('ExcludeAdmissionWebhookVirtualResources'),
      converterFor: (resource) => {
        // built-in resources served at several versions: horizontalpodautoscalers (autoscaling/v2 and v1)
        if (resource.group === 'autoscaling' && resource.resource === 'horizontalpodautoscalers') return (obj, to) => Promise.resolve(convertHpa(obj, to.version));
        const converter = this.crds?.converterFor(resource.group, resource.resource);
        if (!converter) return undefined;
        return async (obj, to) => (to.group === resource.group ? (await converter.convert([obj], apiVersionOf(to.group, to.version)))[0]! : obj);
      },
      defaultObject: (object, attrs) => {
        const info = this.index.lookup(attrs.resource.group, attrs.resource.version, attrs.resource.resource);
        // Only the resource's own kind: a /scale write is admitted as an autoscaling/v1 Scale.
        if (info && attrs.kind.kind === info.kind) info.strategy.applyDefaults?.(object);
      },
      log: config.log,
      ...(this.coverage ? { coverage: this.coverage.recorder } : {}),
      webhookMatchConditions: celWebhookMatchConditions(this.cel, config.authz),
      policies: {
        // static manifests first, then the REST-registered policies
        validating: allValidatingPolicies,
        ...(staticVap ? { validatingStatic: staticVap } : {}),
        cel: this.cel,
        params: storeParamLookup(this.index, (i) => this.storeFor(i)),
        metrics: newValidatingAdmissionPolicyMetrics(this.metrics.registry),
        authorizer: config.authz,
        ...(mutatingPolicies
          ? {
              // static manifests first, then the REST-registered policies
              mutating: allMutatingPolicies!,
              ...(staticMap ? { mutatingStatic: staticMap } : {}),
              mutatingMetrics: newMutatingAdmissionPolicyMetrics(this.metrics.registry),
            }
          : {}),
      },
    });
    for (const source of this.sources) void source.start();
  }

  /**
   * Loads every staticManifestsDir before the port opens, as kube-apiserver loads them while it initializes its
   * admission plugins (ValidateInitialization): nothing can be admitted before they are in force. On failure the
   * error is the one kube-apiserver reports for the first plugin, in its admission order, whose directory fails.
   */
  private async loadManifests(): Promise<{ ok: true } | { ok: false; errors: string[] }> {
    const controllers = kubeAdmissionPluginOrder.flatMap((p) => this.manifestControllers.get(p) ?? []);
    const outcomes = await Promise.all(controllers.map((c) => c.loadInitial()));
    const failed = outcomes.findIndex((o) => !o.ok);
    if (failed >= 0) {
      const c = controllers[failed]!;
      const outcome = outcomes[failed]!;
      if (!outcome.ok) return { ok: false, errors: [manifestLoadFailure(c.plugin, c.dir, outcome.kubeError)] };
    }
    // a start that failed meanwhile (its TLS material) has stopped the controllers: they must not start watching now
    if (this.shuttingDown) return { ok: true };
    for (const c of controllers) c.start();
    return { ok: true };
  }

  private async listen(): Promise<void> {
    const { config } = this;
    this.buildAdmission();
    // The system namespaces are the last readiness check on etcd (writes wait for etcd's fsync): their round trips
    // start now and overlap with building the app and the TLS listener.
    this.bootstrapSystemNamespaces();
    this.bootstrapSystemPriorityClasses();
    // APF's mandatory objects and the local APIServices, created like the namespaces: only the missing ones, concurrently
    const startupObjects = new StartupObjects({ index: this.index, storeFor: (i) => this.storeFor(i), user: systemUser, retries: this.retries, log: config.log, debug: config.log.v(2), rbacBootstrap: config.rbac !== undefined });
    if (config.rbac) this.startRbac(config.rbac);
    startupObjects.start();
    // The static manifests are in force before the port opens (kube has no readiness check for them); their load
    // overlaps with the bootstrap writes above.
    this.manifestsLoaded = this.loadManifests();
    // Awaited before the manifests' outcome: a start whose certificates fail reports that first, as it always has.
    try {
      this.tls = await config.tls;
    } catch (err) {
      this.tlsFailed = true;
      // its failure is this start's error; the manifests' outcome no longer matters
      this.manifestsLoaded.catch(() => undefined);
      throw err;
    }
    if (!(await this.manifestsLoaded).ok) return;
    // kube-apiserver's checks, in its order: "etcd" is a health check (/healthz, /livez and /readyz), as the post-start
    // hooks' are; "etcd-readiness", "informer-sync" and "shutdown" are /readyz's only. Each etcd check has its own probe of
    // <prefix>/health (server/storage/etcd-health-check.ts).
    this.health.addHealthCheck({ name: 'ping', check: () => {} });
    this.health.addHealthCheck({ name: 'log', check: () => {} });
    const healthKey = etcdHealthKey(config.etcdPrefix);
    const probe = () => config.storage.healthCheck(healthKey);
    this.health.addHealthCheck({ name: 'etcd', check: etcdCheck(probe, { timeoutMs: config.etcdHealthcheckTimeoutMs ?? defaultEtcdCheckTimeoutMs }) });
    this.health.addReadyzCheck({ name: 'etcd-readiness', check: etcdCheck(probe, { timeoutMs: config.etcdReadycheckTimeoutMs ?? defaultEtcdCheckTimeoutMs }) });
    // the admission plugins' informers (configurations, namespaces), as kube's shared informer factory holds them
    this.health.addReadyzCheck(informerSyncCheck(() => this.sources));
    this.health.addHealthCheck({
      name: 'poststarthook/crd-informer-synced',
      check: () => {
        if (!this.crds?.hasSynced()) throw new Error('custom resource definitions not yet served');
      },
    });
    this.health.addHealthCheck({
      name: 'poststarthook/start-system-namespaces-controller',
      check: () => {
        if (!this.systemNamespacesReady) throw new Error('system namespaces not yet created');
      },
    });
    // the startup objects' hooks (server/controllers/bootstrap): kube lists rbac/bootstrap-roles before the priority
    // classes' hook, and priority-and-fairness-config-producer and autoregister-completion after it
    const rbacHook = 'poststarthook/rbac/bootstrap-roles';
    const startupChecks = startupObjects.readyChecks();
    for (const c of startupChecks.filter((x) => x.name === rbacHook)) this.health.addHealthCheck(c);
    this.health.addHealthCheck({
      name: 'poststarthook/scheduling/bootstrap-system-priority-classes',
      check: () => {
        if (!this.systemPriorityClassesReady) throw new Error('system priority classes not yet created');
      },
    });
    for (const c of startupChecks.filter((x) => x.name !== rbacHook)) this.health.addHealthCheck(c);
    this.health.addReadyzCheck({
      name: 'shutdown',
      check: () => {
        if (this.shuttingDown) throw new Error('process is shutting down');
      },
    });
    const api: ApiContext = { index: this.index, storeFor: (i) => this.storeFor(i), virtual: config.virtual, admission: this.admission, watchRegistry: this.watchRegistry, watchMetrics: newWatchMetrics(this.metrics.registry), log: config.log, authz: config.authz, ...(config.serviceAccountTokens ? { serviceAccountTokens: config.serviceAccountTokens } : {}) };
    if (config.auditLogPath) this.audit = new AuditLog(config.auditLogPath);
    const app = buildApp({
      api,
      authn: config.authn,
      authz: config.authz,
      rbacDecidesPublicInfo: config.rbac !== undefined,
      metrics: this.metrics,
      health: this.health,
      gitVersion: kubernetesGitVersion,
      ...(config.openIdMetadata ? { openIdMetadata: config.openIdMetadata } : {}),
      ...(this.audit ? { audit: auditFilter(this.audit) } : {}),
      ...(this.coverage ? { admissionCoverage: () => this.admissionCoverageReport() } : {}),
    });
    this.server = https.createServer(
      {
        cert: this.tls.certPem,
        key: this.tls.keyPem,
        ...(this.tls.clientCaPem ? { ca: this.tls.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
        keepAliveTimeout: 65_000,
      },
      app,
    );
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(config.port, config.bindAddress, () => {
        this.server!.off('error', reject);
        try {
          config.onListening?.((this.server!.address() as AddressInfo).port);
        } catch (err) {
          this.server!.close();
          reject(err as Error);
          return;
        }
        resolve();
      });
    });
    this.startNamespaceDefaultsControllers();
    this.coverage?.writer.start();
    this.namespaceController = new NamespaceController({ index: this.index, storeFor: (i) => this.storeFor(i), log: (m, f) => config.log.info(m, f) });
    // it lists again until storage answers, logging each failure
    void this.namespaceController.start();
    // kube-controller-manager's garbage collector: ownerReferences and propagationPolicy; it follows the served
    // resources, custom resources included, as they come and go
    this.garbageCollector = new GarbageCollector({ index: this.index, storeFor: (i) => this.storeFor(i), log: (m, f) => config.log.info(m, f), debug: (m, f) => config.log.v(2).info(m, f),
      trackManagedFields: (info) => updateTracker(info, 'kube-controller-manager', ''),
    });
    // It starts once the server is ready, as kube-controller-manager starts its controllers once the apiserver is
    // healthy: its list and watch of every resource (some 60 of each on etcd) would otherwise compete with the
    // startup itself (≈ 80 ms of CPU on an etcd start). Its first list sees whatever was written meanwhile.
    const gc = this.garbageCollector;
    void this.controllersMayStart().then((start) => {
      if (start) gc.start();
    });
    this.policyStatusController = new ValidatingAdmissionPolicyStatusController({
      store: this.storeFor(this.index.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!),
      // kinds and schemas through the ResourceIndex, so the served custom resources are checked as well
      typeCheck: builtinPolicyTypeChecker(
        this.cel,
        (gvr) => {
          const info = this.index.lookup(gvr.group, gvr.version, gvr.resource);
          return info ? [{ group: info.group, version: info.version, kind: info.kind }] : [];
        },
        servedSchemaResolver(() => this.index.all()),
      ),
      log: (m, f) => config.log.info(m, f),
    });
    void this.policyStatusController.start();
    void this.startCustomResourceDefinitions();
  }

  /**
   * When the controllers that kube runs in kube-controller-manager start: that process waits until the apiserver
   * answers its health check with 200. So here: right after this server first answers /readyz or /healthz with 200
   * (whoever started it is polling), or 1 s after its own readiness checks pass when nobody asks. False if the
   * server shuts down first.
   */
  private controllersMayStart(): Promise<boolean> {
    this.controllerStart ??= new Promise<boolean>((resolve) => {
      let decided = false;
      const decide = (after: string) => {
        if (decided) return;
        decided = true;
        const start = !this.shuttingDown;
        const controllers = [...(this.garbageCollector ? ['garbagecollector'] : []), ...(this.rootCaPublisher ? ['root-ca-cert-publisher'] : [])];
        if (start) this.config.log.info('starting the controllers kube-controller-manager runs', { controllers, after });
        resolve(start);
      };
      // after the answer has been written
      this.health.onFirstReady(() => setImmediate(() => decide('the first 200 answer to a health check')));
      void this.firstReady().then((ready) => {
        if (!ready) decide('shutdown');
        else setTimeout(() => decide('1 s of readiness with no health check asked'), 1000).unref();
      });
    });
    return this.controllerStart;
  }

  /**
   * Resolves true once every readyz check but etcd's passes (each of the others waits for a startup step; the etcd
   * check is a round trip, and those steps wrote to etcd), false if the server shuts down first. Polled: the checks
   * are cheap, synchronous flags.
   */
  private async firstReady(pollMs = 25): Promise<boolean> {
    const skip = new Set(['etcd']);
    for (;;) {
      if (this.shuttingDown) return false;
      if ((await this.health.run('readyz', skip)).every((r) => r.error === undefined)) return true;
      await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
    }
  }

  /** Serves the stored CRDs (before readiness) and runs the CRD controllers; the modules load here, not at import. */
  private async startCustomResourceDefinitions(): Promise<void> {
    const { customResourceDefinitions } = await import('./apiextensions/index.js');
    const crdInfo = this.index.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const crds = customResourceDefinitions({
      index: this.index,
      storeFor: (i) => this.storeFor(i),
      // conversion webhooks use the service resolver, not the admission kubeconfig credentials
      webhookClient: createWebhookClient({ ...(this.config.admission.validatingWebhookClient.serviceResolver ? { serviceResolver: this.config.admission.validatingWebhookClient.serviceResolver } : {}) }),
      log: (m, f) => this.config.log.info(m, f),
    });
    this.crds = crds;
    this.writeObservers.set(gvrKey(crdInfo.group, crdInfo.version, crdInfo.resource), (type, obj) => crds.observe(type, obj));
    // the CRD controller lists again until storage answers, logging each failure
    await crds.start();
  }

  /** Creates the system namespaces, retrying while storage is unreachable (readyz says so meanwhile). */
  private bootstrapSystemNamespaces(): void {
    const store = this.storeFor(this.index.lookup('', 'v1', 'namespaces')!);
    const attempt = async () => {
      try {
        // kube's system namespaces controller: create only the missing ones (a restart on etcd finds them all), and
        // not one after another: readiness waits for them.
        const ensure = async (name: string): Promise<void> => {
          const ctx = newRequestContext(systemUser, '');
          try {
            await store.get(ctx, name);
            return;
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 404)) throw err;
          }
          try {
            await store.create(ctx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
            this.config.log.v(2).info('created system namespace', { namespace: name });
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 409)) throw err;
          }
        };
        await Promise.all(systemNamespaces.map(ensure));
        this.systemNamespacesReady = true;
      } catch (err) {
        this.config.log.info('creating system namespaces failed; retrying', { error: (err as Error).message });
        this.retries.after(500, () => void attempt());
      }
    };
    void attempt();
  }

  /**
   * kube's scheduling/bootstrap-system-priority-classes post-start hook (AddSystemPriorityClasses): creates the
   * missing system priority classes (a restart on etcd finds them), retrying while storage is unreachable.
   */
  private bootstrapSystemPriorityClasses(): void {
    const info = this.index.lookup('scheduling.k8s.io', 'v1', 'priorityclasses');
    if (!info) {
      this.systemPriorityClassesReady = true;
      return;
    }
    const store = this.storeFor(info);
    const attempt = async () => {
      try {
        await Promise.all(
          systemPriorityClasses.map(async (c) => {
            const ctx = newRequestContext(systemUser, '');
            try {
              await store.get(ctx, c.name);
              return;
            } catch (err) {
              if (!(err instanceof StatusError && err.code === 404)) throw err;
            }
            try {
              await store.create(ctx, systemPriorityClassObject(c), { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
              this.config.log.v(2).info('created system priority class', { name: c.name, value: c.value });
            } catch (err) {
              if (!(err instanceof StatusError && err.code === 409)) throw err;
            }
          }),
        );
        this.systemPriorityClassesReady = true;
      } catch (err) {
        this.config.log.info('creating system priority classes failed; retrying', { error: (err as Error).message });
        this.retries.after(500, () => void attempt());
      }
    };
    void attempt();
  }

  /** Reads of stored objects for the built-in admission plugins, by GVR through the index (kube: informer listers). */
  private objectLister(): ObjectLister {
    return {
      list: async (ref, namespace) => {
        const info = this.index.lookup(ref.group, ref.version, ref.resource);
        if (!info) return undefined;
        return (await this.storeFor(info).list(newRequestContext(systemUser, info.namespaced ? namespace : ''), {})).items;
      },
      get: async (ref, namespace, name) => {
        const info = this.index.lookup(ref.group, ref.version, ref.resource);
        if (!info) return undefined;
        try {
          return await this.storeFor(info).get(newRequestContext(systemUser, info.namespaced ? namespace : ''), name);
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return undefined;
          throw err;
        }
      },
    };
  }

  /**
   * kube-controller-manager's serviceaccounts controller and root-ca-cert-publisher (the `default` ServiceAccount and
   * the kube-root-ca.crt ConfigMap in every namespace, system ones included) and its resourcequota controller.
   */
  private startNamespaceDefaultsControllers(): void {
    const common = { index: this.index, storeFor: (i: ResourceInfo) => this.storeFor(i), log: (m: string, f?: Record<string, unknown>) => this.config.log.info(m, f) };
    const controllerUser = (name: string) => ({ username: `system:serviceaccount:kube-system:${name}`, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] });
    this.serviceAccountsController = new PerNamespaceObjectController({
      ...common,
      user: controllerUser('service-account-controller'),
      resource: 'serviceaccounts',
      name: 'default',
      desired: defaultServiceAccountObject,
    });
    void this.serviceAccountsController.start();
    const caPem = this.tls.rootCaPem ?? this.tls.clientCaPem;
    if (caPem) {
      this.rootCaPublisher = new PerNamespaceObjectController({
        ...common,
        user: controllerUser('root-ca-cert-publisher'),
        resource: 'configmaps',
        name: rootCaConfigMapName,
        desired: (ns) => rootCaConfigMapObject(ns, caPem),
        drifted: rootCaDrifted,
      });
      // kube-controller-manager's root-ca-cert-publisher starts once the apiserver is healthy, so kube-root-ca.crt
      // comes after readiness in a cluster as well; its writes are ConfigMap creates that every policy and webhook
      // on ConfigMaps admits, which would otherwise compete with the startup (≈ 30 ms under 100 such policies)
      const publisher = this.rootCaPublisher;
      void this.controllersMayStart().then((start) => {
        if (start) void publisher.start();
      });
    }
    const quotaNamespaces = new QuotaNamespaces(() => this.storeFor(this.index.lookup('', 'v1', 'resourcequotas')!), common.log);
    this.quotaNamespaces = quotaNamespaces;
    void quotaNamespaces.start();
    this.quotaStatusController = new ResourceQuotaStatusController({ ...common, mayHaveQuotas: (ns) => quotaNamespaces.mayHaveQuotas(ns) });
    void this.quotaStatusController.start();
  }

  /** This server's writes as they return, for the controllers that act on them at once. */
  private observeWriteForControllers(info: ResourceInfo, type: WriteEventType, obj: KubeObject): void {
    if (info.group === '' && info.resource === 'namespaces' && type !== 'DELETED') {
      this.serviceAccountsController?.observeNamespace(obj);
      this.rootCaPublisher?.observeNamespace(obj);
    }
    if (info.group === '' && info.resource === 'resourcequotas') this.quotaNamespaces?.observe(type, obj);
    this.quotaStatusController?.observe(info, obj);
  }

  /** The admission coverage report as of now; undefined when coverage is off. */
  admissionCoverageReport(): AdmissionCoverageReport | undefined {
    const c = this.coverage;
    return c ? buildCoverageReport(c.recorder, c.configured()) : undefined;
  }

  /** Graceful shutdown: readyz fails, no new connections, in-flight requests finish (bounded), watches end. */
  async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.retries.stop();
    this.namespaceController?.stop();
    this.serviceAccountsController?.stop();
    this.rootCaPublisher?.stop();
    this.quotaStatusController?.stop();
    this.quotaNamespaces?.stop();
    this.garbageCollector?.stop();
    this.policyStatusController?.stop();
    this.crds?.stop();
    this.rbacInformers?.stop();
    this.clusterRoleAggregation?.stop();
    for (const source of this.sources) source.stop();
    for (const c of this.manifestControllers.values()) c.stop();
    for (const end of [...this.watchRegistry]) end();
    const server = this.server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, this.config.shutdownTimeoutMs ?? 10_000).unref());
      await Promise.race([closed, deadline]);
      server.closeAllConnections();
    }
    // the final coverage write, once in-flight requests have finished (or the grace period is over)
    this.coverage?.writer.stop();
    await this.audit?.close();
    await this.config.storage.close();
  }
}
