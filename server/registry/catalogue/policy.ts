// policy/v1, minimal: only what pods/eviction reads (the full resource, with its printers and strategy, is
// another branch's; this entry is for the eviction tests on this branch and gives way to it on merge).
import type { Entry } from './entry.js';

export const policyEntries: Entry[] = [
  {
    group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'],
    subresources: { status: true },
    hasGeneration: true, hasStatus: true,
  },
];
