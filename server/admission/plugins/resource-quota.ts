// kube's ResourceQuota admission (plugin/pkg/admission/resourcequota, staging/src/k8s.io/apiserver/pkg/admission/
// plugin/resourcequota/controller.go checkRequest), for creates: every quota of the namespace that limits what the
// new object uses must still hold with it added, else 403 "exceeded quota: <name>, requested: …, used: …, limited: …";
// a quota on pod compute resources requires every container to name them ("failed quota: <name>: must specify …").
// The usage is computed from the stored objects at admission time instead of read from status.used, which a
// controller maintains separately (kube reads status.used and rejects with "status unknown" until it is filled).
// Scopes: Terminating, NotTerminating, BestEffort, NotBestEffort; quotas with other scopes (PriorityClass,
// CrossNamespacePodAffinity, In/NotIn selectors) are skipped. Not reproduced: updates
// (pod resize, PVC expansion), extended resources and services.loadbalancers/nodeports.
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { quantityString, quantityValue } from '../../registry/validation/quantity.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import { asObj, objList, type Obj, type ObjectLister } from './object-lister.js';
import { formatQuantity, objectUsage, podConstraintsError, tracksResource, type Usage } from './resource-quota-usage.js';

export const resourceQuotas = { group: '', version: 'v1', resource: 'resourcequotas' };

export interface ResourceQuotaDeps {
  lister: ObjectLister;
  isNamespaced(group: string, resource: string): boolean;
  /** false when the namespace surely holds no quota, to spare the storage read (kube reads an informer cache) */
  mayHaveQuotas?(namespace: string): boolean;
}

/** A quota's spec.hard. */
export function hardOf(quota: KubeObject): Record<string, unknown> {
  return asObj(asObj((quota as Obj)['spec'])?.['hard']) ?? {};
}

const podScopes = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort']);

/** qos.GetPodQOS == BestEffort: no container requests or limits cpu or memory. */
function isBestEffort(spec: Obj): boolean {
  for (const key of ['containers', 'initContainers']) {
    for (const c of objList(spec[key])) {
      const r = asObj(c['resources']) ?? {};
      for (const list of [asObj(r['requests']) ?? {}, asObj(r['limits']) ?? {}]) if ('cpu' in list || 'memory' in list) return false;
    }
  }
  return true;
}

function podMatchesScope(scope: string, pod: Obj): boolean {
  const spec = asObj(pod['spec']) ?? {};
  const terminating = typeof spec['activeDeadlineSeconds'] === 'number' && spec['activeDeadlineSeconds'] >= 0;
  switch (scope) {
    case 'Terminating':
      return terminating;
    case 'NotTerminating':
      return !terminating;
    case 'BestEffort':
      return isBestEffort(spec);
    default:
      return !isBestEffort(spec);
  }
}

/**
 * The quota's scopes (spec.scopes, and scopeSelector expressions with operator Exists) when all are ones evaluated
 * here (Terminating, NotTerminating, BestEffort, NotBestEffort); undefined for PriorityClass, CrossNamespacePodAffinity
 * and In/NotIn/DoesNotExist selectors, whose quotas are skipped.
 */
export function quotaScopes(quota: KubeObject): string[] | undefined {
  const spec = asObj((quota as Obj)['spec']) ?? {};
  const scopes = Array.isArray(spec['scopes']) ? spec['scopes'].map(String) : [];
  for (const e of objList(asObj(spec['scopeSelector'])?.['matchExpressions'])) {
    if (e['operator'] !== 'Exists') return undefined;
    scopes.push(String(e['scopeName']));
  }
  return scopes.every((s) => podScopes.has(s)) ? scopes : undefined;
}

/** Whether a scoped quota counts the object: scopes only ever match pods, and a pod must match every scope. */
export function scopesMatch(scopes: readonly string[], group: string, resource: string, obj: Obj): boolean {
  if (!scopes.length) return true;
  return group === '' && resource === 'pods' && scopes.every((s) => podMatchesScope(s, obj));
}

/** Sum of usages. */
export function addUsage(into: Usage, u: Usage): Usage {
  for (const [k, v] of Object.entries(u)) into[k] = (into[k] ?? 0) + v;
  return into;
}

/** Whether a quantity was written with a binary suffix, so sums are shown the same way. */
export function isBinaryQuantity(q: unknown): boolean {
  return typeof q === 'string' && /[KMGTPE]i$/.test(q);
}

/** prettyPrint: name=quantity, sorted by name, comma-separated. */
function prettyPrint(values: Record<string, string>): string {
  return Object.keys(values)
    .sort()
    .map((k) => `${k}=${values[k]}`)
    .join(',');
}

export interface QuotaCheck {
  quota: string;
  hard: Record<string, unknown>;
  used: Usage;
}

/** checkRequest for one quota: the error text, or undefined when the delta fits. */
export function checkQuota(check: QuotaCheck, delta: Usage): string | undefined {
  const requested: Record<string, string> = {};
  const used: Record<string, string> = {};
  const limited: Record<string, string> = {};
  for (const [name, hardValue] of Object.entries(check.hard)) {
    const d = delta[name];
    if (d === undefined) continue;
    const hard = quantityValue(hardValue);
    if (hard === undefined) continue;
    const current = check.used[name] ?? 0;
    // a small epsilon keeps float sums of milli-units (0.1 + 0.2) from exceeding an exact limit
    if (current + d <= hard + 1e-9) continue;
    const binary = isBinaryQuantity(hardValue);
    requested[name] = formatQuantity(d, binary);
    used[name] = formatQuantity(current, binary);
    limited[name] = quantityString(hardValue);
  }
  if (!Object.keys(requested).length) return undefined;
  return `exceeded quota: ${check.quota}, requested: ${prettyPrint(requested)}, used: ${prettyPrint(used)}, limited: ${prettyPrint(limited)}`;
}

export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  constructor(private readonly deps: ResourceQuotaDeps) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { group, version, resource } = attrs.resource;
    if (attrs.subresource !== '' || !attrs.namespace || !attrs.object || !this.deps.isNamespaced(group, resource)) return;
    if (this.deps.mayHaveQuotas && !this.deps.mayHaveQuotas(attrs.namespace)) return;
    const quotas = (await this.deps.lister.list(resourceQuotas, attrs.namespace)) ?? [];
    if (!quotas.length) return;
    const obj = attrs.object as Obj;
    const delta = objectUsage(group, resource, obj);
    const name = attrs.name || (attrs.object.metadata?.name ?? '');
    let existing: KubeObject[] | undefined;
    for (const quota of quotas) {
      const scopes = quotaScopes(quota);
      if (!scopes || !scopesMatch(scopes, group, resource, obj)) continue;
      const hard = hardOf(quota);
      const tracked = Object.keys(hard).filter((r) => tracksResource(group, resource, r));
      if (!tracked.length) continue;
      const quotaName = quota.metadata?.name ?? '';
      if (group === '' && resource === 'pods') {
        const missing = podConstraintsError(asObj(obj['spec']) ?? {}, tracked);
        if (missing) throw errors.forbidden({ group, resource }, name, `failed quota: ${quotaName}: ${missing}`);
      }
      existing ??= (await this.deps.lister.list({ group, version, resource }, attrs.namespace)) ?? [];
      const used: Usage = {};
      for (const o of existing) {
        if (attrs.object.metadata?.name && o.metadata?.name === attrs.object.metadata.name) continue;
        if (scopesMatch(scopes, group, resource, o as Obj)) addUsage(used, objectUsage(group, resource, o as Obj));
      }
      const failure = checkQuota({ quota: quotaName, hard: Object.fromEntries(tracked.map((r) => [r, hard[r]])), used }, delta);
      if (failure) throw errors.forbidden({ group, resource }, name, failure);
    }
  }
}
