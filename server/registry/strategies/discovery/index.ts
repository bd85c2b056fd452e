// discovery.k8s.io/v1 endpointslices: kube's SetDefaults_EndpointPort (name "", protocol TCP) and
// ValidateEndpointSlice/ValidateEndpointSliceUpdate (pkg/apis/discovery/validation): addressType enum and
// immutable, endpoint addresses by type, topology, hostname, ports (names, protocols, appProtocol, limits).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { validateLabels } from '../../validation/object-meta.js';
import { isValidIP } from '../../validation/ip.js';
import { parseAddr } from '../../../admission/cel/library/netip.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../validation/name.js';
import { listAt, setDefault, type Obj } from '../fields.js';

const supportedAddressTypes = ['FQDN', 'IPv4', 'IPv6'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const maxAddresses = 100;
const maxPorts = 100;
const maxEndpoints = 1000;

/** IsValidIP, then the family the slice declares (kube: "must be an IPv4 address" / "must be an IPv6 address"). */
function validateAddress(path: FieldPath, address: string, family: 'IPv4' | 'IPv6'): FieldError[] {
  const errs = isValidIP(path, address).filter((e) => !String(e.detail).startsWith('must be in canonical form'));
  if (errs.length > 0) return errs;
  const a = parseAddr(address);
  const is4 = typeof a !== 'string' && a.is4;
  if (family === 'IPv4' && !is4) return [fieldErrors.invalid(path, address, 'must be an IPv4 address')];
  if (family === 'IPv6' && is4) return [fieldErrors.invalid(path, address, 'must be an IPv6 address')];
  return [];
}

/** IsFullyQualifiedDomainName */
function validateFQDN(path: FieldPath, value: string): FieldError[] {
  if (value.length === 0) return [fieldErrors.required(path)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const sub = isDNS1123Subdomain(name);
  if (sub.length > 0) return [fieldErrors.invalid(path, name, sub.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [fieldErrors.invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length > 0) return [fieldErrors.invalid(path, label, errs.join(','))];
  }
  return [];
}

function validateSlice(o: Obj, addressTypes: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = typeof o['addressType'] === 'string' ? o['addressType'] : '';
  if (addressType === '') errs.push(fieldErrors.required('addressType'));
  else if (!addressTypes.includes(addressType)) errs.push(fieldErrors.notSupported('addressType', addressType, addressTypes));

  const endpoints = listAt(o, 'endpoints');
  const epPath = FieldPath.root('endpoints');
  if (endpoints.length > maxEndpoints) errs.push(fieldErrors.tooMany(epPath, endpoints.length, maxEndpoints));
  else {
    endpoints.forEach((ep, i) => {
      const idx = epPath.index(i);
      const addrPath = idx.child('addresses');
      const addresses = Array.isArray(ep['addresses']) ? (ep['addresses'] as unknown[]).map(String) : [];
      if (addresses.length === 0) errs.push(fieldErrors.required(addrPath, 'must contain at least 1 address'));
      else if (addresses.length > maxAddresses) errs.push(fieldErrors.tooMany(addrPath, addresses.length, maxAddresses));
      addresses.forEach((a, j) => {
        if (addressType === 'IPv4' || addressType === 'IPv6') errs.push(...validateAddress(addrPath.index(j), a, addressType));
        else if (addressType === 'FQDN') errs.push(...validateFQDN(addrPath.index(j), a));
      });
      if (typeof ep['hostname'] === 'string') for (const m of isDNS1123Label(ep['hostname'])) errs.push(fieldErrors.invalid(idx.child('hostname'), ep['hostname'], m));
      if (ep['deprecatedTopology'] && typeof ep['deprecatedTopology'] === 'object') {
        errs.push(...validateLabels(ep['deprecatedTopology'] as Record<string, string>, idx.child('deprecatedTopology')));
      }
    });
  }

  const ports = listAt(o, 'ports');
  const portsPath = FieldPath.root('ports');
  if (ports.length > maxPorts) return [...errs, fieldErrors.tooMany(portsPath, ports.length, maxPorts)];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const idx = portsPath.index(i);
    const name = typeof p['name'] === 'string' ? p['name'] : '';
    if (name !== '') for (const m of isDNS1123Label(name)) errs.push(fieldErrors.invalid(idx.child('name'), name, m));
    if (names.has(name)) errs.push(fieldErrors.duplicate(idx.child('name'), name));
    else names.add(name);
    const protocol = p['protocol'];
    if (protocol === undefined || protocol === null) errs.push(fieldErrors.required(idx.child('protocol')));
    else if (!protocols.includes(String(protocol))) errs.push(fieldErrors.notSupported(idx.child('protocol'), protocol, protocols));
    if (typeof p['appProtocol'] === 'string') for (const m of isQualifiedName(p['appProtocol'])) errs.push(fieldErrors.invalid(idx.child('appProtocol'), p['appProtocol'], m));
  });
  return errs;
}

const endpointSliceStrategy: Strategy = {
  applyDefaults(o) {
    for (const p of listAt(o as Obj, 'ports')) {
      setDefault(p, 'name', '');
      setDefault(p, 'protocol', 'TCP');
    }
  },
  validate: (o) => validateSlice(o as Obj, supportedAddressTypes),
  validateUpdate(o, old) {
    // the deprecated "IP" address type stays valid on objects that have it
    const errs = validateSlice(o as Obj, ['FQDN', 'IP', 'IPv4', 'IPv6']);
    if (o['addressType'] !== old['addressType']) errs.push(fieldErrors.invalid('addressType', o['addressType'] ?? '', 'field is immutable'));
    return errs;
  },
};

export const discoveryStrategies: Record<string, Strategy> = {
  'discovery.k8s.io/v1/endpointslices': endpointSliceStrategy,
};
