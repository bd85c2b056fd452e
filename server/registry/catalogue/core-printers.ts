// Cells of kube's printers (pkg/printers/internalversion/printers.go) for the core/v1 kinds whose columns are
// computed: nodes, persistent volumes and claims, endpoints, resource quotas, replication controllers, pod templates.
import type { KubeObject } from '../../api/types.js';
import { at } from './entry.js';

type Labels = Record<string, string> | undefined;

/** labels.FormatLabels: sorted k=v pairs, "<none>" when empty. */
export function formatLabels(labels: unknown): string {
  const l = (labels && typeof labels === 'object' ? labels : {}) as Record<string, string>;
  const keys = Object.keys(l).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${l[k]}`).join(',');
}

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

// Node: Ready/NotReady/Unknown from the Ready condition, then SchedulingDisabled
export function nodeStatus(o: KubeObject): string {
  const ready = list<{ type?: string; status?: string }>(at(o, 'status', 'conditions')).filter((c) => c.type === 'Ready').pop();
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (at(o, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** findNodeRoles: node-role.kubernetes.io/<role> label keys and the kubernetes.io/role value, sorted. */
export function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries((o.metadata?.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

export const nodeAddress = (type: string) => (o: KubeObject): string =>
  list<{ type?: string; address?: string }>(at(o, 'status', 'addresses')).find((a) => a.type === type)?.address ?? '<none>';

export const nodeInfo = (field: string) => (o: KubeObject): string => {
  const v = at(o, 'status', 'nodeInfo', field);
  return typeof v === 'string' && v !== '' ? v : '<unknown>';
};

const modeNames: Array<[string, string]> = [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']];
/** helper.GetAccessModesAsString */
export function accessModes(modes: unknown): string {
  const have = list<string>(modes);
  return modeNames.filter(([m]) => have.includes(m)).map(([, short]) => short).join(',');
}

const phaseOf = (o: KubeObject): string => (o.metadata?.deletionTimestamp ? 'Terminating' : String(at(o, 'status', 'phase') ?? ''));
const betaClass = (o: KubeObject): string | undefined => o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
const orUnset = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '<unset>');

export const pv = {
  capacity: (o: KubeObject): string => String(at(o, 'spec', 'capacity', 'storage') ?? '0'),
  accessModes: (o: KubeObject): string => accessModes(at(o, 'spec', 'accessModes')),
  reclaimPolicy: (o: KubeObject): string => String(at(o, 'spec', 'persistentVolumeReclaimPolicy') ?? ''),
  status: phaseOf,
  claim: (o: KubeObject): string => (at(o, 'spec', 'claimRef') ? `${String(at(o, 'spec', 'claimRef', 'namespace') ?? '')}/${String(at(o, 'spec', 'claimRef', 'name') ?? '')}` : ''),
  storageClass: (o: KubeObject): string => betaClass(o) ?? String(at(o, 'spec', 'storageClassName') ?? ''),
  volumeAttributesClass: (o: KubeObject): string => orUnset(at(o, 'spec', 'volumeAttributesClassName')),
  reason: (o: KubeObject): string => String(at(o, 'status', 'reason') ?? ''),
  volumeMode: (o: KubeObject): string => orUnset(at(o, 'spec', 'volumeMode')),
};

// A claim shows capacity and access modes from its status once it names a volume.
const bound = (o: KubeObject): boolean => typeof at(o, 'spec', 'volumeName') === 'string' && at(o, 'spec', 'volumeName') !== '';
export const pvc = {
  status: phaseOf,
  volume: (o: KubeObject): string => String(at(o, 'spec', 'volumeName') ?? ''),
  capacity: (o: KubeObject): string => (bound(o) ? String(at(o, 'status', 'capacity', 'storage') ?? '0') : ''),
  accessModes: (o: KubeObject): string => (bound(o) ? accessModes(at(o, 'status', 'accessModes')) : ''),
  storageClass: (o: KubeObject): string => betaClass(o) ?? String(at(o, 'spec', 'storageClassName') ?? ''),
  volumeAttributesClass: (o: KubeObject): string => orUnset(at(o, 'spec', 'volumeAttributesClassName')),
  volumeMode: (o: KubeObject): string => orUnset(at(o, 'spec', 'volumeMode')),
};

/** formatEndpoints: up to three ip:port (or ip for port-less subsets), then "+ N more...". */
export function endpointsCell(o: KubeObject): string {
  const subsets = list<{ addresses?: Array<{ ip?: string }>; ports?: Array<{ port?: number }> }>(o['subsets']);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const out: string[] = [];
  let count = 0;
  let more = false;
  const add = (s: string): void => {
    if (out.length === max) more = true;
    else out.push(s);
  };
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) add(String(a.ip ?? ''));
      continue;
    }
    for (const p of ports) {
      count += addresses.length;
      for (const a of addresses) {
        const ip = String(a.ip ?? '');
        add(`${ip.includes(':') ? `[${ip}]` : ip}:${p.port ?? 0}`);
      }
    }
  }
  return more ? `${out.join(',')} + ${count - max} more...` : out.join(',');
}

/** printResourceQuota: "name: used/hard" of status.hard, limits.* in the Limit column, the rest in Request. */
export const quotaColumn = (limits: boolean) => (o: KubeObject): string => {
  const hard = (at(o, 'status', 'hard') ?? {}) as Record<string, unknown>;
  const used = (at(o, 'status', 'used') ?? {}) as Record<string, unknown>;
  return Object.keys(hard)
    .sort()
    .filter((r) => (r.split('.').length > 1 && r.split('.')[0] === 'limits') === limits)
    .map((r) => `${r}: ${String(used[r] ?? '0')}/${String(hard[r])}`)
    .join(', ');
};

export const templateContainers = (templatePath: string[]) => (o: KubeObject): string =>
  list<{ name?: string }>(at(o, ...templatePath, 'spec', 'containers')).map((c) => c.name ?? '').join(',');
export const templateImages = (templatePath: string[]) => (o: KubeObject): string =>
  list<{ image?: string }>(at(o, ...templatePath, 'spec', 'containers')).map((c) => c.image ?? '').join(',');
export const templateLabels = (templatePath: string[]) => (o: KubeObject): string => formatLabels(at(o, ...templatePath, 'metadata', 'labels') as Labels);

export const intAt = (...path: string[]) => (o: KubeObject): number => {
  const v = at(o, ...path);
  return typeof v === 'number' ? v : 0;
};
