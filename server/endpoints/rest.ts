// The REST endpoint handler: one dispatcher over RequestInfo, the way kube-apiserver's installer maps
// verbs and subresources of each resource onto its registry store.
import type { Request, Response } from 'express';
import { errors, successStatus, StatusError } from '../api/errors.js';
import { newReinvocationContext, type AdmissionAttributes } from '../admission/attributes.js';
import { dedupOwnerReferencesWithWarning } from '../admission/mutation-cleanups.js';
import { finishedVerbs, finishRequestTimeoutError, handlerDeadline, monotonicNow } from './request-deadline.js';
import type { KubeObject, UserInfo } from '../api/types.js';
import { decodeObject, mediaType, rawBody } from '../http/body.js';
import type { RequestInfo } from '../http/request-info.js';
import { addWarnings, writeError, writeJSON } from '../http/responses.js';
import { metaOf } from '../registry/object-fields.js';
import { newRequestContext, type RequestContext } from '../registry/request-context.js';
import { isCustomResource, type ResourceInfo, type Verb } from '../registry/resource.js';
import type { DeleteOptions, ResourceStore, SubresourceView } from '../registry/store.js';
import type { ApiContext } from './api-context.js';
import { checkApplyConfigurationTypes, checkResourceFields, checkScaleFields, parseFieldValidation, patchedFieldCheck } from './field-validation.js';
import { buildListPredicate } from './list-predicate.js';
import { ApplyYAMLPatchType, decodeApplyConfiguration, managerOrUserAgent, serverSideApply, updateTracker, validateApplyPatchOptions, validateNonApplyPatchOptions } from './apply/index.js';
import { applyPatch } from './patch/index.js';
import { applyScale, toScale } from './scale.js';
import { parseTableAccept, toTable } from './table.js';
import { checkGetOrWatchResourceVersion, checkListResourceVersion } from './resource-version.js';
import { routeOf, type Route } from './routes.js';
import { serveWatch } from './watch.js';
import { serveConnect } from './subresources/connect.js';
import { serveNamedCreate } from './subresources/named-create.js';
import { extraSubresource } from './subresources/table.js';
import type { FieldError } from '../api/field.js';
import { deleteOrphanDependents, firstValue, listOptionsOf, patchForce, requestQuery, sliceToInt64, tableIncludeObject as includeObjectOption, type IncludeObject, type UrlValues } from './query-options.js';
import { currentRfc3339Seconds } from '../api/current-second.js';

/** The query as Go's req.URL.Query(): option fields read their key's first value (query-options.ts). */
type Query = UrlValues;

const queryString = firstValue;

/** The options' dryRun (every value of the key), checked as kube's Validate{Create,Update,Patch}Options: 422 unless all are "All". */
function parseDryRun(q: Query, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): boolean {
  const values = q['dryRun'] ?? [];
  if (values.some((v) => v !== 'All')) {
    throw errors.invalid({ group: 'meta.k8s.io', kind }, '', [{ type: 'NotSupported', field: 'dryRun', badValue: [...values], detail: 'supported values: "All"' }]);
  }
  return values.length > 0;
}

function optionsObject(kind: 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions' | 'PatchOptions', q: Query, dryRun: boolean, extra: Record<string, unknown> = {}): KubeObject {
  const o: KubeObject = { kind, apiVersion: 'meta.k8s.io/v1', ...extra };
  if (dryRun) o['dryRun'] = ['All'];
  const fm = queryString(q, 'fieldManager');
  if (fm && kind !== 'DeleteOptions') o['fieldManager'] = fm;
  return o;
}

/** An int64 option field: the handlers answer strconv.ParseInt's error as a 400 BadRequest. */
function parseIntParam(q: Query, name: string): number | undefined {
  const n = sliceToInt64(q[name]);
  if (!n.ok) throw errors.badRequest(n.error);
  return n.value;
}

/** A bool query parameter as kube's parameter codec reads it (strconv.ParseBool). */
function parseBoolParam(name: string, v: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  throw errors.badRequest(`invalid value for ${name}: ${JSON.stringify(v)}`);
}

function allowsVerb(info: ResourceInfo, verb: Verb): boolean {
  return info.verbs.includes(verb);
}

/** Writes a single object, or its Table form when the client asked for one. */
function writeObject(req: Request, res: Response, code: number, info: ResourceInfo, obj: KubeObject): void {
  const table = parseTableAccept(req.headers.accept ?? '');
  if (table && obj.kind === info.kind) {
    writeJSON(res, code, toTable(info, [obj], { includeObject: tableIncludeObject(req), tableVersion: table }));
    return;
  }
  writeJSON(res, code, obj);
}

function tableIncludeObject(req: Request): IncludeObject {
  const include = includeObjectOption(requestQuery(req));
  if (!include.ok) throw errors.badRequest(include.error);
  return include.value;
}

export function restHandler(api: ApiContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const requestInfo = res.locals['requestInfo'] as RequestInfo;
    const user = res.locals['user'] as UserInfo;
    const ctx = newRequestContext(user, requestInfo.namespace);
    // Admission writes audit annotations into the same map the audit filter reports.
    const auditAnnotations = res.locals['auditAnnotations'] as Record<string, string> | undefined;
    if (auditAnnotations) ctx.auditAnnotations = auditAnnotations;
    const finisher = startFinisher(res, requestInfo, ctx);
    try {
      await dispatch(api, req, res, requestInfo, ctx);
    } catch (err) {
      // after the finisher's 504 the request goes on, as kube's does, but its answer is dropped
      if (res.headersSent) return;
      addWarnings(res, ctx.warnings);
      writeError(res, err);
    } finally {
      clearTimeout(finisher);
    }
  };
}

/**
 * kube's FinishRequest for the write handlers: the request's deadline, capped at requestTimeoutUpperBound, becomes
 * the context's (admission webhooks get what is left of it), and once it passes the client gets the 504 at once.
 */
function startFinisher(res: Response, ri: RequestInfo, ctx: RequestContext): ReturnType<typeof setTimeout> | undefined {
  const deadline = res.locals['requestDeadline'] as number | undefined;
  if (deadline === undefined || !finishedVerbs.has(ri.verb)) return undefined;
  const now = monotonicNow();
  ctx.deadline = handlerDeadline(deadline, now);
  const timer = setTimeout(() => {
    if (res.headersSent) return;
    addWarnings(res, ctx.warnings);
    writeError(res, finishRequestTimeoutError());
    // whole milliseconds: node keeps one timer list per distinct duration, and a fractional one made a new list
    // (and a priority-queue insert and removal) for every request
  }, Math.ceil(Math.max(0, ctx.deadline - now)));
  timer.unref();
  return timer;
}

async function dispatch(api: ApiContext, req: Request, res: Response, ri: RequestInfo, ctx: RequestContext): Promise<void> {
  const info = api.index.lookup(ri.apiGroup, ri.apiVersion, ri.resource);
  if (!info) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
  // kube's installer wraps every route of a deprecated API in AddWarningsHandler: errors carry the warning too
  if (info.deprecationWarning) addWarnings(res, [info.deprecationWarning]);
  const q = requestQuery(req);
  const gr = { group: info.group, resource: info.resource };
  if (!info.namespaced) ctx.namespace = '';
  const sub = ri.subresource;
  // Only the routes kube's installer registers exist: DELETE on /status is a 405, not a delete of the parent.
  const route = routeRequest(req, ri, info);
  if (!route.ok) throw route.code === 404 ? notFoundRoute() : methodNotAllowed();
  const verb = route.verb;
  const extra = sub ? extraSubresource(info.group, info.version, info.resource, sub) : undefined;
  if (route.connect && extra?.connect) return serveConnect(api, req, res, info, ri, ctx, q, extra.connect);
  if (verb === 'create' && (extra || (info.group === '' && info.resource === 'bindings'))) {
    // pods/binding, pods/eviction, serviceaccounts/token, and the legacy bindings: kube's named creaters
    ctx.dryRun = parseDryRun(q, 'CreateOptions');
    const kind = extra?.kind ?? { group: '', version: 'v1', kind: 'Binding' };
    return serveNamedCreate(api, req, res, info, ri, ctx, optionsObject('CreateOptions', q, ctx.dryRun), kind, sub);
  }
  // kube's ListResource: a list route asked to watch a resource whose storage cannot
  if (verb === 'watch' && !allowsVerb(info, 'watch')) throw errors.methodNotSupported(gr, 'watch');
  if (info.virtual) {
    ctx.dryRun = parseDryRun(q, 'CreateOptions');
    // decoded into the review's Go type, as any create body
    const body = await checkResourceFields(info, await decodeObject(req), parseFieldValidation(q['fieldValidation'], 'CreateOptions'), ctx.warnings, { raw: rawBody(req), mediaType: mediaType(req) });
    // Like any create, a review passes admission (webhooks skip it while ExcludeAdmissionWebhookVirtualResources is on).
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      kind: { group: info.group, version: info.version, kind: info.kind },
      resource: { group: info.group, version: info.version, resource: info.resource },
      subresource: '',
      name: metaOf(body).name ?? '',
      namespace: info.namespaced ? ctx.namespace : '',
      object: body,
      oldObject: undefined,
      options: optionsObject('CreateOptions', q, ctx.dryRun),
      dryRun: ctx.dryRun,
      userInfo: ctx.user,
      annotations: ctx.auditAnnotations,
      warnings: ctx.warnings,
      reinvocation: newReinvocationContext(),
      ...(ctx.deadline !== undefined ? { deadline: ctx.deadline } : {}),
    };
    await api.admission.admit(attrs);
    await api.admission.validate(attrs);
    const answer = await api.virtual(info, attrs.object ?? body, { user: ctx.user, requestInfo: ri });
    addWarnings(res, ctx.warnings);
    writeJSON(res, 201, answer);
    return;
  }
  const store = api.storeFor(info);
  switch (verb) {
    case 'get': {
      checkGetOrWatchResourceVersion(queryString(q, 'resourceVersion'));
      const obj = await store.get(ctx, ri.name);
      if (sub === 'scale') writeJSON(res, 200, toScale(obj, info.subresources.scale!));
      else writeObject(req, res, 200, info, obj);
      return;
    }
    case 'list':
      return listObjects(req, res, info, store, ctx, q);
    case 'watch':
      return serveWatch(api, req, res, info, store, ctx, q, ri);
    case 'create': {
      ctx.dryRun = parseDryRun(q, 'CreateOptions');
      // decoded into the kind's Go type: wrong types fail, unknown fields are dropped
      const body = await checkResourceFields(info, await decodeObject(req), parseFieldValidation(q['fieldValidation'], 'CreateOptions'), ctx.warnings, { raw: rawBody(req), mediaType: mediaType(req) });
      // kube's create handler dedups ownerReferences before admission too (and again after it, in the store)
      addCleanupWarning(ctx, dedupOwnerReferencesWithWarning(body, false));
      // the body was decoded for this request alone: the store may work on it without a copy
      const created = await store.create(ctx, body, optionsObject('CreateOptions', q, ctx.dryRun), { bodyIsOwned: true, trackManagedFields: updateTracker(info, fieldManagerOf(req, q), '') });
      addWarnings(res, ctx.warnings);
      writeObject(req, res, 201, info, created);
      return;
    }
    case 'update': {
      ctx.dryRun = parseDryRun(q, 'UpdateOptions');
      const sent = { raw: rawBody(req), mediaType: mediaType(req) };
      const decoded = await decodeObject(req);
      const body =
        sub === 'scale' ? await checkScaleFields(decoded, parseFieldValidation(q['fieldValidation'], 'UpdateOptions'), ctx.warnings, sent) : await checkResourceFields(info, decoded, parseFieldValidation(q['fieldValidation'], 'UpdateOptions'), ctx.warnings, sent);
      // kube's update handler dedups ownerReferences before admission too (a patch only after it)
      if (sub !== 'scale') addCleanupWarning(ctx, dedupOwnerReferencesWithWarning(body, false));
      const opts = optionsObject('UpdateOptions', q, ctx.dryRun);
      const updated = await updateSub(store, ctx, ri.name, sub, info, opts, fieldManagerOf(req, q), (current) => {
        if (sub === 'scale') return applyScale(current, scaleBody(body), info.subresources.scale!);
        if (sub === 'finalize') return finalizeNamespace(current, body);
        return body;
      });
      addWarnings(res, ctx.warnings);
      if (sub === 'scale') writeJSON(res, 200, toScale(updated, info.subresources.scale!));
      else writeObject(req, res, 200, info, updated);
      return;
    }
    case 'patch': {
      ctx.dryRun = parseDryRun(q, 'PatchOptions');
      const type = mediaType(req);
      const patch = rawBody(req);
      const fieldValidation = parseFieldValidation(q['fieldValidation'], 'PatchOptions');
      const patchOptions = { fieldManager: queryString(q, 'fieldManager'), force: parseForce(q) };
      if (type === ApplyYAMLPatchType && sub === '') {
        const invalid = validateApplyPatchOptions(patchOptions);
        if (invalid) throw invalid;
        return serveApply(req, res, info, store, ctx, q, ri.name, patchOptions.fieldManager!, patchOptions.force === true, patch, fieldValidation);
      }
      if (type !== ApplyYAMLPatchType) {
        const invalid = validateNonApplyPatchOptions(patchOptions);
        if (invalid) throw invalid;
      }
      const checkPatchedFields = await patchedFieldCheck(info, sub === 'scale', fieldValidation, type, patch);
      const opts = optionsObject('UpdateOptions', q, ctx.dryRun);
      const updated = await updateSub(store, ctx, ri.name, sub, info, opts, fieldManagerOf(req, q), (current) => {
        if (sub === 'scale') {
          const scale = toScale(current, info.subresources.scale!);
          const patchedScale = applyPatch(type, scale, patch, { group: 'autoscaling', version: 'v1', kind: 'Scale' }, { fieldValidation });
          return applyScale(current, checkPatchedFields(patchedScale, ctx.warnings), info.subresources.scale!);
        }
        return checkPatchedFields(applyPatch(type, current, patch, { group: info.group, version: info.version, kind: info.kind }, { fieldValidation }), ctx.warnings);
      });
      addWarnings(res, ctx.warnings);
      if (sub === 'scale') writeJSON(res, 200, toScale(updated, info.subresources.scale!));
      else writeObject(req, res, 200, info, updated);
      return;
    }
    case 'delete': {
      const { opts, options, dryRun } = await deleteOptions(req, q);
      ctx.dryRun = dryRun;
      const result = await store.delete(ctx, ri.name, opts, options);
      addWarnings(res, ctx.warnings);
      if (result.deleted) {
        const m = metaOf(result.object);
        writeJSON(res, 200, successStatus({ name: m.name, group: info.group || undefined, kind: info.resource, uid: m.uid }));
      } else {
        // kube's DeleteResource: 202 when the object stays (finalizers) and the client asked for cascading deletion
        // with the deprecated orphanDependents=false; 200 otherwise, not to break older clients
        writeJSON(res, opts.orphanDependents === false ? 202 : 200, result.object);
      }
      return;
    }
    case 'deletecollection': {
      listOptionsOf(q);
      const { opts, options, dryRun } = await deleteOptions(req, q);
      ctx.dryRun = dryRun;
      const list = await store.list(ctx, { predicate: buildListPredicate(info, q) });
      const deleted: KubeObject[] = [];
      // kube's Store.DeleteCollection: no admission of the collection as a whole; each item is deleted with the
      // handler's static attributes (AdmissionToValidateObjectDeleteFunc), so its DELETE review carries the
      // request's namespace, no name, the item as oldObject and the request's DeleteOptions.
      for (const item of list.items) {
        const itemCtx = { ...ctx, namespace: metaOf(item).namespace ?? '' };
        try {
          deleted.push((await store.delete(itemCtx, metaOf(item).name ?? '', opts, options, { admissionName: '' })).object);
        } catch (err) {
          // Deleted by someone else meanwhile: kube's DeleteCollection ignores NotFound.
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
      addWarnings(res, ctx.warnings);
      writeJSON(res, 200, { ...list, items: deleted });
      return;
    }
    default:
      throw methodNotAllowed();
  }
}

function addCleanupWarning(ctx: RequestContext, warning: string | undefined): void {
  if (warning) ctx.warnings.push(warning);
}

/** go-restful's answer, through kube's serviceErrorHandler, for a path no route matches. */
function notFoundRoute(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** go-restful's answer, through kube's serviceErrorHandler, for a path whose routes are for other methods. */
function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

/** The route of kube's installer this request lands on; the verb prefix (/watch/, /proxy/) is read from the path. */
function routeRequest(req: Request, ri: RequestInfo, info: ResourceInfo): Route {
  const segments = ri.path.split('/').filter((s) => s !== '');
  const prefix = segments[ri.apiPrefix === 'apis' ? 3 : 2];
  // no resource served here is a proxy (rest.Connecter)
  if (prefix === 'proxy') return { ok: false, code: 404 };
  const watchPrefix = prefix === 'watch';
  return routeOf(info, {
    // pods/<name>/proxy/<path>: only a connecter with a subpath is routed there
    subpath: ri.parts.length > 3,
    method: req.method,
    // the name in the path: a list's fieldSelector=metadata.name=x names the request, not its route
    name: ri.parts[1] ?? '',
    subresource: ri.subresource,
    watchPrefix,
    watchParam: !watchPrefix && ri.verb === 'watch',
    allNamespaces: info.namespaced && ri.namespace === '',
  });
}

function updateSub(store: ResourceStore, ctx: RequestContext, name: string, sub: string, info: ResourceInfo, opts: KubeObject, manager: string, transform: (current: KubeObject) => KubeObject): Promise<KubeObject> {
  // /scale writes the parent's spec and /finalize the namespace's spec: both through the main resource's rules;
  // admission sees /scale as an autoscaling/v1 Scale, as in kube-apiserver.
  const scale = info.subresources.scale;
  // /finalize is kube's FinalizeREST: admission sees UPDATE of namespaces/finalize with Namespace objects, and only
  // spec.finalizers of what it admits is kept.
  const view: SubresourceView | undefined =
    sub === 'scale' && scale
      ? { subresource: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, from: (p) => toScale(p, scale), into: (p, v) => applyScale(p, v, scale) }
      : sub === 'finalize'
        ? { subresource: 'finalize', kind: { group: info.group, version: info.version, kind: info.kind }, from: (p) => p, into: (p, v) => finalizeNamespace(p, v) }
        : undefined;
  // status, ephemeralcontainers and resize have their own strategies in the store, and so has a CSR's /approval
  // (kube's ApprovalREST: status.conditions only); scale and finalize write the parent
  const storeSub = sub === 'status' || sub === 'approval' || info.strategy.subresourceUpdates?.[sub] ? sub : '';
  return store.update(ctx, name, storeSub, transform, opts, true, view, updateTracker(info, manager, sub));
}

/** The manager a write is recorded under: ?fieldManager=, else the User-Agent's prefix (kube's managerOrUserAgent). */
function fieldManagerOf(req: Request, q: Query): string {
  return managerOrUserAgent(queryString(q, 'fieldManager'), req.headers['user-agent']);
}

/** PatchOptions.force (Convert_Slice_string_To_Pointer_bool); absent is nil, which only apply may leave out. */
const parseForce = patchForce;

/** Server-side apply of the main resource: 201 when the apply created the object, 200 otherwise. */
async function serveApply(
  req: Request,
  res: Response,
  info: ResourceInfo,
  store: ResourceStore,
  ctx: RequestContext,
  q: Query,
  name: string,
  manager: string,
  force: boolean,
  patch: Buffer,
  fieldValidation: ReturnType<typeof parseFieldValidation>,
): Promise<void> {
  const config = await decodeApplyConfiguration(patch);
  // Custom resources: fields their schema does not declare are found as for any write (400 with Strict).
  if (isCustomResource(info)) await checkResourceFields(info, config as KubeObject, fieldValidation, ctx.warnings, { raw: patch, mediaType: 'application/yaml' });
  // Built-in kinds: values of the wrong type fail the conversion to a typed value, whatever the fieldValidation.
  else await checkApplyConfigurationTypes(info, config, ctx.namespace, name);
  const { object, created } = await serverSideApply({
    info,
    store,
    ctx,
    name,
    config,
    manager,
    force,
    now: currentRfc3339Seconds,
    updateOptions: optionsObject('UpdateOptions', q, ctx.dryRun),
    createOptions: optionsObject('CreateOptions', q, ctx.dryRun),
  });
  addWarnings(res, ctx.warnings);
  writeObject(req, res, created ? 201 : 200, info, object);
}

function scaleBody(body: KubeObject): KubeObject {
  if (body.kind !== undefined && body.kind !== 'Scale') throw errors.badRequest(`the object provided is unrecognized (must be of type Scale): ${String(body.kind)}`);
  return body;
}

/** /finalize only changes spec.finalizers of a namespace. */
function finalizeNamespace(current: KubeObject, body: KubeObject): KubeObject {
  const spec = (current['spec'] as Record<string, unknown> | undefined) ?? {};
  const wanted = (body['spec'] as { finalizers?: string[] } | undefined)?.finalizers;
  const next = { ...current, spec: { ...spec } } as KubeObject;
  if (wanted && wanted.length) (next['spec'] as Record<string, unknown>)['finalizers'] = wanted;
  else delete (next['spec'] as Record<string, unknown>)['finalizers'];
  const rv = metaOf(body).resourceVersion;
  if (rv) metaOf(next).resourceVersion = rv;
  return next;
}

/**
 * DeleteOptions as kube's delete handlers read them (handlers/delete.go): from the body when there is one, and
 * then the query is not read at all; else from the query (Convert_url_Values_To_v1_DeleteOptions, uid and
 * resourceVersion there being preconditions). Then ValidateDeleteOptions.
 */
async function deleteOptions(req: Request, q: Query): Promise<{ opts: DeleteOptions; options: KubeObject; dryRun: boolean }> {
  let body: KubeObject = {};
  if (rawBody(req).length > 0) body = await decodeObject(req);
  const fromBody = rawBody(req).length > 0;
  const opts: DeleteOptions = {};
  let prop: string | undefined;
  let grace: number | undefined;
  let orphan: boolean | undefined;
  let dryRun: readonly string[];
  if (fromBody) {
    const pre = body['preconditions'] as DeleteOptions['preconditions'] | undefined;
    if (pre) opts.preconditions = pre;
    prop = body['propagationPolicy'] as string | undefined;
    grace = body['gracePeriodSeconds'] as number | undefined;
    orphan = body['orphanDependents'] as boolean | undefined;
    dryRun = Array.isArray(body['dryRun']) ? (body['dryRun'] as unknown[]).map(String) : [];
  } else {
    const pre: NonNullable<DeleteOptions['preconditions']> = {};
    const uid = queryString(q, 'uid');
    const rv = queryString(q, 'resourceVersion');
    if (uid) pre.uid = uid;
    if (rv) pre.resourceVersion = rv;
    if (uid || rv) opts.preconditions = pre;
    prop = queryString(q, 'propagationPolicy');
    grace = parseIntParam(q, 'gracePeriodSeconds');
    orphan = deleteOrphanDependents(q);
    dryRun = q['dryRun'] ?? [];
  }
  const invalid: FieldError[] = [];
  if (orphan !== undefined && prop !== undefined) invalid.push({ type: 'Invalid', field: 'propagationPolicy', badValue: prop, detail: 'orphanDependents and deletionPropagation cannot be both set' });
  if (prop !== undefined && !['Orphan', 'Background', 'Foreground'].includes(prop)) {
    invalid.push({ type: 'NotSupported', field: 'propagationPolicy', badValue: prop, detail: 'supported values: "Foreground", "Background", "Orphan", "nil"' });
  }
  if (dryRun.some((v) => v !== 'All')) invalid.push({ type: 'NotSupported', field: 'dryRun', badValue: [...dryRun], detail: 'supported values: "All"' });
  if (invalid.length > 0) throw errors.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', invalid);
  // the deprecated orphanDependents decides the garbage collector's finalizers before any policy (kube's
  // deletionFinalizersForGarbageCollection), so it is passed on as sent
  if (orphan !== undefined) opts.orphanDependents = orphan;
  if (prop !== undefined) opts.propagationPolicy = prop;
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const options = optionsObject('DeleteOptions', q, dryRun.length > 0, {
    ...(opts.orphanDependents !== undefined ? { orphanDependents: opts.orphanDependents } : {}),
    ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
    ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
    ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
  });
  return { opts, options, dryRun: dryRun.length > 0 };
}

async function listObjects(req: Request, res: Response, info: ResourceInfo, store: ResourceStore, ctx: RequestContext, q: Query): Promise<void> {
  const { limit, resourceVersion: rv, resourceVersionMatch, continue: cont } = listOptionsOf(q);
  if (!cont) checkListResourceVersion(rv);
  const list = await store.list(ctx, {
    predicate: buildListPredicate(info, q),
    limit: limit > 0 ? limit : undefined,
    continue: cont || undefined,
    // kube: resourceVersion alone means "not older than" (we serve the latest); only resourceVersionMatch=Exact
    // reads at that revision.
    resourceVersion: rv && rv !== '0' && resourceVersionMatch === 'Exact' ? rv : undefined,
  });
  const table = parseTableAccept(req.headers.accept ?? '');
  if (table) writeJSON(res, 200, toTable(info, list.items, { includeObject: tableIncludeObject(req), listMeta: list.metadata, tableVersion: table }));
  else writeJSON(res, 200, list);
}
