// Whether a host string is an IP address, as node's net.isIP answers, without its IPv6 regular expression:
// compiling that expression on first use costs ≈ 5 ms in a cold thread, and both critical paths of a start ask
// it about the default ::1 of the serving certificate: the certificate worker when it issues one, the main thread
// when it checks that a --cert-dir's certificate still covers the serving hosts.
import { isIPv4, isIPv6, SocketAddress } from 'node:net';

/** true when `host` is an IPv4 or IPv6 address (net.isIP(host) !== 0) */
export function isIPAddress(host: string): boolean {
  if (isIPv4(host)) return true;
  if (!host.includes(':')) return false;
  // a zone (fe80::1%eth0) is accepted by net.isIPv6 but not by the address parser
  if (host.includes('%')) return isIPv6(host);
  try {
    new SocketAddress({ address: host, family: 'ipv6' });
    return true;
  } catch {
    return false;
  }
}
