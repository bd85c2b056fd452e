// core/v1 (the legacy group, served under /api/v1). Columns mirror kube's printers (pkg/printers/internalversion).
import type { KubeObject } from '../../api/types.js';
import { age, at, countOf, lengthAt, str, type Entry } from './entry.js';

function podReady(o: KubeObject): string {
  const specs = lengthAt((x) => at(x, 'spec', 'containers'))(o);
  const statuses = (at(o, 'status', 'containerStatuses') as Array<{ ready?: boolean }> | undefined) ?? [];
  return `${statuses.filter((s) => s.ready).length}/${specs}`;
}
function podRestarts(o: KubeObject): number {
  const statuses = (at(o, 'status', 'containerStatuses') as Array<{ restartCount?: number }> | undefined) ?? [];
  return statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0);
}
function servicePorts(o: KubeObject): string {
  const ports = (at(o, 'spec', 'ports') as Array<{ port?: number; protocol?: string; nodePort?: number }> | undefined) ?? [];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}
export const coreEntries: Entry[] = [
  {
    group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'],
    subresources: { status: true }, nameRule: 'DNS1123Label', hasStatus: true,
    printerColumns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }, age],
  },
  {
    group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'],
    subresources: { status: true }, hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Ready', type: 'string', compute: podReady },
      { name: 'Status', type: 'string', compute: (o) => str(at(o, 'status', 'phase') ?? 'Pending') },
      { name: 'Restarts', type: 'string', compute: (o) => String(podRestarts(o)) },
      age,
      { name: 'IP', type: 'string', priority: 1, compute: (o) => str(at(o, 'status', 'podIP')) },
      { name: 'Node', type: 'string', priority: 1, compute: (o) => str(at(o, 'spec', 'nodeName')) },
    ],
  },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], printerColumns: [{ name: 'Data', type: 'integer', compute: (o) => countOf('data')(o) + countOf('binaryData')(o) }, age] },
  {
    group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true,
    printerColumns: [{ name: 'Type', type: 'string', jsonPath: '.type' }, { name: 'Data', type: 'integer', compute: countOf('data') }, age],
  },
  {
    group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'],
    subresources: { status: true }, nameRule: 'DNS1123Label', hasStatus: true,
    printerColumns: [
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      { name: 'Cluster-IP', type: 'string', compute: (o) => str(at(o, 'spec', 'clusterIP')) },
      { name: 'External-IP', type: 'string', compute: (o) => str((at(o, 'spec', 'externalIPs') as string[] | undefined)?.join(',')) },
      { name: 'Port(s)', type: 'string', compute: servicePorts },
      age,
    ],
  },
  // The deprecated top-level bindings (LegacyBindingREST): create only, answered by the pods/binding logic.
  { group: '', version: 'v1', resource: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'] },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], printerColumns: [{ name: 'Secrets', type: 'integer', compute: lengthAt((o) => o['secrets']) }, age] },
  {
    group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'],
    printerColumns: [
      { name: 'Last Seen', type: 'string', jsonPath: '.lastTimestamp' },
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Reason', type: 'string', jsonPath: '.reason' },
      { name: 'Object', type: 'string', compute: (o) => `${String(at(o, 'involvedObject', 'kind') ?? '').toLowerCase()}/${str(at(o, 'involvedObject', 'name'))}` },
      { name: 'Message', type: 'string', jsonPath: '.message' },
    ],
  },
];
