// rbac.authorization.k8s.io/v1 registry strategies: the objects only (kube's RBAC escalation checks on create and
// update run in the store's write guard under --authorization-mode RBAC, see server/authz/rbac/escalation.ts; the
// clusterrole aggregation controller is server/controllers/clusterrole-aggregation.ts).
import type { Strategy } from '../../resource.js';
import { listAt, type Obj } from '../fields.js';
import { defaultBinding, roleRefChange, validateAggregationRule, validateBinding, validatePolicyRules } from './rules.js';

const roleStrategy = (namespaced: boolean): Strategy => ({
  validate: (o) => validatePolicyRules(listAt(o as Obj, 'rules'), namespaced),
  validateUpdate: (o) => validatePolicyRules(listAt(o as Obj, 'rules'), namespaced),
});
const clusterRoleStrategy: Strategy = {
  validate: (o) => [...validatePolicyRules(listAt(o as Obj, 'rules'), false), ...validateAggregationRule(o as Obj)],
  validateUpdate: (o) => [...validatePolicyRules(listAt(o as Obj, 'rules'), false), ...validateAggregationRule(o as Obj)],
};
const bindingStrategy = (namespaced: boolean): Strategy => ({
  applyDefaults: (o) => defaultBinding(o as Obj),
  validate: (o) => validateBinding(o as Obj, namespaced),
  validateUpdate: (o, old) => [...validateBinding(o as Obj, namespaced), ...roleRefChange(o as Obj, old as Obj)],
});

export const rbacStrategies: Record<string, Strategy> = {
  'rbac.authorization.k8s.io/v1/roles': roleStrategy(true),
  'rbac.authorization.k8s.io/v1/clusterroles': clusterRoleStrategy,
  'rbac.authorization.k8s.io/v1/rolebindings': bindingStrategy(true),
  'rbac.authorization.k8s.io/v1/clusterrolebindings': bindingStrategy(false),
};
