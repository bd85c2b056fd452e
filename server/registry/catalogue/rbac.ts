// rbac.authorization.k8s.io/v1. Columns mirror kube's printers (printRole, printClusterRole: "Created At" in RFC
// 3339 UTC; printRoleBinding, printClusterRoleBinding: Role as Kind/Name, subjects in -o wide).
import type { KubeObject } from '../../api/types.js';
import { age, at, type Entry } from './entry.js';

type Subject = { kind?: string; name?: string; namespace?: string };
const subjectsOf = (o: KubeObject): Subject[] => (Array.isArray(o['subjects']) ? (o['subjects'] as Subject[]) : []);
/** rbac.SubjectsStrings: users, groups and "namespace/name" service accounts, comma-joined. */
const subjects = (kind: string) => (o: KubeObject): string =>
  subjectsOf(o)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : (s.name ?? '')))
    .join(', ');
const roleRef = (o: KubeObject): string => `${String(at(o, 'roleRef', 'kind') ?? '')}/${String(at(o, 'roleRef', 'name') ?? '')}`;
const createdAt = { name: 'Created At', type: 'string' as const, compute: (o: KubeObject) => String(at(o, 'metadata', 'creationTimestamp') ?? '') };
const bindingColumns = [
  { name: 'Role', type: 'string' as const, compute: roleRef },
  age,
  { name: 'Users', type: 'string' as const, priority: 1, compute: subjects('User') },
  { name: 'Groups', type: 'string' as const, priority: 1, compute: subjects('Group') },
  { name: 'ServiceAccounts', type: 'string' as const, priority: 1, compute: subjects('ServiceAccount') },
];

export const rbacEntries: Entry[] = [
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true, nameRule: 'PathSegment', printerColumns: [createdAt] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, nameRule: 'PathSegment', printerColumns: [createdAt] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, nameRule: 'PathSegment', printerColumns: bindingColumns },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, nameRule: 'PathSegment', printerColumns: bindingColumns },
];
