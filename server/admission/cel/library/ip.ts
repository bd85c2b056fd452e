// kube's IP library (staging/src/k8s.io/apiserver/pkg/cel/library/ip.go): ip(), isIP(), ip.isCanonical(), family,
// isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast, string(ip) and the
// `net.IP` type identifier (the engine resolves declared type names). Addresses are parsed with Go's netip rules (./netip.ts); zones and IPv4-mapped IPv6
// addresses are rejected, as kube does.
import { CelError, CelOpaque, type CelValue } from '../engine/values.js';
import { T, type CallEstimateInput, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import { NOMINAL, STRING_TRAVERSAL_COST_FACTOR, byFactor, ceilFactor, equalityCost, EQUALITY_COST_FUNCTIONS, sizeOf, stringTraversal, actualSize, type CostSized } from './cost.js';
import { goQuote } from './go-text.js';
import { parseAddr, type Addr } from './netip.js';

export const IP_TYPE = 'net.IP';

export class IPValue extends CelOpaque implements CostSized {
  readonly typeName = IP_TYPE;
  constructor(readonly addr: Addr) {
    super();
  }
  override equals(other: CelOpaque): boolean {
    return other instanceof IPValue && this.addr.equals(other.addr);
  }
  /** IP.Size(): the address length in bytes, what cost rules see */
  costSize(): number {
    return Math.ceil(this.addr.bitLen / 8);
  }
  override toString(): string {
    return this.addr.toString();
  }
  override toJSON(): unknown {
    return this.toString();
  }
}

/** kube's parseIPAddr: Go's ParseAddr, minus zones and IPv4-mapped IPv6 addresses. */
export function parseIPAddr(raw: string): Addr | string {
  const addr = parseAddr(raw);
  if (typeof addr === 'string') return `IP Address ${goQuote(raw)} parse error during conversion from string: ${addr}`;
  if (addr.zone !== '') return `IP address ${goQuote(raw)} with zone value is not allowed`;
  if (addr.is4In6) return `IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`;
  return addr;
}

export function stringToIP(s: string): IPValue | CelError {
  const addr = parseIPAddr(s);
  return typeof addr === 'string' ? new CelError(addr) : new IPValue(addr);
}

const IP = T.opaque(IP_TYPE);
const ip = (v: CelValue): Addr => (v as IPValue).addr;

const parseCost = {
  cost: (args: readonly CelValue[]) => stringTraversal(args[0]!),
  estimate: (i: CallEstimateInput) => ({ cost: byFactor(sizeOf(i.args[0]), STRING_TRAVERSAL_COST_FACTOR) }),
};
const nominal = { cost: () => 1, estimate: () => NOMINAL };

function predicate(id: string, name: string, test: (a: Addr) => boolean): OverloadDecl {
  return { id, name, receiver: IP, args: [], result: T.bool, impl: (v) => test(ip(v)), ...nominal };
}

const overloads: OverloadDecl[] = [
  { id: 'string_to_ip', name: 'ip', args: [T.string], result: IP, impl: (s) => stringToIP(s as string), ...parseCost },
  { id: 'is_ip', name: 'isIP', args: [T.string], result: T.bool, impl: (s) => typeof parseIPAddr(s as string) !== 'string', ...parseCost },
  {
    id: 'ip_is_canonical',
    name: 'ip.isCanonical',
    args: [T.string],
    result: T.bool,
    impl: (s) => {
      const addr = parseIPAddr(s as string);
      return typeof addr === 'string' ? new CelError(addr) : addr.toString() === s;
    },
    // parsed, then compared with the original: twice the traversal
    cost: (args) => ceilFactor(actualSize(args[0]), 2 * STRING_TRAVERSAL_COST_FACTOR),
    estimate: (i) => ({ cost: byFactor(sizeOf(i.args[0]), 2 * STRING_TRAVERSAL_COST_FACTOR) }),
  },
  { id: 'ip_family', name: 'family', receiver: IP, args: [], result: T.int, impl: (v) => (ip(v).is4 ? 4n : 6n), ...nominal },
  predicate('ip_is_unspecified', 'isUnspecified', (a) => a.isUnspecified()),
  predicate('ip_is_loopback', 'isLoopback', (a) => a.isLoopback()),
  predicate('ip_is_link_local_multicast', 'isLinkLocalMulticast', (a) => a.isLinkLocalMulticast()),
  predicate('ip_is_link_local_unicast', 'isLinkLocalUnicast', (a) => a.isLinkLocalUnicast()),
  predicate('ip_is_global_unicast', 'isGlobalUnicast', (a) => a.isGlobalUnicast()),
  // not in cost.go's list: cel-go's default of 1
  { id: 'ip_to_string', name: 'string', args: [IP], result: T.string, impl: (v) => ip(v).toString() },
];

export const ipLibrary: LibraryRegistration = {
  name: 'kubernetes.net.ip',
  types: [{ name: IP_TYPE }],
  functions: overloads,
  callCost: equalityCost((v) => v instanceof IPValue),
  callCostFunctions: EQUALITY_COST_FUNCTIONS,
  callCostOpaqueOnly: true,
};
