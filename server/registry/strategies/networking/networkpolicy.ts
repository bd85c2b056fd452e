// NetworkPolicies (networking.k8s.io/v1): kube's SetDefaults_NetworkPolicy (policyTypes: Ingress always, Egress
// when egress rules exist; port protocol TCP) and ValidateNetworkPolicySpec (pod selector, ports, peers, ipBlock
// CIDRs, policyTypes), with kube's texts (pkg/apis/networking/validation/validation.go).
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { validateLabelSelector, type LabelSelectorLike } from '../../selectors/label-selector.js';
import { isValidCIDRForLegacyField } from '../../validation/ip.js';
import { parsePrefix } from '../../../admission/cel/library/netip.js';
import { isValidPortName, isValidPortNum } from '../../validation/port.js';
import { listAt, objAt, setDefault, type Obj } from '../fields.js';

const protocols = ['TCP', 'UDP', 'SCTP'];

function validatePort(port: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const protocol = port['protocol'];
  if (protocol !== undefined && protocol !== null && !protocols.includes(String(protocol))) errs.push(fieldErrors.notSupported(path.child('protocol'), protocol, protocols));
  const p = port['port'];
  const endPort = port['endPort'];
  const hasEnd = typeof endPort === 'number';
  if (typeof p === 'number') {
    for (const m of isValidPortNum(p)) errs.push(fieldErrors.invalid(path.child('port'), p, m));
    if (hasEnd) {
      if (endPort < p) errs.push(fieldErrors.invalid(path.child('endPort'), endPort, 'must be greater than or equal to `port`'));
      for (const m of isValidPortNum(endPort)) errs.push(fieldErrors.invalid(path.child('endPort'), endPort, m));
    }
  } else if (typeof p === 'string') {
    if (hasEnd) errs.push(fieldErrors.invalid(path.child('endPort'), endPort, 'may not be specified when `port` is non-numeric'));
    for (const m of isValidPortName(p)) errs.push(fieldErrors.invalid(path.child('port'), p, m));
  } else if (hasEnd) {
    errs.push(fieldErrors.invalid(path.child('endPort'), endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function validateIPBlock(ipb: Obj, path: FieldPath, oldCIDRs: readonly string[]): FieldError[] {
  const cidr = typeof ipb['cidr'] === 'string' ? ipb['cidr'] : '';
  if (cidr === '') return [fieldErrors.required(path.child('cidr'))];
  const errs = isValidCIDRForLegacyField(path.child('cidr'), cidr, oldCIDRs);
  const outer = parsePrefix(cidr);
  if (typeof outer === 'string') return errs;
  const net = outer.masked();
  (Array.isArray(ipb['except']) ? (ipb['except'] as unknown[]) : []).forEach((e, i) => {
    const except = String(e);
    const ep = path.child('except').index(i);
    errs.push(...isValidCIDRForLegacyField(ep, except, oldCIDRs));
    const inner = parsePrefix(except);
    if (typeof inner === 'string') return;
    if (!net.contains(inner.masked().addr) || net.bits >= inner.bits) errs.push(fieldErrors.invalid(ep, except, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: Obj, path: FieldPath, oldCIDRs: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  for (const key of ['podSelector', 'namespaceSelector'] as const) {
    if (peer[key] && typeof peer[key] === 'object') {
      peers++;
      errs.push(...validateLabelSelector(peer[key] as LabelSelectorLike, path.child(key)));
    }
  }
  const ipBlock = peer['ipBlock'] && typeof peer['ipBlock'] === 'object' ? (peer['ipBlock'] as Obj) : undefined;
  if (ipBlock) {
    peers++;
    errs.push(...validateIPBlock(ipBlock, path.child('ipBlock'), oldCIDRs));
  }
  if (peers === 0) errs.push(fieldErrors.required(path, 'must specify a peer'));
  else if (peers > 1 && ipBlock) errs.push(fieldErrors.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

function validateSpec(specValue: unknown, oldCIDRs: readonly string[]): FieldError[] {
  const spec = (specValue ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const errs = validateLabelSelector((spec['podSelector'] ?? {}) as LabelSelectorLike, path.child('podSelector'));
  for (const [dir, peersKey] of [['ingress', 'from'], ['egress', 'to']] as const) {
    listAt(spec, dir).forEach((rule, i) => {
      const rp = path.child(dir).index(i);
      listAt(rule, 'ports').forEach((p, j) => errs.push(...validatePort(p, rp.child('ports').index(j))));
      listAt(rule, peersKey).forEach((peer, j) => errs.push(...validatePeer(peer, rp.child(peersKey).index(j), oldCIDRs)));
    });
  }
  const types = Array.isArray(spec['policyTypes']) ? (spec['policyTypes'] as unknown[]) : [];
  if (types.length > 2) {
    const shown = `[]networking.PolicyType{${types.map((t) => JSON.stringify(String(t))).join(', ')}}`;
    errs.push(fieldErrors.invalid(path.child('policyTypes'), new GoStructValue(shown), 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(fieldErrors.notSupported(path.child('policyTypes').index(i), t, ['Ingress', 'Egress']));
  });
  return errs;
}

/** Every CIDR of the old policy: kube accepts them unchanged even when they no longer validate. */
function existingCIDRs(old: KubeObject): string[] {
  const spec = (old['spec'] ?? {}) as Obj;
  const out: string[] = [];
  for (const [dir, peersKey] of [['ingress', 'from'], ['egress', 'to']] as const) {
    for (const rule of listAt(spec, dir)) {
      for (const peer of listAt(rule, peersKey)) {
        const ipb = peer['ipBlock'] as Obj | undefined;
        if (ipb && typeof ipb === 'object') {
          if (typeof ipb['cidr'] === 'string') out.push(ipb['cidr']);
          if (Array.isArray(ipb['except'])) out.push(...(ipb['except'] as unknown[]).map(String));
        }
      }
    }
  }
  return out;
}

export const networkPolicyStrategy: Strategy = {
  applyDefaults(o) {
    const spec = objAt(o as Obj, 'spec');
    for (const dir of ['ingress', 'egress']) for (const rule of listAt(spec, dir)) for (const p of listAt(rule, 'ports')) setDefault(p, 'protocol', 'TCP');
    const types = spec['policyTypes'];
    if (!Array.isArray(types) || types.length === 0) {
      // SetDefaults_NetworkPolicy: every policy affects ingress; egress only when it has egress rules
      spec['policyTypes'] = listAt(spec, 'egress').length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
    }
  },
  validate(o) {
    return validateSpec(o['spec'], []);
  },
  validateUpdate(o, old) {
    return validateSpec(o['spec'], existingCIDRs(old));
  },
};
