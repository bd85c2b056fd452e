// The create handler of kube's named creaters (handlers/create.go with a rest.NamedCreater): pods/binding,
// pods/eviction, serviceaccounts/token and the legacy bindings resource. The body is decoded as the subresource's
// kind, its namespace must be the request's, mutating admission sees CREATE of <resource>/<subresource> with that
// object, and the storage calls validating admission (createValidation) where kube's does.
import type { Request, Response } from 'express';
import { errors } from '../../api/errors.js';
import { newReinvocationContext, type AdmissionAttributes } from '../../admission/attributes.js';
import { apiVersionOf, type KubeObject } from '../../api/types.js';
import { decodeObject } from '../../http/body.js';
import type { RequestInfo } from '../../http/request-info.js';
import { addWarnings, writeJSON } from '../../http/responses.js';
import { metaOf } from '../../registry/object-fields.js';
import type { RequestContext } from '../../registry/request-context.js';
import type { ResourceInfo } from '../../registry/resource.js';
import type { ApiContext } from '../api-context.js';
import { createBinding } from './binding.js';
import { evictPod } from './eviction.js';
import { issueToken, prepareTokenRequest } from './token-request.js';

type Kind = { group: string; version: string; kind: string };

/** The versions of the body kube's decoder accepts: Eviction also as policy/v1beta1 (EvictionREST.AcceptsGroupVersion). */
function acceptedVersions(kind: Kind): string[] {
  const own = apiVersionOf(kind.group, kind.version);
  return kind.kind === 'Eviction' ? [own, 'policy/v1beta1'] : [own];
}

function checkBodyKind(body: KubeObject, kind: Kind): void {
  const want = apiVersionOf(kind.group, kind.version);
  if (body.kind !== undefined && body.kind !== kind.kind) {
    throw errors.badRequest(`${String(body.kind)} in version "${String(body.apiVersion ?? '')}" cannot be handled as a ${kind.kind}: the object provided is unrecognized (must be of type ${kind.kind})`);
  }
  if (body.apiVersion !== undefined && !acceptedVersions(kind).includes(String(body.apiVersion))) {
    throw errors.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${want})`);
  }
  body.kind = kind.kind;
  body.apiVersion = want;
}

export async function serveNamedCreate(api: ApiContext, req: Request, res: Response, info: ResourceInfo, ri: RequestInfo, ctx: RequestContext, options: KubeObject, kind: Kind, subresource: string): Promise<void> {
  const body = await decodeObject(req);
  checkBodyKind(body, kind);
  // rest.EnsureObjectNamespaceMatchesRequestNamespace
  const meta = metaOf(body);
  if (!meta.namespace) meta.namespace = ctx.namespace;
  else if (meta.namespace !== ctx.namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  // a subresource's create is named by the URL; the legacy bindings resource by the object
  const name = subresource ? ri.name : (meta.name ?? '');
  const attrs = (object: KubeObject): AdmissionAttributes => ({
    operation: 'CREATE',
    kind: { ...kind },
    resource: { group: info.group, version: info.version, resource: info.resource },
    subresource,
    name,
    namespace: ctx.namespace,
    object,
    oldObject: undefined,
    options,
    dryRun: ctx.dryRun,
    userInfo: ctx.user,
    annotations: ctx.auditAnnotations,
    warnings: ctx.warnings,
    reinvocation: newReinvocationContext(),
    ...(ctx.deadline !== undefined ? { deadline: ctx.deadline } : {}),
  });
  const mutating = attrs(body);
  await api.admission.admit(mutating);
  const obj = mutating.object ?? body;
  const validate = async (o: KubeObject): Promise<void> => api.admission.validate(attrs(o));
  const store = (group: string, resource: string) => {
    const i = api.index.lookup(group, 'v1', resource);
    if (!i) throw errors.internal(new Error(`${resource} are not served`));
    return api.storeFor(i);
  };
  let out: KubeObject;
  if (kind.kind === 'Binding') out = await createBinding(store('', 'pods'), ctx, name, obj, validate);
  else if (kind.kind === 'Eviction') out = await evictPod(api, store('', 'pods'), ctx, name, obj, validate);
  else {
    const issuer = api.serviceAccountTokens;
    if (!issuer) throw errors.internal(new Error('no service account token issuer is configured'));
    const now = new Date();
    const prepared = prepareTokenRequest(obj, name, ctx.namespace, issuer, now);
    out = await issueToken({ serviceAccounts: api.storeFor(info), pods: store('', 'pods'), secrets: store('', 'secrets') }, ctx, name, prepared, issuer, now, validate);
  }
  addWarnings(res, ctx.warnings);
  // a returned Status carries its own code (the eviction's 500 for several budgets); anything else is 201 Created
  const code = out.kind === 'Status' && typeof out['code'] === 'number' ? (out['code'] as number) : 201;
  writeJSON(res, code, out);
}
