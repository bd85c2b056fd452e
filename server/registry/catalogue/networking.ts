// networking.k8s.io/v1. Columns mirror kube's printers (pkg/printers/internalversion/printers.go: printIngress,
// printIngressClass, printNetworkPolicy, printIPAddress, printServiceCIDR).
import type { KubeObject } from '../../api/types.js';
import { age, at, str, type Entry } from './entry.js';

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Obj[]) : []);

/** formatHosts: the rules' hosts ("*" for a rule without one), the first three and "+ N more...". */
function ingressHosts(o: KubeObject): string {
  const hosts = list(at(o, 'spec', 'rules')).map((r) => (typeof r['host'] === 'string' && r['host'] ? r['host'] : '*'));
  if (hosts.length === 0) return '*';
  const shown = hosts.slice(0, 3).join(',');
  return hosts.length > 3 ? `${shown} + ${hosts.length - 3} more...` : shown;
}
/** ingressLoadBalancerStatusStringer: IPs, else hostnames, comma-joined. */
function ingressAddress(o: KubeObject): string {
  return list(at(o, 'status', 'loadBalancer', 'ingress'))
    .map((i) => (i['ip'] ? String(i['ip']) : i['hostname'] ? String(i['hostname']) : ''))
    .filter((s) => s !== '')
    .join(',');
}
/** formatPorts: TLS adds 443. */
function ingressPorts(o: KubeObject): string {
  return list(at(o, 'spec', 'tls')).length > 0 ? '80, 443' : '80';
}
function ingressClassParameters(o: KubeObject): string {
  const p = at(o, 'spec', 'parameters') as Obj | undefined;
  if (!p) return '<none>';
  return `${String(p['kind'] ?? '')}${p['apiGroup'] ? `.${String(p['apiGroup'])}` : ''}/${String(p['name'] ?? '')}`;
}
/** metav1.FormatLabelSelector: "<none>" for the empty selector (all pods). */
function formatLabelSelector(sel: unknown): string {
  const s = (sel ?? {}) as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
  const parts: string[] = [];
  for (const k of Object.keys(s.matchLabels ?? {}).sort()) parts.push(`${k}=${s.matchLabels![k]}`);
  for (const e of s.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])].sort().join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${e.key} in (${vals})`);
        break;
      case 'NotIn':
        parts.push(`${e.key} notin (${vals})`);
        break;
      case 'Exists':
        parts.push(e.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${e.key}`);
        break;
    }
  }
  return parts.length ? parts.join(',') : '<none>';
}
/** printIPAddress: the parent as resource.group/namespace/name ("" parts left out as kube does). */
function ipAddressParent(o: KubeObject): string {
  const p = at(o, 'spec', 'parentRef') as Obj | undefined;
  if (!p) return '';
  const gr = p['group'] ? `${String(p['resource'] ?? '')}.${String(p['group'])}` : String(p['resource'] ?? '');
  return `${gr}/${p['namespace'] ? `${String(p['namespace'])}/` : ''}${String(p['name'] ?? '')}`;
}

export const networkingEntries: Entry[] = [
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', namespaced: true, shortNames: ['ing'],
    subresources: { status: true }, hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Class', type: 'string', compute: (o) => str(at(o, 'spec', 'ingressClassName')) },
      { name: 'Hosts', type: 'string', compute: ingressHosts },
      { name: 'Address', type: 'string', compute: ingressAddress },
      { name: 'Ports', type: 'string', compute: ingressPorts },
      age,
    ],
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', kind: 'IngressClass', namespaced: false, hasGeneration: true,
    printerColumns: [
      { name: 'Controller', type: 'string', compute: (o) => str(at(o, 'spec', 'controller')) },
      { name: 'Parameters', type: 'string', compute: ingressClassParameters },
      age,
    ],
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'], hasGeneration: true,
    printerColumns: [{ name: 'Pod-Selector', type: 'string', compute: (o) => formatLabelSelector(at(o, 'spec', 'podSelector')) }, age],
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'ipaddresses', kind: 'IPAddress', namespaced: false, shortNames: ['ip'],
    // kube's name rule is an IP in canonical form (ValidateIPAddressName), checked by the strategy
    nameRule: 'PathSegment',
    printerColumns: [{ name: 'ParentRef', type: 'string', compute: ipAddressParent }, age],
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs', kind: 'ServiceCIDR', namespaced: false,
    subresources: { status: true }, hasStatus: true,
    printerColumns: [{ name: 'CIDRs', type: 'string', compute: (o) => ((at(o, 'spec', 'cidrs') as string[] | undefined) ?? []).join(',') }, age],
  },
];
