// policy/v1. Columns mirror kube's printPodDisruptionBudget (pkg/printers/internalversion/printers.go).
import { age, at, type Entry } from './entry.js';

const intOrStringOrNA = (v: unknown): string => (v === undefined || v === null ? 'N/A' : String(v));

export const policyEntries: Entry[] = [
  {
    group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'],
    subresources: { status: true },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available simultaneously.  This can be either an integer or a string specifying a percentage, e.g. "28%".', compute: (o) => intOrStringOrNA(at(o, 'spec', 'minAvailable')) },
      { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable simultaneously.  This can be either an integer or a string specifying a percentage, e.g. "28%".', compute: (o) => intOrStringOrNA(at(o, 'spec', 'maxUnavailable')) },
      { name: 'Allowed Disruptions', type: 'integer', description: 'Number of pod disruptions that are currently allowed.', compute: (o) => (at(o, 'status', 'disruptionsAllowed') as number | undefined) ?? 0 },
      age,
    ],
  },
];
