import { isIP } from 'node:net';
import { isIPAddress } from './ip-address.js';

// The same answers as net.isIP, on addresses and near-misses of both families.
const cases = [
  '', 'localhost', 'kubernetes.default.svc', 'a:b', ':', '::', '::1', '1::', '1::2', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9',
  '1:2:3:4:5:6:7::', '::ffff:1.2.3.4', '::ffff:01.2.3.4', '::ffff:1.2.3.256', '::1.2.3.4', '1:2:3:4:5:6:1.2.3.4',
  '1:2:3:4:5:6:7:1.2.3.4', 'fe80::1%eth0', 'fe80::1%', 'fe80::1%%', '[::1]', '::1 ', ' ::1', 'gggg::1', '12345::1',
  '1:::2', '1::2::3', '0.0.0.0', '127.0.0.1', '255.255.255.255', '256.0.0.1', '01.2.3.4', '1.2.3', '1.2.3.4.5',
  '1.2.3.4 ', '1.2.3.-1', '0x7f.0.0.1', 'FFFF::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '::ffff:0:1.2.3.4',
  '2001:db8::1/64', '1.2.3.4:80', '[1.2.3.4]',
];

describe('isIPAddress', () => {
  test.each(cases)('%j as net.isIP', (host) => {
    expect(isIPAddress(host)).toBe(isIP(host) !== 0);
  });
});
