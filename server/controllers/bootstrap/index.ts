// Startup objects kube-apiserver's post-start hooks create (one module per group): API Priority and Fairness'
// mandatory and suggested configuration (poststarthook/priority-and-fairness-config-producer) and the local APIServices
// (autoregister-completion). Each hook creates only what is missing, concurrently, and retries while storage is
// unreachable; readyz reports each until it has succeeded once.
import type { KubeObject, UserInfo } from '../../api/types.js';
import type { ResourceIndex } from '../../registry/resource-index.js';
import type { ResourceInfo } from '../../registry/resource.js';
import type { ResourceStore } from '../../registry/store.js';
import type { DelayedCalls } from '../delayed-calls.js';
import { localAPIServices } from './apiservices.js';
import { ensureObjects, type BootstrapObject } from './ensure-objects.js';
import { bootstrapFlowSchemas, bootstrapPriorityLevels } from './flowcontrol.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapNamespaceRoleBindings, bootstrapNamespaceRoles } from '../../authz/rbac/bootstrap-policy.generated.js';

export interface StartupObjectsDeps {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  user: UserInfo;
  retries: DelayedCalls;
  log: { info(msg: string, fields?: Record<string, unknown>): void };
  /** what was created goes here (verbosity 2, as the system namespaces' creation) */
  debug: { info(msg: string, fields?: Record<string, unknown>): void };
  now?: () => string;
  /**
   * kube's rbac/bootstrap-roles hook: the bootstrap clusterroles and clusterrolebindings. Only with
   * --authorization-mode RBAC here, so that other modes start as fast as before.
   */
  rbacBootstrap?: boolean;
}

interface Hook {
  /** the readyz check's name, as kube-apiserver names it */
  name: string;
  steps: Array<{ group: string; version: string; resource: string; objects: () => BootstrapObject[] }>;
  /**
   * Namespaces the hook's objects live in, created first when missing (kube's RBAC hook does the same,
   * RoleModifier.Create's tryEnsureNamespace), so that it need not wait for the system namespaces controller.
   */
  namespaces?: string[];
}

const nowSeconds = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export class StartupObjects {
  private readonly done = new Set<string>();
  private readonly hooks: Hook[];

  constructor(private readonly deps: StartupObjectsDeps) {
    const now = deps.now ?? nowSeconds;
    const builtinGroupVersions = (): Array<{ group: string; version: string }> =>
      deps.index.all().filter((r) => r.codec === undefined).map((r) => ({ group: r.group, version: r.version }));
    this.hooks = [
      {
        name: 'poststarthook/priority-and-fairness-config-producer',
        steps: [
          { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations', objects: bootstrapPriorityLevels },
          { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', objects: () => bootstrapFlowSchemas(now()) },
        ],
      },
      {
        name: 'autoregister-completion',
        steps: [{ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', objects: () => localAPIServices(builtinGroupVersions(), now()) }],
      },
    ];
    if (deps.rbacBootstrap) {
      const objects = (list: readonly KubeObject[]) => () => list.map((object) => ({ object }));
      this.hooks.push({
        name: 'poststarthook/rbac/bootstrap-roles',
        steps: [
          { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', objects: objects(bootstrapClusterRoles) },
          { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', objects: objects(bootstrapClusterRoleBindings) },
          { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', objects: objects(bootstrapNamespaceRoles) },
          { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', objects: objects(bootstrapNamespaceRoleBindings) },
        ],
        namespaces: ['kube-system', 'kube-public'],
      });
    }
  }

  /** The readyz checks, one per hook. */
  readyChecks(): Array<{ name: string; check: () => void }> {
    return this.hooks.map((h) => ({
      name: h.name,
      check: () => {
        if (!this.done.has(h.name)) throw new Error(`${h.name} has not created its objects yet`);
      },
    }));
  }

  /** Starts every hook; they run concurrently with each other and with the rest of startup. */
  start(): void {
    for (const hook of this.hooks) void this.run(hook);
  }

  private async ensureNamespaces(names: readonly string[]): Promise<void> {
    const info = this.deps.index.lookup('', 'v1', 'namespaces');
    if (!info) return;
    const existing = await ensureObjects(
      this.deps.storeFor(info),
      this.deps.user,
      names.map((name) => ({ object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })),
    );
    if (existing.length > 0) this.deps.debug.info('created startup objects', { resource: 'namespaces', names: existing });
  }

  private async run(hook: Hook): Promise<void> {
    try {
      if (hook.namespaces) await this.ensureNamespaces(hook.namespaces);
      await Promise.all(
        hook.steps.map(async (step) => {
          const info = this.deps.index.lookup(step.group, step.version, step.resource);
          if (!info) return; // the group is not served: nothing to create
          const created = await ensureObjects(this.deps.storeFor(info), this.deps.user, step.objects());
          if (created.length > 0) this.deps.debug.info('created startup objects', { resource: `${step.resource}.${step.group}`, names: created });
        }),
      );
      this.done.add(hook.name);
    } catch (err) {
      this.deps.log.info('creating startup objects failed; retrying', { hook: hook.name, error: (err as Error).message });
      this.deps.retries.after(500, () => void this.run(hook));
    }
  }
}
