// flowcontrol.apiserver.k8s.io/v1 (API Priority and Fairness). Columns mirror kube's printFlowSchema and
// printPriorityLevelConfiguration (pkg/printers/internalversion/printers.go).
import type { KubeObject } from '../../api/types.js';
import { age, at, type Entry } from './entry.js';

/** MissingPL: the status of the Dangling condition the APF controller keeps, "?" until it has written one. */
function missingPL(o: KubeObject): string {
  const conditions = (at(o, 'status', 'conditions') as Array<{ type?: string; status?: string }> | undefined) ?? [];
  return conditions.find((c) => c.type === 'Dangling')?.status ?? '?';
}
const limited = (o: KubeObject, ...path: string[]): string | number => {
  const v = at(o, 'spec', 'limited', ...path);
  return typeof v === 'number' ? v : '<none>';
};
const queuing = (field: string) => (o: KubeObject): string | number => {
  const v = at(o, 'spec', 'limited', 'limitResponse', 'queuing', field);
  return typeof v === 'number' ? v : '<none>';
};

export const flowcontrolEntries: Entry[] = [
  {
    group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', kind: 'FlowSchema', namespaced: false,
    subresources: { status: true }, hasStatus: true, hasGeneration: true,
    printerColumns: [
      { name: 'PriorityLevel', type: 'string', jsonPath: '.spec.priorityLevelConfiguration.name' },
      { name: 'MatchingPrecedence', type: 'string', compute: (o) => (at(o, 'spec', 'matchingPrecedence') as number | undefined) ?? 0 },
      { name: 'DistinguisherMethod', type: 'string', compute: (o) => String(at(o, 'spec', 'distinguisherMethod', 'type') ?? '<none>') },
      age,
      { name: 'MissingPL', type: 'string', compute: missingPL },
    ],
  },
  {
    group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', namespaced: false,
    subresources: { status: true }, hasStatus: true, hasGeneration: true,
    printerColumns: [
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      { name: 'NominalConcurrencyShares', type: 'string', compute: (o) => limited(o, 'nominalConcurrencyShares') },
      { name: 'Queues', type: 'string', compute: queuing('queues') },
      { name: 'HandSize', type: 'string', compute: queuing('handSize') },
      { name: 'QueueLengthLimit', type: 'string', compute: queuing('queueLengthLimit') },
      age,
    ],
  },
];
