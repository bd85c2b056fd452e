// events.k8s.io/v1 Events: kube's ValidateEventCreate/ValidateEventUpdate for the events.k8s.io/v1 request version
// (pkg/apis/core/validation/events.go): the legacy rules every event passes plus the strict ones of the new API.
// kube validates the internal (core-shaped) object, so field paths are core's (involvedObject, message, …).
import { fieldErrors, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../validation/name.js';
import type { Obj } from '../fields.js';
import { eventsV1ToCore } from './conversion.js';

const reportingInstanceLengthLimit = 128;
const actionLengthLimit = 128;
const reasonLengthLimit = 128;
const noteLengthLimit = 1024;

const s = (v: unknown): string => (typeof v === 'string' ? v : '');
const set = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/**
 * legacyValidateEvent: every Event passes it, whichever API wrote it. The reporting controller's field is named as
 * the request version names it (`reportingComponent` in core/v1, `reportingController` in events.k8s.io).
 */
function legacyValidateEvent(e: KubeObject, reportingControllerField = 'reportingController'): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = e.metadata?.namespace ?? '';
  const involved = (e['involvedObject'] ?? {}) as Obj;
  const involvedNs = s(involved['namespace']);
  if (!set(e['eventTime'])) {
    if (involvedNs === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    } else if (namespace !== involvedNs) errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  } else {
    if (involvedNs === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    const controller = s(e['reportingComponent']);
    if (controller === '') errs.push(fieldErrors.required(reportingControllerField));
    for (const m of isQualifiedName(controller)) errs.push(fieldErrors.invalid(reportingControllerField, controller, m));
    const instance = s(e['reportingInstance']);
    if (instance === '') errs.push(fieldErrors.required('reportingInstance'));
    if (instance.length > reportingInstanceLengthLimit) errs.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${reportingInstanceLengthLimit} characters`));
    const action = s(e['action']);
    if (action === '') errs.push(fieldErrors.required('action'));
    if (action.length > actionLengthLimit) errs.push(fieldErrors.invalid('action', '', `can have at most ${actionLengthLimit} characters`));
    const reason = s(e['reason']);
    if (reason === '') errs.push(fieldErrors.required('reason'));
    if (reason.length > reasonLengthLimit) errs.push(fieldErrors.invalid('reason', '', `can have at most ${reasonLengthLimit} characters`));
    if (s(e['message']).length > noteLengthLimit) errs.push(fieldErrors.invalid('message', '', `can have at most ${noteLengthLimit} characters`));
  }
  for (const m of isDNS1123Subdomain(namespace)) errs.push(fieldErrors.invalid('namespace', namespace, m));
  return errs;
}

function validateSeries(e: KubeObject): FieldError[] {
  const series = e['series'];
  if (!series || typeof series !== 'object') return [];
  const errs: FieldError[] = [];
  const count = (series as Obj)['count'];
  if (typeof count !== 'number' || count < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (!set((series as Obj)['lastObservedTime'])) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

function validateCreate(request: KubeObject): FieldError[] {
  const e = eventsV1ToCore(request);
  const errs = [...legacyValidateEvent(e), ...validateSeries(e)];
  if (!set(e['eventTime'])) errs.push(fieldErrors.required('eventTime'));
  const type = s(e['type']);
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (set(e['firstTimestamp'])) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (set(e['lastTimestamp'])) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof e['count'] === 'number' && e['count'] !== 0) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  const source = (e['source'] ?? {}) as Obj;
  if (set(source['component']) || set(source['host'])) errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** ValidateImmutableField's bad value is the new value (Go %#v for structs; JSON here). */
const immutableFields = ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'action', 'related', 'reportingComponent', 'reportingInstance'];
const pathOf: Record<string, string> = { reportingComponent: 'reportingController' };

const timeFields = new Set(['firstTimestamp', 'lastTimestamp', 'eventTime']);
/** Semantic equality: times compare as instants (a client may re-serialize a MicroTime with fewer digits). */
function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (timeFields.has(field) && typeof a === 'string' && typeof b === 'string') return Date.parse(a) === Date.parse(b);
  return jsonEqual(a ?? null, b ?? null);
}

function validateUpdate(request: KubeObject, oldRequest: KubeObject): FieldError[] {
  const e = eventsV1ToCore(request);
  const old = eventsV1ToCore(oldRequest);
  const errs = legacyValidateEvent(e);
  if (!jsonEqual(e['series'] ?? null, old['series'] ?? null)) errs.push(...validateSeries(e));
  for (const f of immutableFields) {
    if (!sameValue(f, e[f], old[f])) errs.push(fieldErrors.invalid(pathOf[f] ?? f, e[f] ?? '', 'field is immutable'));
  }
  return errs;
}

export const eventsV1EventStrategy: Strategy = {
  validate: validateCreate,
  validateUpdate,
};

/**
 * core/v1 Events: kube's ValidateEventCreate/ValidateEventUpdate with the core/v1 request version run only the
 * legacy rules ("No further validation for backwards compatibility"), so an Event written through /api/v1 is also
 * one the events.k8s.io API can read and write back.
 */
export const coreV1EventStrategy: Strategy = {
  validate: (e) => legacyValidateEvent(e, 'reportingComponent'),
  validateUpdate: (e) => legacyValidateEvent(e, 'reportingComponent'),
};
