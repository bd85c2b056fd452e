// Endpoints: SetDefaults_EndpointPort (protocol TCP) and validateEndpointSubsets (pkg/apis/core/validation): every
// subset has addresses, addresses are IPs that are not unspecified, loopback or link-local, ports are valid; then
// the endpoints strategy's Canonicalize repacks the subsets.
import { isIP } from 'node:net';
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/name.js';
import { listAt, setDefault, type Obj } from '../fields.js';
import { repackSubsets } from './endpoints-repack.js';

const protocols = ['SCTP', 'TCP', 'UDP'];

/** ValidateNonSpecialIP's ranges, for an address isIP accepts. */
function specialIPErrors(ip: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const v4 = isIP(ip) === 4 ? ip.split('.').map(Number) : undefined;
  const v6 = v4 ? undefined : ip.toLowerCase();
  const unspecified = v4 ? v4.every((o) => o === 0) : /^[0:]+$/.test(v6!);
  const loopback = v4 ? v4[0] === 127 : /^(0{0,4}:){2,7}0{0,3}1$/.test(v6!) || v6 === '::1';
  const linkLocal = v4 ? v4[0] === 169 && v4[1] === 254 : /^fe[89ab][0-9a-f]?:/.test(v6!);
  const linkLocalMulticast = v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : /^ff[0-9a-f]2:/.test(v6!);
  if (unspecified) errs.push(fieldErrors.invalid(path, ip, `may not be unspecified (${ip})`));
  if (loopback) errs.push(fieldErrors.invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocal) errs.push(fieldErrors.invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (linkLocalMulticast) errs.push(fieldErrors.invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}

function validateAddress(a: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ip = typeof a['ip'] === 'string' ? a['ip'] : '';
  if (isIP(ip) === 0) {
    errs.push(fieldErrors.invalid(path.child('ip'), ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    errs.push(fieldErrors.invalid(path.child('ip'), ip, 'must be a valid IP address'));
  } else errs.push(...specialIPErrors(ip, path.child('ip')));
  if (typeof a['hostname'] === 'string' && a['hostname'] !== '') for (const msg of isDNS1123Label(a['hostname'])) errs.push(fieldErrors.invalid(path.child('hostname'), a['hostname'], msg));
  if (typeof a['nodeName'] === 'string') for (const msg of isDNS1123Subdomain(a['nodeName'])) errs.push(fieldErrors.invalid(path.child('nodeName'), a['nodeName'], msg));
  return errs;
}

function validatePort(p: Obj, requireName: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof p['name'] === 'string' ? p['name'] : '';
  if (requireName && name === '') errs.push(fieldErrors.required(path.child('name')));
  else if (name !== '') for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(path.child('name'), name, msg));
  const port = p['port'];
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) errs.push(fieldErrors.invalid(path.child('port'), port ?? 0, 'must be between 1 and 65535, inclusive'));
  const protocol = p['protocol'];
  if (protocol === undefined || protocol === null || protocol === '') errs.push(fieldErrors.required(path.child('protocol')));
  else if (!protocols.includes(String(protocol))) errs.push(fieldErrors.notSupported(path.child('protocol'), protocol, protocols));
  return errs;
}

function validateEndpoints(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  listAt(obj, 'subsets').forEach((ss, i) => {
    const p = FieldPath.root('subsets').index(i);
    const addresses = listAt(ss, 'addresses');
    const notReady = listAt(ss, 'notReadyAddresses');
    if (addresses.length === 0 && notReady.length === 0) errs.push(fieldErrors.required(p, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateAddress(a, p.child('addresses').index(j))));
    notReady.forEach((a, j) => errs.push(...validateAddress(a, p.child('notReadyAddresses').index(j))));
    const ports = listAt(ss, 'ports');
    ports.forEach((port, j) => errs.push(...validatePort(port, ports.length > 1, p.child('ports').index(j))));
  });
  return errs;
}

export const endpointsStrategy: Strategy = {
  applyDefaults(obj) {
    for (const ss of listAt(obj as Obj, 'subsets')) for (const p of listAt(ss, 'ports')) setDefault(p, 'protocol', 'TCP');
  },
  validate: (obj) => validateEndpoints(obj as Obj),
  validateUpdate: (obj) => validateEndpoints(obj as Obj),
  canonicalize(obj) {
    const packed = repackSubsets(listAt(obj as Obj, 'subsets'));
    // subsets is omitempty
    if (packed.length > 0) obj['subsets'] = packed;
    else delete obj['subsets'];
  },
};
