// node.k8s.io/v1. Columns mirror kube's printRuntimeClass.
import { age, at, type Entry } from './entry.js';

export const nodeEntries: Entry[] = [
  {
    group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false,
    printerColumns: [{ name: 'Handler', type: 'string', compute: (o) => String(at(o, 'handler') ?? '') }, age],
  },
];
