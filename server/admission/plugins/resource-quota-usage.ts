// What one object counts against a ResourceQuota (kube's quota evaluators, pkg/quota/v1/evaluator/core): every
// resource counts as count/<resource>[.<group>]; pods, services, configmaps, secrets, PVCs, replication controllers
// and quotas also under their legacy names; non-terminal pods add their compute requests and limits (sum of the
// containers, at least the largest init container), PVCs their requested storage.
import { quantityValue } from '../../registry/validation/quantity.js';
import { asObj, objList, type Obj } from './object-lister.js';

export type Usage = Record<string, number>;

const legacyCountNames: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  configmaps: 'configmaps',
  secrets: 'secrets',
  persistentvolumeclaims: 'persistentvolumeclaims',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

export function countResourceName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** QuotaV1Pod: terminal pods (and pods past their deletion grace) no longer count. */
function podCounts(pod: Obj): boolean {
  const phase = asObj(pod['status'])?.['phase'];
  return phase !== 'Succeeded' && phase !== 'Failed';
}

function containerUsage(c: Obj): Usage {
  const r = asObj(c['resources']) ?? {};
  const requests = asObj(r['requests']) ?? {};
  const limits = asObj(r['limits']) ?? {};
  const u: Usage = {};
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = quantityValue(requests[name]);
    const lim = quantityValue(limits[name]);
    if (req !== undefined) {
      u[`requests.${name}`] = req;
      // the bare names are requests, as kube's podComputeUsageHelper counts them
      if (name !== 'ephemeral-storage') u[name] = req;
    }
    if (lim !== undefined) u[`limits.${name}`] = lim;
  }
  return u;
}

/** PodUsageFunc's compute part: sum of containers, raised to the largest init container where that is larger. */
export function podComputeUsage(spec: Obj): Usage {
  const sum: Usage = {};
  for (const c of objList(spec['containers'])) for (const [k, v] of Object.entries(containerUsage(c))) sum[k] = (sum[k] ?? 0) + v;
  for (const c of objList(spec['initContainers'])) for (const [k, v] of Object.entries(containerUsage(c))) sum[k] = Math.max(sum[k] ?? 0, v);
  return sum;
}

/** The usage one object of group/resource adds. */
export function objectUsage(group: string, resource: string, obj: Obj): Usage {
  if (group === '' && resource === 'pods' && !podCounts(obj)) return {};
  const u: Usage = { [countResourceName(group, resource)]: 1 };
  if (group === '' && legacyCountNames[resource]) u[legacyCountNames[resource]] = 1;
  if (group === '' && resource === 'pods') Object.assign(u, podComputeUsage(asObj(obj['spec']) ?? {}));
  if (group === '' && resource === 'persistentvolumeclaims') {
    const storage = quantityValue(asObj(asObj(asObj(obj['spec'])?.['resources'])?.['requests'])?.['storage']);
    if (storage !== undefined) u['requests.storage'] = storage;
  }
  return u;
}

/** Whether a quota resource name is one this evaluator computes for group/resource (kube's Handles/MatchingResources). */
export function tracksResource(group: string, resource: string, quotaResource: string): boolean {
  if (quotaResource === countResourceName(group, resource)) return true;
  if (group !== '') return false;
  if (legacyCountNames[resource] === quotaResource) return true;
  if (resource === 'pods') return /^(requests\.|limits\.)?(cpu|memory)$/.test(quotaResource) || /^(requests|limits)\.ephemeral-storage$/.test(quotaResource);
  if (resource === 'persistentvolumeclaims') return quotaResource === 'requests.storage';
  return false;
}

/** The compute resources a pod's every container must name when a quota limits them (podEvaluator.Constraints). */
const computeValidationSet = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** podEvaluator.Constraints: "must specify limits.cpu for: a,b; requests.memory for: a", or undefined. */
export function podConstraintsError(spec: Obj, hard: readonly string[]): string | undefined {
  const required = hard.filter((r) => computeValidationSet.includes(r));
  if (!required.length) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const key of ['containers', 'initContainers']) {
    for (const c of objList(spec[key])) {
      const has = containerUsage(c);
      for (const r of required) {
        if (has[r] === undefined) {
          if (!missing.has(r)) missing.set(r, new Set());
          missing.get(r)!.add(String(c['name']));
        }
      }
    }
  }
  if (!missing.size) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

const binarySuffixes: Array<[string, number]> = [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];
const decimalSuffixes: Array<[string, number]> = [['E', 1e18], ['P', 1e15], ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]];

/**
 * A computed usage as a quantity string, in the style kube canonicalises sums: milli-units for fractions, the
 * largest exact binary suffix for memory-like values written in binary, else the largest exact decimal suffix.
 */
export function formatQuantity(value: number, binary: boolean): string {
  if (!Number.isInteger(value)) {
    const milli = Math.round(value * 1000);
    return `${milli}m`;
  }
  if (value === 0) return '0';
  for (const [suffix, mult] of binary ? binarySuffixes : decimalSuffixes) if (value % mult === 0) return `${value / mult}${suffix}`;
  return String(value);
}
