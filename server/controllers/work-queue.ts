// client-go's rate-limited workqueue, as the garbage collector uses it: a key is queued at most once, a key added
// while it is being processed is processed again afterwards (never twice at once), and a failed key comes back
// after a per-key exponential delay that resets once it succeeds.
import { DelayedCalls } from './delayed-calls.js';

export type WorkResult = 'done' | 'retry';

export interface WorkQueueOptions {
  workers: number;
  /** first retry delay; doubled per consecutive failure of the same key */
  baseDelayMs: number;
  maxDelayMs: number;
  process(key: string): Promise<WorkResult>;
  /** while false, nothing is taken off the queue (the GC waits for its monitors' first lists) */
  ready(): boolean;
  onError(key: string, err: unknown): void;
}

export class WorkQueue {
  private readonly pending: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new DelayedCalls();
  private active = 0;
  private stopped = false;

  constructor(private readonly opts: WorkQueueOptions) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.pending.push(key);
    this.pump();
  }

  /** Adds the key after its backoff delay. */
  addRateLimited(key: string): void {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    const delay = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** Math.min(n - 1, 30));
    this.delayed.after(delay, () => this.add(key));
  }

  /** Takes work off the queue while workers are free (call again when ready() may have turned true). */
  pump(): void {
    while (!this.stopped && this.active < this.opts.workers && this.pending.length > 0 && this.opts.ready()) {
      const key = this.pending.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      void this.run(key);
    }
  }

  get length(): number {
    return this.pending.length + this.active;
  }

  stop(): void {
    this.stopped = true;
    this.delayed.stop();
    this.pending.length = 0;
    this.queued.clear();
  }

  private async run(key: string): Promise<void> {
    let result: WorkResult;
    try {
      result = await this.opts.process(key);
    } catch (err) {
      this.opts.onError(key, err);
      result = 'retry';
    }
    this.processing.delete(key);
    this.active--;
    if (result === 'done') this.failures.delete(key);
    if (this.dirty.delete(key)) this.add(key);
    else if (result === 'retry') this.addRateLimited(key);
    this.pump();
  }
}
