// kube's events.k8s.io/v1 <-> core/v1 Event field mapping (pkg/apis/events/v1/conversion.go).
import { coreToEventsV1, eventsV1ToCore } from './conversion.js';

const eventsV1 = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'ns' },
  eventTime: '2026-01-02T03:04:05.000000Z',
  series: { count: 2, lastObservedTime: '2026-01-02T03:05:05.000000Z' },
  reportingController: 'example.com/c',
  reportingInstance: 'c-1',
  action: 'Act',
  reason: 'Why',
  regarding: { kind: 'Pod', name: 'p', namespace: 'ns' },
  related: { kind: 'Node', name: 'n' },
  note: 'hello',
  type: 'Warning',
  deprecatedSource: { component: 'kubelet' },
  deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
  deprecatedLastTimestamp: '2026-01-01T00:01:00Z',
  deprecatedCount: 3,
};

const coreV1 = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'ns' },
  eventTime: '2026-01-02T03:04:05.000000Z',
  series: { count: 2, lastObservedTime: '2026-01-02T03:05:05.000000Z' },
  reportingComponent: 'example.com/c',
  reportingInstance: 'c-1',
  action: 'Act',
  reason: 'Why',
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' },
  related: { kind: 'Node', name: 'n' },
  message: 'hello',
  type: 'Warning',
  source: { component: 'kubelet' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:01:00Z',
  count: 3,
};

describe('events.k8s.io/v1 <-> core/v1 Event', () => {
  it('maps every field as kube does', () => {
    expect(eventsV1ToCore(eventsV1)).toEqual(coreV1);
    expect(coreToEventsV1(coreV1)).toEqual(eventsV1);
  });

  it('round-trips without loss', () => {
    expect(coreToEventsV1(eventsV1ToCore(eventsV1))).toEqual(eventsV1);
  });
});
