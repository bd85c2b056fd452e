// component-base's summary without objectives (kube's *_summary metrics): /metrics shows only its _sum and _count.
import { Summary, type LabelValues, type SummaryConfiguration } from 'prom-client';

interface Series<T extends string> {
  labels: LabelValues<T>;
  sum: number;
  count: number;
}

/**
 * A prom-client Summary with no objectives that keeps only a sum and a count per label set. prom-client's own
 * pushes every observation into a t-digest that nothing reads without objectives, which cost more than the rest of
 * an admission request's metrics together. get() answers as Summary.get() does for no percentiles: per label set in
 * the order they were first observed, _sum then _count, with the labels of that first observation.
 * Only observe(labels, value) is supported (the admission metrics use nothing else).
 */
export class SumCountSummary<T extends string> extends Summary<T> {
  private readonly series = new Map<string, Series<T>>();
  private readonly names: readonly T[];

  constructor(config: Omit<SummaryConfiguration<T>, 'percentiles' | 'maxAgeSeconds' | 'ageBuckets' | 'compressCount'>) {
    super({ ...config, percentiles: [] });
    this.names = config.labelNames ?? [];
  }

  override observe(labels: LabelValues<T> | number, value?: number): void {
    if (typeof labels === 'number' || value === undefined) throw new TypeError('SumCountSummary.observe takes labels and a value');
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    let key = '';
    for (const name of this.names) key += `${labels[name] ?? ''}\u0000`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels, sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.sum += value;
    s.count++;
  }

  override async get(): ReturnType<Summary<T>['get']> {
    const base = await super.get();
    const values: typeof base.values = [];
    for (const s of this.series.values()) {
      values.push({ metricName: `${base.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${base.name}_count`, labels: s.labels, value: s.count });
    }
    return { ...base, values: [...base.values, ...values] };
  }

  override reset(): void {
    super.reset();
    // the base constructor calls reset() before this class's fields exist
    this.series?.clear();
  }
}
