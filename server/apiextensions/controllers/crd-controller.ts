// The CRD controllers apiextensions-apiserver runs, over this server's storage: the names controller
// (acceptedNames, NamesAccepted), the nonstructuralschema controller (NonStructuralSchema for stored schemas
// that are not structural), the establishing controller (Established once the names are accepted) and the
// finalizer controller (on delete: Terminating, every custom resource deleted through the REST store so
// admission runs, then the customresourcecleanup finalizer removed and the CRD gone). Every CRD event also goes
// to the serving registry, so what is served follows what is stored — writes of this server and, through the
// storage watch, of others on the same etcd.
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from '../../api/apiextensions.js';
import { StatusError } from '../../api/errors.js';
import type { KubeObject, UserInfo } from '../../api/types.js';
import { metaOf } from '../../registry/object-fields.js';
import { newRequestContext } from '../../registry/request-context.js';
import type { ResourceInfo } from '../../registry/resource.js';
import type { ResourceStore } from '../../registry/store.js';
import { DelayedCalls } from '../../controllers/delayed-calls.js';
import { ListWatch } from '../../controllers/list-watch.js';
import { findCondition, isConditionTrue, setCondition } from '../conditions.js';
import { customResourceCleanupFinalizer } from '../crd-strategy.js';
import type { CustomResourceServing } from '../serving.js';
import { decideNames } from './naming.js';
import { nonStructuralCondition } from './nonstructural.js';

const controllerUser: UserInfo = { username: 'system:apiserver', uid: 'kah-apiextensions-controllers', groups: ['system:authenticated', 'system:masters'] };
const updateOptions: KubeObject = { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' };
const deleteOptions: KubeObject = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };

export interface CrdControllerDeps {
  crds: ResourceStore;
  serving: CustomResourceServing;
  storeFor(info: ResourceInfo): ResourceStore;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** how long to wait before looking again at a CRD whose instances still have finalizers */
  retryMs?: number;
}

const asCrd = (o: KubeObject): CustomResourceDefinition => o as unknown as CustomResourceDefinition;
const jsonEqual = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const sameCondition = (a: CustomResourceDefinitionCondition | undefined, b: CustomResourceDefinitionCondition | undefined): boolean =>
  a?.status === b?.status && a?.reason === b?.reason && a?.message === b?.message;

export class CustomResourceDefinitionController {
  private stopped = false;
  private synced = false;
  private readonly running = new Map<string, { again: boolean }>();
  private readonly retries = new DelayedCalls();
  private readonly crds: ListWatch;

  constructor(private readonly deps: CrdControllerDeps) {
    this.crds = new ListWatch({
      store: deps.crds,
      user: controllerUser,
      retryMs: 1000,
      onList: async (items) => {
        for (const item of items) this.observe('ADDED', item);
        // synced means served: the established CRDs wait for the custom resource modules to load
        await this.deps.serving.settled();
        this.synced = true;
      },
      onEvent: (e) => this.observe(e.type, e.object),
      onListError: (err) => this.deps.log('custom resource definitions could not be listed; retrying', { error: err.message }),
      onWatchError: (err) => this.deps.log('custom resource definition watch ended; restarting', { error: err.message }),
    });
  }

  /** True once the CRDs in storage are served (kube's poststarthook/crd-informer-synced). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Serves what is stored, then follows changes; reconciles every CRD. Listing is retried until it succeeds. */
  async start(): Promise<void> {
    await this.crds.start();
  }

  stop(): void {
    this.stopped = true;
    this.crds.stop();
    this.retries.stop();
  }

  /** A CRD as written or watched: served as it is at once, reconciled in the background. */
  observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    this.deps.serving.observe(type, asCrd(obj));
    if (type !== 'DELETED') this.enqueue(metaOf(obj).name ?? '');
  }

  /** One reconcile per CRD at a time; an event during it runs it once more. */
  private enqueue(name: string): void {
    if (this.stopped || !name) return;
    const cur = this.running.get(name);
    if (cur) {
      cur.again = true;
      return;
    }
    const state = { again: false };
    this.running.set(name, state);
    void (async () => {
      do {
        state.again = false;
        try {
          await this.reconcile(name);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) {
            this.deps.log('custom resource definition reconcile failed; retrying', { crd: name, error: err instanceof Error ? err.message : String(err) });
            this.retries.after(1000, () => this.enqueue(name));
          }
        }
      } while (state.again && !this.stopped);
      this.running.delete(name);
    })();
  }

  private async updateStatus(name: string, mutate: (crd: CustomResourceDefinition) => void): Promise<CustomResourceDefinition> {
    const ctx = newRequestContext(controllerUser, '');
    const out = await this.deps.crds.update(ctx, name, 'status', (cur) => {
      mutate(asCrd(cur));
      return cur;
    }, updateOptions);
    return asCrd(out);
  }

  private async reconcile(name: string): Promise<void> {
    const ctx = newRequestContext(controllerUser, '');
    let crd = asCrd(await this.deps.crds.get(ctx, name));
    if (crd.metadata?.deletionTimestamp) {
      if ((crd.metadata.finalizers ?? []).includes(customResourceCleanupFinalizer)) await this.finalize(crd);
      return;
    }
    // Load the custom resource modules before Established is written, so a client that sees the condition
    // finds the resources served.
    const ops = await this.deps.serving.loadOps();
    // nonstructuralschema controller
    const wanted = nonStructuralCondition(crd, ops.structuralViolations);
    const current = findCondition(crd, 'NonStructuralSchema');
    if (wanted ? !sameCondition(current, wanted) : current !== undefined) {
      crd = await this.updateStatus(name, (c) => {
        if (wanted) setCondition(c, wanted);
        else if (c.status?.conditions) c.status.conditions = c.status.conditions.filter((x) => x.type !== 'NonStructuralSchema');
      });
      this.deps.serving.observe('MODIFIED', crd);
    }
    // names controller
    const all = (await this.deps.crds.list(ctx, {})).items.map(asCrd);
    const decision = decideNames(crd, all);
    const namesCondition = (crd.status?.conditions ?? []).find((c) => c.type === 'NamesAccepted');
    const establishedCondition = (crd.status?.conditions ?? []).find((c) => c.type === 'Established');
    const sameNames = jsonEqual(crd.status?.acceptedNames, decision.acceptedNames);
    if (!sameNames || !sameCondition(namesCondition, decision.namesAccepted) || !sameCondition(establishedCondition, decision.established)) {
      crd = await this.updateStatus(name, (c) => {
        (c.status ??= {}).acceptedNames = decision.acceptedNames;
        setCondition(c, decision.namesAccepted);
        setCondition(c, decision.established);
      });
      this.deps.serving.observe('MODIFIED', crd);
    }
    // establishing controller
    if (isConditionTrue(crd, 'NamesAccepted') && !isConditionTrue(crd, 'Established')) {
      crd = await this.updateStatus(name, (c) => {
        if (!isConditionTrue(c, 'NamesAccepted')) return;
        setCondition(c, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
      });
      this.deps.serving.observe('MODIFIED', crd);
      this.deps.log('custom resource definition established', { crd: name });
    }
    // Names freed by this CRD may unblock another one of the group.
    for (const other of all) {
      if (other.metadata?.name !== name && other.spec?.group === crd.spec.group && !isConditionTrue(other, 'NamesAccepted')) this.enqueue(other.metadata?.name ?? '');
    }
  }

  /** The finalizer controller's sync for one CRD being deleted. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata?.name ?? '';
    if (isConditionTrue(crd, 'Established')) {
      crd = await this.updateStatus(name, (c) =>
        setCondition(c, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }),
      );
      this.deps.serving.observe('MODIFIED', crd);
      const remaining = await this.deleteInstances(name);
      if (remaining > 0) {
        this.retries.after(this.deps.retryMs ?? 200, () => this.enqueue(name));
        return;
      }
      crd = await this.updateStatus(name, (c) => setCondition(c, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }));
    } else {
      crd = await this.updateStatus(name, (c) => setCondition(c, { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' }));
    }
    // Removing the last finalizer of an object being deleted deletes it.
    const ctx = newRequestContext(controllerUser, '');
    await this.deps.crds.update(ctx, name, '', (cur) => {
      const meta = metaOf(cur);
      meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== customResourceCleanupFinalizer);
      if (meta.finalizers.length === 0) delete meta.finalizers;
      return cur;
    }, updateOptions);
    this.deps.log('custom resource definition finalized', { crd: name });
  }

  /** Deletes every instance through the REST store; returns how many are left (waiting on their finalizers). */
  private async deleteInstances(name: string): Promise<number> {
    const info = this.deps.serving.infosOf(name)[0];
    if (!info) return 0;
    const store = this.deps.storeFor(info);
    const all = newRequestContext(controllerUser, '');
    const list = await store.list(all, {});
    for (const item of list.items) {
      const meta = metaOf(item);
      if (meta.deletionTimestamp) continue;
      try {
        await store.delete(newRequestContext(controllerUser, meta.namespace ?? ''), meta.name ?? '', {}, deleteOptions);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return list.items.length ? (await store.list(all, {})).items.length : 0;
  }
}
