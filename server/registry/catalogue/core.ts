// core/v1 (the legacy group, served under /api/v1). Columns mirror kube's printers (pkg/printers/internalversion).
import type { KubeObject } from '../../api/types.js';
import { age, at, countOf, lengthAt, str, type Entry } from './entry.js';
import { endpointsCell, formatLabels, intAt, nodeAddress, nodeInfo, nodeRoles, nodeStatus, pv, pvc, quotaColumn, templateContainers, templateImages, templateLabels } from './core-printers.js';

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
  {
    group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'],
    subresources: { status: true }, hasStatus: true,
    printerColumns: [
      { name: 'Status', type: 'string', description: 'The status of the node', compute: nodeStatus },
      { name: 'Roles', type: 'string', description: 'The roles of the node', compute: nodeRoles },
      age,
      { name: 'Version', type: 'string', compute: (o) => String(at(o, 'status', 'nodeInfo', 'kubeletVersion') ?? '') },
      { name: 'Internal-IP', type: 'string', priority: 1, compute: nodeAddress('InternalIP') },
      { name: 'External-IP', type: 'string', priority: 1, compute: nodeAddress('ExternalIP') },
      { name: 'OS-Image', type: 'string', priority: 1, compute: nodeInfo('osImage') },
      { name: 'Kernel-Version', type: 'string', priority: 1, compute: nodeInfo('kernelVersion') },
      { name: 'Container-Runtime', type: 'string', priority: 1, compute: nodeInfo('containerRuntimeVersion') },
    ],
  },
  {
    group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'],
    subresources: { status: true }, hasStatus: true,
    printerColumns: [
      { name: 'Capacity', type: 'string', compute: pv.capacity },
      { name: 'Access Modes', type: 'string', compute: pv.accessModes },
      { name: 'Reclaim Policy', type: 'string', compute: pv.reclaimPolicy },
      { name: 'Status', type: 'string', compute: pv.status },
      { name: 'Claim', type: 'string', compute: pv.claim },
      { name: 'StorageClass', type: 'string', compute: pv.storageClass },
      { name: 'VolumeAttributesClass', type: 'string', compute: pv.volumeAttributesClass },
      { name: 'Reason', type: 'string', compute: pv.reason },
      age,
      { name: 'VolumeMode', type: 'string', priority: 1, compute: pv.volumeMode },
    ],
  },
  {
    group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'],
    subresources: { status: true }, hasStatus: true,
    printerColumns: [
      { name: 'Status', type: 'string', compute: pvc.status },
      { name: 'Volume', type: 'string', compute: pvc.volume },
      { name: 'Capacity', type: 'string', compute: pvc.capacity },
      { name: 'Access Modes', type: 'string', compute: pvc.accessModes },
      { name: 'StorageClass', type: 'string', compute: pvc.storageClass },
      { name: 'VolumeAttributesClass', type: 'string', compute: pvc.volumeAttributesClass },
      age,
      { name: 'VolumeMode', type: 'string', priority: 1, compute: pvc.volumeMode },
    ],
  },
  {
    group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'], singular: 'endpoints',
    // +k8s:prerelease-lifecycle-gen:deprecated=1.33, replaced by EndpointSlice (KEP-4974)
    deprecationWarning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
    printerColumns: [{ name: 'Endpoints', type: 'string', compute: endpointsCell }, age],
  },
  {
    group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', namespaced: true, shortNames: ['limits'],
    // kube prints the creation time itself (RFC 3339), not an age
    printerColumns: [{ name: 'Created At', type: 'date', compute: (o) => str(o.metadata?.creationTimestamp) }],
  },
  {
    group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', namespaced: true, shortNames: ['quota'],
    subresources: { status: true }, hasStatus: true,
    printerColumns: [age, { name: 'Request', type: 'string', compute: quotaColumn(false) }, { name: 'Limit', type: 'string', compute: quotaColumn(true) }],
  },
  {
    group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true, shortNames: ['rc'], categories: ['all'],
    // kube's RC scale reads the selector from spec.selector (a label map), not from status
    subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Desired', type: 'integer', compute: intAt('spec', 'replicas') },
      { name: 'Current', type: 'integer', compute: intAt('status', 'replicas') },
      { name: 'Ready', type: 'integer', compute: intAt('status', 'readyReplicas') },
      age,
      { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.', compute: templateContainers(['spec', 'template']) },
      { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.', compute: templateImages(['spec', 'template']) },
      { name: 'Selector', type: 'string', priority: 1, compute: (o) => formatLabels(at(o, 'spec', 'selector')) },
    ],
  },
  {
    group: '', version: 'v1', resource: 'podtemplates', kind: 'PodTemplate', namespaced: true,
    printerColumns: [
      { name: 'Containers', type: 'string', description: 'Names of each container in the template.', compute: templateContainers(['template']) },
      { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', compute: templateImages(['template']) },
      { name: 'Pod Labels', type: 'string', description: 'The labels for the pod template.', compute: templateLabels(['template']) },
    ],
  },
];
