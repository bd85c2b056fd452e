// apps/v1. Columns mirror kube's printers (pkg/printers/internalversion).
import type { KubeObject } from '../../api/types.js';
import { age, at, type Entry } from './entry.js';

function deploymentReady(o: KubeObject): string {
  return `${(at(o, 'status', 'readyReplicas') as number | undefined) ?? 0}/${(at(o, 'spec', 'replicas') as number | undefined) ?? 0}`;
}
export const appsEntries: Entry[] = [
  {
    group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'],
    subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Ready', type: 'string', compute: deploymentReady },
      { name: 'Up-to-date', type: 'integer', compute: (o) => (at(o, 'status', 'updatedReplicas') as number | undefined) ?? 0 },
      { name: 'Available', type: 'integer', compute: (o) => (at(o, 'status', 'availableReplicas') as number | undefined) ?? 0 },
      age,
    ],
  },
];
