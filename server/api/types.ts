// Kubernetes API object shapes shared by every layer, with the JSON field names of the v1 API.

/** A JSON value as it comes off the wire. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
}

/** Any Kubernetes object: typed metadata, the rest left open. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  // Objects carry arbitrary spec/status/data fields; each resource's strategy narrows them.
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid'
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge';

export interface StatusCause {
  reason?: CauseType | string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.StatusReason values kube-apiserver sends. */
export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable';

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason | string;
  details?: StatusDetails;
  code: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/** authentication.k8s.io/v1 UserInfo, as authentication produces it and admission sees it. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** "apps/v1" or "v1" for the core group. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Splits "apps/v1" into {group:"apps", version:"v1"} and "v1" into {group:"", version:"v1"}. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
