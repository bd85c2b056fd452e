import { Registry } from 'prom-client';
import { newWatchMetrics } from './watch.js';

describe('watch metrics', () => {
  it('registers apiserver_terminated_watchers_total with kube\'s help text and {group, resource} labels', async () => {
    const registry = new Registry();
    const m = newWatchMetrics(registry);
    m.observeTerminatedWatcher('', 'configmaps');
    m.observeTerminatedWatcher('apps', 'deployments');
    m.observeTerminatedWatcher('apps', 'deployments');
    const text = await registry.metrics();
    expect(text).toContain('# HELP apiserver_terminated_watchers_total [ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.');
    expect(text).toContain('# TYPE apiserver_terminated_watchers_total counter');
    expect(text).toContain('apiserver_terminated_watchers_total{group="",resource="configmaps"} 1');
    expect(text).toContain('apiserver_terminated_watchers_total{group="apps",resource="deployments"} 2');
  });
});
