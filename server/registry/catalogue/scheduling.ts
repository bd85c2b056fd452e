// scheduling.k8s.io/v1. Columns mirror kube's printPriorityClass.
import { age, at, type Entry } from './entry.js';

export const schedulingEntries: Entry[] = [
  {
    group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false, shortNames: ['pc'],
    printerColumns: [
      { name: 'Value', type: 'integer', compute: (o) => (at(o, 'value') as number | undefined) ?? 0 },
      { name: 'Global-Default', type: 'boolean', compute: (o) => at(o, 'globalDefault') === true },
      age,
      { name: 'PreemptionPolicy', type: 'string', compute: (o) => String(at(o, 'preemptionPolicy') ?? '') },
    ],
  },
];
