// rbac.authorization.k8s.io/v1 objects as kube-apiserver serves them (enforcement and escalation checks aside):
// kube's defaults (roleRef.apiGroup, subjects' apiGroup) and validation texts (pkg/apis/rbac/validation), roleRef
// immutability, and kubectl's four generators, which send protobuf.
import { useApiServer } from '../../harness/jest.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory' });
const namespace = 'rbac-walk';
const group = 'rbac.authorization.k8s.io';

const rule = { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] };
const walks: ResourceWalk[] = [
  {
    group, version: 'v1', resource: 'roles', kind: 'Role', namespaced: true,
    object: () => ({ rules: [rule] }),
    // kube defaults nothing in a Role
    defaulted: [{ path: 'rules.0.verbs', value: ['get', 'list'] }],
    invalid: [
      { name: 'a rule without verbs', object: { rules: [{ apiGroups: [''], resources: ['pods'] }] }, causes: [{ reason: 'FieldValueRequired', field: 'rules[0].verbs', message: 'Required value: verbs must contain at least one value' }] },
      {
        name: 'non-resource URLs in a namespaced role',
        object: { rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] },
        message: 'Role.rbac.authorization.k8s.io "walk-role-invalid" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
      },
    ],
  },
  {
    group, version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false,
    object: () => ({ rules: [rule, { nonResourceURLs: ['/healthz'], verbs: ['get'] }], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'walk/aggregate': 'true' } }] } }),
    defaulted: [{ path: 'aggregationRule.clusterRoleSelectors.0.matchLabels', value: { 'walk/aggregate': 'true' } }],
    invalid: [
      { name: 'a resource rule without apiGroups', object: { rules: [{ resources: ['pods'], verbs: ['get'] }] }, causes: [{ reason: 'FieldValueRequired', field: 'rules[0].apiGroups', message: 'Required value: resource rules must supply at least one api group' }] },
      {
        name: 'both resources and non-resource URLs',
        object: { rules: [{ apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/healthz'], verbs: ['get'] }] },
        causes: [{ reason: 'FieldValueInvalid', field: 'rules[0].nonResourceURLs', message: 'Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs' }],
      },
    ],
  },
  {
    group, version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true,
    object: () => ({ roleRef: { kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'default' }] }),
    defaulted: [
      { path: 'roleRef.apiGroup', value: group },
      { path: 'subjects.0.apiGroup', value: group },
      { path: 'subjects.1.apiGroup', value: undefined },
    ],
    invalid: [
      { name: 'a roleRef of another kind', object: { roleRef: { apiGroup: group, kind: 'Deployment', name: 'x' } }, causes: [{ reason: 'FieldValueNotSupported', field: 'roleRef.kind', message: 'Unsupported value: "Deployment": supported values: "Role", "ClusterRole"' }] },
      { name: 'an unknown subject kind', object: { roleRef: { apiGroup: group, kind: 'Role', name: 'x' }, subjects: [{ kind: 'Robot', name: 'r2' }] }, causes: [{ reason: 'FieldValueNotSupported', field: 'subjects[0].kind', message: 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"' }] },
    ],
  },
  {
    group, version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false,
    object: () => ({ roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: 'devs' }] }),
    defaulted: [
      { path: 'roleRef.apiGroup', value: group },
      { path: 'subjects.0.apiGroup', value: group },
    ],
    invalid: [
      { name: 'a Role in a cluster binding', object: { roleRef: { apiGroup: group, kind: 'Role', name: 'x' } }, causes: [{ reason: 'FieldValueNotSupported', field: 'roleRef.kind', message: 'Unsupported value: "Role": supported values: "ClusterRole"' }] },
      {
        name: 'a service account without namespace',
        object: { roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'builder' }] },
        causes: [{ reason: 'FieldValueRequired', field: 'subjects[0].namespace', message: 'Required value' }],
      },
    ],
  },
];

describeResourceWalks(env, namespace, walks);

describe('rbac.authorization.k8s.io bindings', () => {
  it.each([
    ['rolebindings', 'RoleBinding', `/apis/${group}/v1/namespaces/default/rolebindings`],
    ['clusterrolebindings', 'ClusterRoleBinding', `/apis/${group}/v1/clusterrolebindings`],
  ])('refuse a changed roleRef on %s with "cannot change roleRef"', async (_r, kind, path) => {
    const body = { apiVersion: `${group}/v1`, kind, metadata: { name: 'fixed-ref' }, roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'view' } };
    expect((await env.server.request(path, { method: 'POST', body })).status).toBe(201);
    const res = await env.server.request(`${path}/fixed-ref`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { roleRef: { name: 'edit' } } });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([
      422,
      `${kind}.${group} "fixed-ref" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"${group}", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef`,
    ]);
  });
});

describe('rbac.authorization.k8s.io through kubectl', () => {
  it('`kubectl create role|clusterrole|rolebinding|clusterrolebinding` make the objects kube makes, printed with kube\'s columns', async () => {
    const kc = env.server.kubeconfigPath;
    await kubectl(kc, ['create', 'namespace', 'rbac-kubectl']);
    const steps: Array<[string[], string]> = [
      [['create', 'role', 'pod-reader', '-n', 'rbac-kubectl', '--verb=get', '--verb=list', '--resource=pods'], 'role.rbac.authorization.k8s.io/pod-reader created'],
      [['create', 'clusterrole', 'log-reader', '--verb=get', '--non-resource-url=/logs/*'], 'clusterrole.rbac.authorization.k8s.io/log-reader created'],
      [['create', 'rolebinding', 'read-pods', '-n', 'rbac-kubectl', '--role=pod-reader', '--user=alice', '--serviceaccount=rbac-kubectl:builder'], 'rolebinding.rbac.authorization.k8s.io/read-pods created'],
      [['create', 'clusterrolebinding', 'read-logs', '--clusterrole=log-reader', '--group=devs'], 'clusterrolebinding.rbac.authorization.k8s.io/read-logs created'],
    ];
    for (const [args, out] of steps) {
      const r = await kubectl(kc, args);
      expect([args[1], r.code, r.stderr, r.stdout.trim()]).toEqual([args[1], 0, '', out]);
    }
    const role = JSON.parse((await kubectl(kc, ['get', 'role', 'pod-reader', '-n', 'rbac-kubectl', '-o', 'json'])).stdout) as { rules: unknown[] };
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);
    const rb = JSON.parse((await kubectl(kc, ['get', 'rolebinding', 'read-pods', '-n', 'rbac-kubectl', '-o', 'json'])).stdout) as { roleRef: unknown; subjects: unknown[] };
    expect(rb.roleRef).toEqual({ apiGroup: group, kind: 'Role', name: 'pod-reader' });
    expect(rb.subjects).toEqual([
      { apiGroup: group, kind: 'User', name: 'alice' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'rbac-kubectl' },
    ]);
    const roles = await kubectl(kc, ['get', 'roles', '-n', 'rbac-kubectl']);
    expect(roles.stdout).toMatch(/^NAME\s+CREATED AT\npod-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    const bindings = await kubectl(kc, ['get', 'rolebindings', '-n', 'rbac-kubectl', '-o', 'wide']);
    expect(bindings.stdout).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\nread-pods\s+Role\/pod-reader\s+\S+\s+alice\s+rbac-kubectl\/builder\n$/);
    const crb = await kubectl(kc, ['get', 'clusterrolebinding', 'read-logs']);
    expect(crb.stdout).toMatch(/^NAME\s+ROLE\s+AGE\nread-logs\s+ClusterRole\/log-reader\s+/);
  });
});
