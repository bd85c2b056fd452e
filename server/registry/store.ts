// The generic REST store (kube-apiserver's genericregistry.Store): metadata management, status and generation
// rules, finalizers and graceful deletion, admission call points, and storage with optimistic concurrency.
import { randomUUID } from 'node:crypto';
import { newReinvocationContext, type AdmissionAttributes, type AdmissionOperation } from '../admission/attributes.js';
import { dedupOwnerReferencesWithWarning, resetInvalidManagedFields } from '../admission/mutation-cleanups.js';
import type { AdmissionChain } from '../admission/chain.js';
import { errors, StatusError, type GroupResource } from '../api/errors.js';
import { fieldErrors, type FieldError } from '../api/field.js';
import { apiVersionOf, parseApiVersion, type KubeList, type KubeObject, type ObjectMeta } from '../api/types.js';
import type { Preconditions, Storage, StorageWatch, WatchHandlers } from '../storage/interface.js';
import { StorageError } from '../storage/interface.js';
import { checkPreconditions } from '../storage/stored-object.js';
import { collectionKey, objectKey } from '../storage/keys.js';
import { deletionFinalizersForGarbageCollection, type PropagationOptions } from './deletion-finalizers.js';
import { deepCopy, finalizersOf, generateName, jsonEqual, metaOf, specPart } from './object-fields.js';
import type { RequestContext } from './request-context.js';
import type { ResourceInfo } from './resource.js';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './validation/object-meta.js';
import { currentRfc3339Seconds, rfc3339Seconds } from '../api/current-second.js';

export interface StoreDeps {
  storage: Storage;
  /** --etcd-prefix */
  prefix: string;
  admission: AdmissionChain;
  now?: () => Date;
  /** told about every successful (non-dry-run) write as it returns, before the client sees the response */
  onWrite?: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject) => void;
  /**
   * A check of the registry itself on create and update, before admission (kube's RBAC storage wrappers refuse
   * privilege escalation there); `old` is the stored object on update. A returned error refuses the write.
   */
  guardWrite?: (ctx: RequestContext, name: string, obj: KubeObject, old: KubeObject | undefined) => StatusError | undefined;
}

export interface ListQuery {
  predicate?: (obj: KubeObject) => boolean;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

/**
 * How admission sees a write to a subresource that has its own kind (deployments/scale → autoscaling/v1 Scale):
 * plugins get the view of the parent, and what they change in the view is written back to the parent.
 */
export interface SubresourceView {
  subresource: string;
  kind: { group: string; version: string; kind: string };
  from(parent: KubeObject): KubeObject;
  into(parent: KubeObject, view: KubeObject): KubeObject;
}

export interface DeleteOptions extends PropagationOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  object: KubeObject;
  /** false when the object was only marked for deletion (finalizers pending) */
  deleted: boolean;
}

/** Storage errors become the Status kube-apiserver's interpretStorageError produces. */
export function storageErrorToStatus(err: unknown, gr: GroupResource, name: string, operation: string): StatusError {
  if (err instanceof StatusError) return err;
  if (!(err instanceof StorageError)) return errors.internal(err);
  switch (err.code) {
    case 'KeyNotFound':
      return errors.notFound(gr, name);
    case 'KeyExists':
      return errors.alreadyExists(gr, name);
    case 'Conflict':
      // kube: a failed storage.Preconditions.Check is an invalid-object StorageError that NewConflict prints whole
      // (k8s.io/apiserver/pkg/storage/errors.go StorageError.Error, ResourceVersion 0 as NewInvalidObjError leaves it).
      if (err.message.startsWith('Precondition failed')) {
        return errors.conflict(gr, name, `StorageError: invalid object, Code: 4, Key: ${err.key}, ResourceVersion: 0, AdditionalErrorMsg: ${err.message}`);
      }
      return errors.staleResourceVersion(gr, name);
    case 'ResourceVersionTooOld':
      return errors.resourceExpired(err.message);
    case 'RequestTooLarge':
      // kube passes etcd's error on unchanged (after one retry without managedFields, see create): ErrorToAPIStatus
      // answers a plain error with a 500 without a reason and the error's text as the message.
      return new StatusError(500, '', err.message);
    case 'Unavailable':
      // kube: storage.ErrCodeUnreachable → NewServerTimeout(resource, operation, 2)
      return new StatusError(500, 'ServerTimeout', `The ${operation} operation against ${gr.group ? `${gr.resource}.${gr.group}` : gr.resource} could not be completed at this time, please try again.`, {
        name: name || undefined,
        group: gr.group || undefined,
        kind: gr.resource,
        retryAfterSeconds: 2,
        causes: [{ message: err.message }],
      });
    case 'InvalidObject':
      if (err.message.startsWith('Too large resource version')) {
        // kube: storage.NewTooLargeResourceVersionError → 504 Timeout with a ResourceVersionTooLarge cause
        const e = errors.timeout(err.message, 1);
        e.status.details = { ...e.status.details, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] };
        return e;
      }
      if (err.message.startsWith('invalid continue token')) return errors.badRequest(err.message);
      return errors.internal(err);
    default:
      return errors.internal(err);
  }
}

export interface CreateCallOptions {
  /** the caller hands the body over and does not use it afterwards, so create need not copy it first */
  bodyIsOwned?: boolean;
  /** records the write in metadata.managedFields (kube's field manager), on the defaulted object before admission */
  trackManagedFields?: ManagedFieldsTracker;
  /**
   * The server's own creates only (startup objects): the status the owning controller would write right after,
   * stored with the object in one write instead of a create and a /status update.
   */
  initialStatus?: Record<string, unknown>;
}

/**
 * Updates metadata.managedFields of `next` for a write from `old` (undefined on create). kube's handlers run the
 * field manager on the decoded (so defaulted) object before admission; the REST layer passes it in.
 */
export type ManagedFieldsTracker = (old: KubeObject | undefined, next: KubeObject) => void | Promise<void>;

export class ResourceStore {
  readonly gr: GroupResource;
  constructor(
    readonly info: ResourceInfo,
    private readonly deps: StoreDeps,
  ) {
    this.gr = { group: info.group, resource: info.resource };
  }

  private now(): string {
    // RFC 3339 with second precision, as metav1.Time serializes.
    if (this.deps.now) return rfc3339Seconds(this.deps.now());
    return currentRfc3339Seconds();
  }

  key(namespace: string, name: string): string {
    return objectKey(this.deps.prefix, this.info.storageGroup ?? this.info.group, this.info.resource, this.info.namespaced ? namespace : undefined, name);
  }

  collection(namespace: string): string {
    return collectionKey(this.deps.prefix, this.info.storageGroup ?? this.info.group, this.info.resource, this.info.namespaced && namespace ? namespace : undefined);
  }

  private withTypeMeta(obj: KubeObject): KubeObject {
    obj.apiVersion = apiVersionOf(this.info.group, this.info.version);
    obj.kind = this.info.kind;
    return obj;
  }

  /** A stored object in this endpoint's version (custom resources are stored in their storage version). */
  private async decode(obj: KubeObject): Promise<KubeObject> {
    const codec = this.info.codec;
    return this.withTypeMeta(codec ? (await codec.fromStorage([obj]))[0]! : obj);
  }

  private async decodeAll(objs: KubeObject[]): Promise<KubeObject[]> {
    const codec = this.info.codec;
    return (codec && objs.length ? await codec.fromStorage(objs) : objs).map((o) => this.withTypeMeta(o));
  }

  /** An object of this endpoint's version as it is stored. */
  private async encode(obj: KubeObject): Promise<KubeObject> {
    const codec = this.info.codec;
    return codec ? codec.toStorage(deepCopy(obj)) : obj;
  }

  async get(ctx: RequestContext, name: string): Promise<KubeObject> {
    try {
      return await this.decode(await this.deps.storage.get(this.key(ctx.namespace, name)));
    } catch (err) {
      throw storageErrorToStatus(err, this.gr, name, 'get');
    }
  }

  async list(ctx: RequestContext, q: ListQuery): Promise<KubeList> {
    try {
      const res = await this.deps.storage.list(this.collection(ctx.namespace), {
        limit: q.limit,
        continue: q.continue,
        resourceVersion: q.resourceVersion,
        predicate: q.predicate,
      });
      const list: KubeList = {
        apiVersion: apiVersionOf(this.info.group, this.info.version),
        kind: this.info.listKind,
        metadata: { resourceVersion: res.resourceVersion },
        items: await this.decodeAll(res.items),
      };
      if (res.continue) list.metadata.continue = res.continue;
      if (res.remainingItemCount !== undefined) list.metadata.remainingItemCount = res.remainingItemCount;
      return list;
    } catch (err) {
      throw storageErrorToStatus(err, this.gr, '', 'list');
    }
  }

  watch(ctx: RequestContext, fromRevision: string, handlers: WatchHandlers): StorageWatch {
    if (this.info.codec) return this.convertingWatch(ctx, fromRevision, handlers);
    return this.deps.storage.watch(this.collection(ctx.namespace), fromRevision, {
      onEvent: (e) => {
        this.withTypeMeta(e.object);
        if (e.prevObject) this.withTypeMeta(e.prevObject);
        handlers.onEvent(e);
      },
      onError: handlers.onError,
      onProgress: handlers.onProgress,
    });
  }

  /** A watch whose events are converted from the storage version, delivered in order. */
  private convertingWatch(ctx: RequestContext, fromRevision: string, handlers: WatchHandlers): StorageWatch {
    let queue = Promise.resolve();
    let failed = false;
    const watch = this.deps.storage.watch(this.collection(ctx.namespace), fromRevision, {
      onEvent: (e) => {
        queue = queue.then(async () => {
          if (failed) return;
          try {
            const object = await this.decode(e.object);
            const prevObject = e.prevObject ? await this.decode(e.prevObject) : undefined;
            handlers.onEvent({ ...e, object, ...(prevObject ? { prevObject } : {}) });
          } catch (err) {
            // kube ends a watch whose object cannot be converted with an error event
            failed = true;
            watch.stop();
            handlers.onError(new StorageError('InvalidObject', this.collection(ctx.namespace), err instanceof Error ? err.message : String(err)));
          }
        });
      },
      onError: (err) => {
        queue = queue.then(() => handlers.onError(err));
      },
      ...(handlers.onProgress ? { onProgress: (rv: string) => void (queue = queue.then(() => handlers.onProgress!(rv))) } : {}),
    });
    return watch;
  }

  /** Checks apiVersion/kind of a request body against this endpoint, as the decoder does. */
  checkTypeMeta(obj: KubeObject, expect: { group: string; version: string; kind: string } = this.info): void {
    if (obj.apiVersion !== undefined || obj.kind !== undefined) {
      const want = apiVersionOf(expect.group, expect.version);
      if (obj.kind !== undefined && obj.kind !== expect.kind) {
        throw errors.badRequest(`the object provided is unrecognized (must be of type ${expect.kind}): ${obj.kind} in version "${obj.apiVersion ?? ''}" cannot be handled as a ${expect.kind}`);
      }
      if (obj.apiVersion !== undefined && obj.apiVersion !== want) {
        const gv = parseApiVersion(String(obj.apiVersion));
        // Another version of the same group is a conversion kube would do; we serve one version per resource.
        throw errors.badRequest(`the API version in the data (${apiVersionOf(gv.group, gv.version)}) does not match the expected API version (${want})`);
      }
    }
    this.withTypeMeta(obj);
  }

  private checkNamespace(ctx: RequestContext, meta: ObjectMeta): void {
    if (!this.info.namespaced) return;
    if (meta.namespace === undefined || meta.namespace === '') meta.namespace = ctx.namespace;
    else if (meta.namespace !== ctx.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  private validationError(obj: KubeObject, errs: FieldError[]): StatusError {
    return errors.invalid({ group: this.info.group, kind: this.info.kind }, metaOf(obj).name ?? metaOf(obj).generateName ?? '', errs);
  }

  private attributes(ctx: RequestContext, operation: AdmissionOperation, subresource: string, name: string, object: KubeObject | undefined, oldObject: KubeObject | undefined, options: KubeObject): AdmissionAttributes {
    return {
      operation,
      kind: { group: this.info.group, version: this.info.version, kind: this.info.kind },
      resource: { group: this.info.group, version: this.info.version, resource: this.info.resource },
      subresource,
      name,
      namespace: this.admissionNamespace(ctx, name),
      object,
      oldObject,
      options,
      dryRun: ctx.dryRun,
      userInfo: ctx.user,
      annotations: ctx.auditAnnotations,
      warnings: ctx.warnings,
      reinvocation: newReinvocationContext(),
      ...(ctx.deadline !== undefined ? { deadline: ctx.deadline } : {}),
    };
  }

  /**
   * kube's handlers after the mutating chain: managedFields left invalid are reset to what they were before it
   * (fieldmanager's admission wrapper), then duplicate ownerReferences are dropped; each with its warning.
   */
  private cleanUpAfterMutatingAdmission(ctx: RequestContext, obj: KubeObject, managedFieldsBefore: unknown): void {
    const managedFieldsWarning = resetInvalidManagedFields(obj, managedFieldsBefore);
    if (managedFieldsWarning) ctx.warnings.push(managedFieldsWarning);
    const ownerReferencesWarning = dedupOwnerReferencesWithWarning(obj, true);
    if (ownerReferencesWarning) ctx.warnings.push(ownerReferencesWarning);
  }

  /**
   * The namespace admission sees. A Namespace carries its own name, as in kube: the request info takes it from
   * /api/v1/namespaces/<name>[/status|/finalize], and the create handler sets it to the new object's name
   * (handlers/create.go, `scope.Resource == namespaceGVR`).
   */
  private admissionNamespace(ctx: RequestContext, name: string): string {
    if (this.info.namespaced) return ctx.namespace;
    return this.info.group === '' && this.info.resource === 'namespaces' ? name : '';
  }

  private viewAttributes(ctx: RequestContext, view: SubresourceView, name: string, object: KubeObject, oldObject: KubeObject, options: KubeObject): AdmissionAttributes {
    return { ...this.attributes(ctx, 'UPDATE', view.subresource, name, object, oldObject, options), kind: { ...view.kind } };
  }

  /** PrepareForCreate: system fields, status reset, generation, then the resource's defaults. */
  private prepareForCreate(ctx: RequestContext, obj: KubeObject): void {
    const meta = metaOf(obj);
    this.checkNamespace(ctx, meta);
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    meta.uid = randomUUID();
    meta.creationTimestamp = this.now();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (this.info.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    if (this.info.hasStatus && !this.info.strategy.statusOnCreate) delete obj.status;
    this.info.strategy.prepareForCreate?.(obj, ctx.user);
    this.info.strategy.applyDefaults?.(obj);
  }

  private validateCreate(obj: KubeObject): FieldError[] {
    const errs = validateObjectMetaCreate(metaOf(obj), { namespaced: this.info.namespaced, nameRule: this.info.nameRule });
    return errs.concat(this.info.strategy.validate?.(obj) ?? []);
  }

  async create(ctx: RequestContext, body: KubeObject, options: KubeObject, call: CreateCallOptions = {}): Promise<KubeObject> {
    const refused = this.info.strategy.refuseCreate?.();
    if (refused) throw refused;
    await this.info.strategy.prepare?.();
    let obj = call.bodyIsOwned ? body : deepCopy(body);
    this.checkTypeMeta(obj);
    this.prepareForCreate(ctx, obj);
    const refusedWrite = this.deps.guardWrite?.(ctx, '', obj, undefined);
    if (refusedWrite) throw refusedWrite;
    if (call.initialStatus) obj.status = deepCopy(call.initialStatus);
    await call.trackManagedFields?.(undefined, obj);
    const name = metaOf(obj).name ?? '';
    const attrs = this.attributes(ctx, 'CREATE', '', name, obj, undefined, options);
    const managedFieldsBefore = deepCopy(metaOf(obj).managedFields);
    await this.deps.admission.admit(attrs);
    // Mutating admission may have replaced the object; what it produced is what gets validated and stored.
    obj = attrs.object ?? obj;
    this.cleanUpAfterMutatingAdmission(ctx, obj, managedFieldsBefore);
    // kube decodes a webhook's patched object with the scheme's defaulter: what a webhook adds gets defaults too.
    this.info.strategy.applyDefaults?.(obj);
    this.checkTypeMeta(obj);
    const errs = this.validateCreate(obj);
    if (errs.length) throw this.validationError(obj, errs);
    this.info.strategy.canonicalize?.(obj);
    ctx.warnings.push(...(this.info.strategy.warningsOnCreate?.(obj) ?? []));
    await this.deps.admission.validate(this.attributes(ctx, 'CREATE', '', name, obj, undefined, options));
    if (ctx.dryRun) return obj;
    try {
      const key = this.key(ctx.namespace, name);
      let stored: KubeObject;
      try {
        stored = await this.deps.storage.create(key, await this.encode(obj));
      } catch (err) {
        // kube's create handler retries once without managedFields, which can be large (isTooLargeError in
        // k8s.io/apiserver/pkg/endpoints/handlers/create.go and rest.go); a second refusal is the answer.
        if (!(err instanceof StorageError && err.code === 'RequestTooLarge' && metaOf(obj).managedFields !== undefined)) throw err;
        delete metaOf(obj).managedFields;
        stored = await this.deps.storage.create(key, await this.encode(obj));
      }
      const created = await this.decode(stored);
      this.deps.onWrite?.('ADDED', created);
      return created;
    } catch (err) {
      throw storageErrorToStatus(err, this.gr, name, 'create');
    }
  }

  /**
   * Update (PUT) and patch share this path: `transform` turns the stored object into the desired one
   * inside the compare-and-swap loop, so a patch is re-applied if another writer got in first.
   * subresource: '' for the main resource, 'status' for /status.
   */
  async update(
    ctx: RequestContext,
    name: string,
    subresource: string,
    transform: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options: KubeObject,
    /** PUT carries the client's resourceVersion as a precondition; patch does not unless the patch sets it */
    checkResourceVersion = true,
    view?: SubresourceView,
    trackManagedFields?: ManagedFieldsTracker,
  ): Promise<KubeObject> {
    let result: KubeObject | undefined;
    const key = this.key(ctx.namespace, name);
    try {
      let deleteInstead = false;
      const write = async (current: KubeObject | undefined): Promise<KubeObject> => {
        if (!current) throw errors.notFound(this.gr, name);
        const old = await this.decode(deepCopy(current));
        const desired = deepCopy(await transform(deepCopy(old)));
        this.checkTypeMeta(desired);
        const meta = metaOf(desired);
        if (meta.name !== undefined && meta.name !== '' && meta.name !== name) {
          throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
        }
        meta.name = name;
        this.checkNamespace(ctx, meta);
        if (checkResourceVersion && meta.resourceVersion && meta.resourceVersion !== metaOf(old).resourceVersion) {
          throw errors.staleResourceVersion(this.gr, name);
        }
        // Every resource served here allows unconditional updates (kube's AllowUnconditionalUpdate): without a
        // resourceVersion the write applies to whatever is stored.
        if (!meta.resourceVersion) meta.resourceVersion = metaOf(old).resourceVersion;
        await this.info.strategy.prepare?.();
        let next = this.prepareForUpdate(desired, old, subresource);
        const refusedWrite = this.deps.guardWrite?.(ctx, name, next, old);
        if (refusedWrite) throw refusedWrite;
        await trackManagedFields?.(old, next);
        const managedFieldsBefore = deepCopy(metaOf(next).managedFields);
        if (view) {
          const attrs = this.viewAttributes(ctx, view, name, view.from(next), view.from(old), options);
          await this.deps.admission.admit(attrs);
          next = view.into(next, attrs.object!);
        } else {
          const attrs = this.attributes(ctx, 'UPDATE', subresource, name, next, old, options);
          await this.deps.admission.admit(attrs);
          next = attrs.object ?? next;
          this.info.strategy.applyDefaults?.(next);
        }
        this.cleanUpAfterMutatingAdmission(ctx, next, managedFieldsBefore);
        this.checkTypeMeta(next);
        const errs = validateObjectMetaUpdate(metaOf(next), metaOf(old)).concat(this.finalizerRules(next, old), this.validateUpdate(subresource, next, old));
        if (errs.length) throw this.validationError(next, errs);
        this.info.strategy.canonicalize?.(next);
        ctx.warnings.push(...(this.info.strategy.warningsOnUpdate?.(next, old) ?? []));
        await this.deps.admission.validate(
          view ? this.viewAttributes(ctx, view, name, view.from(next), view.from(old), options) : this.attributes(ctx, 'UPDATE', subresource, name, next, old, options),
        );
        result = next;
        // The last finalizer of an object being deleted is gone (kube's ShouldDeleteDuringUpdate): the update is
        // not written, the object is deleted instead.
        deleteInstead = metaOf(next).deletionTimestamp !== undefined && !this.hasPendingFinalizers(next);
        if (ctx.dryRun || deleteInstead) return current; // unchanged: the storage writes nothing
        return this.encode(next);
      };
      const stored = await this.deps.storage.guaranteedUpdate(key, write);
      if (ctx.dryRun) return this.withTypeMeta(result!);
      if (deleteInstead) {
        // kube's deleteWithoutFinalizers: the same object (uid), whatever was written to it since; a concurrent
        // update that emptied the finalizers too may have deleted it first.
        try {
          const last = await this.deps.storage.delete(key, { uid: metaOf(result!).uid ?? '' });
          this.deps.onWrite?.('DELETED', await this.decode(last));
        } catch (err) {
          if (!(err instanceof StorageError && (err.code === 'KeyNotFound' || err.code === 'Conflict'))) throw err;
        }
        // clients expect the updated object from a successful PUT (kube returns the object it did not store)
        return this.withTypeMeta(result!);
      }
      const out = await this.decode(stored);
      this.deps.onWrite?.('MODIFIED', out);
      return out;
    } catch (err) {
      throw storageErrorToStatus(err, this.gr, name, 'update');
    }
  }

  /**
   * A write of the registry itself, past the strategy and admission: kube's BindingREST writes the pod with
   * Storage.GuaranteedUpdate directly. `mutate` throws to abort; nothing is written on a dry run.
   */
  async writeUnadmitted(ctx: RequestContext, name: string, preconditions: Preconditions | undefined, mutate: (current: KubeObject) => KubeObject): Promise<KubeObject> {
    const key = this.key(ctx.namespace, name);
    let result: KubeObject | undefined;
    try {
      const stored = await this.deps.storage.guaranteedUpdate(
        key,
        async (cur) => {
          if (!cur) throw errors.notFound(this.gr, name);
          const next = mutate(await this.decode(deepCopy(cur)));
          result = next;
          return ctx.dryRun ? cur : this.encode(next);
        },
        preconditions ? { preconditions } : {},
      );
      if (ctx.dryRun) return this.withTypeMeta(result!);
      const out = await this.decode(stored);
      this.deps.onWrite?.('MODIFIED', out);
      return out;
    } catch (err) {
      throw storageErrorToStatus(err, this.gr, name, 'update');
    }
  }

  /** The strategy's ValidateUpdate, or the subresource's own (pods/ephemeralcontainers, pods/resize). */
  private validateUpdate(subresource: string, next: KubeObject, old: KubeObject): FieldError[] {
    const own = this.info.strategy.subresourceUpdates?.[subresource];
    return own ? own.validateUpdate(next, old) : (this.info.strategy.validateUpdate?.(next, old) ?? []);
  }

  /** PrepareForUpdate of kube's strategies: who may change status, and generation. */
  private prepareForUpdate(desired: KubeObject, old: KubeObject, subresource: string): KubeObject {
    let next: KubeObject;
    if (subresource === 'status' || subresource === 'approval') {
      // Status strategy (and a CSR's approval strategy, which the resource's own hook narrows to conditions): only status (and nothing in spec or metadata but what kube lets through) changes.
      next = deepCopy(old);
      if (desired.status === undefined) delete next.status;
      else next.status = desired.status;
      metaOf(next).resourceVersion = metaOf(desired).resourceVersion ?? metaOf(old).resourceVersion;
    } else {
      const own = this.info.strategy.subresourceUpdates?.[subresource];
      next = own ? own.prepareForUpdate(desired, old) : desired;
      if (this.info.hasStatus) {
        if (old.status === undefined) delete next.status;
        else next.status = deepCopy(old.status);
      }
    }
    const meta = metaOf(next);
    const oldMeta = metaOf(old);
    // System fields are the server's, whatever the client sent.
    meta.uid = oldMeta.uid;
    meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) {
      meta.deletionTimestamp = oldMeta.deletionTimestamp;
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    // kube compares decoded objects, defaults applied: a spec that differs only by defaults is no change
    this.info.strategy.applyDefaults?.(next);
    // the resource's own rules (a CSR's spec is immutable, its approval writes only conditions; a DaemonSet's template
    // generation), after the defaults and before generation
    this.info.strategy.prepareForUpdate?.(next, old, subresource);
    if (subresource === 'status') this.info.strategy.prepareStatusUpdate?.(next, old);
    if (this.info.hasGeneration) {
      const gen = oldMeta.generation ?? 1;
      meta.generation = jsonEqual(this.generationPart(next), this.generationPart(old)) ? gen : gen + 1;
    } else delete meta.generation;
    return next;
  }

  /**
   * The part of an object whose change bumps metadata.generation. kube's custom resource strategy counts every
   * change outside metadata, status included when the version has no status subresource (status is then an
   * ordinary field); built-in strategies compare their spec. Custom resources are the resources with a codec.
   */
  private generationPart(obj: KubeObject): Record<string, unknown> {
    const part = specPart(obj);
    if (this.info.codec && !this.info.hasStatus && obj.status !== undefined) part['status'] = obj.status;
    return part;
  }

  hasPendingFinalizers(obj: KubeObject): boolean {
    return finalizersOf(metaOf(obj)).length > 0 || (this.info.strategy.pendingFinalization?.(obj) ?? false);
  }

  /** kube: no new finalizers may be added while an object is being deleted. */
  private finalizerRules(next: KubeObject, old: KubeObject): FieldError[] {
    const oldMeta = metaOf(old);
    if (!oldMeta.deletionTimestamp) return [];
    const before = new Set(finalizersOf(oldMeta));
    const added = finalizersOf(metaOf(next)).filter((f) => !before.has(f));
    return added.length ? [fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`)] : [];
  }

  /**
   * kube's Store.Delete: the first read only chooses between marking (finalizers, graceful deletion) and deleting
   * now. Both writes are conditional on the object they admitted, and re-read, re-check the client's preconditions
   * and re-run admission when another writer got in first (a status controller, say): only the preconditions the
   * client sent can make a delete fail with 409, never a write that merely happened meanwhile.
   */
  async delete(
    ctx: RequestContext,
    name: string,
    opts: DeleteOptions,
    options: KubeObject,
    /**
     * admission false: a registry's own delete, admitting nothing. admissionName: the name admission sees, when it is
     * not the object's (DeleteCollection admits each item with the collection request's attributes, name "").
     */
    call: { admission?: boolean; admissionName?: string } = {},
  ): Promise<DeleteResult> {
    const key = this.key(ctx.namespace, name);
    const preconditions = clientPreconditions(opts);
    // kube's AdmissionToValidateObjectDeleteFunc: mutating then validating admission on the object being deleted.
    // A registry's own delete (EvictionREST passes rest.ValidateAllObjectFunc) admits nothing.
    const admitDelete = async (stored: KubeObject): Promise<KubeObject> => {
      const current = await this.decode(deepCopy(stored));
      if (call.admission === false) return current;
      const admittedName = call.admissionName ?? name;
      await this.deps.admission.admit(this.attributes(ctx, 'DELETE', '', admittedName, undefined, current, options));
      await this.deps.admission.validate(this.attributes(ctx, 'DELETE', '', admittedName, undefined, current, options));
      return current;
    };
    try {
      const first = await this.deps.storage.get(key);
      // kube's deletionFinalizersForGarbageCollection: the propagation policy (or orphanDependents, or the
      // resource's default) decides whether `orphan` or `foregroundDeletion` goes on the object for the GC.
      const gcFinalizers = (obj: KubeObject) => deletionFinalizersForGarbageCollection(this.info.strategy.defaultGarbageCollectionPolicy, finalizersOf(metaOf(obj)), opts);
      const graceful = this.info.strategy.gracefulDelete !== undefined;
      const marks = (obj: KubeObject): boolean => this.hasPendingFinalizers(obj) || graceful || gcFinalizers(obj).changed;
      if (ctx.dryRun) {
        // A dry run checks what the delete would check, on the current object, and writes nothing.
        checkPreconditions(key, first, preconditions, Number(metaOf(first).resourceVersion ?? 0));
        return { object: await admitDelete(first), deleted: !marks(first) };
      }
      if (marks(first)) {
        // Mark for deletion; finalizers (or the namespace controller) complete it.
        let deleteNow = false;
        const marked = await this.deps.storage.guaranteedUpdate(
          key,
          async (cur) => {
            await admitDelete(cur!);
            const next = deepCopy(cur!);
            const m = metaOf(next);
            const gc = gcFinalizers(next);
            if (gc.changed) {
              if (gc.finalizers.length) m.finalizers = gc.finalizers;
              else delete m.finalizers;
            }
            // No finalizer left (they went away since the first read, or the policy took the GC's away): kube's
            // errDeleteNow, the object is deleted outright instead.
            if (!this.hasPendingFinalizers(next) && !graceful) {
              deleteNow = true;
              return cur!;
            }
            if (!m.deletionTimestamp) {
              // kube's markAsDeleting (resources without graceful deletion): the first mark bumps the generation
              if (!graceful && m.generation !== undefined && m.generation > 0) m.generation++;
              m.deletionTimestamp = this.now();
              m.deletionGracePeriodSeconds = 0;
            }
            this.info.strategy.gracefulDelete?.(next);
            return next;
          },
          { preconditions },
        );
        if (!deleteNow) {
          const out = await this.decode(marked);
          this.deps.onWrite?.('MODIFIED', out);
          return { object: out, deleted: false };
        }
      }
      const last = await this.decode(await this.deps.storage.delete(key, preconditions, async (cur) => void (await admitDelete(cur))));
      this.deps.onWrite?.('DELETED', last);
      return { object: last, deleted: true };
    } catch (err) {
      throw storageErrorToStatus(err, this.gr, name, 'delete');
    }
  }
}

/** The preconditions the client sent (DeleteOptions.preconditions), and nothing else. */
function clientPreconditions(opts: DeleteOptions): Preconditions | undefined {
  const pre = opts.preconditions;
  if (!pre) return undefined;
  const out: Preconditions = {};
  if (pre.uid) out.uid = pre.uid;
  if (pre.resourceVersion) out.resourceVersion = pre.resourceVersion;
  return out.uid === undefined && out.resourceVersion === undefined ? undefined : out;
}
