// Assembles one apiserver from resolved configuration: resource registry and stores over the chosen storage,
// the HTTPS listener with the filter chain, health checks, system namespaces and the namespace controller.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { emptyAdmissionChain, type AdmissionChain } from './admission/chain.js';
import { StatusError } from './api/errors.js';
import type { Authenticator } from './authn/index.js';
import type { Authorizer } from './authz/index.js';
import { NamespaceController } from './controllers/namespace-controller.js';
import type { ApiContext, VirtualResourceHandler } from './endpoints/api-context.js';
import { buildApp } from './http/app.js';
import { AuditLog, auditFilter } from './http/audit.js';
import { HealthChecks } from './http/health.js';
import type { Logger } from './log.js';
import { newApiserverMetrics, type ApiserverMetrics } from './metrics/registry.js';
import { builtinResources } from './registry/catalogue.js';
import { newRequestContext } from './registry/request-context.js';
import { ResourceIndex } from './registry/resource-index.js';
import { gvrKey, type ResourceInfo } from './registry/resource.js';
import { ResourceStore } from './registry/store.js';
import type { Storage } from './storage/interface.js';
import { kubernetesGitVersion } from './version.js';

export interface ApiServerConfig {
  bindAddress: string;
  /** 0 picks a free port */
  port: number;
  tls: { certPem: string; keyPem: string; clientCaPem?: string };
  storage: Storage;
  etcdPrefix: string;
  authn: Authenticator;
  authz: Authorizer;
  virtual: VirtualResourceHandler;
  log: Logger;
  auditLogPath?: string;
  admission?: AdmissionChain;
  /** how long SIGTERM waits for in-flight requests */
  shutdownTimeoutMs?: number;
}

/** Namespaces kube-apiserver's system namespaces controller keeps in place. */
export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const systemUser = { username: 'system:apiserver', uid: 'kah-apiserver', groups: ['system:authenticated', 'system:masters'] };

export class ApiServer {
  readonly index = new ResourceIndex(builtinResources);
  readonly metrics: ApiserverMetrics = newApiserverMetrics();
  readonly health = new HealthChecks();
  private readonly stores = new Map<string, ResourceStore>();
  private readonly watchRegistry = new Set<() => void>();
  private server?: https.Server;
  private audit?: AuditLog;
  private namespaceController?: NamespaceController;
  private systemNamespacesReady = false;
  private shuttingDown = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private admission: AdmissionChain;

  private constructor(private readonly config: ApiServerConfig) {
    this.admission = config.admission ?? emptyAdmissionChain;
  }

  storeFor(info: ResourceInfo): ResourceStore {
    const key = gvrKey(info.group, info.version, info.resource);
    let store = this.stores.get(key);
    if (!store) {
      store = new ResourceStore(info, { storage: this.config.storage, prefix: this.config.etcdPrefix, admission: this.admission });
      this.stores.set(key, store);
    }
    return store;
  }

  static async start(config: ApiServerConfig): Promise<ApiServer> {
    const s = new ApiServer(config);
    await s.listen();
    return s;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get url(): string {
    const host = this.config.bindAddress === '0.0.0.0' || this.config.bindAddress === '::' ? '127.0.0.1' : this.config.bindAddress;
    return `https://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
  }

  private async listen(): Promise<void> {
    const { config } = this;
    this.health.addLive({ name: 'ping', check: () => {} });
    this.health.addLive({ name: 'log', check: () => {} });
    this.health.addReady({ name: 'etcd', check: () => config.storage.healthCheck() });
    this.health.addReady({
      name: 'poststarthook/start-system-namespaces-controller',
      check: () => {
        if (!this.systemNamespacesReady) throw new Error('system namespaces not yet created');
      },
    });
    this.health.addReady({
      name: 'shutdown',
      check: () => {
        if (this.shuttingDown) throw new Error('process is shutting down');
      },
    });
    const api: ApiContext = { index: this.index, storeFor: (i) => this.storeFor(i), virtual: config.virtual, watchRegistry: this.watchRegistry };
    if (config.auditLogPath) this.audit = new AuditLog(config.auditLogPath);
    const app = buildApp({
      api,
      authn: config.authn,
      authz: config.authz,
      metrics: this.metrics,
      health: this.health,
      gitVersion: kubernetesGitVersion,
      ...(this.audit ? { audit: auditFilter(this.audit) } : {}),
    });
    this.server = https.createServer(
      {
        cert: config.tls.certPem,
        key: config.tls.keyPem,
        ...(config.tls.clientCaPem ? { ca: config.tls.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
        keepAliveTimeout: 65_000,
      },
      app,
    );
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(config.port, config.bindAddress, () => {
        this.server!.off('error', reject);
        resolve();
      });
    });
    this.bootstrapSystemNamespaces();
    this.namespaceController = new NamespaceController({ index: this.index, storeFor: (i) => this.storeFor(i), log: (m, f) => config.log.info(m, f) });
    this.startNamespaceController();
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.shuttingDown) fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Creates the system namespaces, retrying while storage is unreachable (readyz says so meanwhile). */
  private bootstrapSystemNamespaces(): void {
    const store = this.storeFor(this.index.lookup('', 'v1', 'namespaces')!);
    const attempt = async () => {
      try {
        for (const name of systemNamespaces) {
          try {
            await store.create(newRequestContext(systemUser, ''), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
            this.config.log.v(2).info('created system namespace', { namespace: name });
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 409)) throw err;
          }
        }
        this.systemNamespacesReady = true;
      } catch (err) {
        this.config.log.info('creating system namespaces failed; retrying', { error: (err as Error).message });
        this.later(() => void attempt(), 500);
      }
    };
    void attempt();
  }

  private startNamespaceController(): void {
    this.namespaceController!.start().catch((err: Error) => {
      this.config.log.info('namespace controller could not start; retrying', { error: err.message });
      this.later(() => this.startNamespaceController(), 1000);
    });
  }

  /** Graceful shutdown: readyz fails, no new connections, in-flight requests finish (bounded), watches end. */
  async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const t of this.timers) clearTimeout(t);
    this.namespaceController?.stop();
    for (const end of [...this.watchRegistry]) end();
    const server = this.server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, this.config.shutdownTimeoutMs ?? 10_000).unref());
      await Promise.race([closed, deadline]);
      server.closeAllConnections();
    }
    await this.audit?.close();
    await this.config.storage.close();
  }
}
