// networking.k8s.io/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { ingressStrategy } from './ingress.js';
import { ingressClassStrategy } from './ingressclass.js';
import { ipAddressStrategy } from './ipaddress.js';
import { networkPolicyStrategy } from './networkpolicy.js';
import { serviceCIDRStrategy } from './servicecidr.js';

export const networkingStrategies: Record<string, Strategy> = {
  'networking.k8s.io/v1/ingresses': ingressStrategy,
  'networking.k8s.io/v1/ingressclasses': ingressClassStrategy,
  'networking.k8s.io/v1/networkpolicies': networkPolicyStrategy,
  'networking.k8s.io/v1/ipaddresses': ipAddressStrategy,
  'networking.k8s.io/v1/servicecidrs': serviceCIDRStrategy,
};
