// Which namespaces hold ResourceQuotas, kept from a list-then-watch of quotas and this server's own writes, so the
// create path of a namespace without quotas (nearly all of them) costs no storage read for quota admission, as
// kube's quota admission reads an informer cache. Until the first list succeeds, every namespace may hold quotas.
import type { KubeObject, UserInfo } from '../api/types.js';
import { metaOf } from '../registry/object-fields.js';
import type { ResourceStore } from '../registry/store.js';
import { ListWatch } from './list-watch.js';

const user: UserInfo = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

export class QuotaNamespaces {
  private readonly quotas = new Map<string, Set<string>>();
  private synced = false;
  private readonly listWatch: ListWatch;

  constructor(store: () => ResourceStore, log: (msg: string, fields?: Record<string, unknown>) => void) {
    this.listWatch = new ListWatch({
      store: { list: (ctx, q) => store().list(ctx, q), watch: (ctx, rv, h) => store().watch(ctx, rv, h) },
      user,
      retryMs: 1000,
      onList: (items) => {
        this.quotas.clear();
        for (const q of items) this.observe('ADDED', q);
        this.synced = true;
      },
      onEvent: (e) => this.observe(e.type, e.object),
      onListError: (err) => log('quota index could not list resourcequotas; retrying', { error: err.message }),
      onWatchError: (err) => log('quota index watch ended; relisting', { error: err.message }),
    });
  }

  start(): Promise<void> {
    return this.listWatch.start();
  }

  stop(): void {
    this.listWatch.stop();
  }

  observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', quota: KubeObject): void {
    const { namespace = '', name = '' } = metaOf(quota);
    let names = this.quotas.get(namespace);
    if (type === 'DELETED') {
      names?.delete(name);
      if (names && !names.size) this.quotas.delete(namespace);
      return;
    }
    if (!names) this.quotas.set(namespace, (names = new Set()));
    names.add(name);
  }

  mayHaveQuotas(namespace: string): boolean {
    return !this.synced || this.quotas.has(namespace);
  }
}
