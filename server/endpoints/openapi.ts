// OpenAPI documents as kube-apiserver serves them (k8s.io/kube-openapi handler and handler3): /openapi/v3 (a
// root listing one document per group version, each URL carrying a content hash), /openapi/v3/api/v1,
// /openapi/v3/apis/<group>/<version>, and /openapi/v2 as JSON.
//
// What is described, and what is not:
// - Paths and operations are exact: every verb a resource serves becomes the operation kube-apiserver
//   installs (read, list, create, replace, patch, delete, deletecollection, watch, and the status and scale
//   subresources), with the query parameters it accepts, so kubectl's QueryParamVerifierV3 finds
//   `fieldValidation` (and `dryRun`, `fieldManager`) on PATCH and uses server-side field validation.
// - ObjectMeta, ListMeta, Status, DeleteOptions, WatchEvent and autoscaling/v1 Scale are described field
//   by field. Each kind's schema names apiVersion, kind, metadata and its well-known top-level fields, and
//   leaves everything below those open (`x-kubernetes-preserve-unknown-fields`): the server validates
//   objects itself, and these schemas are only for discovery and `kubectl explain`.
// - Because the schemas below the top level are open, PATCH does not advertise
//   application/strategic-merge-patch+json: kubectl would then compute strategic merge patches from these
//   schemas and fail on any field they do not name. Without it kubectl falls back to its compiled-in types for
//   built-in kinds (still sending strategic merge patches) and to JSON merge patch for others, as it does
//   for CustomResourceDefinitions.
// - /openapi/v2 is served as JSON only. client-go asks for protobuf there; the 406 it gets makes it give up on
//   v2 quietly (it only uses v2 when v3 is missing), so no protobuf encoder is needed.
import { Router, type Request, type Response } from 'express';
import { StatusError } from '../api/errors.js';
import type { JsonObject, JsonValue } from '../api/types.js';
import { writeError } from '../http/responses.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import { acceptsPlainJSON, contentHash, mirroredKubernetesVersion, notFoundError, parseAccept, sendBody } from './discovery.js';

// ---------------------------------------------------------------------------------------------------------
// Names

/** Definition (component) names as kube-openapi derives them from Go packages. */
export function definitionName(group: string, version: string, kind: string): string {
  if (group === '') return `io.k8s.api.core.${version}.${kind}`;
  if (group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  if (group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}.${kind}`;
  if (!group.includes('.')) return `io.k8s.api.${group}.${version}.${kind}`;
  if (group.endsWith('.k8s.io')) return `io.k8s.api.${group.slice(0, -'.k8s.io'.length).split('.')[0]}.${version}.${kind}`;
  // Custom resources: the reversed group, as the CRD OpenAPI builder names them (com.example.stable.v1.CronTab).
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

const meta = (kind: string): string => `io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`;
const rawExtension = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const scaleDefinition = definitionName('autoscaling', 'v1', 'Scale');

/** "admissionregistration.k8s.io" → "Admissionregistration", "" → "Core", "stable.example.com" → "StableExampleCom". */
function groupIdentifier(group: string): string {
  if (group === '') return 'Core';
  const base = group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  return base
    .split(/[.-]/)
    .filter(Boolean)
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('');
}

function tagOf(group: string, version: string): string {
  const id = groupIdentifier(group);
  return `${id[0]!.toLowerCase()}${id.slice(1)}_${version}`;
}

const capitalize = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

// ---------------------------------------------------------------------------------------------------------
// Schemas, written once for both formats: `ref` renders a reference ("#/components/schemas/…" or
// "#/definitions/…"), `field` wraps a reference with a description as each format does (v3: allOf).

interface SchemaStyle {
  ref(name: string): JsonObject;
  field(name: string, description: string, extra?: JsonObject): JsonObject;
}

const v3Style: SchemaStyle = {
  ref: (name) => ({ $ref: `#/components/schemas/${name}` }),
  field: (name, description, extra = {}) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], description, ...extra }),
};

const v2Style: SchemaStyle = {
  ref: (name) => ({ $ref: `#/definitions/${name}` }),
  field: (name, description, extra = {}) => ({ $ref: `#/definitions/${name}`, description, ...extra }),
};

const str = (description: string, extra: JsonObject = {}): JsonObject => ({ type: 'string', description, ...extra });
const int = (description: string, format: 'int32' | 'int64' = 'int64'): JsonObject => ({ type: 'integer', format, description });
const bool = (description: string): JsonObject => ({ type: 'boolean', description });
const stringMap = (description: string): JsonObject => ({ type: 'object', additionalProperties: { type: 'string', default: '' }, description });
const openObject = (description: string): JsonObject => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
const openList = (description: string, extra: JsonObject = {}): JsonObject => ({ type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, description, ...extra });
const gvkExtension = (group: string, version: string, kind: string): JsonObject => ({ group, kind, version });

const apiVersionField = str('APIVersion defines the versioned schema of this representation of an object.');
const kindField = str('Kind is a string value representing the REST resource this object represents, in CamelCase.');

/** The meta/v1 types every group version document carries, described field by field. */
function metaSchemas(s: SchemaStyle, group: string, version: string): Record<string, JsonObject> {
  const deleteOptionsGVKs: JsonValue[] = [gvkExtension('', 'v1', 'DeleteOptions')];
  if (group !== '') deleteOptionsGVKs.push(gvkExtension(group, version, 'DeleteOptions'));
  return {
    [meta('Time')]: { type: 'string', format: 'date-time', description: 'An RFC 3339 timestamp with second precision.' },
    [meta('MicroTime')]: { type: 'string', format: 'date-time', description: 'An RFC 3339 timestamp with microsecond precision.' },
    [meta('FieldsV1')]: { type: 'object', description: 'FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.' },
    [meta('ManagedFieldsEntry')]: {
      type: 'object',
      description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
      properties: {
        apiVersion: str('APIVersion of the resource the field set applies to.'),
        fieldsType: str('The format of the fields field; the only valid value is "FieldsV1".'),
        fieldsV1: s.field(meta('FieldsV1'), 'The first JSON version format of the field set.'),
        manager: str('The identifier of the workflow managing these fields.'),
        operation: str('The type of operation which lead to this entry being created: "Apply" or "Update".'),
        subresource: str('The name of the subresource used to update the object, or empty for the main resource.'),
        time: s.field(meta('Time'), 'When the most recent operation of this entry happened.'),
      },
    },
    [meta('OwnerReference')]: {
      type: 'object',
      description: 'OwnerReference contains enough information to let you identify an owning object.',
      required: ['apiVersion', 'kind', 'name', 'uid'],
      properties: {
        apiVersion: str('API version of the referent.', { default: '' }),
        blockOwnerDeletion: bool('If true, and the owner has the "foregroundDeletion" finalizer, the owner cannot be deleted from storage until this reference is removed.'),
        controller: bool('If true, this reference points to the managing controller.'),
        kind: str('Kind of the referent.', { default: '' }),
        name: str('Name of the referent.', { default: '' }),
        uid: str('UID of the referent.', { default: '' }),
      },
      'x-kubernetes-map-type': 'atomic',
    },
    [meta('ObjectMeta')]: {
      type: 'object',
      description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
      properties: {
        annotations: stringMap('Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.'),
        creationTimestamp: s.field(meta('Time'), 'When this object was created. Set by the server; read-only.'),
        deletionGracePeriodSeconds: int('Number of seconds allowed for this object to gracefully terminate before it is removed from the system. Read-only.'),
        deletionTimestamp: s.field(meta('Time'), 'When this resource will be deleted. Set by the server when a graceful deletion is requested; read-only.'),
        finalizers: {
          type: 'array',
          items: { type: 'string', default: '' },
          description: 'Must be empty before the object is deleted from the registry.',
          'x-kubernetes-list-type': 'set',
          'x-kubernetes-patch-strategy': 'merge',
        },
        generateName: str('An optional prefix, used by the server to generate a unique name only if the name field has not been provided.'),
        generation: int('A sequence number representing a specific generation of the desired state. Populated by the system; read-only.'),
        labels: stringMap('Map of string keys and values that can be used to organize and categorize (scope and select) objects.'),
        managedFields: {
          type: 'array',
          items: s.ref(meta('ManagedFieldsEntry')),
          description: 'Maps workflow-id and version to the set of fields that are managed by that workflow.',
          'x-kubernetes-list-type': 'atomic',
        },
        name: str('Name must be unique within a namespace. Cannot be updated.'),
        namespace: str('Namespace defines the space within which each name must be unique. Cannot be updated.'),
        ownerReferences: {
          type: 'array',
          items: s.ref(meta('OwnerReference')),
          description: 'List of objects depended by this object.',
          'x-kubernetes-list-map-keys': ['uid'],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-patch-merge-key': 'uid',
          'x-kubernetes-patch-strategy': 'merge',
        },
        resourceVersion: str('An opaque value that represents the internal version of this object, used for optimistic concurrency. Read-only.'),
        selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
        uid: str('The unique in time and space value for this object. Populated by the system; read-only.'),
      },
    },
    [meta('ListMeta')]: {
      type: 'object',
      description: 'ListMeta describes metadata that synthetic resources must have, including lists.',
      properties: {
        continue: str('Set when the list was limited; pass it as the continue parameter to get the next page.'),
        remainingItemCount: int('The number of subsequent items in the list which are not included in this list response.'),
        resourceVersion: str('The store revision this list is consistent with. Read-only.'),
        selfLink: str('Deprecated: no longer populated by the system.'),
      },
    },
    [meta('StatusCause')]: {
      type: 'object',
      description: 'StatusCause provides more information about an api.Status failure.',
      properties: {
        field: str('The field of the resource that has caused this error, as a JSON-path-like expression ("spec.containers[0].name").'),
        message: str('A human-readable description of the cause of the error.'),
        reason: str('A machine-readable description of the cause of the error.'),
      },
    },
    [meta('StatusDetails')]: {
      type: 'object',
      description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
      properties: {
        causes: { type: 'array', items: s.ref(meta('StatusCause')), description: 'Extended data associated with the reason.', 'x-kubernetes-list-type': 'atomic' },
        group: str('The group attribute of the resource associated with the status.'),
        kind: str('The kind attribute of the resource associated with the status.'),
        name: str('The name attribute of the resource associated with the status.'),
        retryAfterSeconds: int('If specified, the time in seconds before the operation should be retried.', 'int32'),
        uid: str('UID of the resource.'),
      },
    },
    [meta('Status')]: {
      type: 'object',
      description: 'Status is a return value for calls that do not return other objects.',
      properties: {
        apiVersion: apiVersionField,
        code: int('Suggested HTTP return code for this status, 0 if not set.', 'int32'),
        details: s.field(meta('StatusDetails'), 'Extended data associated with the reason.'),
        kind: kindField,
        message: str('A human-readable description of the status of this operation.'),
        metadata: s.field(meta('ListMeta'), 'Standard list metadata.', { default: {} }),
        reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
        status: str('Status of the operation. One of: "Success" or "Failure".'),
      },
      'x-kubernetes-group-version-kind': [gvkExtension('', 'v1', 'Status')],
    },
    [meta('Preconditions')]: {
      type: 'object',
      description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
      properties: { resourceVersion: str('Specifies the target ResourceVersion'), uid: str('Specifies the target UID.') },
    },
    [meta('DeleteOptions')]: {
      type: 'object',
      description: 'DeleteOptions may be provided when deleting an API object.',
      properties: {
        apiVersion: apiVersionField,
        dryRun: { type: 'array', items: { type: 'string', default: '' }, description: 'When present, modifications are not persisted. The only valid value is "All".', 'x-kubernetes-list-type': 'atomic' },
        gracePeriodSeconds: int('The duration in seconds before the object should be deleted.'),
        ignoreStoreReadErrorWithClusterBreakingPotential: bool('If set, an object whose stored form cannot be read is deleted anyway (unsafe).'),
        kind: kindField,
        orphanDependents: bool('Deprecated: use propagationPolicy. Whether dependent objects should be orphaned.'),
        preconditions: s.field(meta('Preconditions'), 'Must be fulfilled before a deletion is carried out.'),
        propagationPolicy: str('Whether and how garbage collection will be performed: "Orphan", "Background" or "Foreground".'),
      },
      'x-kubernetes-group-version-kind': deleteOptionsGVKs,
    },
    [meta('Patch')]: { type: 'object', description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' },
    [meta('WatchEvent')]: {
      type: 'object',
      description: 'Event represents a single event to a watched resource.',
      required: ['type', 'object'],
      properties: {
        object: s.field(rawExtension, 'The object: the new state for ADDED and MODIFIED, the last state for DELETED, a Status for ERROR, a BOOKMARK with only resourceVersion.'),
        type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.', { default: '' }),
      },
      'x-kubernetes-group-version-kind': [gvkExtension('', 'v1', 'WatchEvent'), ...(group !== '' ? [gvkExtension(group, version, 'WatchEvent')] : [])],
    },
    [rawExtension]: { type: 'object', description: 'RawExtension holds an embedded object.' },
  };
}

function scaleSchemas(s: SchemaStyle): Record<string, JsonObject> {
  return {
    [definitionName('autoscaling', 'v1', 'ScaleSpec')]: {
      type: 'object',
      description: 'ScaleSpec describes the attributes of a scale subresource.',
      properties: { replicas: int('The desired number of instances for the scaled object.', 'int32') },
    },
    [definitionName('autoscaling', 'v1', 'ScaleStatus')]: {
      type: 'object',
      description: 'ScaleStatus represents the current status of a scale subresource.',
      required: ['replicas'],
      properties: {
        replicas: { ...int('The actual number of observed instances of the scaled object.', 'int32'), default: 0 },
        selector: str('The label query over pods that should match the replicas count, in the serialized form of a label selector.'),
      },
    },
    [scaleDefinition]: {
      type: 'object',
      description: 'Scale represents a scaling request for a resource.',
      properties: {
        apiVersion: apiVersionField,
        kind: kindField,
        metadata: s.field(meta('ObjectMeta'), 'Standard object metadata.', { default: {} }),
        spec: s.field(definitionName('autoscaling', 'v1', 'ScaleSpec'), 'Defines the behavior of the scale.', { default: {} }),
        status: s.field(definitionName('autoscaling', 'v1', 'ScaleStatus'), 'The current status of the scale. Read-only.', { default: {} }),
      },
      'x-kubernetes-group-version-kind': [gvkExtension('autoscaling', 'v1', 'Scale')],
    },
  };
}

/** Top-level fields of the built-in kinds that have no spec/status; anything else gets spec (and status). */
const topLevelFields: Record<string, () => Record<string, JsonObject>> = {
  '/ConfigMap': () => ({
    binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' }, description: 'Binary data, base64-encoded in JSON. Keys must not overlap with data.' },
    data: stringMap('Configuration data. Keys must consist of alphanumeric characters, "-", "_" or ".".'),
    immutable: bool('If true, data and binaryData cannot be updated.'),
  }),
  '/Secret': () => ({
    data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' }, description: 'Secret data, base64-encoded in JSON.' },
    immutable: bool('If true, data cannot be updated.'),
    stringData: stringMap('Write-only convenience field: merged into data on write, never output.'),
    type: str('Used to facilitate programmatic handling of secret data.'),
  }),
  '/ServiceAccount': () => ({
    automountServiceAccountToken: bool('Whether pods running as this service account should have an API token automatically mounted.'),
    imagePullSecrets: openList('References to secrets in the same namespace to use for pulling images.', { 'x-kubernetes-list-type': 'atomic' }),
    secrets: openList('Deprecated: secrets pods running as this service account may use.', { 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' }),
  }),
  '/Event': () => ({
    action: str('What action was taken/failed regarding the involved object.'),
    count: int('The number of times this event has occurred.', 'int32'),
    eventTime: str('Time when this event was first observed.', { format: 'date-time' }),
    firstTimestamp: str('The time at which the event was first recorded.', { format: 'date-time' }),
    involvedObject: openObject('The object that this event is about.'),
    lastTimestamp: str('The time at which the most recent occurrence of this event was recorded.', { format: 'date-time' }),
    message: str('A human-readable description of the status of this operation.'),
    reason: str('A short, machine understandable string that gives the reason for the transition.'),
    related: openObject('Optional secondary object for more complex actions.'),
    reportingComponent: str('Name of the controller that emitted this event.', { default: '' }),
    reportingInstance: str('ID of the controller instance.', { default: '' }),
    series: openObject('Data about the event series this event represents.'),
    source: openObject('The component reporting this event.'),
    type: str('Type of this event (Normal, Warning).'),
  }),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': () => ({
    webhooks: openList('Webhooks and the resources and operations they apply to.', { 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' }),
  }),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': () => ({
    webhooks: openList('Webhooks and the resources and operations they apply to.', { 'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' }),
  }),
};

/**
 * A custom resource's kind schema: the version's openAPIV3Schema with apiVersion, kind and metadata (a reference
 * to ObjectMeta) added at the root, as apiextensions-apiserver's OpenAPI builder publishes it.
 */
function customResourceKindSchema(s: SchemaStyle, r: ResourceInfo, own: Record<string, unknown>): JsonObject {
  const schema = structuredClone(own) as JsonObject;
  const properties = { ...((schema['properties'] as JsonObject | undefined) ?? {}) };
  properties['apiVersion'] = apiVersionField;
  properties['kind'] = kindField;
  properties['metadata'] = s.field(meta('ObjectMeta'), 'Standard object metadata.');
  // Swagger 2.0 has no nullable
  if (s === v2Style) dropNullable(schema);
  return { ...schema, type: 'object', properties, 'x-kubernetes-group-version-kind': [gvkExtension(r.group, r.version, r.kind)] };
}

function dropNullable(v: JsonValue): void {
  if (Array.isArray(v)) v.forEach(dropNullable);
  else if (v && typeof v === 'object') {
    delete v['nullable'];
    Object.values(v).forEach(dropNullable);
  }
}

function kindSchemas(s: SchemaStyle, r: ResourceInfo): Record<string, JsonObject> {
  const name = definitionName(r.group, r.version, r.kind);
  if (r.openAPIV3Schema) {
    return {
      [name]: customResourceKindSchema(s, r, r.openAPIV3Schema),
      ...listSchema(s, r, name),
    };
  }
  const fields = topLevelFields[`${r.group}/${r.kind}`]?.() ?? {
    spec: openObject(`The desired state of the ${r.kind}.`),
    ...(r.hasStatus || r.virtual ? { status: openObject(`The most recently observed status of the ${r.kind}. Read-only.`) } : {}),
  };
  const schemas: Record<string, JsonObject> = {
    [name]: {
      type: 'object',
      description: `${r.kind} (${r.group === '' ? '' : `${r.group}/`}${r.version}). apiVersion, kind and metadata are described exactly; the fields below them are accepted as sent.`,
      properties: { apiVersion: apiVersionField, kind: kindField, metadata: s.field(meta('ObjectMeta'), 'Standard object metadata.', { default: {} }), ...fields },
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-group-version-kind': [gvkExtension(r.group, r.version, r.kind)],
    },
  };
  if (!r.virtual) Object.assign(schemas, listSchema(s, r, name));
  return schemas;
}

function listSchema(s: SchemaStyle, r: ResourceInfo, name: string): Record<string, JsonObject> {
  return {
    [definitionName(r.group, r.version, r.listKind)]: {
      type: 'object',
      description: `${r.listKind} is a list of ${r.kind} objects.`,
      required: ['items'],
      properties: {
        apiVersion: apiVersionField,
        items: { type: 'array', items: s.ref(name), description: `List of ${r.resource}.` },
        kind: kindField,
        metadata: s.field(meta('ListMeta'), 'Standard list metadata.', { default: {} }),
      },
      'x-kubernetes-group-version-kind': [gvkExtension(r.group, r.version, r.listKind)],
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Operations, as a format-neutral model rendered to v3 or v2.

type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'watch' | 'watchlist';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  description: string;
  type: 'string' | 'integer' | 'boolean';
  required?: boolean;
}

interface OperationSpec {
  method: Method;
  path: string;
  operationId: string;
  description: string;
  action: Action;
  gvk: { group: string; version: string; kind: string };
  tag: string;
  params: ParamSpec[];
  /** the request body schema and the media types it is accepted in */
  body?: { schema: string; contentTypes: string[] };
  responses: Array<{ code: '200' | '201' | '202'; description: string; schema: string }>;
  watch?: boolean;
}

interface PathSpec {
  path: string;
  params: ParamSpec[];
  operations: OperationSpec[];
}

const q = (name: string, type: ParamSpec['type'], description: string): ParamSpec => ({ name, in: 'query', type, description });

const pathParams = {
  name: (kind: string): ParamSpec => ({ name: 'name', in: 'path', type: 'string', required: true, description: `name of the ${kind}` }),
  namespace: { name: 'namespace', in: 'path', type: 'string', required: true, description: 'object name and auth scope, such as for teams and projects' } as ParamSpec,
  pretty: q('pretty', 'string', "If 'true', then the output is pretty printed."),
};

const dryRun = q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. The only valid value is "All": all dry run stages are processed.');
const fieldManager = q('fieldManager', 'string', 'A name associated with the actor or entity that is making these changes; at most 128 printable characters.');
const fieldValidation = q(
  'fieldValidation',
  'string',
  'How the server treats unknown or duplicate fields in the request body: Ignore (drop them silently), Warn (drop them and send a warning header for each; the default), or Strict (fail the request with BadRequest listing them).',
);
const force = q('force', 'boolean', 'Force "Apply" requests: re-acquire fields owned by other managers. Must be unset for non-apply patch requests.');
const writeParams = [dryRun, fieldManager, fieldValidation];

const listParams: ParamSpec[] = [
  q('allowWatchBookmarks', 'boolean', 'Requests watch events with type "BOOKMARK". Ignored unless watch is set.'),
  q('continue', 'string', 'The continue token from a previous list call with the same query, to get the next page.'),
  q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  q('limit', 'integer', 'The maximum number of responses to return; more may be fetched with the returned continue token.'),
  q('resourceVersion', 'string', 'Constrains which resource versions a request may be served from.'),
  q('resourceVersionMatch', 'string', 'How resourceVersion is applied to list calls: NotOlderThan or Exact.'),
  q('sendInitialEvents', 'boolean', 'With watch and resourceVersionMatch=NotOlderThan, starts the watch with synthetic ADDED events for the current state.'),
  q('timeoutSeconds', 'integer', 'Timeout for the list/watch call, regardless of activity.'),
  q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
];

const deleteParams: ParamSpec[] = [
  dryRun,
  q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted; zero means delete immediately.'),
  q('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean', 'If set, an object whose stored form cannot be read is deleted anyway (unsafe).'),
  q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependent objects should be orphaned.'),
  q('propagationPolicy', 'string', 'Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
];

/** Every patch media type the REST handlers accept, but strategic merge patch: see the header comment. */
const patchContentTypes = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];

function resourcePaths(r: ResourceInfo): PathSpec[] {
  const prefix = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const G = groupIdentifier(r.group);
  const V = capitalize(r.version);
  const ns = r.namespaced ? 'Namespaced' : '';
  const kindDef = definitionName(r.group, r.version, r.kind);
  const listDef = definitionName(r.group, r.version, r.listKind);
  const status = meta('Status');
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const tag = tagOf(r.group, r.version);
  const has = (v: string): boolean => (r.verbs as string[]).includes(v);
  const op = (o: Omit<OperationSpec, 'gvk' | 'tag'> & Partial<Pick<OperationSpec, 'gvk'>>): OperationSpec => ({ gvk, tag, ...o });

  const collectionPath = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
  const itemPath = `${collectionPath}/{name}`;
  const scopeParams = r.namespaced ? [pathParams.namespace, pathParams.pretty] : [pathParams.pretty];
  const itemParams = [pathParams.name(r.kind), ...scopeParams];
  const objectResponses = (codes: Array<'200' | '201' | '202'>, schema = kindDef): OperationSpec['responses'] =>
    codes.map((code) => ({ code, description: code === '200' ? 'OK' : code === '201' ? 'Created' : 'Accepted', schema }));
  const paths: PathSpec[] = [];

  const collectionOps: OperationSpec[] = [];
  if (has('list')) collectionOps.push(op({ method: 'get', path: collectionPath, action: 'list', operationId: `list${G}${V}${ns}${r.kind}`, description: `list or watch objects of kind ${r.kind}`, params: listParams, responses: objectResponses(['200'], listDef) }));
  if (has('create')) {
    collectionOps.push(
      op({
        method: 'post',
        path: collectionPath,
        action: 'post',
        operationId: `create${G}${V}${ns}${r.kind}`,
        description: `create a ${r.kind}`,
        params: writeParams,
        body: { schema: kindDef, contentTypes: ['*/*'] },
        responses: objectResponses(['200', '201', '202']),
      }),
    );
  }
  if (has('deletecollection')) {
    collectionOps.push(
      op({
        method: 'delete',
        path: collectionPath,
        action: 'deletecollection',
        operationId: `delete${G}${V}Collection${ns}${r.kind}`,
        description: `delete collection of ${r.kind}`,
        params: [...deleteParams, ...listParams.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks')],
        body: { schema: meta('DeleteOptions'), contentTypes: ['*/*'] },
        responses: objectResponses(['200'], status),
      }),
    );
  }
  if (collectionOps.length) paths.push({ path: collectionPath, params: scopeParams, operations: collectionOps });

  const itemOps: OperationSpec[] = [];
  if (has('get')) itemOps.push(op({ method: 'get', path: itemPath, action: 'get', operationId: `read${G}${V}${ns}${r.kind}`, description: `read the specified ${r.kind}`, params: [], responses: objectResponses(['200']) }));
  if (has('update')) {
    itemOps.push(op({ method: 'put', path: itemPath, action: 'put', operationId: `replace${G}${V}${ns}${r.kind}`, description: `replace the specified ${r.kind}`, params: writeParams, body: { schema: kindDef, contentTypes: ['*/*'] }, responses: objectResponses(['200', '201']) }));
  }
  if (has('patch')) {
    itemOps.push(
      op({
        method: 'patch',
        path: itemPath,
        action: 'patch',
        operationId: `patch${G}${V}${ns}${r.kind}`,
        description: `partially update the specified ${r.kind}`,
        params: [...writeParams, force],
        body: { schema: meta('Patch'), contentTypes: patchContentTypes },
        responses: objectResponses(['200', '201']),
      }),
    );
  }
  if (has('delete')) {
    itemOps.push(
      op({
        method: 'delete',
        path: itemPath,
        action: 'delete',
        operationId: `delete${G}${V}${ns}${r.kind}`,
        description: `delete a ${r.kind}`,
        params: deleteParams,
        body: { schema: meta('DeleteOptions'), contentTypes: ['*/*'] },
        responses: objectResponses(['200', '202'], status),
      }),
    );
  }
  if (itemOps.length) paths.push({ path: itemPath, params: itemParams, operations: itemOps });

  if (r.namespaced && has('list')) {
    const p = `${prefix}/${r.resource}`;
    paths.push({
      path: p,
      params: [pathParams.pretty],
      operations: [op({ method: 'get', path: p, action: 'list', operationId: `list${G}${V}${r.kind}ForAllNamespaces`, description: `list or watch objects of kind ${r.kind}`, params: listParams, responses: objectResponses(['200'], listDef) })],
    });
  }

  if (has('watch')) {
    const watchDef = meta('WatchEvent');
    const w = (path: string, params: ParamSpec[], action: 'watch' | 'watchlist', operationId: string, description: string): PathSpec => ({
      path,
      params: [...params, ...listParams],
      operations: [op({ method: 'get', path, action, operationId, description, params: [], responses: objectResponses(['200'], watchDef), watch: true })],
    });
    const wprefix = r.namespaced ? `${prefix}/watch/namespaces/{namespace}/${r.resource}` : `${prefix}/watch/${r.resource}`;
    const scopeOnly = r.namespaced ? [pathParams.namespace] : [];
    paths.push(w(wprefix, scopeOnly, 'watchlist', `watch${G}${V}${ns}${r.kind}List`, `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`));
    paths.push(w(`${wprefix}/{name}`, [pathParams.name(r.kind), ...scopeOnly], 'watch', `watch${G}${V}${ns}${r.kind}`, `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`));
    if (r.namespaced) {
      paths.push(w(`${prefix}/watch/${r.resource}`, [], 'watchlist', `watch${G}${V}${r.kind}ListForAllNamespaces`, `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`));
    }
  }

  const subresource = (name: 'status' | 'scale', schema: string, subGvk: OperationSpec['gvk'], what: string): PathSpec => {
    const path = `${itemPath}/${name}`;
    const Sub = capitalize(name);
    return {
      path,
      params: itemParams,
      operations: [
        op({ method: 'get', path, action: 'get', gvk: subGvk, operationId: `read${G}${V}${ns}${r.kind}${Sub}`, description: `read ${what} of the specified ${r.kind}`, params: [], responses: objectResponses(['200'], schema) }),
        op({ method: 'put', path, action: 'put', gvk: subGvk, operationId: `replace${G}${V}${ns}${r.kind}${Sub}`, description: `replace ${what} of the specified ${r.kind}`, params: writeParams, body: { schema, contentTypes: ['*/*'] }, responses: objectResponses(['200', '201'], schema) }),
        op({ method: 'patch', path, action: 'patch', gvk: subGvk, operationId: `patch${G}${V}${ns}${r.kind}${Sub}`, description: `partially update ${what} of the specified ${r.kind}`, params: [...writeParams, force], body: { schema: meta('Patch'), contentTypes: patchContentTypes }, responses: objectResponses(['200', '201'], schema) }),
      ],
    };
  };
  if (r.subresources.scale) paths.push(subresource('scale', scaleDefinition, { group: 'autoscaling', version: 'v1', kind: 'Scale' }, 'scale'));
  if (r.subresources.status) paths.push(subresource('status', kindDef, gvk, 'status'));
  return paths;
}

/** The resources and schemas one document covers, with paths sorted as kube-openapi emits them. */
function documentParts(s: SchemaStyle, resources: readonly ResourceInfo[], gv: { group: string; version: string }): { paths: PathSpec[]; schemas: Record<string, JsonObject> } {
  const paths = resources.flatMap(resourcePaths).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let schemas: Record<string, JsonObject> = { ...metaSchemas(s, gv.group, gv.version) };
  for (const r of resources) schemas = { ...schemas, ...kindSchemas(s, r) };
  if (resources.some((r) => r.subresources.scale)) schemas = { ...schemas, ...scaleSchemas(s) };
  const sorted: Record<string, JsonObject> = {};
  for (const k of Object.keys(schemas).sort()) sorted[k] = schemas[k]!;
  return { paths, schemas: sorted };
}

function operationExtensions(o: OperationSpec): JsonObject {
  return { 'x-kubernetes-action': o.action, 'x-kubernetes-group-version-kind': gvkExtension(o.gvk.group, o.gvk.version, o.gvk.kind) };
}

const unauthorized: JsonObject = { description: 'Unauthorized' };

function responseMediaTypes(o: OperationSpec): string[] {
  return o.watch || o.action === 'list' ? ['application/json', 'application/json;stream=watch'] : ['application/json'];
}

// ---------------------------------------------------------------------------------------------------------
// OpenAPI v3

export interface OpenAPIV3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, JsonObject>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject> };
  security: JsonObject[];
}

const bearerToken: JsonObject = { type: 'apiKey', in: 'header', name: 'authorization', description: 'Bearer Token authentication' };

function v3Parameter(p: ParamSpec): JsonObject {
  const o: JsonObject = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) o['required'] = true;
  return o;
}

function v3Operation(o: OperationSpec): JsonObject {
  const responses: JsonObject = {};
  for (const r of o.responses) {
    const content: JsonObject = {};
    for (const mt of responseMediaTypes(o)) content[mt] = { schema: v3Style.ref(r.schema) };
    responses[r.code] = { description: r.description, content };
  }
  responses['401'] = unauthorized;
  const op: JsonObject = { tags: [o.tag], description: o.description, operationId: o.operationId };
  // Inline, never $ref: QueryParamVerifierV3 reads parameter names off the PATCH operation itself.
  if (o.params.length) op['parameters'] = o.params.map(v3Parameter);
  if (o.body) {
    const content: JsonObject = {};
    for (const mt of o.body.contentTypes) content[mt] = { schema: v3Style.ref(o.body.schema) };
    op['requestBody'] = { content, required: o.method !== 'delete' };
  }
  op['responses'] = responses;
  return { ...op, ...operationExtensions(o) };
}

/** The OpenAPI v3 document of one group version, or undefined when nothing is served there. */
export function openAPIV3Document(index: ResourceIndex, group: string, version: string): OpenAPIV3Document | undefined {
  const resources = index.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  const { paths, schemas } = documentParts(v3Style, resources, { group, version });
  const out: Record<string, JsonObject> = {};
  for (const p of paths) {
    const item: JsonObject = {};
    for (const o of p.operations) item[o.method] = v3Operation(o);
    item['parameters'] = p.params.map(v3Parameter);
    out[p.path] = item;
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: mirroredKubernetesVersion.gitVersion },
    paths: out,
    components: { schemas, securitySchemes: { BearerToken: bearerToken } },
    security: [{ BearerToken: [] }],
  };
}

/** "api/v1", "apis/apps/v1": the keys of the v3 root, as openapi3.GroupVersionToAPIPath makes them. */
export function v3PathKey(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

export interface OpenAPIV3Root {
  paths: Record<string, { serverRelativeURL: string }>;
}

interface RenderedDocument {
  body: string;
  hash: string;
}

/** Renders documents and remembers them until the index changes (its generation moves). */
class DocumentCache {
  private generation = -1;
  private docs = new Map<string, RenderedDocument | undefined>();
  constructor(private readonly index: ResourceIndex) {}

  private sync(): void {
    if (this.generation !== this.index.generation) {
      this.docs.clear();
      this.generation = this.index.generation;
    }
  }

  get(key: string, render: () => object | undefined): RenderedDocument | undefined {
    this.sync();
    if (!this.docs.has(key)) {
      const doc = render();
      const body = doc === undefined ? undefined : JSON.stringify(doc);
      this.docs.set(key, body === undefined ? undefined : { body, hash: contentHash(body) });
    }
    return this.docs.get(key);
  }

  v3(group: string, version: string): RenderedDocument | undefined {
    return this.get(`v3:${group}/${version}`, () => openAPIV3Document(this.index, group, version));
  }
}

function serverRelativeURL(key: string, hash: string): string {
  return `/openapi/v3/${key}?hash=${hash}`;
}

function defaultV3Hash(index: ResourceIndex): (group: string, version: string) => string | undefined {
  return (g, v) => {
    const doc = openAPIV3Document(index, g, v);
    return doc && contentHash(JSON.stringify(doc));
  };
}

/** The /openapi/v3 root: one entry per served group version, its URL pinned to the document's hash. */
export function openAPIV3Root(index: ResourceIndex, hashOf: (group: string, version: string) => string | undefined = defaultV3Hash(index)): OpenAPIV3Root {
  const paths: OpenAPIV3Root['paths'] = {};
  for (const g of index.groups()) {
    for (const v of g.versions) {
      const hash = hashOf(g.group, v);
      if (hash !== undefined) paths[v3PathKey(g.group, v)] = { serverRelativeURL: serverRelativeURL(v3PathKey(g.group, v), hash) };
    }
  }
  return { paths };
}

// ---------------------------------------------------------------------------------------------------------
// OpenAPI v2 (Swagger 2.0)

export interface SwaggerV2Document {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, JsonObject>;
  definitions: Record<string, JsonObject>;
  securityDefinitions: Record<string, JsonObject>;
  security: JsonObject[];
}

function v2Parameter(p: ParamSpec): JsonObject {
  const o: JsonObject = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) o['required'] = true;
  return o;
}

function v2Operation(o: OperationSpec): JsonObject {
  const responses: JsonObject = {};
  for (const r of o.responses) responses[r.code] = { description: r.description, schema: v2Style.ref(r.schema) };
  responses['401'] = unauthorized;
  const params: JsonValue[] = [];
  if (o.body) params.push({ name: 'body', in: 'body', required: o.method !== 'delete', schema: v2Style.ref(o.body.schema) });
  params.push(...o.params.map(v2Parameter));
  const op: JsonObject = {
    description: o.description,
    consumes: o.body ? o.body.contentTypes : ['*/*'],
    produces: responseMediaTypes(o),
    schemes: ['https'],
    tags: [o.tag],
    operationId: o.operationId,
  };
  if (params.length) op['parameters'] = params;
  op['responses'] = responses;
  return { ...op, ...operationExtensions(o) };
}

/** The single Swagger 2.0 document covering every served group version. */
export function swaggerV2Document(index: ResourceIndex): SwaggerV2Document {
  const paths: Record<string, JsonObject> = {};
  let definitions: Record<string, JsonObject> = {};
  for (const g of index.groups()) {
    for (const v of g.versions) {
      const parts = documentParts(v2Style, index.inGroupVersion(g.group, v), { group: g.group, version: v });
      for (const p of parts.paths) {
        const item: JsonObject = {};
        for (const o of p.operations) item[o.method] = v2Operation(o);
        item['parameters'] = p.params.map(v2Parameter);
        paths[p.path] = item;
      }
      for (const [name, schema] of Object.entries(parts.schemas)) {
        // Shared meta types appear once; their GVK lists accumulate every group version, as in kube's v2 document.
        const existing = definitions[name];
        const gvks = existing?.['x-kubernetes-group-version-kind'];
        const more = schema['x-kubernetes-group-version-kind'];
        if (existing && Array.isArray(gvks) && Array.isArray(more)) {
          const seen = new Set(gvks.map((x) => JSON.stringify(x)));
          existing['x-kubernetes-group-version-kind'] = [...gvks, ...more.filter((x) => !seen.has(JSON.stringify(x)))];
        } else if (!existing) {
          definitions[name] = schema;
        }
      }
    }
  }
  const sortedPaths: Record<string, JsonObject> = {};
  for (const k of Object.keys(paths).sort()) sortedPaths[k] = paths[k]!;
  const sortedDefs: Record<string, JsonObject> = {};
  for (const k of Object.keys(definitions).sort()) sortedDefs[k] = definitions[k]!;
  definitions = sortedDefs;
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: mirroredKubernetesVersion.gitVersion },
    paths: sortedPaths,
    definitions,
    securityDefinitions: { BearerToken: bearerToken },
    security: [{ BearerToken: [] }],
  };
}

// ---------------------------------------------------------------------------------------------------------
// HTTP

function notAcceptable(): StatusError {
  return new StatusError(406, 'NotAcceptable', 'only the following media types are accepted: application/json', {});
}

/** JSON is what we serve; protobuf-only requests (client-go's v2 and v3 protobuf clients) get 406. */
function acceptsJSON(req: Request): boolean {
  const ranges = parseAccept(req.headers.accept);
  return ranges.length === 0 || ranges.some(acceptsPlainJSON);
}

/** http.ServeContent with a strong ETag: 304 on a matching If-None-Match, otherwise the JSON body. */
function serveWithETag(req: Request, res: Response, doc: RenderedDocument): void {
  const etag = JSON.stringify(doc.hash);
  res.setHeader('ETag', etag);
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    res.status(304).end();
    return;
  }
  sendBody(res, 200, 'application/json', doc.body);
}

/** Mounts /openapi/v2, /openapi/v3, /openapi/v3/api/<version>, /openapi/v3/apis/<group>/<version>. */
export function openapiRouter(index: ResourceIndex): Router {
  const router = Router();
  const cache = new DocumentCache(index);

  router.get('/openapi/v3', (req, res) => {
    const root = cache.get('v3:root', () => openAPIV3Root(index, (g, v) => cache.v3(g, v)?.hash));
    serveWithETag(req, res, root!);
  });

  const serveGroupVersion = (req: Request, res: Response, group: string, version: string): void => {
    res.setHeader('Vary', 'Accept');
    const doc = cache.v3(group, version);
    if (!doc) return writeError(res, notFoundError());
    if (!acceptsJSON(req)) return writeError(res, notAcceptable());
    const hash = typeof req.query['hash'] === 'string' ? req.query['hash'] : undefined;
    if (hash !== undefined && hash !== '') {
      // A stale hash means the client holds an old root: send it to the current document (handler3 does the same).
      if (hash !== doc.hash) {
        res.redirect(301, serverRelativeURL(v3PathKey(group, version), doc.hash));
        return;
      }
      // A hashed URL names exactly one document, so clients may cache it for good.
      res.setHeader('Cache-Control', 'public, immutable');
      res.setHeader('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
    }
    serveWithETag(req, res, doc);
  };

  router.get('/openapi/v3/api/:version', (req, res) => serveGroupVersion(req, res, '', req.params.version));
  router.get('/openapi/v3/apis/:group/:version', (req, res) => serveGroupVersion(req, res, req.params.group, req.params.version));

  router.get('/openapi/v2', (req, res) => {
    res.setHeader('Vary', 'Accept');
    if (!acceptsJSON(req)) return writeError(res, notAcceptable());
    serveWithETag(req, res, cache.get('v2', () => swaggerV2Document(index))!);
  });

  return router;
}
