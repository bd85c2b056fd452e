// Which custom resources are served: each established CRD's versions as ResourceInfos in the ResourceIndex
// (so REST, discovery, OpenAPI and admission see them at once), replaced when the CRD changes and removed when
// it goes. Also the matchPolicy Equivalent classes of the served CRDs (kube's EquivalentResourceRegistry).
// The schema, CEL and conversion modules serving needs are loaded with the first established CRD, not at
// startup: a server without CRDs (the common case) never pays for them.
import type { CustomResourceDefinition } from '../api/apiextensions.js';
import type { EquivalenceClass, EquivalentResourceRegistration } from '../admission/matching/equivalence.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import { isConditionTrue } from './conditions.js';
import { customResourceInfos } from './customresource/resource-infos.js';
import type { Converter, CustomResourceOps } from './customresource/schema-ops.js';

interface Served {
  /** the CRD's resourceVersion these infos were built from */
  revision: number;
  crd: CustomResourceDefinition | undefined;
  infos: ResourceInfo[];
  equivalence: EquivalenceClass;
  /** converts between the CRD's versions; absent while nothing is served */
  converter: Converter | undefined;
}

/** Loads the CustomResourceOps (a dynamic import of the schema, CEL and conversion modules). */
export type CustomResourceOpsLoader = () => Promise<CustomResourceOps>;

const revisionOf = (crd: CustomResourceDefinition): number => Number(crd.metadata?.resourceVersion ?? 0) || 0;

function equivalenceOf(infos: readonly ResourceInfo[]): EquivalenceClass {
  const regs: EquivalentResourceRegistration[] = [];
  for (const r of infos) {
    const resource = { group: r.group, version: r.version, resource: r.resource };
    const kind = { group: r.group, version: r.version, kind: r.kind };
    regs.push({ resource, subresource: '', kind });
    if (r.subresources.status) regs.push({ resource, subresource: 'status', kind });
    if (r.subresources.scale) regs.push({ resource, subresource: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } });
  }
  return Object.freeze(regs);
}

export class CustomResourceServing {
  private readonly byName = new Map<string, Served>();
  private ops: CustomResourceOps | undefined;
  private loading: Promise<CustomResourceOps> | undefined;
  /** events that arrived while the ops were loading, applied in arrival order once they are */
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    private readonly index: ResourceIndex,
    private readonly opsLoader: CustomResourceOpsLoader,
    private readonly log: (msg: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** The ops, loaded once; a failed load is tried again by the next caller. */
  loadOps(): Promise<CustomResourceOps> {
    this.loading ??= this.opsLoader().then(
      (ops) => (this.ops = ops),
      (err: unknown) => {
        this.loading = undefined;
        throw err;
      },
    );
    return this.loading;
  }

  /**
   * Serves the CRD as it now is; an event older than what is served is ignored (writes and the watch race).
   * Applied at once unless serving it needs the ops before they are loaded; then it and every later event
   * wait for the load, so events still apply in order.
   */
  observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', crd: CustomResourceDefinition): void {
    const needsOps = type !== 'DELETED' && isConditionTrue(crd, 'Established');
    if (this.queued === 0 && (this.ops || !needsOps)) {
      this.apply(type, crd, this.ops);
      return;
    }
    this.queued++;
    this.queue = this.queue
      .then(() => this.loadOps())
      .then(
        (ops) => this.apply(type, crd, ops),
        (err: unknown) => {
          this.log('cannot load the custom resource modules', { crd: crd.metadata?.name ?? '', error: err instanceof Error ? err.message : String(err) });
        },
      )
      .finally(() => this.queued--);
  }

  /** Resolves once every event observed so far is applied. */
  settled(): Promise<void> {
    return this.queue;
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', crd: CustomResourceDefinition, ops: CustomResourceOps | undefined): void {
    const name = crd.metadata?.name ?? '';
    const revision = revisionOf(crd);
    const current = this.byName.get(name);
    if (current && revision !== 0 && revision <= current.revision) return;
    let infos: ResourceInfo[] = [];
    if (type !== 'DELETED' && ops) {
      try {
        infos = customResourceInfos(crd, ops);
      } catch (err) {
        this.log('cannot serve custom resource definition', { crd: name, error: err instanceof Error ? err.message : String(err) });
      }
    }
    for (const old of current?.infos ?? []) {
      if (!infos.some((i) => i.group === old.group && i.version === old.version && i.resource === old.resource)) this.index.remove(old.group, old.version, old.resource);
    }
    for (const info of infos) this.index.add(info);
    const converter = infos.length > 0 && ops ? ops.converterFor(crd) : undefined;
    this.byName.set(name, { revision, crd: type === 'DELETED' ? undefined : crd, infos, equivalence: equivalenceOf(infos), converter });
    if ((current?.infos.length ?? 0) === 0 && infos.length > 0) this.log('serving custom resource', { crd: name, versions: infos.map((i) => i.version) });
    if ((current?.infos.length ?? 0) > 0 && infos.length === 0) this.log('stopped serving custom resource', { crd: name });
  }

  /** The served versions of a CRD, preferred first. */
  infosOf(name: string): readonly ResourceInfo[] {
    return this.byName.get(name)?.infos ?? [];
  }

  /** The converter of a served custom resource (admission converts objects for equivalent versions with it). */
  converterFor(group: string, resource: string): Converter | undefined {
    for (const s of this.byName.values()) {
      const first = s.infos[0];
      if (first && first.group === group && first.resource === resource) return s.converter;
    }
    return undefined;
  }

  classFor(group: string, resource: string): EquivalenceClass | undefined {
    for (const s of this.byName.values()) {
      const first = s.infos[0];
      if (first && first.group === group && first.resource === resource) return s.equivalence;
    }
    return undefined;
  }
}
