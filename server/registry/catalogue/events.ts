// events.k8s.io/v1: the core group's events in the events.k8s.io/v1 shape. kube stores both in one place
// (cohabitating resources, pkg/kubeapiserver/default_storage_factory_builder.go): here they share the core
// collection (/registry/events/…) and convert on every read and write (pkg/apis/events/v1/conversion.go).
// Columns: kube prints both with the same printEvent (Last Seen, Type, Reason, Object, Message).
import type { KubeObject } from '../../api/types.js';
import { builtinCodec } from '../resource.js';
import { coreToEventsV1, eventsV1ToCore } from '../strategies/events/conversion.js';
import { at, str, type Entry } from './entry.js';

/** printEvent's Last Seen: the series' last observation, else the deprecated last timestamp, else eventTime. */
function lastSeen(o: KubeObject): string {
  return str(at(o, 'series', 'lastObservedTime') ?? at(o, 'deprecatedLastTimestamp') ?? at(o, 'eventTime'));
}

export const eventsEntries: Entry[] = [
  {
    group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'],
    storageGroup: '',
    codec: builtinCodec({
      toStorage: async (obj) => eventsV1ToCore(obj),
      fromStorage: async (objs) => objs.map(coreToEventsV1),
    }),
    printerColumns: [
      { name: 'Last Seen', type: 'string', compute: lastSeen },
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Reason', type: 'string', jsonPath: '.reason' },
      { name: 'Object', type: 'string', compute: (o) => `${String(at(o, 'regarding', 'kind') ?? '').toLowerCase()}/${str(at(o, 'regarding', 'name'))}` },
      { name: 'Message', type: 'string', jsonPath: '.note' },
    ],
  },
];
