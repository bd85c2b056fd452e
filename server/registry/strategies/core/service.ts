// Services: kube's defaults (type ClusterIP, protocol TCP, targetPort = port, a cluster IP from the service
// range) and the core of ValidateService.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { listAt, objAt, setDefault, type Obj } from '../fields.js';

/** A cluster IP from kube's default service range 10.96.0.0/12; no allocator: collisions are harmless here. */
function allocateClusterIP(): string {
  const n = 1 + Math.floor(Math.random() * ((1 << 20) - 2));
  return `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

export const serviceStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'type', 'ClusterIP');
    setDefault(spec, 'sessionAffinity', 'None');
    for (const p of listAt(spec, 'ports')) {
      setDefault(p, 'protocol', 'TCP');
      setDefault(p, 'targetPort', p['port']);
    }
    if (spec['type'] !== 'ExternalName') {
      setDefault(spec, 'clusterIP', allocateClusterIP());
      setDefault(spec, 'clusterIPs', spec['clusterIP'] === 'None' ? ['None'] : [spec['clusterIP']]);
      setDefault(spec, 'ipFamilies', ['IPv4']);
      setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
      setDefault(spec, 'internalTrafficPolicy', 'Cluster');
    }
  },
  validate(obj) {
    return validateServiceSpec(obj['spec']);
  },
  validateUpdate(obj, old) {
    const errs = validateServiceSpec(obj['spec']);
    const ip = (obj['spec'] as Obj | undefined)?.['clusterIP'];
    const oldIp = (old['spec'] as Obj | undefined)?.['clusterIP'];
    if (oldIp !== undefined && ip !== oldIp) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', ip, 'may not change once set'));
    return errs;
  },
};

function validateServiceSpec(specValue: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (specValue ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const type = spec['type'];
  if (!types.includes(String(type))) errs.push(fieldErrors.notSupported(path.child('type'), type, types));
  const ports = listAt(spec, 'ports');
  if (type !== 'ExternalName' && spec['clusterIP'] !== 'None' && ports.length === 0) errs.push(fieldErrors.required(path.child('ports')));
  ports.forEach((p, i) => {
    const port = p['port'];
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      errs.push(fieldErrors.invalid(path.child('ports').index(i).child('port'), port, 'must be between 1 and 65535, inclusive'));
    }
    if (ports.length > 1 && !p['name']) errs.push(fieldErrors.required(path.child('ports').index(i).child('name')));
  });
  return errs;
}
