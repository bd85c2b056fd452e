// One served resource, described as data: adding a resource to the apiserver is one ResourceInfo entry.
import type { FieldError } from '../api/field.js';
import type { KubeObject, UserInfo } from '../api/types.js';
import type { GarbageCollectionPolicy } from './deletion-finalizers.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const allVerbs: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Which validation kube-apiserver applies to metadata.name for this resource. */
export type NameRule = 'DNS1123Subdomain' | 'DNS1123Label' | 'PathSegment';

/** A column of the Table the server prints for `kubectl get` (additionalPrinterColumns). */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** 0 shows by default; 1 only with -o wide */
  priority?: number;
  /** the column's OpenAPI format (additionalPrinterColumns[].format) */
  format?: string;
  description?: string;
  /** simple JSONPath over the object (".status.phase"), or a computed cell */
  jsonPath?: string;
  compute?: (obj: KubeObject) => string | number | boolean | null;
  /** the whole cell, rendered by the resource's own table convertor (custom resources); wins over jsonPath */
  cell?: (obj: KubeObject, now: Date) => string | number | boolean | null;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/**
 * How a resource served at several versions keeps its objects (custom resources): stored in one storage
 * version, converted on every write and read. Without a codec, objects are stored as served.
 */
export interface StorageCodec {
  /** the served version → the storage version */
  toStorage(obj: KubeObject): Promise<KubeObject>;
  /** the storage version → the served version, with what kube applies on decode (defaults, pruning) */
  fromStorage(objs: KubeObject[]): Promise<KubeObject[]>;
}

/** Per-resource behaviour on write: the rest.RESTCreateStrategy/RESTUpdateStrategy of kube-apiserver. */
export interface Strategy {
  /**
   * Loads what validation needs before the first write (the store awaits it before create and update), so a
   * strategy with heavy validators (CRDs: structural schemas, CEL rules) costs nothing at startup.
   */
  prepare?(): Promise<void>;
  /**
   * kube's PrepareForCreate beyond the generic system fields: what the strategy takes from the request (a CSR's
   * spec.username/groups/uid from the requesting user) or clears (a CSR's status). Runs before the defaults.
   */
  prepareForCreate?(obj: KubeObject, user: UserInfo): void;
  /**
   * kube's PrepareForUpdate beyond the generic status/spec split: `subresource` is '' for the main resource,
   * 'status' or another subresource with its own strategy (a CSR's 'approval'); `next` is changed in place.
   */
  prepareForUpdate?(next: KubeObject, old: KubeObject, subresource: string): void;
  /** Defaulting applied before admission validation and storage (the registry's defaulters). */
  applyDefaults?(obj: KubeObject): void;
  /**
   * The resource keeps the status a create sends (kube's node strategy: "Nodes allow *all* fields, including
   * status, to be set on create"); otherwise a create's status is reset, as most strategies' PrepareForCreate do.
   */
  statusOnCreate?: boolean;
  /**
   * The status strategy's PrepareForUpdate beyond "status only": runs on /status writes after defaulting, with the
   * stored object (kube's PV status strategy stamps status.lastPhaseTransitionTime when the phase changes).
   */
  prepareStatusUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Resource-specific create validation (metadata is validated generically). */
  validate?(obj: KubeObject): FieldError[];
  /** Resource-specific update validation, including immutable fields. */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * rest.BeforeCreate/BeforeUpdate's Canonicalize: normalizes a valid object before validating admission and
   * storage (kube repacks Endpoints subsets).
   */
  canonicalize?(obj: KubeObject): void;
  /**
   * When set, DELETE only marks the object (deletionTimestamp, then this hook, e.g. phase Terminating) and a
   * controller finishes the deletion once pendingFinalization says nothing is left (namespaces).
   */
  gracefulDelete?(obj: KubeObject): void;
  /** Warnings for the client on create and update (kube's WarningsOnCreate/WarningsOnUpdate). */
  warningsOnCreate?(obj: KubeObject): string[];
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
  /** Finalization the resource tracks outside metadata.finalizers (a namespace's spec.finalizers). */
  pendingFinalization?(obj: KubeObject): boolean;
  /**
   * Unknown fields of a request body ("spec.foo"), for fieldValidation, when the resource has a schema for
   * them (custom resources); the known-fields table is used otherwise.
   */
  unknownFields?(obj: KubeObject): string[];
  /**
   * rest.GarbageCollectionDeleteStrategy's DefaultGarbageCollectionPolicy: which GC finalizer a DELETE without a
   * propagation policy adds. Unset means kube's default for current versions (background: no finalizer);
   * 'Unsupported' (events) means DELETE never adds one.
   */
  defaultGarbageCollectionPolicy?: GarbageCollectionPolicy;
  /**
   * Subresources that write part of the object through their own strategy (pods/ephemeralcontainers,
   * pods/resize): kube's per-subresource strategies' PrepareForUpdate (which keeps all but their fields of the
   * stored object) and ValidateUpdate, used instead of the main resource's.
   */
  subresourceUpdates?: Readonly<Record<string, SubresourceUpdateStrategy>>;
  /** A create the resource refuses outright (kube: no creates while a CRD is terminating), as a Status error. */
  refuseCreate?(): Error | undefined;
}

export interface SubresourceUpdateStrategy {
  /** the object to write: the stored one with only this subresource's fields taken from `desired` */
  prepareForUpdate(desired: KubeObject, old: KubeObject): KubeObject;
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
}

/** A create-only resource answered by the server itself and never stored (tokenreviews, subjectaccessreviews, …). */
export interface VirtualHandlerContext {
  user: UserInfo;
  namespace?: string;
}

export interface ResourceInfo {
  group: string;
  version: string;
  /** plural, lower case */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  subresources: {
    status?: boolean;
    scale?: ScaleSubresource;
    /** certificatesigningrequests/approval: a write of status.conditions alone (kube's ApprovalREST) */
    approval?: boolean;
  };
  nameRule: NameRule;
  /** metadata.generation is kept and bumped on every change outside metadata and status */
  hasGeneration: boolean;
  /** the top-level field that only the status subresource may change */
  hasStatus: boolean;
  printerColumns: PrinterColumn[];
  /**
   * kube's warning for a deprecated API (apiserver's deprecation.WarningMessage), sent on every request to the
   * resource: "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice".
   */
  deprecationWarning?: string;
  /** the Name cell when kube's printer decorates it (a default StorageClass is printed "name (default)") */
  nameCell?: (obj: KubeObject) => string;
  strategy: Strategy;
  /** set for virtual resources: answered by the server, never stored */
  virtual?: 'authentication' | 'authorization';
  /** objects are stored in another version and converted (custom resources) */
  codec?: StorageCodec;
  /**
   * the API group whose collection holds the objects when it is not this one: kube's cohabitating resources
   * (events.k8s.io events are the core group's events, one storage for both shapes, converted by `codec`)
   */
  storageGroup?: string;
  /** the version objects are stored in when it is not this one (custom resources); discovery's storageVersionHash hashes it */
  storageVersion?: string;
  /** the kind's OpenAPI v3 schema when the server knows it (custom resources), for the OpenAPI documents */
  openAPIV3Schema?: Record<string, unknown>;
}

/**
 * Whether the resource's objects are custom resources (schema-described, untyped), as opposed to built-in kinds,
 * which keep their typed handling even when a codec converts them (events.k8s.io/v1 events are core/v1 events).
 */
export function isCustomResource(info: Pick<ResourceInfo, 'codec' | 'openAPIV3Schema'>): boolean {
  return info.openAPIV3Schema !== undefined || (info.codec !== undefined && !builtinCodecs.has(info.codec));
}

/** The codecs of built-in kinds (served in two shapes from one storage): marked so that their objects stay typed. */
const builtinCodecs = new WeakSet<StorageCodec>();
export function builtinCodec(codec: StorageCodec): StorageCodec {
  builtinCodecs.add(codec);
  return codec;
}

export function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
