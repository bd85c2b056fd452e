// The API source: admission configurations registered through the REST API. It follows storage with a watch (so it
// sees writes of other apiservers on the same etcd and survives etcd outages with its last snapshot), and it is also
// told about this server's own writes as they return, so a configuration written by a client is in force for that
// client's very next request — a promise kube-apiserver does not make, but test authors want.
import type { KubeObject } from '../../api/types.js';
import { metaOf } from '../../registry/object-fields.js';
import { newRequestContext } from '../../registry/request-context.js';
import type { ResourceStore } from '../../registry/store.js';
import type { StorageWatch } from '../../storage/interface.js';
import type { ConfigurationSnapshot, ConfigurationSource } from './source.js';

const sourceUser = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

export type WriteEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ApiSourceOptions<T> {
  store: ResourceStore;
  /** the items one configuration object contributes (e.g. its webhooks), in order */
  itemsOf(obj: KubeObject): T[];
  log(msg: string, fields?: Record<string, unknown>): void;
  retryMs?: number;
}

export class ApiConfigurationSource<T> implements ConfigurationSource<T> {
  private readonly objects = new Map<string, KubeObject>();
  private current: ConfigurationSnapshot<T> = Object.freeze({ generation: 0, items: Object.freeze([]) });
  private synced = false;
  private watch?: StorageWatch;
  private stopped = false;
  private timer?: NodeJS.Timeout;

  constructor(private readonly opts: ApiSourceOptions<T>) {}

  snapshot(): ConfigurationSnapshot<T> {
    return this.current;
  }

  /** The last known version of one object (an informer's lister Get). */
  get(name: string): KubeObject | undefined {
    return this.objects.get(name);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** What kube's informer-sync check calls this informer: its object's Go type ("*v1.ValidatingWebhookConfiguration"). */
  get typeName(): string {
    return `*${this.opts.store.info.version}.${this.opts.store.info.kind}`;
  }

  /** Lists, then watches from the list's revision; on a watch error keeps the snapshot and relists later. */
  async start(): Promise<void> {
    if (this.stopped) return;
    try {
      const ctx = newRequestContext(sourceUser, '');
      const list = await this.opts.store.list(ctx, {});
      const seen = new Set<string>();
      for (const obj of list.items) {
        seen.add(metaOf(obj).name ?? '');
        this.apply('MODIFIED', obj, false);
      }
      for (const name of [...this.objects.keys()]) if (!seen.has(name)) this.objects.delete(name);
      this.rebuild();
      this.synced = true;
      this.watch = this.opts.store.watch(ctx, list.metadata.resourceVersion ?? '0', {
        onEvent: (e) => this.observe(e.type, e.object),
        onError: (err) => {
          this.opts.log('admission configuration watch ended; keeping the last snapshot and relisting', { resource: this.opts.store.info.resource, error: err.message });
          this.retry();
        },
      });
    } catch (err) {
      this.opts.log('listing admission configurations failed; keeping the last snapshot', { resource: this.opts.store.info.resource, error: (err as Error).message });
      this.retry();
    }
  }

  private retry(): void {
    if (this.stopped) return;
    this.watch?.stop();
    this.timer = setTimeout(() => void this.start(), this.opts.retryMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    if (this.timer) clearTimeout(this.timer);
  }

  /** A write (from this server's handlers or the watch). Older versions of an object than the one held are ignored. */
  observe(type: WriteEventType, obj: KubeObject): void {
    if (this.apply(type, obj, true)) this.rebuild();
  }

  private apply(type: WriteEventType, obj: KubeObject, checkOrder: boolean): boolean {
    const name = metaOf(obj).name ?? '';
    const held = this.objects.get(name);
    const rv = Number(metaOf(obj).resourceVersion ?? 0);
    if (checkOrder && held && Number(metaOf(held).resourceVersion ?? 0) > rv) return false;
    if (type === 'DELETED') {
      if (!held || Number(metaOf(held).resourceVersion ?? 0) > rv) return false;
      this.objects.delete(name);
    } else {
      this.objects.set(name, structuredClone(obj));
    }
    return true;
  }

  private rebuild(): void {
    const names = [...this.objects.keys()].sort();
    const items = names.flatMap((n) => this.opts.itemsOf(this.objects.get(n)!));
    this.current = Object.freeze({ generation: this.current.generation + 1, items: Object.freeze(items) });
  }
}

/** Static sources (manifests) first, then the API source, as kube-apiserver evaluates them. */
export function compositeSource<T>(...sources: ConfigurationSource<T>[]): ConfigurationSource<T> {
  let last: { gens: number[]; snap: ConfigurationSnapshot<T> } | undefined;
  return {
    snapshot() {
      const snaps = sources.map((s) => s.snapshot());
      const gens = snaps.map((s) => s.generation);
      if (!last || gens.some((g, i) => g !== last!.gens[i])) {
        last = { gens, snap: Object.freeze({ generation: (last?.snap.generation ?? 0) + 1, items: Object.freeze(snaps.flatMap((s) => s.items)) }) };
      }
      return last.snap;
    },
    hasSynced: () => sources.every((s) => s.hasSynced()),
  };
}
