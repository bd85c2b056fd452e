// What a case hands back: plain figures with units, their summary over repeated runs, the baseline they are read
// against, and the target where there is one. The table and results.json are both rendered from these.
import { summarize, type Summary } from './stats.js';

export type Unit = 'ms' | 'µs' | 'req/s' | 'eval/s' | 'MB' | 'KB/object';

export type Role =
  /** what the case measures */
  | 'subject'
  /** the physical limit measured in the same run (node start, raw etcd put, raw webhook POST, idle node RSS) */
  | 'baseline'
  /** a decomposition that helps read the subject (etcd start alone, the storage layer alone) */
  | 'info';

export interface TargetResult {
  /** as the issue states it, e.g. "≤ 300 ms" */
  text: string;
  met: boolean;
  /** "met by 40 ms" / "missed by 220 ms (+73%)" */
  verdict: string;
}

export interface Ratio {
  value: number;
  /** e.g. "6.9× node -e ''", "42% of etcd put" */
  text: string;
}

export interface Figure {
  variant: string;
  metric: string;
  unit: Unit;
  role: Role;
  /** raw samples: one per run (durations, rates), or every request's latency pooled over runs */
  samples?: number[];
  summary?: Summary;
  /** set instead of samples when the variant cannot run yet */
  pending?: string;
  ratio?: Ratio;
  target?: TargetResult;
  note?: string;
  /** CPU time per request of each process involved (ms, median over repeats): what a request costs, less sensitive to other load than a rate */
  cpuPerRequestMs?: Record<string, number>;
  /** CPU time the server process used from spawn to ready (ms, median over runs): the start's own cost, less sensitive to other load than the wall time */
  cpuToReadyMs?: number;
}

export interface CaseResult {
  name: string;
  title: string;
  figures: Figure[];
  notes: string[];
  /** cores other processes on the machine kept busy while the case ran, on average */
  otherCores?: number;
  /** the case failed to run; its figures so far are kept */
  error?: string;
  durationMs: number;
}

export const notYetImplemented = 'n/a (not yet implemented)';

export function measured(variant: string, metric: string, unit: Unit, role: Role, samples: number[], extra: Partial<Figure> = {}): Figure {
  return { variant, metric, unit, role, samples, summary: summarize(samples, unit === 'req/s' || unit === 'eval/s'), ...extra };
}

export function pendingFigure(variant: string, metric: string, unit: Unit, extra: Partial<Figure> = {}): Figure {
  return { variant, metric, unit, role: 'subject', pending: notYetImplemented, ...extra };
}

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return '–';
  switch (unit) {
    case 'ms':
    case 'µs':
      return `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)} ${unit}`;
    case 'req/s':
    case 'eval/s':
      return `${value.toFixed(0)} ${unit}`;
    case 'MB':
      return `${value.toFixed(1)} MB`;
    case 'KB/object':
      return `${value.toFixed(2)} KB/object`;
  }
}

function signedPercent(delta: number, limit: number): string {
  return `${delta >= 0 ? '+' : ''}${((delta / limit) * 100).toFixed(0)}%`;
}

/** `value ≤ limit`, e.g. a start time. */
export function atMost(value: number, limit: number, unit: Unit, text = `≤ ${formatValue(limit, unit)}`): TargetResult {
  const delta = value - limit;
  return delta <= 0
    ? { text, met: true, verdict: `met by ${formatValue(-delta, unit)}` }
    : { text, met: false, verdict: `missed by ${formatValue(delta, unit)} (${signedPercent(delta, limit)})` };
}

/** `ratio ≤ limit` for times read against a baseline, e.g. a start as a multiple of `node -e ''`. */
export function atMostTimes(ratio: number, limit: number, baseline: string): TargetResult {
  const text = `≤ ${limit}× ${baseline}`;
  // a ratio within 0.05 of the limit gets two decimals, so that a miss never reads "missed by 0.0× (3.0×)"
  const digits = Math.abs(ratio - limit) < 0.05 ? 2 : 1;
  return ratio <= limit
    ? { text, met: true, verdict: `met (${ratio.toFixed(digits)}×)` }
    : { text, met: false, verdict: `missed by ${(ratio - limit).toFixed(digits)}× (${ratio.toFixed(digits)}×)` };
}

/** `value ≥ limit`, e.g. evaluations per second. */
export function atLeast(value: number, limit: number, unit: Unit): TargetResult {
  const text = `≥ ${formatValue(limit, unit)}`;
  return value >= limit
    ? { text, met: true, verdict: `met by ${formatValue(value - limit, unit)}` }
    : { text, met: false, verdict: `missed by ${formatValue(limit - value, unit)} (${((value / limit) * 100).toFixed(0)}% of it)` };
}

/** `fraction ≥ limit` for ratios such as create rate / etcd put rate. */
export function atLeastFraction(fraction: number, limit: number, text: string): TargetResult {
  const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
  return fraction >= limit
    ? { text, met: true, verdict: `met (${pct(fraction)}, ${((fraction - limit) * 100).toFixed(0)} points above)` }
    : { text, met: false, verdict: `missed by ${((limit - fraction) * 100).toFixed(0)} points (${pct(fraction)})` };
}

/** A figure whose summary was computed elsewhere (latency percentiles pooled over every request of every run). */
export function summarized(variant: string, metric: string, unit: Unit, role: Role, summary: Summary, extra: Partial<Figure> = {}): Figure {
  return { variant, metric, unit, role, summary, ...extra };
}
