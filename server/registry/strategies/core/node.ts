// Nodes: kube's node strategy (pkg/registry/core/node/strategy.go) and the core of ValidateNode/ValidateNodeUpdate
// (pkg/apis/core/validation/validation.go). A create keeps the status it sends ("Nodes allow *all* fields, including
// status, to be set on create"); spec.podCIDRs and spec.providerID may only go from unset to set.
import { isIP } from 'node:net';
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { isValidLabelValue } from '../../validation/name.js';
import { validateLabelName } from '../../validation/object-meta.js';
import { listAt, objAt, setDefault, type Obj } from '../fields.js';
import { resourceList, validateResourceQuantityValue } from './resources.js';

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
// NodeSystemInfo and DaemonEndpoint have no omitempty fields: an empty node status serializes them as zero values.
const nodeInfoFields = ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'];

/** netutils.ParseCIDRSloppy: an address and a prefix length that fits it. */
export function cidrFamily(value: string): 4 | 6 | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const family = isIP(value.slice(0, slash));
  const bits = value.slice(slash + 1);
  if (family === 0 || !/^[0-9]{1,3}$/.test(bits)) return undefined;
  return Number(bits) <= (family === 4 ? 32 : 128) ? (family as 4 | 6) : undefined;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

function validateTaints(taints: Obj[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const p = path.index(i);
    const key = typeof t['key'] === 'string' ? t['key'] : '';
    errs.push(...validateLabelName(key, p.child('key')));
    if (typeof t['value'] === 'string' && t['value'] !== '') {
      const msgs = isValidLabelValue(t['value']);
      if (msgs.length > 0) errs.push(fieldErrors.invalid(p.child('value'), t['value'], msgs.join(';')));
    }
    const effect = t['effect'];
    if (effect === undefined || effect === null || effect === '') errs.push(fieldErrors.required(p.child('effect')));
    else if (!taintEffects.includes(String(effect))) errs.push(fieldErrors.notSupported(p.child('effect'), effect, taintEffects));
    // "taints must be unique by key and effect pair"; kube prints the taint struct as the value, here the pair
    const pair = `${key}:${String(effect ?? '')}`;
    if (seen.has(pair)) errs.push({ ...fieldErrors.duplicate(p, pair), detail: 'taints must be unique by key and effect pair' });
    seen.add(pair);
  });
  return errs;
}

function validateNode(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as Obj;
  const status = (obj['status'] ?? {}) as Obj;
  errs.push(...validateTaints(listAt(spec, 'taints'), FieldPath.root('spec', 'taints')));
  // ValidateNodeResources: status.capacity and status.allocatable are child paths, not keys, in kube
  for (const field of ['capacity', 'allocatable']) {
    for (const [k, v] of Object.entries(resourceList(status[field]))) errs.push(...validateResourceQuantityValue(k, v, FieldPath.root('status', field, k)));
  }
  const cidrs = stringList(spec['podCIDRs']);
  const cidrPath = FieldPath.root('spec', 'podCIDRs');
  const families: Array<4 | 6 | undefined> = cidrs.map((c, i) => {
    const fam = cidrFamily(c);
    if (fam === undefined) errs.push(fieldErrors.invalid(cidrPath.index(i), c, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
    return fam;
  });
  if (cidrs.length > 1 && families.every((f) => f !== undefined)) {
    const dualStack = cidrs.length === 2 && families[0] !== families[1];
    if (!dualStack) errs.push(fieldErrors.invalid(cidrPath, cidrs, 'may specify no more than one CIDR for each IP family'));
  }
  return errs;
}

/** fieldIsDeprecatedWarnings (spec.configSource is dropped before kube looks at it) */
function externalIDWarning(obj: KubeObject): string[] {
  const id = (obj['spec'] as Obj | undefined)?.['externalID'];
  return typeof id === 'string' && id !== '' ? ['spec.externalID: this field is deprecated, and is unused by Kubernetes'] : [];
}

export const nodeStrategy: Strategy = {
  statusOnCreate: true,
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    // dropDisabledFields: the dynamic kubelet config source is gone; a node never keeps it
    delete spec['configSource'];
    // v1 conversion: podCIDR is podCIDRs[0]; a lone podCIDR becomes the list
    const cidrs = stringList(spec['podCIDRs']);
    if (cidrs.length > 0) spec['podCIDR'] = cidrs[0];
    else if (typeof spec['podCIDR'] === 'string' && spec['podCIDR'] !== '') spec['podCIDRs'] = [spec['podCIDR']];
    const status = objAt(obj as Obj, 'status');
    // SetDefaults_NodeStatus: allocatable defaults to capacity
    if (status['allocatable'] === undefined && status['capacity'] !== undefined) status['allocatable'] = structuredClone(status['capacity']);
    const kubelet = objAt(objAt(status, 'daemonEndpoints'), 'kubeletEndpoint');
    setDefault(kubelet, 'Port', 0);
    const info = objAt(status, 'nodeInfo');
    for (const f of nodeInfoFields) setDefault(info, f, '');
  },
  validate: validateNode,
  warningsOnCreate: externalIDWarning,
  warningsOnUpdate: (obj) => externalIDWarning(obj),
  validateUpdate(obj, old) {
    const errs = validateNode(obj);
    const spec = (obj['spec'] ?? {}) as Obj;
    const oldSpec = (old['spec'] ?? {}) as Obj;
    const oldCidrs = stringList(oldSpec['podCIDRs']);
    const cidrs = stringList(spec['podCIDRs']);
    // The controller manager may assign CIDRs to a node without them; after that they are fixed.
    if (oldCidrs.length > 0) {
      const forbidden = (): FieldError => fieldErrors.forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid');
      if (oldCidrs.length !== cidrs.length) errs.push(forbidden());
      else oldCidrs.forEach((c, i) => c !== cidrs[i] && errs.push(forbidden()));
    }
    // no address twice in status.addresses (kube prints the core.NodeAddress struct)
    const seen = new Set<string>();
    listAt((obj['status'] ?? {}) as Obj, 'addresses').forEach((a, i) => {
      const rendered = `core.NodeAddress{Type:${JSON.stringify(String(a['type'] ?? ''))}, Address:${JSON.stringify(String(a['address'] ?? ''))}}`;
      if (seen.has(rendered)) errs.push(fieldErrors.duplicate(FieldPath.root('status', 'addresses').index(i), new GoStructValue(rendered)));
      seen.add(rendered);
    });
    const oldProvider = typeof oldSpec['providerID'] === 'string' ? oldSpec['providerID'] : '';
    if (oldProvider !== '' && oldProvider !== spec['providerID']) errs.push(fieldErrors.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
    return errs;
  },
};
