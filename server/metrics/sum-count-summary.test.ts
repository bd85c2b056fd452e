import { Registry, Summary } from 'prom-client';
import { SumCountSummary } from './sum-count-summary.js';

const config = { name: 'apiserver_example_duration_seconds_summary', help: '[ALPHA] An example summary.', labelNames: ['operation', 'rejected', 'type'] as const };

/** The same observations through prom-client's Summary without percentiles and through SumCountSummary. */
async function expositions(observations: [Record<'operation' | 'rejected' | 'type', string>, number][]): Promise<[string, string]> {
  const reference = new Registry();
  const ours = new Registry();
  const summary = new Summary({ ...config, labelNames: [...config.labelNames], percentiles: [], maxAgeSeconds: 5 * 60 * 60, ageBuckets: 5, registers: [reference] });
  const sumCount = new SumCountSummary({ ...config, labelNames: [...config.labelNames], registers: [ours] });
  for (const [labels, value] of observations) {
    summary.observe(labels, value);
    sumCount.observe(labels, value);
  }
  return [await reference.metrics(), await ours.metrics()];
}

describe('SumCountSummary', () => {
  it('exposes what prom-client\'s Summary without percentiles exposes, label sets in first-observed order', async () => {
    const [reference, ours] = await expositions([
      [{ operation: 'CREATE', rejected: 'false', type: 'admit' }, 0.003],
      [{ operation: 'CREATE', rejected: 'false', type: 'validate' }, 0.0125],
      [{ operation: 'UPDATE', rejected: 'true', type: 'admit' }, 1.5],
      [{ operation: 'CREATE', rejected: 'false', type: 'admit' }, 0.25],
      [{ operation: 'CREATE', rejected: 'false', type: 'validate' }, 0.1],
    ]);
    expect(ours).toContain('apiserver_example_duration_seconds_summary_sum{operation="CREATE",rejected="false",type="admit"} 0.253');
    expect(ours).toContain('apiserver_example_duration_seconds_summary_count{operation="CREATE",rejected="false",type="admit"} 2');
    expect(ours).toBe(reference);
  });

  it('exposes HELP and TYPE summary with no series before the first observation, as prom-client does', async () => {
    const [reference, ours] = await expositions([]);
    expect(ours).toContain('# TYPE apiserver_example_duration_seconds_summary summary');
    expect(ours).toBe(reference);
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const s = new SumCountSummary({ ...config, labelNames: [...config.labelNames], registers: [] });
    expect(() => s.observe({ operation: 'CREATE', rejected: 'false', type: 'admit' }, NaN)).toThrow('Value is not a valid number');
  });
});
