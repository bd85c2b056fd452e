// apps/v1. Columns mirror kube's printers (pkg/printers/internalversion/printers.go: printDeployment,
// printReplicaSet, printStatefulSet, printDaemonSet, printControllerRevision).
import type { KubeObject } from '../../api/types.js';
import type { PrinterColumn } from '../resource.js';
import { labelSelectorAsSelector, type LabelSelectorLike } from '../selectors/label-selector.js';
import { age, at, type Entry } from './entry.js';

const num = (o: KubeObject, ...path: string[]): number => (at(o, ...path) as number | undefined) ?? 0;

function deploymentReady(o: KubeObject): string {
  return `${num(o, 'status', 'readyReplicas')}/${num(o, 'spec', 'replicas')}`;
}

/** layoutContainerCells: the template's container names and images, comma-separated */
function templateContainers(o: KubeObject, field: 'name' | 'image'): string {
  const containers = at(o, 'spec', 'template', 'spec', 'containers');
  return Array.isArray(containers) ? containers.map((c) => String((c as Record<string, unknown>)[field] ?? '')).join(',') : '';
}

/** metav1.FormatLabelSelector */
function formatLabelSelector(sel: unknown): string {
  const converted = labelSelectorAsSelector(sel && typeof sel === 'object' ? (sel as LabelSelectorLike) : undefined);
  if (!converted.ok) return '<error>';
  // a nil selector is labels.Nothing(), which prints as ""
  const text = sel && typeof sel === 'object' ? converted.selector.toString() : '';
  return text === '' ? '<none>' : text;
}

/** labels.FormatLabels: sorted k=v pairs */
function formatLabels(m: unknown): string {
  const labels = m && typeof m === 'object' ? (m as Record<string, string>) : {};
  const text = Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(',');
  return text === '' ? '<none>' : text;
}

/** The CONTROLLER column: the controlling owner as lower-case Kind.group/name, or <none>. */
function controllerOf(o: KubeObject): string {
  const owners = (o.metadata?.ownerReferences ?? []) as Array<{ apiVersion?: string; kind?: string; name?: string; controller?: boolean }>;
  const ref = owners.find((r) => r.controller === true);
  if (!ref) return '<none>';
  const apiVersion = ref.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = ref.kind ?? '';
  if (kind === '') return ref.name ?? '';
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${ref.name ?? ''}`;
}

const containersColumns: PrinterColumn[] = [
  { name: 'Containers', type: 'string', priority: 1, compute: (o) => templateContainers(o, 'name') },
  { name: 'Images', type: 'string', priority: 1, compute: (o) => templateContainers(o, 'image') },
];
const selectorColumn: PrinterColumn = { name: 'Selector', type: 'string', priority: 1, compute: (o) => formatLabelSelector(at(o, 'spec', 'selector')) };
const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

export const appsEntries: Entry[] = [
  {
    group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'],
    subresources: { status: true, scale },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Ready', type: 'string', compute: deploymentReady },
      { name: 'Up-to-date', type: 'integer', compute: (o) => num(o, 'status', 'updatedReplicas') },
      { name: 'Available', type: 'integer', compute: (o) => num(o, 'status', 'availableReplicas') },
      age,
      ...containersColumns,
      selectorColumn,
    ],
  },
  {
    group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], categories: ['all'],
    subresources: { status: true, scale },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Desired', type: 'integer', compute: (o) => num(o, 'spec', 'replicas') },
      { name: 'Current', type: 'integer', compute: (o) => num(o, 'status', 'replicas') },
      { name: 'Ready', type: 'integer', compute: (o) => num(o, 'status', 'readyReplicas') },
      age,
      ...containersColumns,
      selectorColumn,
    ],
  },
  {
    // StatefulSet names become pod hostnames: DNS labels (ValidateStatefulSetName)
    group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'],
    nameRule: 'DNS1123Label',
    subresources: { status: true, scale },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Ready', type: 'string', compute: (o) => `${num(o, 'status', 'readyReplicas')}/${num(o, 'spec', 'replicas')}` },
      age,
      ...containersColumns,
    ],
  },
  {
    group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], categories: ['all'],
    subresources: { status: true },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Desired', type: 'integer', compute: (o) => num(o, 'status', 'desiredNumberScheduled') },
      { name: 'Current', type: 'integer', compute: (o) => num(o, 'status', 'currentNumberScheduled') },
      { name: 'Ready', type: 'integer', compute: (o) => num(o, 'status', 'numberReady') },
      { name: 'Up-to-date', type: 'integer', compute: (o) => num(o, 'status', 'updatedNumberScheduled') },
      { name: 'Available', type: 'integer', compute: (o) => num(o, 'status', 'numberAvailable') },
      { name: 'Node Selector', type: 'string', compute: (o) => formatLabels(at(o, 'spec', 'template', 'spec', 'nodeSelector')) },
      age,
      ...containersColumns,
      selectorColumn,
    ],
  },
  {
    // no spec/status split and no generation: kube's strategy prepares nothing
    group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true,
    printerColumns: [
      { name: 'Controller', type: 'string', compute: controllerOf },
      { name: 'Revision', type: 'integer', compute: (o) => num(o, 'revision') },
      age,
    ],
  },
];
