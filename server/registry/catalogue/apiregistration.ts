// apiregistration.k8s.io/v1: APIService objects, stored and listed (this server aggregates nothing). Columns
// mirror kube-aggregator's table convertor (pkg/registry/apiservice/etcd: Name, Service, Available, Age).
import type { KubeObject } from '../../api/types.js';
import { age, at, type Entry } from './entry.js';

function service(o: KubeObject): string {
  const svc = at(o, 'spec', 'service') as { namespace?: string; name?: string } | null | undefined;
  return svc ? `${svc.namespace ?? ''}/${svc.name ?? ''}` : 'Local';
}
/** The Available condition: True, else "False (Reason)" when it has a reason; Unknown without one. */
function available(o: KubeObject): string {
  const conditions = (at(o, 'status', 'conditions') as Array<{ type?: string; status?: string; reason?: string }> | undefined) ?? [];
  const c = conditions.find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  if (c.status === 'True') return 'True';
  return c.reason ? `${c.status ?? ''} (${c.reason})` : (c.status ?? '');
}

export const apiregistrationEntries: Entry[] = [
  {
    group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false, categories: ['api-extensions'],
    subresources: { status: true }, hasStatus: true,
    // kube-aggregator's name rule: a path segment first, then exactly version.group (checked by the strategy)
    nameRule: 'PathSegment',
    printerColumns: [{ name: 'Service', type: 'string', compute: service }, { name: 'Available', type: 'string', compute: available }, age],
  },
];
