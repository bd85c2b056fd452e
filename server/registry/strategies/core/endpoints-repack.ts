// endpoints.RepackSubsets (pkg/api/v1/endpoints): the canonical layout kube stores Endpoints in. Every address is
// kept once per port (ready wins over not ready), ports offered by the same set of addresses share a subset, and
// addresses sort by IP bytes then targetRef.uid. kube orders ports and subsets by a hash of their Go structs;
// here they keep their first-seen order, so only single-subset layouts match kube byte for byte.
import type { Obj } from '../fields.js';

const sentinel = '\u0000no-ports';

function addressKey(a: Obj): string {
  const uid = (a['targetRef'] as Obj | undefined)?.['uid'];
  return `${String(a['ip'] ?? '')}\u0000${typeof uid === 'string' ? uid : ''}`;
}

/** LessEndpointAddress: IP bytes, then a missing targetRef first, then targetRef.uid. */
function compareAddresses(a: Obj, b: Obj): number {
  const ia = String(a['ip'] ?? '');
  const ib = String(b['ip'] ?? '');
  if (ia !== ib) return Buffer.compare(Buffer.from(ia), Buffer.from(ib));
  const ua = (a['targetRef'] as Obj | undefined)?.['uid'];
  const ub = (b['targetRef'] as Obj | undefined)?.['uid'];
  if (ub === undefined) return ua === undefined ? 0 : 1;
  if (ua === undefined) return -1;
  return String(ua) < String(ub) ? -1 : String(ua) > String(ub) ? 1 : 0;
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => !!x && typeof x === 'object') : []);

export function repackSubsets(subsets: Obj[]): Obj[] {
  const addresses = new Map<string, Obj>();
  // port (as JSON, or the sentinel for port-less subsets) → address key → ready
  const byPort = new Map<string, { port: Obj | undefined; ready: Map<string, boolean> }>();
  for (const ss of subsets) {
    const ports = list(ss['ports']);
    const targets = ports.length === 0 ? [undefined] : ports;
    for (const port of targets) {
      const portKey = port === undefined ? sentinel : JSON.stringify(port);
      const entry = byPort.get(portKey) ?? { port, ready: new Map<string, boolean>() };
      byPort.set(portKey, entry);
      for (const [field, ready] of [['addresses', true], ['notReadyAddresses', false]] as const) {
        for (const a of list(ss[field])) {
          const key = addressKey(a);
          if (!addresses.has(key)) addresses.set(key, a);
          if (entry.ready.get(key) !== true) entry.ready.set(key, ready);
        }
      }
    }
  }
  // group the ports by the exact set of (address, ready) they are offered on
  const groups = new Map<string, { ready: Map<string, boolean>; ports: Obj[] }>();
  for (const { port, ready } of byPort.values()) {
    const setKey = [...ready.entries()].map(([k, r]) => `${k}\u0000${r}`).sort().join('\u0001');
    const group = groups.get(setKey) ?? { ready, ports: [] };
    groups.set(setKey, group);
    if (port !== undefined) group.ports.push(port);
  }
  return [...groups.values()].map(({ ready, ports }) => {
    const readyAddrs: Obj[] = [];
    const notReady: Obj[] = [];
    for (const [key, r] of ready) (r ? readyAddrs : notReady).push(addresses.get(key)!);
    const out: Obj = {};
    if (readyAddrs.length > 0) out['addresses'] = readyAddrs.sort(compareAddresses);
    if (notReady.length > 0) out['notReadyAddresses'] = notReady.sort(compareAddresses);
    if (ports.length > 0) out['ports'] = ports;
    return out;
  });
}
