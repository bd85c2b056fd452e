// Warnings kube returns when PersistentVolumes and PersistentVolumeClaims are written
// (pkg/api/persistentvolume/util.go GetWarningsForPersistentVolume, pkg/api/persistentvolumeclaim/util.go
// GetWarningsForPersistentVolumeClaim): deprecated annotations, policy, node labels and volume plugins, and
// fractional byte quantities.
import type { KubeObject } from '../../../api/types.js';
import { quantityString, quantityValue } from '../../validation/quantity.js';
import { listAt, type Obj } from '../fields.js';
import { resourceList } from './resources.js';

const storageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';
const mountOptionsAnnotation = 'volume.beta.kubernetes.io/mount-options';
// nodeapi's deprecated node labels: label → [since, replacement]
const deprecatedNodeLabels: Record<string, [string, string]> = {
  'beta.kubernetes.io/arch': ['v1.14', 'kubernetes.io/arch'],
  'beta.kubernetes.io/os': ['v1.14', 'kubernetes.io/os'],
  'failure-domain.beta.kubernetes.io/region': ['v1.17', 'topology.kubernetes.io/region'],
  'failure-domain.beta.kubernetes.io/zone': ['v1.17', 'topology.kubernetes.io/zone'],
  'beta.kubernetes.io/instance-type': ['v1.17', 'node.kubernetes.io/instance-type'],
};
// in-tree plugins: JSON field, the path kube prints, the deprecation text
const deprecatedPlugins: Array<[string, string, string]> = [
  ['cephfs', 'spec.cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['photonPersistentDisk', 'spec.photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['rbd', 'spec.rbd', 'deprecated in v1.28, non-functional in v1.31+'],
  ['scaleIO', 'spec.scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['storageos', 'spec.storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'spec.glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
];
const annotationWarning = (obj: KubeObject): string[] =>
  obj.metadata?.annotations?.[storageClassAnnotation] !== undefined ? [`metadata.annotations[${storageClassAnnotation}]: deprecated since v1.8; use "storageClassName" attribute instead`] : [];

export function persistentVolumeWarnings(obj: KubeObject): string[] {
  const spec = (obj['spec'] ?? {}) as Obj;
  const warnings = annotationWarning(obj);
  if (obj.metadata?.annotations?.[mountOptionsAnnotation] !== undefined) warnings.push(`metadata.annotations[${mountOptionsAnnotation}]: deprecated since v1.31; use "mountOptions" attribute instead`);
  if (spec['persistentVolumeReclaimPolicy'] === 'Recycle') warnings.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  const required = ((spec['nodeAffinity'] ?? {}) as Obj)['required'] as Obj | undefined;
  listAt(required ?? {}, 'nodeSelectorTerms').forEach((term, i) => {
    listAt(term, 'matchExpressions').forEach((expr, j) => {
      const key = String(expr['key'] ?? '');
      const deprecated = deprecatedNodeLabels[key];
      if (deprecated) warnings.push(`spec.nodeAffinity.required.nodeSelectorTerms[${i}].matchExpressions[${j}].key: ${key} is deprecated since ${deprecated[0]}; use ${JSON.stringify(deprecated[1])} instead`);
    });
  });
  for (const [field, path, text] of deprecatedPlugins) if (spec[field] !== undefined && spec[field] !== null) warnings.push(`${path}: ${text}`);
  return warnings;
}

export function persistentVolumeClaimWarnings(obj: KubeObject): string[] {
  const warnings = annotationWarning(obj);
  const resources = (((obj['spec'] ?? {}) as Obj)['resources'] ?? {}) as Obj;
  for (const list of ['requests', 'limits']) {
    const q = resourceList(resources[list])['storage'];
    const v = quantityValue(q);
    if (v !== undefined && Math.round(v * 1000) % 1000 !== 0) warnings.push(`spec.resources.${list}[storage]: fractional byte value ${JSON.stringify(quantityString(q))} is invalid, must be an integer`);
  }
  return warnings;
}
