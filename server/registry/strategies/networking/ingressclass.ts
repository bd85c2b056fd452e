// IngressClasses (networking.k8s.io/v1): kube's SetDefaults_IngressClass (parameters.scope Cluster) and
// ValidateIngressClass/ValidateIngressClassUpdate (controller required, domain-prefixed path, at most 250 bytes,
// immutable; parameters reference with scope rules).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidPathSegmentName, regexError } from '../../validation/name.js';
import { type Obj } from '../fields.js';

const maxLenIngressClassController = 250;
const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPathFmt}$`);

/** validation.IsDomainPrefixedPath */
export function isDomainPrefixedPath(path: FieldPath, value: string): FieldError[] {
  if (value.length === 0) return [fieldErrors.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) return [fieldErrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => fieldErrors.invalid(path, host, m));
  if (!httpPathRe.test(rest)) return [...errs, fieldErrors.invalid(path, rest, regexError('Invalid path', httpPathFmt))];
  return errs;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function validateParameters(params: Obj | undefined, path: FieldPath): FieldError[] {
  if (!params) return [];
  const errs: FieldError[] = [];
  if (typeof params['apiGroup'] === 'string') for (const m of isDNS1123Subdomain(params['apiGroup'])) errs.push(fieldErrors.invalid(path.child('apiGroup'), params['apiGroup'], m));
  for (const key of ['kind', 'name'] as const) {
    const v = str(params[key]);
    if (v === '') errs.push(fieldErrors.required(path.child(key)));
    else for (const m of isValidPathSegmentName(v)) errs.push(fieldErrors.invalid(path.child(key), v, m));
  }
  const scope = params['scope'];
  if (scope === undefined || scope === null) return [...errs, fieldErrors.required(path.child('scope'))];
  if (scope !== 'Cluster' && scope !== 'Namespace') errs.push(fieldErrors.notSupported(path.child('scope'), scope, ['Cluster', 'Namespace']));
  else if (scope === 'Namespace') {
    if (typeof params['namespace'] !== 'string') errs.push(fieldErrors.required(path.child('namespace'), "`parameters.scope` is set to 'Namespace'"));
    else for (const m of isDNS1123Label(params['namespace'])) errs.push(fieldErrors.invalid(path.child('namespace'), params['namespace'], m));
  } else if (params['namespace'] !== undefined && params['namespace'] !== null) {
    errs.push(fieldErrors.forbidden(path.child('namespace'), "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

function validateSpec(specValue: unknown): FieldError[] {
  const spec = (specValue ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const controller = str(spec['controller']);
  if (controller === '') errs.push(fieldErrors.required(path.child('controller')));
  else {
    if (Buffer.byteLength(controller, 'utf8') > maxLenIngressClassController) errs.push(fieldErrors.tooLong(path.child('controller'), undefined, maxLenIngressClassController));
    errs.push(...isDomainPrefixedPath(path.child('controller'), controller));
  }
  errs.push(...validateParameters(spec['parameters'] as Obj | undefined, path.child('parameters')));
  return errs;
}

export const ingressClassStrategy: Strategy = {
  applyDefaults(o) {
    const params = (o['spec'] as Obj | undefined)?.['parameters'] as Obj | undefined;
    if (params && (params['scope'] === undefined || params['scope'] === null)) params['scope'] = 'Cluster';
  },
  validate(o) {
    return validateSpec(o['spec']);
  },
  validateUpdate(o, old) {
    const errs: FieldError[] = [];
    const c = str((o['spec'] as Obj | undefined)?.['controller']);
    const oc = str((old['spec'] as Obj | undefined)?.['controller']);
    if (c !== oc) errs.push(fieldErrors.invalid('spec.controller', c, 'field is immutable'));
    return [...errs, ...validateSpec(o['spec'])];
  },
};
