import { evalError, evalValue, evaluateExpression } from './library-test-env.js';

// kube's library/ip_test.go TestIP and the IP cases of TestValidationExpressions
describe('IP library', () => {
  it.each([
    ['ip("192.168.0.1") == ip("192.168.0.1")', true],
    ['isIP("192.168.0.1")', true],
    ['isIP("192.168.0.1.0")', false],
    ['ip.isCanonical("127.0.0.1")', true],
    ['ip("192.168.0.1").family() == 4', true],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("127.0.0.1").isUnspecified()', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("1.2.3.4").isLoopback()', false],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("224.0.1.1").isLinkLocalMulticast()', false],
    ['ip("169.254.169.254").isLinkLocalUnicast()', true],
    ['ip("192.168.0.1").isLinkLocalUnicast()', false],
    ['ip("192.168.0.1").isGlobalUnicast()', true],
    ['ip("255.255.255.255").isGlobalUnicast()', false],
    ['ip("2001:db8::68") == ip("2001:db8::68")', true],
    ['isIP("2001:db8::68")', true],
    ['isIP("2001:db8:::68")', false],
    ['ip.isCanonical("2001:db8::68")', true],
    ['ip.isCanonical("2001:DB8::68")', false],
    ['ip.isCanonical("2001:db8::0:0:0:abcd")', false],
    ['ip("2001:db8::68").family() == 6', true],
    ['ip("::").isUnspecified()', true],
    ['ip("::1").isUnspecified()', false],
    ['ip("::1").isLoopback()', true],
    ['ip("2001:db8::abcd").isLoopback()', false],
    ['ip("ff02::1").isLinkLocalMulticast()', true],
    ['ip("fd00::1").isLinkLocalMulticast()', false],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("fd80::1").isLinkLocalUnicast()', false],
    ['ip("2001:db8::abcd").isGlobalUnicast()', true],
    ['ip("ff00::1").isGlobalUnicast()', false],
    ['string(ip("192.168.0.1")) == "192.168.0.1"', true],
    ['string(ip("2001:DB8:0:0:0::1")) == "2001:db8::1"', true],
    ['type(ip("192.168.0.1")) == net.IP', true],
    ['isIP("::ffff:1.2.3.4")', false],
    ['isIP("fe80::1%eth0")', false],
    ['isIP("010.0.0.1")', false],
  ])('%s is %s', (expr, want) => {
    expect(evalValue(expr)).toBe(want);
  });

  it.each([
    ['ip("192.168.0.1.0")', 'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long'],
    ['ip.isCanonical("127.0.0.1.0")', 'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long'],
    [
      'ip("2001:db8:::68")',
      'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ],
    ['ip("127.0.0.256")', 'IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255'],
    ['ip("::ffff:1.2.3.4")', 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'],
    ['ip("fe80::1%eth0")', 'IP address "fe80::1%eth0" with zone value is not allowed'],
    ['ip("")', 'IP Address "" parse error during conversion from string: ParseAddr(""): unable to parse IP'],
    ['ip("1.2.3")', 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short'],
    ['ip("01.2.3.4")', 'IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'],
  ])('%s fails with %j', (expr, msg) => {
    expect(evalError(expr)).toBe(msg);
  });

  it('rejects a CIDR where an IP string is expected', () => {
    expect(evaluateExpression('isIP(cidr("192.168.0.0/24"))').compileError).toContain("found no matching overload for 'isIP' applied to '(net.CIDR)'");
  });
});

// kube's library/cidr_test.go TestCIDR and the CIDR cases of TestValidationExpressions
describe('CIDR library', () => {
  it.each([
    ['cidr("192.168.0.0/24") == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', true],
    ['cidr("192.168.0.0/24").containsIP("192.168.1.1")', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', true],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', false],
    ['cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', true],
    ['cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.0/24").prefixLength() == 24', true],
    ['cidr("2001:db8::/32") == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', true],
    ['cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', false],
    ['cidr("2001:db8::/32").containsIP("2001:db8::1")', true],
    ['cidr("2001:db8::/32").containsIP("2001:dc8::1")', false],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', true],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', false],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', true],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', false],
    ['cidr("2001:db8::/32").ip() == ip("2001:db8::")', true],
    ['cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8::/32").prefixLength() == 32', true],
    ['string(cidr("192.168.0.0/24")) == "192.168.0.0/24"', true],
    ['type(cidr("192.168.0.0/24")) == net.CIDR', true],
    ['type(cidr("2001:db8::/32").ip()) == net.IP', true],
    ["cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", true],
    ["cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", false],
    ["cidr('192.168.0.1/24').ip() == ip('192.168.0.1')", true],
    ["cidr('::1/128').ip().family() == 6", true],
    // subnets at other addresses are contained too (kubernetes#130450)
    ["cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", true],
    ["cidr('192.168.0.0/16').containsCIDR('192.168.0.1/32')", true],
    ["cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))", false],
    ['cidr("192.168.0.0/24").containsIP(ip("::1"))', false],
    ['isCIDR("192.168.0.0/16")', true],
    ['isCIDR("::1/128")', true],
    ['isCIDR("192.168.0.0/33")', false],
    ['isCIDR("::1/129")', false],
    ['isCIDR("::ffff:1.2.3.4/120")', false],
  ])('%s is %s', (expr, want) => {
    expect(evalValue(expr)).toBe(want);
  });

  it.each([
    [
      'cidr("192.168.0.0/")',
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    ],
    [
      'cidr("2001:db8::/")',
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    ],
    [
      'cidr("192.168.0.0/33")',
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/33"): prefix length out of range',
    ],
    [
      'cidr("10.0.0.0")',
      `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/'`,
    ],
    ['cidr("::ffff:1.2.3.4/120")', 'network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed'],
    [
      'cidr("10.0.0.0/8").containsIP("10.0.0")',
      'IP Address "10.0.0" parse error during conversion from string: ParseAddr("10.0.0"): IPv4 address too short',
    ],
  ])('%s fails with %j', (expr, msg) => {
    expect(evalError(expr)).toBe(msg);
  });
});
