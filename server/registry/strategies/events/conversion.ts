// events.k8s.io/v1 Event <-> core/v1 Event, as kube's pkg/apis/events/v1/conversion.go maps them through the
// internal type: regarding<->involvedObject, note<->message, deprecatedSource<->source,
// deprecatedFirstTimestamp<->firstTimestamp, deprecatedLastTimestamp<->lastTimestamp, deprecatedCount<->count,
// reportingController<->reportingComponent; every other field (metadata, eventTime, series, action, reason,
// related, reportingInstance, type) keeps its name. Both are pure renames, so a round trip is lossless.
import type { KubeObject } from '../../../api/types.js';

/** [events.k8s.io/v1 name, core/v1 name] */
const renames: ReadonlyArray<readonly [string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
];
const eventsToCore = new Map(renames.map(([e, c]) => [e, c]));
const coreToEvents = new Map(renames.map(([e, c]) => [c, e]));

function rename(obj: KubeObject, names: ReadonlyMap<string, string>, apiVersion: string): KubeObject {
  const out: KubeObject = {};
  for (const [k, v] of Object.entries(obj)) out[names.get(k) ?? k] = v;
  out.apiVersion = apiVersion;
  out.kind = 'Event';
  return out;
}

/** An events.k8s.io/v1 Event as core/v1 stores it. */
export function eventsV1ToCore(obj: KubeObject): KubeObject {
  return rename(obj, eventsToCore, 'v1');
}

/** A stored core/v1 Event as events.k8s.io/v1 serves it. */
export function coreToEventsV1(obj: KubeObject): KubeObject {
  return rename(obj, coreToEvents, 'events.k8s.io/v1');
}
