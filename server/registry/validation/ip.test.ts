// validation.IsValidIP / IsValidCIDR / IsValidCIDRForLegacyField, with kube's texts (apimachinery's ip_test.go cases).
import { formatFieldError } from '../../api/field.js';
import { isValidCIDR, isValidCIDRForLegacyField, isValidIP } from './ip.js';

const texts = (errs: ReturnType<typeof isValidIP>) => errs.map(formatFieldError);

describe('isValidIP', () => {
  it.each([
    ['1.2.3.4', []],
    ['::1', []],
    ['2001:db8::ffff', []],
    ['', ['f: Invalid value: "": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['1.2.3', ['f: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['fe80::1%eth0', ['f: Invalid value: "fe80::1%eth0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['001.002.003.004', ['f: Invalid value: "001.002.003.004": must not have leading 0s']],
    ['::ffff:1.2.3.4', ['f: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address']],
    ['2001:DB8::1', ['f: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")']],
    ['2001:db8:0:0:0:0:0:1', ['f: Invalid value: "2001:db8:0:0:0:0:0:1": must be in canonical form ("2001:db8::1")']],
  ])('%j', (value, expected) => {
    expect(texts(isValidIP('f', value))).toEqual(expected);
  });
});

describe('isValidCIDR', () => {
  it.each([
    ['10.0.0.0/8', []],
    ['fd00::/64', []],
    ['10.0.0.1/8', ['f: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length']],
    ['10.0.0.0', ['f: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
    ['010.0.0.0/8', ['f: Invalid value: "010.0.0.0/8": must not have leading 0s in IP or prefix length']],
    ['::ffff:1.2.3.0/120', ['f: Invalid value: "::ffff:1.2.3.0/120": must not have an IPv4-mapped IPv6 address']],
    ['FD00::/64', ['f: Invalid value: "FD00::/64": must be in canonical form ("fd00::/64")']],
  ])('%j', (value, expected) => {
    expect(texts(isValidCIDR('f', value))).toEqual(expected);
  });

  it('lets a legacy field keep a non-canonical form and the old values', () => {
    expect(texts(isValidCIDRForLegacyField('f', 'FD00::/64'))).toEqual([]);
    expect(texts(isValidCIDRForLegacyField('f', '10.0.0.1/8'))).toEqual(['f: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length']);
    expect(texts(isValidCIDRForLegacyField('f', '10.0.0.1/8', ['10.0.0.1/8']))).toEqual([]);
  });
});
