// Order statistics over repeated runs. The median is the usual one (the mean of the middle two for an even count,
// so two repeats give their midpoint); p99 is nearest-rank, so with few samples it is the worst run, which is the
// honest reading of "p99 over 15 runs".

export interface Summary {
  /** the 50th percentile */
  median: number;
  /** the 99th percentile in the bad direction: the highest duration, the lowest rate */
  p99: number;
  min: number;
  max: number;
  n: number;
}

/** Nearest-rank percentile (0 < q ≤ 100) of unsorted samples. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((q / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * `higherIsBetter` for rates: then p99 is the rate 99% of runs reached (the 1st percentile), so that the p99
 * column is always the bad tail.
 */
export function summarize(samples: readonly number[], higherIsBetter = false): Summary {
  return {
    median: median(samples),
    p99: higherIsBetter ? percentile(samples, 1) : percentile(samples, 99),
    min: samples.length ? Math.min(...samples) : Number.NaN,
    max: samples.length ? Math.max(...samples) : Number.NaN,
    n: samples.length,
  };
}

/** Milliseconds since an `hrtime.bigint()` mark. */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}
