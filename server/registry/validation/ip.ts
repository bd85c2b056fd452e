// k8s.io/apimachinery/pkg/util/validation/ip.go: IsValidIP and IsValidCIDR (strict parsing, canonical form), with
// kube's texts. Go's netip does the strict parse; ParseIPSloppy's extra leniency (IPv4 octets with leading zeros)
// is recognised only to choose kube's message.
import { FieldPath, fieldErrors, type FieldError } from '../../api/field.js';
import { parseAddr, parsePrefix, Prefix } from '../../admission/cel/library/netip.js';

const sloppyIPv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** netutils.ParseIPSloppy accepts IPv4 octets with leading zeros that netip.ParseAddr refuses. */
function isSloppyIPv4(value: string): boolean {
  const m = sloppyIPv4.exec(value);
  return !!m && m.slice(1).every((o) => Number(o) <= 255);
}

/** validation.IsValidIP */
export function isValidIP(path: FieldPath | string, value: string): FieldError[] {
  const addr = parseAddr(value);
  if (typeof addr === 'string' || addr.zone !== '') {
    if (typeof addr === 'string' && isSloppyIPv4(value)) return [fieldErrors.invalid(path, value, 'must not have leading 0s')];
    return [fieldErrors.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
  }
  if (addr.is4In6) return [fieldErrors.invalid(path, value, 'must not be an IPv4-mapped IPv6 address')];
  const canonical = addr.toString();
  if (canonical !== value) return [fieldErrors.invalid(path, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
  return [];
}

/** The IP family of a CIDR string (netutils.IPFamilyOfCIDRString): '4', '6' or '' when it does not parse. */
export function ipFamilyOfCIDR(value: string): '4' | '6' | '' {
  const p = parsePrefix(value);
  if (typeof p === 'string') return '';
  return p.addr.is4 ? '4' : '6';
}

/** validation.IsValidCIDR */
export function isValidCIDR(path: FieldPath | string, value: string): FieldError[] {
  const p = parsePrefix(value);
  if (typeof p === 'string') {
    const slash = value.lastIndexOf('/');
    const ip = slash < 0 ? '' : value.slice(0, slash);
    const bits = slash < 0 ? '' : value.slice(slash + 1);
    // ParseCIDRSloppy accepts leading zeros in the IPv4 octets and the prefix length
    if (slash >= 0 && /^\d+$/.test(bits) && Number(bits) <= 32 && isSloppyIPv4(ip)) return [fieldErrors.invalid(path, value, 'must not have leading 0s in IP or prefix length')];
    return [fieldErrors.invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
  }
  if (p.addr.is4In6) return [fieldErrors.invalid(path, value, 'must not have an IPv4-mapped IPv6 address')];
  const masked: Prefix = p.masked();
  if (!masked.addr.equals(p.addr)) return [fieldErrors.invalid(path, value, 'must not have bits set beyond the prefix length')];
  const canonical = masked.toString();
  if (canonical !== value) return [fieldErrors.invalid(path, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
  return [];
}

/**
 * validation.IsValidCIDRForLegacyField with strict validation (StrictIPCIDRValidation on): any parseable subnet,
 * canonical form not required; values already in the old object are accepted as they are.
 */
export function isValidCIDRForLegacyField(path: FieldPath | string, value: string, validOld: readonly string[] = []): FieldError[] {
  if (validOld.includes(value)) return [];
  const errs = isValidCIDR(path, value);
  return errs.filter((e) => !String(e.detail).startsWith('must be in canonical form'));
}
