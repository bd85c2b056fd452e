// coordination.k8s.io/v1. Columns mirror kube's printLease.
import { age, at, type Entry } from './entry.js';

export const coordinationEntries: Entry[] = [
  {
    group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true,
    printerColumns: [{ name: 'Holder', type: 'string', compute: (o) => String(at(o, 'spec', 'holderIdentity') ?? '') }, age],
  },
];
