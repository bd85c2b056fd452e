// Ingresses (networking.k8s.io/v1): the core of kube's ValidateIngressCreate/ValidateIngressUpdate
// (pkg/apis/networking/validation/validation.go): rules or defaultBackend, hosts, pathType required and its enum,
// path rules per pathType, backends (service xor resource, port name xor number), TLS hosts and secret names,
// ingressClassName and the kubernetes.io/ingress.class annotation. kube defaults nothing in networking/v1 Ingress.
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { parseAddr } from '../../../admission/cel/library/netip.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, maxLenError, regexError } from '../../validation/name.js';
import { isValidPortName, isValidPortNum } from '../../validation/port.js';
import { listAt, type Obj } from '../fields.js';

const supportedPathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];
const annotationIngressClass = 'kubernetes.io/ingress.class';

const wildcardFmt = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const wildcardRe = new RegExp(`^${wildcardFmt}$`);
const wildcardErrMsg =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
/** validation.IsWildcardDNS1123Subdomain */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value, 'utf8') > 253) errs.push(maxLenError(253));
  if (!wildcardRe.test(value)) errs.push(regexError(wildcardErrMsg, wildcardFmt, '*.example.com'));
  return errs;
}

/** netutils.ParseIPSloppy succeeds: the host is an IP address. */
const isIP = (s: string): boolean => {
  const a = parseAddr(s);
  return (typeof a !== 'string' && a.zone === '') || /^\d{1,3}(\.\d{1,3}){3}$/.test(s);
};

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

export function validateIngressBackend(backend: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const resource = obj(backend['resource']);
  const service = obj(backend['service']);
  if (resource && service) return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) {
    const rp = path.child('resource');
    if (resource['apiGroup'] !== undefined && resource['apiGroup'] !== null) {
      for (const msg of isDNS1123Subdomain(str(resource['apiGroup']))) errs.push(fieldErrors.invalid(rp.child('apiGroup'), resource['apiGroup'], msg));
    }
    for (const key of ['kind', 'name'] as const) {
      const v = str(resource[key]);
      if (v === '') errs.push(fieldErrors.required(rp.child(key)));
      else for (const msg of isValidPathSegmentName(v)) errs.push(fieldErrors.invalid(rp.child(key), v, msg));
    }
    return errs;
  }
  if (service) {
    const name = str(service['name']);
    if (name === '') errs.push(fieldErrors.required(path.child('service', 'name')));
    // apivalidation.ValidateServiceName (DNS-1035 label); RelaxedServiceNameValidation is not modelled
    else for (const msg of isDNS1035Label(name)) errs.push(fieldErrors.invalid(path.child('service', 'name'), name, msg));
    const port = obj(service['port']) ?? {};
    const portName = str(port['name']);
    const portNumber = typeof port['number'] === 'number' ? port['number'] : 0;
    if (portName !== '' && portNumber !== 0) errs.push(fieldErrors.invalid(path, '', 'cannot set both port name & port number'));
    else if (portName !== '') for (const msg of isValidPortName(portName)) errs.push(fieldErrors.invalid(path.child('service', 'port', 'name'), portName, msg));
    else if (portNumber !== 0) for (const msg of isValidPortNum(portNumber)) errs.push(fieldErrors.invalid(path.child('service', 'port', 'number'), portNumber, msg));
    else errs.push(fieldErrors.required(path, 'port name or number is required'));
    return errs;
  }
  return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
}

function validateHTTPIngressPath(p: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const pathType = p['pathType'];
  if (pathType === undefined || pathType === null) return [fieldErrors.required(path.child('pathType'), 'pathType must be specified')];
  const value = str(p['path']);
  switch (pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(fieldErrors.invalid(path.child('path'), value, 'must be an absolute path'));
      if (value.length > 0) {
        for (const seq of invalidPathSequences) if (value.includes(seq)) errs.push(fieldErrors.invalid(path.child('path'), value, `must not contain '${seq}'`));
        for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) errs.push(fieldErrors.invalid(path.child('path'), value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value.length > 0 && !value.startsWith('/')) errs.push(fieldErrors.invalid(path.child('path'), value, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('pathType'), pathType, supportedPathTypes));
  }
  errs.push(...validateIngressBackend(obj(p['backend']) ?? {}, path.child('backend')));
  return errs;
}

function validateIngressRules(rules: Obj[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const host = str(rule['host']);
    const rp = path.index(i);
    if (host.length > 0) {
      if (isIP(host)) errs.push(fieldErrors.invalid(rp.child('host'), host, 'must be a DNS name, not an IP address'));
      const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const msg of msgs) errs.push(fieldErrors.invalid(rp.child('host'), host, msg));
    }
    const http = obj(rule['http']);
    if (http) {
      const paths = listAt(http, 'paths');
      if (paths.length === 0) errs.push(fieldErrors.required(rp.child('http', 'paths')));
      paths.forEach((p, j) => errs.push(...validateHTTPIngressPath(p, rp.child('http', 'paths').index(j))));
    }
  });
  return errs;
}

function validateIngressSpec(specValue: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(specValue) ?? {};
  const path = FieldPath.root('spec');
  const rules = listAt(spec, 'rules');
  const defaultBackend = obj(spec['defaultBackend']);
  if (rules.length === 0 && !defaultBackend) {
    // the bad value is Go's %#v of the (nil or empty) rules slice
    const shown = Array.isArray(spec['rules']) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)';
    errs.push(fieldErrors.invalid(path, new GoStructValue(shown), 'either `defaultBackend` or `rules` must be specified'));
  }
  if (defaultBackend) errs.push(...validateIngressBackend(defaultBackend, path.child('defaultBackend')));
  errs.push(...validateIngressRules(rules, path.child('rules')));
  listAt(spec, 'tls').forEach((tls, i) => {
    const tp = path.child('tls').index(i);
    (Array.isArray(tls['hosts']) ? (tls['hosts'] as unknown[]) : []).forEach((h, j) => {
      const host = str(h);
      for (const msg of host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host)) errs.push(fieldErrors.invalid(tp.child('hosts').index(j), host, msg));
    });
    const secretName = str(tls['secretName']);
    if (secretName !== '') for (const msg of isDNS1123Subdomain(secretName)) errs.push(fieldErrors.invalid(tp.child('secretName'), secretName, msg));
  });
  if (typeof spec['ingressClassName'] === 'string') {
    for (const msg of isDNS1123Subdomain(spec['ingressClassName'])) errs.push(fieldErrors.invalid(path.child('ingressClassName'), spec['ingressClassName'], msg));
  }
  return errs;
}

function annotationsOf(o: KubeObject): Record<string, string> {
  return (o.metadata?.annotations ?? {}) as Record<string, string>;
}

export const ingressStrategy: Strategy = {
  validate(o) {
    const errs = validateIngressSpec(o['spec']);
    const annotation = annotationsOf(o)[annotationIngressClass];
    const className = (o['spec'] as Obj | undefined)?.['ingressClassName'];
    if (annotation !== undefined && typeof className === 'string' && annotation !== className) {
      errs.push(fieldErrors.invalid(FieldPath.root('annotations').child(annotationIngressClass), annotation, 'must match `ingressClassName` when both are specified'));
    }
    return errs;
  },
  validateUpdate(o) {
    return validateIngressSpec(o['spec']);
  },
};
