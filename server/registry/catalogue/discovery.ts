// discovery.k8s.io/v1. Columns mirror kube's printEndpointSlice (formatEndpointSlicePorts, formatDiscoveryEndpoints:
// at most three addresses, then "+ N more...").
import type { KubeObject } from '../../api/types.js';
import { age, type Entry } from './entry.js';

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Obj[]) : []);

function slicePorts(o: KubeObject): string {
  const ports = list(o['ports']);
  if (ports.length === 0) return '<unset>';
  const shown = ports.slice(0, 3).map((p) => (typeof p['port'] === 'number' ? String(p['port']) : '<unset>'));
  return ports.length > 3 ? `${shown.join(',')} + ${ports.length - 3} more...` : shown.join(',');
}
function sliceEndpoints(o: KubeObject): string {
  const addrs = list(o['endpoints']).flatMap((e) => (Array.isArray(e['addresses']) ? (e['addresses'] as string[]) : []));
  if (addrs.length === 0) return '<unset>';
  const shown = addrs.slice(0, 3).join(',');
  return addrs.length > 3 ? `${shown} + ${addrs.length - 3} more...` : shown;
}

export const discoveryEntries: Entry[] = [
  {
    group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true, hasGeneration: true,
    printerColumns: [{ name: 'AddressType', type: 'string', jsonPath: '.addressType' }, { name: 'Ports', type: 'string', compute: slicePorts }, { name: 'Endpoints', type: 'string', compute: sliceEndpoints }, age],
  },
];
