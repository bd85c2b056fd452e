// rbac.authorization.k8s.io/v1 objects as the authorizer reads them (k8s.io/api/rbac/v1 field names).
import type { KubeObject, ObjectMeta } from '../../api/types.js';

export const rbacGroup = 'rbac.authorization.k8s.io';

/** rbacv1.PolicyRule */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** rbacv1.Subject */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** rbacv1.RoleRef */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Role and ClusterRole */
export interface RbacRole extends KubeObject {
  metadata: ObjectMeta;
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

/** RoleBinding and ClusterRoleBinding */
export interface RbacBinding extends KubeObject {
  metadata: ObjectMeta;
  subjects?: Subject[];
  roleRef: RoleRef;
}

/** `*` in verbs, apiGroups, resources and nonResourceURLs (rbacv1.VerbAll, APIGroupAll, ResourceAll, NonResourceAll). */
export const all = '*';
