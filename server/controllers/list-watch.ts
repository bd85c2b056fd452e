// The list-then-watch loop of client-go's Reflector, which every controller here runs over one resource: list,
// hand the items over, watch from the list's resourceVersion, and when the list fails or the watch ends (an error,
// or a 410 when that resourceVersion was compacted) list again after a delay. The relist shows the current state,
// so nothing that happened in between is missed, except deletions, which the controllers here do not act on.
import type { KubeList, KubeObject, UserInfo } from '../api/types.js';
import { newRequestContext, type RequestContext } from '../registry/request-context.js';
import type { ListQuery } from '../registry/store.js';
import type { StorageEvent, StorageWatch, WatchHandlers } from '../storage/interface.js';
import { DelayedCalls } from './delayed-calls.js';

/** What a ListWatch reads: a ResourceStore, or anything that lists and watches like one. */
export interface ListWatchable {
  list(ctx: RequestContext, q: ListQuery): Promise<KubeList>;
  watch(ctx: RequestContext, fromRevision: string, handlers: WatchHandlers): StorageWatch;
}

export interface ListWatchOptions {
  store: ListWatchable;
  /** who lists and watches (a controller's service account) */
  user: UserInfo;
  /** how long to wait before listing again after a failure */
  retryMs: number;
  /** every item of a list, before the watch from its resourceVersion starts; a rejection counts as a failed list */
  onList(items: readonly KubeObject[]): void | Promise<void>;
  onEvent(event: StorageEvent): void;
  /** the list failed; listed again after retryMs (for the controller's log line) */
  onListError(err: Error): void;
  /** the watch ended; listed again after retryMs (for the controller's log line) */
  onWatchError(err: Error): void;
}

export class ListWatch {
  private watch?: StorageWatch;
  private stopped = false;
  private readonly retries = new DelayedCalls();

  constructor(private readonly opts: ListWatchOptions) {}

  /** Lists and starts the watch; resolves after the first attempt, a failed one is retried in the background. */
  async start(): Promise<void> {
    if (this.stopped) return;
    const ctx = newRequestContext(this.opts.user, '');
    let resourceVersion: string;
    try {
      const list = await this.opts.store.list(ctx, {});
      await this.opts.onList(list.items);
      resourceVersion = list.metadata.resourceVersion ?? '0';
    } catch (err) {
      this.opts.onListError(err instanceof Error ? err : new Error(String(err)));
      this.retries.after(this.opts.retryMs, () => void this.start());
      return;
    }
    if (this.stopped) return;
    this.watch = this.opts.store.watch(ctx, resourceVersion, {
      onEvent: (e) => this.opts.onEvent(e),
      onError: (err) => {
        this.watch?.stop();
        this.opts.onWatchError(err);
        this.retries.after(this.opts.retryMs, () => void this.start());
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.retries.stop();
    this.watch?.stop();
  }
}
