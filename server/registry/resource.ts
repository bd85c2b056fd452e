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
  /** Defaulting applied before admission validation and storage (the registry's defaulters). */
  applyDefaults?(obj: KubeObject): void;
  /** Resource-specific create validation (metadata is validated generically). */
  validate?(obj: KubeObject): FieldError[];
  /** Resource-specific update validation, including immutable fields. */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
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
  };
  nameRule: NameRule;
  /** metadata.generation is kept and bumped on every change outside metadata and status */
  hasGeneration: boolean;
  /** the top-level field that only the status subresource may change */
  hasStatus: boolean;
  printerColumns: PrinterColumn[];
  strategy: Strategy;
  /** set for virtual resources: answered by the server, never stored */
  virtual?: 'authentication' | 'authorization';
  /** objects are stored in another version and converted (custom resources) */
  codec?: StorageCodec;
  /** the version objects are stored in when it is not this one (custom resources); discovery's storageVersionHash hashes it */
  storageVersion?: string;
  /** the kind's OpenAPI v3 schema when the server knows it (custom resources), for the OpenAPI documents */
  openAPIV3Schema?: Record<string, unknown>;
}

export function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
