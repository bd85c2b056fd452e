// Coalesces concurrent etcd reads into one call. Every gRPC call is an HTTP/2 stream, and grpc-js spends ≈ 0.4 ms of
// CPU setting one up (credentials metadata, the call objects, node's http2 request), far more than etcd spends on a
// small range. A start lists every resource at once (the informers, the bootstrap hooks, the garbage collector's
// monitors): dozens of ranges in the same few milliseconds. Sent as one read-only Txn they cost one stream; etcd
// serves a read-only Txn on the linearizable read path, as it serves a Range, and every range in it reads one
// revision.
//
// The policy is one batch in flight: a read that finds none is sent at the end of the current tick (with whatever
// else asked in that tick); reads that arrive while a batch is out wait for it and then go together, but never
// longer than maxWaitMs (etcd frozen, say: each read still ends within its own deadline, plus that wait). A lone
// read is sent as itself, so a quiet server's reads are exactly what they were.

/** How one queued read goes out alone, and what a failed batch means for it. */
export interface CoalescedRead<Req, Res> {
  request: Req;
  /** The read as its own call (a batch of one, and the fallback when a batch fails without a transient cause). */
  alone: () => Promise<Res>;
  /** This read's error for a batch that failed transiently (etcd unreachable): what its own call would have thrown. */
  transientError: (err: unknown) => unknown;
}

interface Queued<Req, Res> extends CoalescedRead<Req, Res> {
  resolve(res: Res): void;
  reject(err: unknown): void;
}

export interface ReadCoalescerOptions<Req, Res> {
  /** One call for several reads, answering them in order. */
  sendBatch: (requests: Req[]) => Promise<Res[]>;
  /** The most reads in one call (etcd's --max-txn-ops is 128 by default). */
  maxBatch: number;
  /** The batch failed because etcd could not be reached or did not answer (not because of what was asked). */
  isTransient: (err: unknown) => boolean;
  /** The longest a read waits for the batch ahead of it before it goes out anyway (default 5 ms). */
  maxWaitMs?: number;
}

export class ReadCoalescer<Req, Res> {
  private queue: Array<Queued<Req, Res>> = [];
  private inFlight = 0;
  private flushScheduled = false;
  private waitTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: ReadCoalescerOptions<Req, Res>) {}

  read(r: CoalescedRead<Req, Res>): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ ...r, resolve, reject });
      if (this.inFlight === 0) {
        if (this.flushScheduled) return;
        this.flushScheduled = true;
        queueMicrotask(() => {
          this.flushScheduled = false;
          this.flush(false);
        });
      } else if (!this.waitTimer) {
        this.waitTimer = setTimeout(() => {
          this.waitTimer = undefined;
          this.flush(true);
        }, this.opts.maxWaitMs ?? 5);
        this.waitTimer.unref();
      }
    });
  }

  /** Sends what is queued, unless a batch is out and the queue may still wait for it. */
  private flush(evenWhileBusy: boolean): void {
    if ((this.inFlight > 0 && !evenWhileBusy) || this.queue.length === 0) return;
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.flush(false);
      });
    }
  }

  private async send(batch: Array<Queued<Req, Res>>): Promise<void> {
    if (batch.length === 1) {
      const only = batch[0]!;
      await only.alone().then(only.resolve, only.reject);
      return;
    }
    let answers: Res[];
    try {
      answers = await this.opts.sendBatch(batch.map((q) => q.request));
    } catch (err) {
      if (this.opts.isTransient(err)) {
        for (const q of batch) q.reject(q.transientError(err));
        return;
      }
      // Something in the batch was refused (a compacted or future revision, say): each read alone gets its own
      // answer, and its own error text.
      await Promise.all(batch.map((q) => q.alone().then(q.resolve, q.reject)));
      return;
    }
    batch.forEach((q, i) => q.resolve(answers[i]!));
  }
}
