// kube's CIDR library (staging/src/k8s.io/apiserver/pkg/cel/library/cidr.go): cidr(), isCIDR(), containsIP (IP or
// string), containsCIDR (CIDR or string), ip(), masked(), prefixLength(), string(cidr) and the `net.CIDR` type
// identifier. Host bits are allowed and kept (`cidr('192.168.0.1/24').ip()` is 192.168.0.1), as netip.ParsePrefix
// keeps them.
import { CelError, CelOpaque, type CelValue } from '../engine/values.js';
import { T, type CallEstimate, type CallEstimateInput, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import {
  NOMINAL,
  STRING_TRAVERSAL_COST_FACTOR,
  actualSize,
  addCost,
  byFactor,
  ceilFactor,
  equalityCost,
  EQUALITY_COST_FUNCTIONS,
  fixedCost,
  sizeOf,
  stringTraversal,
  type CostSized,
} from './cost.js';
import { goQuote } from './go-text.js';
import { IPValue, IP_TYPE, stringToIP } from './ip.js';
import { Prefix, parsePrefix } from './netip.js';

export const CIDR_TYPE = 'net.CIDR';

export class CIDRValue extends CelOpaque implements CostSized {
  readonly typeName = CIDR_TYPE;
  constructor(readonly prefix: Prefix) {
    super();
  }
  override equals(other: CelOpaque): boolean {
    return other instanceof CIDRValue && this.prefix.equals(other.prefix);
  }
  /** CIDR.Size(): the prefix length in bytes, rounded up */
  costSize(): number {
    return Math.ceil(this.prefix.bits / 8);
  }
  override toString(): string {
    return this.prefix.toString();
  }
  override toJSON(): unknown {
    return this.toString();
  }
}

const PREFIX_ERR = 'network address parse error during conversion from string: ';

/** kube's parseCIDR: netip.ParsePrefix minus IPv4-mapped IPv6 addresses. */
function parseCIDR(raw: string): Prefix | string {
  const p = parsePrefix(raw);
  if (typeof p === 'string') return PREFIX_ERR + p;
  if (p.addr.is4In6) return `IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`;
  return p;
}

// kube wraps parseCIDR's message once more, hence the doubled prefix in its errors
export function stringToCIDR(s: string): CIDRValue | CelError {
  const p = parseCIDR(s);
  return typeof p === 'string' ? new CelError(PREFIX_ERR + p) : new CIDRValue(p);
}

function containsCIDR(c: Prefix, other: Prefix): boolean {
  // kube masks the other prefix's address to this one's length (fixed in kubernetes#130450)
  const masked = c.masked();
  return masked.equals(new Prefix(other.addr, c.bits).masked()) && c.bits <= other.bits;
}

const CIDR = T.opaque(CIDR_TYPE);
const IP = T.opaque(IP_TYPE);
const pfx = (v: CelValue): Prefix => (v as CIDRValue).prefix;

const parseCost = {
  cost: (args: readonly CelValue[]) => stringTraversal(args[0]!),
  estimate: (i: CallEstimateInput) => ({ cost: byFactor(sizeOf(i.args[0]), STRING_TRAVERSAL_COST_FACTOR) }),
};
const nominal = { cost: () => 1, estimate: () => NOMINAL };

/** Statically an address is 4 or 16 bytes. */
const ADDR_BYTES = { min: 4, max: 16 };

/** containsIP: comparing up to the prefix's bytes twice, plus parsing a string argument. */
function containsIPCost(withString: boolean) {
  return {
    cost: (args: readonly CelValue[]) => {
      const cidrSize = actualSize(args[0]);
      let cost = ceilFactor(cidrSize + cidrSize, STRING_TRAVERSAL_COST_FACTOR);
      if (withString) cost += ceilFactor(actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR);
      return cost;
    },
    estimate: (i: CallEstimateInput): CallEstimate => {
      let cost = byFactor({ min: 8, max: 32 }, STRING_TRAVERSAL_COST_FACTOR);
      if (withString) cost = addCost(cost, byFactor(sizeOf(i.args[0]), STRING_TRAVERSAL_COST_FACTOR));
      return { cost };
    },
  };
}

/** containsCIDR: containsIP's comparison plus masking the base prefix and comparing the lengths. */
function containsCIDRCost(withString: boolean) {
  return {
    cost: (args: readonly CelValue[]) => {
      const cidrSize = actualSize(args[0]);
      let cost = ceilFactor(cidrSize + cidrSize, STRING_TRAVERSAL_COST_FACTOR);
      cost += ceilFactor(cidrSize, STRING_TRAVERSAL_COST_FACTOR) + 1;
      if (withString) cost += ceilFactor(actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR);
      return cost;
    },
    estimate: (i: CallEstimateInput): CallEstimate => {
      let cost = byFactor({ min: 8, max: 32 }, STRING_TRAVERSAL_COST_FACTOR);
      cost = addCost(cost, byFactor(ADDR_BYTES, STRING_TRAVERSAL_COST_FACTOR));
      cost = addCost(cost, fixedCost(1));
      if (withString) cost = addCost(cost, byFactor(sizeOf(i.args[0]), STRING_TRAVERSAL_COST_FACTOR));
      return { cost };
    },
  };
}

const overloads: OverloadDecl[] = [
  { id: 'string_to_cidr', name: 'cidr', args: [T.string], result: CIDR, impl: (s) => stringToCIDR(s as string), ...parseCost },
  {
    id: 'cidr_contains_ip_string',
    name: 'containsIP',
    receiver: CIDR,
    args: [T.string],
    result: T.bool,
    impl: (c, s) => {
      const addr = stringToIP(s as string);
      return addr instanceof CelError ? addr : pfx(c).contains(addr.addr);
    },
    ...containsIPCost(true),
  },
  {
    id: 'cidr_contains_ip_ip',
    name: 'containsIP',
    receiver: CIDR,
    args: [IP],
    result: T.bool,
    impl: (c, a) => pfx(c).contains((a as IPValue).addr),
    ...containsIPCost(false),
  },
  {
    id: 'cidr_contains_cidr_string',
    name: 'containsCIDR',
    receiver: CIDR,
    args: [T.string],
    result: T.bool,
    impl: (c, s) => {
      const other = stringToCIDR(s as string);
      return other instanceof CelError ? other : containsCIDR(pfx(c), other.prefix);
    },
    ...containsCIDRCost(true),
  },
  {
    id: 'cidr_contains_cidr',
    name: 'containsCIDR',
    receiver: CIDR,
    args: [CIDR],
    result: T.bool,
    impl: (c, o) => containsCIDR(pfx(c), pfx(o)),
    ...containsCIDRCost(false),
  },
  // reading the address out of the prefix is a field access: nominal
  { id: 'cidr_ip', name: 'ip', receiver: CIDR, args: [], result: IP, impl: (c) => new IPValue(pfx(c).addr), ...nominal },
  { id: 'cidr_prefix_length', name: 'prefixLength', receiver: CIDR, args: [], result: T.int, impl: (c) => BigInt(pfx(c).bits), ...nominal },
  { id: 'cidr_masked', name: 'masked', receiver: CIDR, args: [], result: CIDR, impl: (c) => new CIDRValue(pfx(c).masked()), ...nominal },
  { id: 'is_cidr', name: 'isCIDR', args: [T.string], result: T.bool, impl: (s) => typeof parseCIDR(s as string) !== 'string', ...parseCost },
  { id: 'cidr_to_string', name: 'string', args: [CIDR], result: T.string, impl: (c) => pfx(c).toString() },
];

export const cidrLibrary: LibraryRegistration = {
  name: 'kubernetes.net.cidr',
  types: [{ name: CIDR_TYPE }, { name: IP_TYPE }],
  functions: overloads,
  callCost: equalityCost((v) => v instanceof CIDRValue),
  callCostFunctions: EQUALITY_COST_FUNCTIONS,
  callCostOpaqueOnly: true,
};
