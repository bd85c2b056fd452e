// kube-apiserver's etcd health and readiness checks (k8s.io/apiserver storagebackend/factory/etcd3.go, newETCD3Check):
// each call may send one probe — a Get of "<--etcd-prefix>/health" bounded by the check's timeout
// (--etcd-healthcheck-timeout for "etcd", --etcd-readycheck-timeout for "etcd-readiness", 2 s each) — at most one
// every half timeout (a token bucket holding one token, full at first). A call the limit turns away answers at once with
// the error of the last probe sent, which is "etcd client connection not yet established" until a probe has answered;
// a probe that answers after a newer one has does not replace that newer answer.
import path from 'node:path';

/** kube's storagebackend.DefaultHealthcheckTimeout and DefaultReadinessTimeout */
export const defaultEtcdCheckTimeoutMs = 2000;

/** kube's atomicLastError: the last answer, replaced only by the answer of a probe sent later (or when none is set). */
export class LastProbeError {
  /** when the probe whose answer this is was sent; 0: none yet */
  private sentAt = 0;
  constructor(private err: Error | undefined) {}

  store(err: Error | undefined, sentAt: number): void {
    if (this.sentAt === 0 || this.sentAt < sentAt) {
      this.err = err;
      this.sentAt = sentAt;
    }
  }

  load(): Error | undefined {
    return this.err;
  }
}

/** golang.org/x/time/rate's Limiter with burst 1: one token, refilled at one per `everyMs`. */
class OneTokenLimiter {
  private tokens = 1;
  private last: number | undefined;
  constructor(
    private readonly everyMs: number,
    private readonly now: () => number,
  ) {}

  allow(): boolean {
    // rate.Every of a zero or negative interval is rate.Inf: every call is allowed
    if (!(this.everyMs > 0)) return true;
    const t = this.now();
    if (this.last !== undefined) this.tokens = Math.min(1, this.tokens + (t - this.last) / this.everyMs);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export interface EtcdCheckOptions {
  /** the bound of one probe, and twice the least time between two probes */
  timeoutMs: number;
  /** a monotonic clock in ms (tests move it by hand) */
  now?: () => number;
}

/** context.DeadlineExceeded's text, which the probe's error wraps when the timeout ends it */
const deadlineExceeded = 'context deadline exceeded';

/** setTimeout's longest delay: a longer one fires at once (a duration flag may be as long as Go's int64 allows) */
const maxTimerMs = 2 ** 31 - 1;

/**
 * The check: `probe` reads "<prefix>/health" (the storage bounds its own calls too); a failure is reported as kube's
 * prober reports it, "error getting data from etcd: <reason>".
 */
export function etcdCheck(probe: () => Promise<void>, opts: EtcdCheckOptions): () => Promise<void> {
  const now = opts.now ?? (() => performance.now());
  const limiter = new OneTokenLimiter(opts.timeoutMs / 2, now);
  const last = new LastProbeError(new Error('etcd client connection not yet established'));
  return async () => {
    if (!limiter.allow()) {
      const err = last.load();
      if (err) throw err;
      return;
    }
    // never 0, which LastProbeError reads as "no answer yet"
    const sentAt = Math.max(now(), Number.MIN_VALUE);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(deadlineExceeded)), Math.min(opts.timeoutMs, maxTimerMs));
    });
    try {
      await Promise.race([probe(), deadline]);
      last.store(undefined, sentAt);
    } catch (cause) {
      const err = new Error(`error getting data from etcd: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
      last.store(err, sentAt);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  };
}

/** path.Join("/", prefix, "health"): the key kube's prober reads (node's posix join cleans the path as Go's does) */
export const etcdHealthKey = (prefix: string): string => path.posix.join('/', prefix, 'health');
