// storage.k8s.io/v1. Columns mirror kube's printers (pkg/printers/internalversion/printers.go: printStorageClass,
// printCSIDriver, printCSINode, printCSIStorageCapacity, printVolumeAttachment, printVolumeAttributesClass).
import type { KubeObject } from '../../api/types.js';
import { age, at, lengthAt, str, type Entry } from './entry.js';

const joinedOr = (v: unknown, none: string): string => (Array.isArray(v) && v.length > 0 ? v.join(',') : none);
// printCSIDriver prints the dereferenced booleans, false when unset
const flag = (o: KubeObject, field: string): boolean => at(o, 'spec', field) === true;

/** printStorageClass: the default class (storageutil.IsDefaultAnnotation, GA or beta annotation) is marked. */
function storageClassName(o: KubeObject): string {
  const a = (o['metadata'] as { annotations?: Record<string, string> } | undefined)?.annotations ?? {};
  const name = String((o['metadata'] as { name?: string } | undefined)?.name ?? '');
  const isDefault = a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
  return isDefault ? `${name} (default)` : name;
}

export const storageEntries: Entry[] = [
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false, shortNames: ['sc'],
    nameCell: storageClassName,
    printerColumns: [
      { name: 'Provisioner', type: 'string', jsonPath: '.provisioner' },
      { name: 'ReclaimPolicy', type: 'string', compute: (o) => str(o['reclaimPolicy'] ?? 'Delete') },
      { name: 'VolumeBindingMode', type: 'string', compute: (o) => str(o['volumeBindingMode'] ?? 'Immediate') },
      { name: 'AllowVolumeExpansion', type: 'string', compute: (o) => String(o['allowVolumeExpansion'] === true) },
      age,
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers', kind: 'CSIDriver', namespaced: false,
    printerColumns: [
      { name: 'AttachRequired', type: 'boolean', compute: (o) => flag(o, 'attachRequired') },
      { name: 'PodInfoOnMount', type: 'boolean', compute: (o) => flag(o, 'podInfoOnMount') },
      { name: 'StorageCapacity', type: 'boolean', compute: (o) => flag(o, 'storageCapacity') },
      { name: 'TokenRequests', type: 'string', compute: (o) => joinedOr(((at(o, 'spec', 'tokenRequests') as Array<{ audience?: string }> | undefined) ?? []).map((t) => t.audience ?? ''), '<unset>') },
      { name: 'RequiresRepublish', type: 'boolean', compute: (o) => flag(o, 'requiresRepublish') },
      { name: 'Modes', type: 'string', compute: (o) => joinedOr(at(o, 'spec', 'volumeLifecycleModes'), '<none>') },
      age,
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'csinodes', kind: 'CSINode', namespaced: false,
    printerColumns: [{ name: 'Drivers', type: 'integer', compute: lengthAt((o) => at(o, 'spec', 'drivers')) }, age],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true,
    printerColumns: [
      { name: 'StorageClassName', type: 'string', jsonPath: '.storageClassName' },
      { name: 'Capacity', type: 'string', compute: (o) => (o['capacity'] === undefined || o['capacity'] === null ? '<unset>' : String(o['capacity'])) },
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false,
    subresources: { status: true }, hasStatus: true,
    printerColumns: [
      { name: 'Attacher', type: 'string', jsonPath: '.spec.attacher' },
      { name: 'PV', type: 'string', compute: (o) => String(at(o, 'spec', 'source', 'persistentVolumeName') ?? '') },
      { name: 'Node', type: 'string', jsonPath: '.spec.nodeName' },
      { name: 'Attached', type: 'boolean', compute: (o) => at(o, 'status', 'attached') === true },
      age,
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'volumeattributesclasses', kind: 'VolumeAttributesClass', namespaced: false, shortNames: ['vac'],
    printerColumns: [{ name: 'DriverName', type: 'string', jsonPath: '.driverName' }, age],
  },
];
