// Go's net/netip as kube's IP and CIDR libraries use it: ParseAddr and ParsePrefix with their exact error messages
// (the libraries embed them), Addr.String's RFC 5952 form, the address-class predicates, Prefix.Masked/Contains.
import { goQuote } from './go-text.js';

export class Addr {
  /** 4 bytes for IPv4, 16 for IPv6 */
  constructor(
    readonly bytes: Uint8Array,
    readonly zone = '',
  ) {}

  get is4(): boolean {
    return this.bytes.length === 4;
  }

  get is6(): boolean {
    return this.bytes.length === 16;
  }

  get bitLen(): number {
    return this.bytes.length * 8;
  }

  /** ::ffff:a.b.c.d */
  get is4In6(): boolean {
    if (!this.is6) return false;
    for (let i = 0; i < 10; i++) if (this.bytes[i] !== 0) return false;
    return this.bytes[10] === 0xff && this.bytes[11] === 0xff;
  }

  private u16(i: number): number {
    return (this.bytes[2 * i]! << 8) | this.bytes[2 * i + 1]!;
  }

  equals(o: Addr): boolean {
    return this.zone === o.zone && this.bytes.length === o.bytes.length && this.bytes.every((b, i) => b === o.bytes[i]);
  }

  /** The IPv4 address of an IPv4-mapped IPv6 one (Addr.Unmap). */
  private unmap(): Addr {
    return this.is4In6 ? new Addr(this.bytes.slice(12)) : this;
  }

  isUnspecified(): boolean {
    return this.zone === '' && this.bytes.every((b) => b === 0);
  }

  isLoopback(): boolean {
    const a = this.unmap();
    if (a.is4) return a.bytes[0] === 127;
    return a.bytes.every((b, i) => (i === 15 ? b === 1 : b === 0));
  }

  isMulticast(): boolean {
    const a = this.unmap();
    if (a.is4) return (a.bytes[0]! & 0xf0) === 0xe0;
    return a.bytes[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    const a = this.unmap();
    if (a.is4) return a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0;
    return (a.u16(0) & 0xff0f) === 0xff02;
  }

  isLinkLocalUnicast(): boolean {
    const a = this.unmap();
    if (a.is4) return a.bytes[0] === 169 && a.bytes[1] === 254;
    return (a.u16(0) & 0xffc0) === 0xfe80;
  }

  /** Go counts private IPv4 and ULA IPv6 addresses as global unicast, as package net does. */
  isGlobalUnicast(): boolean {
    const a = this.unmap();
    if (a.is4 && (a.bytes.every((b) => b === 0) || a.bytes.every((b) => b === 255))) return false;
    if (a.is6 && a.zone === '' && a.bytes.every((b) => b === 0)) return false;
    return !a.isLoopback() && !a.isMulticast() && !a.isLinkLocalUnicast();
  }

  toString(): string {
    if (this.is4) return Array.from(this.bytes).join('.');
    const zone = this.zone ? `%${this.zone}` : '';
    if (this.is4In6) return `::ffff:${Array.from(this.bytes.slice(12)).join('.')}${zone}`;
    // the longest run of two or more zero groups becomes "::" (the first of equal runs)
    let zeroStart = -1;
    let zeroLen = 0;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && this.u16(j) === 0) j++;
      if (j - i >= 2 && j - i > zeroLen) {
        zeroStart = i;
        zeroLen = j - i;
      }
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += '::';
        i += zeroLen - 1;
        continue;
      }
      if (i > 0 && !out.endsWith(':')) out += ':';
      out += this.u16(i).toString(16);
    }
    return out + zone;
  }
}

class ParseAddrError extends Error {
  constructor(input: string, msg: string, at?: string) {
    super(`ParseAddr(${goQuote(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${goQuote(at)})` : ''}`);
  }
}


/** parseIPv4Fields: four decimal octets without leading zeros. */
function parseIPv4Fields(input: string, s: string): Uint8Array {
  const fields = new Uint8Array(4);
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) throw new ParseAddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digLen++;
      if (val > 255) throw new ParseAddrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw new ParseAddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw new ParseAddrError(input, 'IPv4 address too long');
      fields[pos++] = val;
      val = 0;
      digLen = 0;
    } else {
      throw new ParseAddrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw new ParseAddrError(input, 'IPv4 address too short');
  fields[3] = val;
  return fields;
}

const hexValue = (c: string): number => {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 87;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 55;
  return -1;
};

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw new ParseAddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return new Addr(ip, zone);
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const v = hexValue(s[off]!);
      if (v < 0) break;
      acc = acc * 16 + v;
      if (off > 3) throw new ParseAddrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw new ParseAddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new ParseAddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw new ParseAddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw new ParseAddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      ip.set(parseIPv4Fields(input, s), i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw new ParseAddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new ParseAddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new ParseAddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw new ParseAddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new ParseAddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw new ParseAddrError(input, 'the :: must expand to at least one field of zeros');
  }
  return new Addr(ip, zone);
}

/** netip.ParseAddr: an address, or Go's error message. */
export function parseAddr(s: string): Addr | string {
  try {
    for (const c of s) {
      if (c === '.') return new Addr(parseIPv4Fields(s, s));
      if (c === ':') return parseIPv6(s);
      if (c === '%') throw new ParseAddrError(s, 'missing IPv6 address');
    }
    throw new ParseAddrError(s, 'unable to parse IP');
  } catch (e) {
    if (e instanceof ParseAddrError) return e.message;
    throw e;
  }
}

export class Prefix {
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {}

  equals(o: Prefix): boolean {
    return this.bits === o.bits && this.addr.equals(o.addr);
  }

  /** The network address: host bits cleared. */
  masked(): Prefix {
    const out = new Uint8Array(this.addr.bytes);
    for (let bit = this.bits; bit < out.length * 8; bit++) out[bit >> 3]! &= ~(0x80 >> (bit & 7));
    return new Prefix(new Addr(out), this.bits);
  }

  contains(ip: Addr): boolean {
    if (ip.zone !== '' || ip.bitLen !== this.addr.bitLen) return false;
    for (let bit = 0; bit < this.bits; bit++) {
      const m = 0x80 >> (bit & 7);
      if ((ip.bytes[bit >> 3]! & m) !== (this.addr.bytes[bit >> 3]! & m)) return false;
    }
    return true;
  }

  toString(): string {
    return `${this.addr.toString()}/${this.bits}`;
  }
}

/** netip.ParsePrefix: a prefix (host bits kept), or Go's error message. */
export function parsePrefix(s: string): Prefix | string {
  const err = (msg: string): string => `netip.ParsePrefix(${goQuote(s)}): ${msg}`;
  const i = s.lastIndexOf('/');
  if (i < 0) return err("no '/'");
  const ip = parseAddr(s.slice(0, i));
  if (typeof ip === 'string') return err(ip);
  if (ip.is6 && ip.zone !== '') return err('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(i + 1);
  // strconv.Atoi would accept a sign and leading zeros; a prefix length may not have them
  if (bitsStr.length > 1 && (bitsStr[0]! < '1' || bitsStr[0]! > '9')) return err(`bad bits after slash: ${goQuote(bitsStr)}`);
  if (!/^[+-]?[0-9]+$/.test(bitsStr) || BigInt.asIntN(64, BigInt(bitsStr)) !== BigInt(bitsStr)) return err(`bad bits after slash: ${goQuote(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits < 0 || bits > ip.bitLen) return err('prefix length out of range');
  return new Prefix(ip, bits);
}
