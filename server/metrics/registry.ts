// The apiserver's Prometheus registry. One per server instance; metric names, label sets and buckets follow
// kube-apiserver (k8s.io/apiserver/pkg/endpoints/metrics) so dashboards and assertions carry over.
import { Counter, Histogram, Registry } from 'prom-client';

export const requestDurationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

export interface ApiserverMetrics {
  registry: Registry;
  requestTotal: Counter<(typeof requestLabels)[number] | 'code'>;
  requestDuration: Histogram<(typeof requestLabels)[number]>;
}

export function newApiserverMetrics(): ApiserverMetrics {
  const registry = new Registry();
  const requestTotal = new Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: [...requestLabels, 'code'],
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: [...requestLabels],
    buckets: requestDurationBuckets,
    registers: [registry],
  });
  return { registry, requestTotal, requestDuration };
}
