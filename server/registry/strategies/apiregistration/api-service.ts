// APIServices: kube-aggregator's ValidateAPIService / ValidateAPIServiceUpdate
// (k8s.io/kube-aggregator/pkg/apis/apiregistration/validation/validation.go): the name is spec.version+"."+spec.group,
// group a DNS subdomain (empty only for v1), version a DNS-1035 label, the priorities in range, a local service
// (service: null) without CA bundle or insecureSkipTLSVerify, a service reference with namespace and name.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../validation/name.js';
import { objAt, setDefault, type Obj } from '../fields.js';

function validateAPIService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = String((obj['metadata'] as Obj | undefined)?.['name'] ?? '');
  const spec = (obj['spec'] ?? {}) as Obj;
  const group = typeof spec['group'] === 'string' ? spec['group'] : '';
  const version = typeof spec['version'] === 'string' ? spec['version'] : '';
  const requiredName = `${version}.${group}`;
  // the name function after the path-segment checks (which the generic metadata validation made)
  if (name !== '' && !name.includes('/') && !name.includes('%') && name !== '.' && name !== '..' && name !== requiredName) {
    errs.push(fieldErrors.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  const path = FieldPath.root('spec');
  if (group.length === 0 && version !== 'v1') errs.push(fieldErrors.required(path.child('group'), 'only v1 may have an empty group and it better be legacy kube'));
  if (group.length > 0) for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid(path.child('group'), group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(fieldErrors.invalid(path.child('version'), version, msg));
  const gpm = typeof spec['groupPriorityMinimum'] === 'number' ? spec['groupPriorityMinimum'] : 0;
  if (gpm <= 0 || gpm > 20000) errs.push(fieldErrors.invalid(path.child('groupPriorityMinimum'), gpm, 'must be positive and less than 20000'));
  const vp = typeof spec['versionPriority'] === 'number' ? spec['versionPriority'] : 0;
  if (vp <= 0 || vp > 1000) errs.push(fieldErrors.invalid(path.child('versionPriority'), vp, 'must be positive and less than 1000'));
  const caBundle = typeof spec['caBundle'] === 'string' ? Buffer.from(spec['caBundle'], 'base64') : Buffer.alloc(0);
  const svc = spec['service'] as Obj | null | undefined;
  if (!svc) {
    if (caBundle.length !== 0) errs.push(fieldErrors.invalid(path.child('caBundle'), `${caBundle.length} bytes`, 'local APIServices may not have a caBundle'));
    if (spec['insecureSkipTLSVerify'] === true) errs.push(fieldErrors.invalid(path.child('insecureSkipTLSVerify'), true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!svc['namespace']) errs.push(fieldErrors.required(path.child('service', 'namespace')));
  if (!svc['name']) errs.push(fieldErrors.required(path.child('service', 'name')));
  const port = svc['port'];
  if (typeof port === 'number' && (port < 1 || port > 65535)) errs.push(fieldErrors.invalid(path.child('service', 'port'), port, 'must be between 1 and 65535, inclusive'));
  if (spec['insecureSkipTLSVerify'] === true && caBundle.length > 0) errs.push(fieldErrors.invalid(path.child('insecureSkipTLSVerify'), true, 'may not be true if caBundle is present'));
  return errs;
}

export const apiServiceStrategy: Strategy = {
  applyDefaults(obj) {
    // SetDefaults_ServiceReference: a service reference's port is 443
    const svc = (obj['spec'] as Obj | undefined)?.['service'];
    if (svc && typeof svc === 'object') setDefault(objAt(obj['spec'] as Obj, 'service'), 'port', 443);
  },
  validate: validateAPIService,
  validateUpdate: (obj) => validateAPIService(obj),
};
