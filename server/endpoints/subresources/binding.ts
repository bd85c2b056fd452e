// pods/binding and the deprecated top-level bindings resource, as kube's BindingREST and LegacyBindingREST
// (pkg/registry/core/pod/storage/storage.go): the create handler admits the Binding (CREATE, kind v1 Binding),
// ValidatePodBinding runs, then the pod is written directly in storage (no admission on the pod): spec.nodeName
// set, the Binding's annotations copied, the PodScheduled condition True. The answer is a Status Success (201).
import { errors, StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { metaOf } from '../../registry/object-fields.js';
import type { RequestContext } from '../../registry/request-context.js';
import type { ResourceStore } from '../../registry/store.js';
import type { Preconditions } from '../../storage/interface.js';

/**
 * ValidatePodBinding's errors, returned by BindingREST as errs.ToAggregate(): not a Status error, so kube
 * answers them as a 500 whose message is the aggregate.
 */
export function validatePodBinding(binding: KubeObject): string[] {
  const target = (binding['target'] ?? {}) as { kind?: string; name?: string };
  const errs: string[] = [];
  if (target.kind && target.kind !== 'Node') errs.push(`target.kind: Unsupported value: ${JSON.stringify(target.kind)}: supported values: "Node", "<empty>"`);
  if (!target.name) errs.push('target.name: Required value');
  return errs;
}

/** The pod with the binding applied (setPodNodeAndMetadata's update function), or the error kube returns. */
export function bindPod(pod: KubeObject, nodeName: string, annotations: Record<string, string> | undefined, now: string): KubeObject {
  const name = metaOf(pod).name ?? '';
  const conflict = (why: string) => errors.conflict({ group: '', resource: 'pods/binding' }, name, why);
  if (metaOf(pod).deletionTimestamp) throw conflict(`pod ${name} is being deleted, cannot be assigned to a host`);
  const spec = (pod['spec'] ?? {}) as Record<string, unknown>;
  if (spec['nodeName']) throw conflict(`pod ${name} is already assigned to node ${JSON.stringify(spec['nodeName'])}`);
  if (Array.isArray(spec['schedulingGates']) && spec['schedulingGates'].length > 0) throw conflict(`pod ${name} has non-empty .spec.schedulingGates`);
  const next = structuredClone(pod);
  (next['spec'] as Record<string, unknown>)['nodeName'] = nodeName;
  if (annotations && Object.keys(annotations).length > 0) metaOf(next).annotations = { ...(metaOf(next).annotations ?? {}), ...annotations };
  // podutil.UpdatePodCondition: a new or changed condition gets lastTransitionTime now
  const status = ((next['status'] ??= {}) as Record<string, unknown>);
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as Array<Record<string, unknown>>) : [];
  const i = conditions.findIndex((c) => c['type'] === 'PodScheduled');
  if (i < 0) conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
  else if (conditions[i]!['status'] !== 'True') conditions[i] = { ...conditions[i], status: 'True', lastTransitionTime: now };
  status['conditions'] = conditions;
  return next;
}

/** BindingREST.Create after admission: validation, then the pod write. */
export async function createBinding(pods: ResourceStore, ctx: RequestContext, urlName: string, binding: KubeObject, validate: (obj: KubeObject) => Promise<void>): Promise<KubeObject> {
  const meta = metaOf(binding);
  if (urlName !== (meta.name ?? '')) throw errors.badRequest('name in URL does not match name in Binding object');
  const invalid = validatePodBinding(binding);
  if (invalid.length > 0) throw new StatusError(500, '', invalid.length === 1 ? invalid[0]! : `[${invalid.join(', ')}]`);
  await validate(structuredClone(binding));
  let preconditions: Preconditions | undefined;
  if (meta.uid || meta.resourceVersion) preconditions = { ...(meta.uid ? { uid: meta.uid } : {}), ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}) };
  const target = binding['target'] as { name: string };
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  try {
    await pods.writeUnadmitted(ctx, urlName, preconditions, (pod) => bindPod(pod, target.name, meta.annotations, now));
  } catch (err) {
    // assignPod: anything not already a Status is a Conflict on pods/binding
    if (err instanceof StatusError) throw err;
    throw errors.conflict({ group: '', resource: 'pods/binding' }, urlName, err instanceof Error ? err.message : String(err));
  }
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}
