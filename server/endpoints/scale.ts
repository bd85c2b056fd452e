// The scale subresource (autoscaling/v1 Scale) over a resource's replicas fields, as kube serves deployments/scale.
import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { metaOf } from '../registry/object-fields.js';
import type { ScaleSubresource } from '../registry/resource.js';

function readPath(obj: unknown, path: string): unknown {
  return path.split('.').filter(Boolean).reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), obj);
}

function writePath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.').filter(Boolean);
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (!cur[k] || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
}

function selectorString(sel: unknown): string | undefined {
  if (typeof sel === 'string') return sel;
  if (!sel || typeof sel !== 'object') return undefined;
  // A ReplicationController's selector is a plain label map: labels.SelectorFromSet(...).String()
  if (!('matchLabels' in sel) && !('matchExpressions' in sel)) {
    const set = sel as Record<string, unknown>;
    return Object.keys(set).sort().map((k) => `${k}=${String(set[k])}`).join(',');
  }
  const ml = (sel as { matchLabels?: Record<string, string> }).matchLabels ?? {};
  const parts = Object.keys(ml).sort().map((k) => `${k}=${ml[k]}`);
  const exprs = (sel as { matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> }).matchExpressions ?? [];
  for (const e of exprs) {
    const vals = `(${(e.values ?? []).join(',')})`;
    if (e.operator === 'In') parts.push(`${e.key} in ${vals}`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin ${vals}`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

export function toScale(obj: KubeObject, spec: ScaleSubresource): KubeObject {
  const meta = metaOf(obj);
  const status: Record<string, unknown> = { replicas: Number(readPath(obj, spec.statusReplicasPath) ?? 0) };
  // Deployments keep the selector in spec; kube's Scale.status.selector is its string form.
  // A custom resource without labelSelectorPath has no selector in its Scale (an empty path is not the object itself).
  const fromPath = spec.labelSelectorPath ? readPath(obj, spec.labelSelectorPath) : undefined;
  const sel = selectorString(fromPath ?? (spec.labelSelectorPath ? readPath(obj, '.spec.selector') : undefined));
  if (sel !== undefined) status['selector'] = sel;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp },
    spec: { replicas: Number(readPath(obj, spec.specReplicasPath) ?? 0) },
    status,
  };
}

/** Applies a Scale's spec.replicas to the parent object (the write side of /scale). */
export function applyScale(parent: KubeObject, scale: KubeObject, spec: ScaleSubresource): KubeObject {
  const replicas = (scale['spec'] as { replicas?: unknown } | undefined)?.replicas;
  if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)) {
    throw errors.invalid({ group: 'autoscaling', kind: 'Scale' }, metaOf(parent).name ?? '', [
      { type: 'Invalid', field: 'spec.replicas', badValue: replicas, detail: 'must be greater than or equal to 0' },
    ]);
  }
  const rv = metaOf(scale).resourceVersion;
  if (rv) metaOf(parent).resourceVersion = rv;
  if (replicas !== undefined) writePath(parent as Record<string, unknown>, spec.specReplicasPath, replicas);
  return parent;
}
