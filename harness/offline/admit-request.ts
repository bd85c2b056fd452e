// One offline admission request, end to end as kube-apiserver's handlers run it but without storage: the object as
// decoded (the resource's defaults), the mutating phase, the object validation of the resource's strategy, then the
// validating phase. The outcome is data: the decision, the Status a client would get, warnings, audit annotations,
// and the object as admission left it with the JSON patch from the object admission received.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { newReinvocationContext, type AdmissionAttributes, type AdmissionOperation } from '../../server/admission/attributes.js';
import { recordedWarningTexts } from '../../server/admission/webhook/dispatch.js';
import { errors, toStatusError } from '../../server/api/errors.js';
import type { FieldError } from '../../server/api/field.js';
import { apiVersionOf, type KubeObject, type Status, type UserInfo } from '../../server/api/types.js';
import { deepCopy } from '../../server/registry/object-fields.js';
import type { ResourceInfo } from '../../server/registry/resource.js';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from '../../server/registry/validation/object-meta.js';
import type { OfflineChain } from './admission-chain.js';
import { decidedBy, type DecidedBy, type DecisionContext } from './decided-by.js';

export interface OfflineRequest {
  operation: AdmissionOperation;
  /** the served resource of the object's kind */
  info: ResourceInfo;
  /** --object: the new object (CREATE, UPDATE, CONNECT), or the object being deleted (DELETE) */
  object: KubeObject;
  /** --old-object (UPDATE) */
  oldObject?: KubeObject;
  subresource: string;
  dryRun: boolean;
  user: UserInfo;
  /** the request's namespace ('' for cluster-scoped resources) */
  namespace: string;
  /** the strict decoder's warnings about the body (unknown, duplicate fields), recorded before admission's */
  decodeWarnings?: readonly string[];
}

export interface AdmitOutcome {
  allowed: boolean;
  /** the Status the API would answer a denied request with */
  status?: Status;
  decidedBy?: DecidedBy;
  /** as the Warning headers would carry them (deduplicated, kube's limits) */
  warnings: string[];
  auditAnnotations: Record<string, string>;
  /** the object as admission left it (null for DELETE) */
  object: KubeObject | null;
  /** from the object admission received (the input with the API's defaults) to `object` */
  patch: Operation[];
}

/**
 * The namespace a request for this object is made in: its own, else "default" (kubectl's), '' when cluster-scoped;
 * a Namespace is admitted with its own name there, as the API server does.
 */
export function requestNamespace(info: ResourceInfo, object: KubeObject): string {
  if (info.namespaced) return object.metadata?.namespace || 'default';
  return info.group === '' && info.resource === 'namespaces' ? (object.metadata?.name ?? '') : '';
}

/** The object as the API decodes it for this request: namespaced into the request's namespace, with defaults. */
function decoded(info: ResourceInfo, input: KubeObject, namespace: string): KubeObject {
  const obj = deepCopy(input);
  obj.apiVersion = apiVersionOf(info.group, info.version);
  obj.kind = info.kind;
  if (info.namespaced) (obj.metadata ??= {}).namespace = namespace;
  info.strategy.applyDefaults?.(obj);
  return obj;
}

function optionsFor(operation: AdmissionOperation, dryRun: boolean): KubeObject {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : operation === 'DELETE' ? 'DeleteOptions' : undefined;
  if (!kind) return {};
  return { kind, apiVersion: 'meta.k8s.io/v1', ...(dryRun ? { dryRun: ['All'] } : {}) };
}

// rest.BeforeUpdate: an update without resourceVersion applies unconditionally, uid and creationTimestamp come from
// the stored object. The stored object here is a file: it gets a resourceVersion when it has none.
function validateForUpdate(info: ResourceInfo, obj: KubeObject, old: KubeObject): FieldError[] {
  const next = deepCopy(obj);
  const prev = deepCopy(old);
  const prevMeta = (prev.metadata ??= {});
  const meta = (next.metadata ??= {});
  prevMeta.resourceVersion ||= '1';
  meta.resourceVersion ||= prevMeta.resourceVersion;
  if (!meta.uid && prevMeta.uid) meta.uid = prevMeta.uid;
  if (prevMeta.creationTimestamp) meta.creationTimestamp = prevMeta.creationTimestamp;
  return validateObjectMetaUpdate(meta, prevMeta).concat(info.strategy.validateUpdate?.(next, prev) ?? []);
}

export async function admitOnce(offline: OfflineChain, ctx: Omit<DecisionContext, 'calledWebhooks' | 'webhooks'>, req: OfflineRequest): Promise<AdmitOutcome> {
  const { info, operation } = req;
  const hasObject = operation !== 'DELETE';
  // CONNECT's object is the connect options: it is not the resource's kind and gets no defaults.
  const object = operation === 'CONNECT' ? deepCopy(req.object) : hasObject ? decoded(info, req.object, req.namespace) : undefined;
  const oldObject = operation === 'DELETE' ? decoded(info, req.object, req.namespace) : operation === 'UPDATE' && req.oldObject ? decoded(info, req.oldObject, req.namespace) : undefined;
  const admitted = object ? deepCopy(object) : undefined;
  const name = (object ?? oldObject)?.metadata?.name ?? '';
  const annotations: Record<string, string> = {};
  const warnings: string[] = [...(req.decodeWarnings ?? [])];
  const attributes = (obj: KubeObject | undefined): AdmissionAttributes => ({
    operation,
    kind: { group: info.group, version: info.version, kind: info.kind },
    resource: { group: info.group, version: info.version, resource: info.resource },
    subresource: req.subresource,
    name,
    namespace: req.namespace,
    object: obj,
    oldObject,
    options: optionsFor(operation, req.dryRun),
    dryRun: req.dryRun,
    userInfo: req.user,
    annotations,
    warnings,
    reinvocation: newReinvocationContext(),
  });

  let final = object;
  let status: Status | undefined;
  let decider: DecidedBy | undefined;
  const context = (): DecisionContext => ({
    ...ctx,
    calledWebhooks: offline.calledWebhooks,
    webhooks: { validating: offline.webhooks.validating.snapshot().items, mutating: offline.webhooks.mutating.snapshot().items },
  });
  try {
    const attrs = attributes(object);
    await offline.chain.admit(attrs);
    final = attrs.object ?? object;
    if (final && (operation === 'CREATE' || operation === 'UPDATE')) {
      // kube decodes a mutated object with the defaulter, then BeforeCreate/BeforeUpdate validate it
      info.strategy.applyDefaults?.(final);
      const errs =
        operation === 'CREATE'
          ? validateObjectMetaCreate(final.metadata, { namespaced: info.namespaced, nameRule: info.nameRule }).concat(info.strategy.validate?.(final) ?? [])
          : validateForUpdate(info, final, oldObject ?? {});
      if (errs.length > 0) {
        const err = errors.invalid({ group: info.group, kind: info.kind }, final.metadata?.name ?? final.metadata?.generateName ?? '', errs);
        decider = { plugin: 'validation', description: `object validation of ${apiVersionOf(info.group, info.version)} ${info.kind}` };
        throw err;
      }
      warnings.push(...((operation === 'CREATE' ? info.strategy.warningsOnCreate?.(final) : info.strategy.warningsOnUpdate?.(final, oldObject ?? {})) ?? []));
    }
    await offline.chain.validate(attributes(final));
  } catch (err) {
    status = toStatusError(err).status;
    const rejection = offline.rejections[offline.rejections.length - 1];
    decider ??= rejection ? decidedBy(context(), rejection.plugin, status.message ?? '') : undefined;
  }
  const result = final ?? null;
  return {
    allowed: status === undefined,
    ...(status ? { status } : {}),
    ...(decider ? { decidedBy: decider } : {}),
    warnings: recordedWarningTexts(warnings),
    auditAnnotations: { ...annotations },
    object: operation === 'DELETE' ? null : result,
    patch: admitted && result ? jsonpatch.compare(admitted, result) : [],
  };
}
