// The watch metric kube-apiserver's watch cache exports (k8s.io/apiserver/pkg/storage/cacher/metrics/metrics.go):
// same name, help text (with the stability prefix kube's metrics framework prints) and labels.
import { Counter, type Registry } from 'prom-client';

export interface WatchMetrics {
  /** a watcher was closed because it could not keep up (kube: cacheWatcher.add's closeFunc) */
  observeTerminatedWatcher(group: string, resource: string): void;
}

export function newWatchMetrics(registry: Registry): WatchMetrics {
  const terminated = new Counter({
    name: 'apiserver_terminated_watchers_total',
    help: '[ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.',
    labelNames: ['group', 'resource'] as const,
    registers: [registry],
  });
  return { observeTerminatedWatcher: (group, resource) => terminated.inc({ group, resource }) };
}
