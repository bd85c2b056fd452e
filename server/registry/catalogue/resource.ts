// resource.k8s.io/v1 (dynamic resource allocation). Columns mirror kube's printers (printDeviceClass,
// printResourceClaim, printResourceClaimTemplate, printResourceSlice in pkg/printers/internalversion).
import type { KubeObject } from '../../api/types.js';
import { age, at, str, type Entry } from './entry.js';

/** kube's resourceClaimState: deleted, then pending or allocated (and reserved), comma-joined. */
function resourceClaimState(o: KubeObject): string {
  const states: string[] = [];
  const deleting = at(o, 'metadata', 'deletionTimestamp') !== undefined;
  if (deleting) states.push('deleted');
  if (at(o, 'status', 'allocation') === undefined || at(o, 'status', 'allocation') === null) {
    if (!deleting) states.push('pending');
  } else {
    states.push('allocated');
    const reserved = at(o, 'status', 'reservedFor');
    if (Array.isArray(reserved) && reserved.length > 0) states.push('reserved');
  }
  return states.join(',');
}

export const resourceEntries: Entry[] = [
  { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', kind: 'DeviceClass', namespaced: false, hasGeneration: true, printerColumns: [age] },
  {
    group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaims', kind: 'ResourceClaim', namespaced: true,
    subresources: { status: true }, hasStatus: true,
    printerColumns: [{ name: 'State', type: 'string', compute: resourceClaimState }, age],
  },
  { group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaimtemplates', kind: 'ResourceClaimTemplate', namespaced: true, printerColumns: [age] },
  {
    group: 'resource.k8s.io', version: 'v1', resource: 'resourceslices', kind: 'ResourceSlice', namespaced: false, hasGeneration: true,
    printerColumns: [
      { name: 'Node', type: 'string', compute: (o) => str(at(o, 'spec', 'nodeName') ?? undefined) },
      { name: 'Driver', type: 'string', jsonPath: '.spec.driver' },
      { name: 'Pool', type: 'string', jsonPath: '.spec.pool.name' },
      age,
    ],
  },
];
