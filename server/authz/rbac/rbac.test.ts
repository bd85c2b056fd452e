// Unit tests of the RBAC authorizer's pure parts, ported from kube where kube has the case:
// plugin/pkg/auth/authorizer/rbac/rbac_test.go (TestAuthorizer, TestRuleMatches), pkg/registry/rbac/validation/
// rule_test.go (TestDefaultRuleResolver, TestAppliesTo), component-helpers/auth/rbac/validation/policy_comparator_test.go
// (Covers), pkg/controller/clusterroleaggregation/clusterroleaggregation_controller_test.go (syncClusterRole) and
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy_test.go (the bootstrap roles and bindings).
import type { UserInfo } from '../../api/types.js';
import { aggregatedRules } from '../../controllers/clusterrole-aggregation.js';
import type { AuthorizationAttributes } from '../types.js';
import { RbacAuthorizer } from './authorizer.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapNamespaceRoleBindings, bootstrapNamespaceRoles } from './bootstrap-policy.generated.js';
import { compactString, covers, escalationMessage } from './escalation-rules.js';
import { RbacPolicyCache, subjectAppliesTo } from './policy-cache.js';
import { ruleAllows } from './rule-matching.js';
import { RbacRuleResolver } from './rule-resolver.js';
import type { PolicyRule, RbacBinding, RbacRole, Subject } from './types.js';

const g = 'rbac.authorization.k8s.io';
let rv = 0;
const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), resourceVersion: String(++rv) });
/** kube's newRule(verbs, apiGroups, resources, nonResourceURLs): comma lists, "" kept as [""] as strings.Split does */
const newRule = (verbs: string, apiGroups: string, resources: string, urls: string): PolicyRule => ({
  verbs: verbs.split(','),
  apiGroups: apiGroups.split(','),
  resources: resources.split(','),
  nonResourceURLs: urls.split(','),
});
const clusterRole = (name: string, ...rules: PolicyRule[]): RbacRole => ({ apiVersion: `${g}/v1`, kind: 'ClusterRole', metadata: meta(name), rules });
const role = (ns: string, name: string, ...rules: PolicyRule[]): RbacRole => ({ apiVersion: `${g}/v1`, kind: 'Role', metadata: meta(name, ns), rules });
const subjects = (list: string[]): Subject[] =>
  list.map((s) => {
    const [kind, name] = [s.slice(0, s.indexOf(':')), s.slice(s.indexOf(':') + 1)];
    return kind === 'ServiceAccount' ? { kind, name } : { kind, apiGroup: g, name };
  });
const clusterRoleBinding = (name: string, roleName: string, ...subj: string[]): RbacBinding => ({
  apiVersion: `${g}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: meta(name),
  roleRef: { apiGroup: g, kind: 'ClusterRole', name: roleName },
  subjects: subjects(subj),
});
const roleBinding = (ns: string, name: string, kind: 'Role' | 'ClusterRole', roleName: string, ...subj: string[]): RbacBinding => ({
  apiVersion: `${g}/v1`,
  kind: 'RoleBinding',
  metadata: meta(name, ns),
  roleRef: { apiGroup: g, kind, name: roleName },
  subjects: subjects(subj),
});

interface Fixture {
  roles?: RbacRole[];
  clusterRoles?: RbacRole[];
  roleBindings?: RbacBinding[];
  clusterRoleBindings?: RbacBinding[];
}
function authorizerFor(f: Fixture): RbacAuthorizer {
  const cache = new RbacPolicyCache();
  cache.replace('roles', f.roles ?? []);
  cache.replace('clusterroles', f.clusterRoles ?? []);
  cache.replace('rolebindings', f.roleBindings ?? []);
  cache.replace('clusterrolebindings', f.clusterRoleBindings ?? []);
  return new RbacAuthorizer(new RbacRuleResolver(cache));
}
/** kube's defaultAttributes{user, groups, verb, resource, subresource, namespace, apiGroup} */
const attrs = (username: string, groups: string, verb: string, resource: string, subresource: string, namespace: string, apiGroup: string): AuthorizationAttributes => ({
  user: { username, groups: groups.split(',') },
  verb,
  resource,
  subresource,
  namespace,
  apiGroup,
  resourceRequest: true,
});
const nonResource = (user: UserInfo, verb: string, path: string): AuthorizationAttributes => ({ user, verb, path, resourceRequest: false });

describe('RBAC authorizer (rbac_test.go TestAuthorizer)', () => {
  const cases: Array<{ name: string; fixture: Fixture; pass: AuthorizationAttributes[]; fail: AuthorizationAttributes[] }> = [
    {
      name: 'a rolebinding to a * clusterrole allows its users and groups in its namespace only',
      fixture: { clusterRoles: [clusterRole('admin', newRule('*', '*', '*', '*'))], roleBindings: [roleBinding('ns1', 'b', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')] },
      pass: [
        attrs('admin', '', 'get', 'Pods', '', 'ns1', ''),
        attrs('admin', '', 'watch', 'Pods', '', 'ns1', ''),
        attrs('admin', 'group1', 'watch', 'Foobar', '', 'ns1', ''),
        attrs('joe', 'admins', 'watch', 'Foobar', '', 'ns1', ''),
        attrs('joe', 'group1,admins', 'watch', 'Foobar', '', 'ns1', ''),
      ],
      fail: [attrs('admin', '', 'GET', 'Pods', '', 'ns2', ''), attrs('admin', '', 'GET', 'Nodes', '', '', ''), attrs('admin', 'admins', 'GET', 'Pods', '', 'ns2', ''), attrs('admin', 'admins', 'GET', 'Nodes', '', '', '')],
    },
    {
      name: 'non-resource URLs: exact, any verb, and a * prefix',
      fixture: {
        clusterRoles: [clusterRole('non-resource-url-getter', newRule('get', '', '', '/apis')), clusterRole('non-resource-url', newRule('*', '', '', '/apis')), clusterRole('non-resource-url-prefix', newRule('get', '', '', '/apis/*'))],
        clusterRoleBindings: [
          clusterRoleBinding('b1', 'non-resource-url-getter', 'User:foo', 'Group:bar'),
          clusterRoleBinding('b2', 'non-resource-url', 'User:admin', 'Group:admin'),
          clusterRoleBinding('b3', 'non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
        ],
      },
      pass: [
        nonResource({ username: 'foo' }, 'get', '/apis'),
        nonResource({ username: '', groups: ['bar'] }, 'get', '/apis'),
        nonResource({ username: 'admin' }, 'get', '/apis'),
        nonResource({ username: '', groups: ['admin'] }, 'get', '/apis'),
        nonResource({ username: 'admin' }, 'watch', '/apis'),
        nonResource({ username: '', groups: ['admin'] }, 'watch', '/apis'),
        nonResource({ username: 'prefixed' }, 'get', '/apis/v1'),
        nonResource({ username: '', groups: ['prefixed'] }, 'get', '/apis/v1'),
        nonResource({ username: 'prefixed' }, 'get', '/apis/v1/foobar'),
        nonResource({ username: '', groups: ['prefixed'] }, 'get', '/apis/v1/foorbar'),
      ],
      fail: [
        nonResource({ username: 'foo' }, 'watch', '/apis'),
        nonResource({ username: '', groups: ['bar'] }, 'watch', '/apis'),
        nonResource({ username: 'foo' }, 'get', '/api/v1'),
        nonResource({ username: '', groups: ['bar'] }, 'get', '/api/v1'),
        nonResource({ username: 'admin' }, 'get', '/api/v1'),
        nonResource({ username: '', groups: ['admin'] }, 'get', '/api/v1'),
        nonResource({ username: 'prefixed' }, 'get', '/api/v1'),
        nonResource({ username: '', groups: ['prefixed'] }, 'get', '/api/v1'),
      ],
    },
    {
      name: 'a rule for pods does not allow pods/status',
      fixture: { clusterRoles: [clusterRole('admin', newRule('*', '*', 'pods', '*'))], roleBindings: [roleBinding('ns1', 'b', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')] },
      pass: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
      fail: [attrs('admin', '', 'get', 'pods', 'status', 'ns1', '')],
    },
    {
      name: 'a rule for pods/status does not allow pods',
      fixture: { clusterRoles: [clusterRole('admin', newRule('*', '*', 'pods/status', '*'))], roleBindings: [roleBinding('ns1', 'b', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')] },
      pass: [attrs('admin', '', 'get', 'pods', 'status', 'ns1', '')],
      fail: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
    },
    {
      name: 'a rolebinding to a Role of its namespace',
      fixture: { roles: [role('ns1', 'reader', newRule('get,list', '', 'configmaps', ''))], roleBindings: [roleBinding('ns1', 'b', 'Role', 'reader', 'User:alice')] },
      pass: [attrs('alice', '', 'get', 'configmaps', '', 'ns1', ''), attrs('alice', '', 'list', 'configmaps', '', 'ns1', '')],
      fail: [attrs('alice', '', 'create', 'configmaps', '', 'ns1', ''), attrs('alice', '', 'get', 'configmaps', '', 'ns2', ''), attrs('alice', '', 'get', 'configmaps', '', '', '')],
    },
  ];
  it.each(cases)('$name', ({ fixture, pass, fail }) => {
    const a = authorizerFor(fixture);
    for (const at of pass) expect([at, a.authorize(at).decision]).toEqual([at, 'Allow']);
    for (const at of fail) expect([at, a.authorize(at).decision]).toEqual([at, 'NoOpinion']);
  });

  it('says which binding allowed, as kube\'s "RBAC: allowed by …" reason', () => {
    const a = authorizerFor({
      clusterRoles: [clusterRole('view', newRule('get', '', 'pods', ''))],
      clusterRoleBindings: [clusterRoleBinding('viewers', 'view', 'Group:devs')],
      roleBindings: [roleBinding('ns1', 'sa-view', 'ClusterRole', 'view', 'ServiceAccount:robot')],
    });
    expect(a.authorize(attrs('bob', 'devs', 'get', 'pods', '', 'ns1', '')).reason).toBe('RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "devs"');
    expect(a.authorize({ ...attrs('system:serviceaccount:ns1:robot', '', 'get', 'pods', '', 'ns1', '') }).reason).toBe(
      'RBAC: allowed by RoleBinding "sa-view/ns1" of ClusterRole "view" to ServiceAccount "robot/ns1"',
    );
  });

  it('has no opinion and no reason when nothing matches, and names a missing role as the reason', () => {
    expect(authorizerFor({}).authorize(attrs('bob', '', 'get', 'pods', '', 'ns1', ''))).toEqual({ decision: 'NoOpinion', reason: '' });
    const a = authorizerFor({ clusterRoleBindings: [clusterRoleBinding('b', 'missing', 'User:bob')], roleBindings: [roleBinding('ns1', 'rb', 'Role', 'gone', 'User:bob')] });
    expect(a.authorize(attrs('bob', '', 'get', 'pods', '', 'ns1', ''))).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "gone" not found]',
    });
    expect(a.authorize(attrs('bob', '', 'get', 'pods', '', '', '')).reason).toBe('RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found');
  });

  it('lists the rules of SelfSubjectRulesReview split into resource and non-resource rules', () => {
    const a = authorizerFor({
      clusterRoles: [clusterRole('mixed', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p1'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] })],
      clusterRoleBindings: [clusterRoleBinding('b', 'mixed', 'User:bob'), clusterRoleBinding('c', 'missing', 'User:bob')],
    });
    expect(a.rulesFor({ username: 'bob' }, 'default')).toEqual({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p1'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'clusterrole.rbac.authorization.k8s.io "missing" not found',
    });
  });
});

describe('RuleAllows (rbac_test.go TestRuleMatches)', () => {
  const res = (verb: string, group: string, resource: string, subresource = '', name = ''): AuthorizationAttributes => ({ user: { username: '' }, verb, apiGroup: group, resource, subresource, name, resourceRequest: true });
  const url = (verb: string, path: string): AuthorizationAttributes => ({ user: { username: '' }, verb, path, resourceRequest: false });
  const cases: Array<[string, PolicyRule, Array<[AuthorizationAttributes, boolean]>]> = [
    ['star verb, exact match other', { verbs: ['*'], apiGroups: ['group1'], resources: ['resource1'] }, [
      [res('verb1', 'group1', 'resource1'), true], [res('verb1', 'group2', 'resource1'), false], [res('verb1', 'group1', 'resource2'), false], [res('verb2', 'group1', 'resource1'), true],
    ]],
    ['star group, exact match other', { verbs: ['verb1'], apiGroups: ['*'], resources: ['resource1'] }, [
      [res('verb1', 'group1', 'resource1'), true], [res('verb1', 'group2', 'resource1'), true], [res('verb1', 'group1', 'resource2'), false], [res('verb2', 'group1', 'resource1'), false],
    ]],
    ['star resource, exact match other', { verbs: ['verb1'], apiGroups: ['group1'], resources: ['*'] }, [
      [res('verb1', 'group1', 'resource1'), true], [res('verb1', 'group2', 'resource1'), false], [res('verb1', 'group1', 'resource2'), true], [res('verb2', 'group1', 'resource1'), false],
    ]],
    ['tuple expansion', { verbs: ['verb1', 'verb2'], apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] }, [
      [res('verb1', 'group1', 'resource1'), true], [res('verb1', 'group2', 'resource2'), true], [res('verb2', 'group2', 'resource1'), true], [res('verb3', 'group1', 'resource1'), false],
    ]],
    ['subresource expansion', { verbs: ['*'], apiGroups: ['*'], resources: ['resource1/subresource1'] }, [
      [res('verb1', 'group1', 'resource1', 'subresource1'), true], [res('verb1', 'group2', 'resource1', 'subresource2'), false], [res('verb1', 'group1', 'resource2', 'subresource1'), false], [res('verb1', 'group1', 'resource1'), false],
    ]],
    ['star subresource (*/scale)', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, [
      [res('get', 'apps', 'deployments', 'scale'), true], [res('get', '', 'replicationcontrollers', 'scale'), true], [res('get', 'apps', 'deployments'), false], [res('get', 'apps', 'deployments', 'status'), false], [res('get', 'apps', 'deployments', 'xscale'), false],
    ]],
    ['resource names', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] }, [
      [res('get', '', 'configmaps', '', 'a'), true], [res('get', '', 'configmaps', '', 'b'), true], [res('get', '', 'configmaps', '', 'c'), false], [res('get', '', 'configmaps', '', ''), false],
    ]],
    ['star nonresource, exact match other', { verbs: ['verb1'], nonResourceURLs: ['*'] }, [
      [url('verb1', '/foo'), true], [url('verb1', '/foo/bar/one'), true], [url('verb2', '/foo'), false],
    ]],
    ['star nonresource subpath', { verbs: ['verb1'], nonResourceURLs: ['/foo/*'] }, [
      [url('verb1', '/foo'), false], [url('verb1', '/foo/bar'), true], [url('verb1', '/foo/baz/one'), true], [url('verb1', '/notfoo'), false], [url('verb1', '/notfoo/bar'), false],
    ]],
    ['star verb, exact nonresource', { verbs: ['*'], nonResourceURLs: ['/foo', '/foo/bar/one'] }, [
      [url('verb1', '/foo'), true], [url('verb1', '/foo/bar'), false], [url('verb1', '/foo/bar/one'), true], [url('verb2', '/foo'), true], [url('verb2', '/foo/baz/one'), false],
    ]],
  ];
  it.each(cases)('%s', (_name, rule, requests) => {
    for (const [request, expected] of requests) expect([request, ruleAllows(request, rule)]).toEqual([request, expected]);
  });
});

describe('appliesTo (rule_test.go TestAppliesTo)', () => {
  const applies = (subj: Subject[], user: UserInfo, ns: string) => subj.some((s) => subjectAppliesTo(user, s, ns));
  it.each([
    ['single subject that matches username', [{ kind: 'User', name: 'foobar' }], { username: 'foobar' }, '', true],
    ['multiple subjects, none that match username', [{ kind: 'User', name: 'barfoo' }, { kind: 'User', name: 'foobar' }], { username: 'zimzam' }, '', false],
    ['multiple subjects, one that match group', [{ kind: 'User', name: 'barfoo' }, { kind: 'Group', name: 'foobar' }], { username: 'zimzam', groups: ['foobar'] }, 'namespace1', true],
    ['a service account that matches', [{ kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' }], { username: 'system:serviceaccount:kube-system:default' }, 'default', true],
    ['a service account without namespace is the binding namespace\'s', [{ kind: 'ServiceAccount', name: 'default' }], { username: 'system:serviceaccount:ns1:default' }, 'ns1', true],
    ['a service account without namespace in a clusterrolebinding matches no one', [{ kind: 'ServiceAccount', name: 'default' }], { username: 'system:serviceaccount::default' }, '', false],
    ["* user subject name doesn't match all users", [{ kind: 'User', name: '*' }], { username: 'foobar' }, 'default', false],
    ['all authenticated and unauthenticated match anonymous', [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'Group', name: 'system:unauthenticated' }], { username: 'system:anonymous', groups: ['system:unauthenticated'] }, 'default', true],
  ] as Array<[string, Subject[], UserInfo, string, boolean]>)('%s', (_n, subj, user, ns, expected) => {
    expect(applies(subj, user, ns)).toBe(expected);
  });
});

describe('DefaultRuleResolver.RulesFor (rule_test.go TestDefaultRuleResolver)', () => {
  const ruleReadPods = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['pods'] };
  const ruleReadServices = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['services'] };
  const ruleWriteNodes = { verbs: ['PUT', 'CREATE', 'UPDATE'], apiGroups: ['v1'], resources: ['nodes'] };
  const ruleAdmin = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };
  const cache = new RbacPolicyCache();
  cache.replace('roles', [role('namespace1', 'readthings', ruleReadPods, ruleReadServices)]);
  cache.replace('clusterroles', [clusterRole('cluster-admin', ruleAdmin), clusterRole('write-nodes', ruleWriteNodes)]);
  cache.replace('rolebindings', [roleBinding('namespace1', 'b', 'Role', 'readthings', 'User:foobar', 'Group:group1')]);
  cache.replace('clusterrolebindings', [clusterRoleBinding('c', 'cluster-admin', 'User:admin', 'Group:admin')]);
  const resolver = new RbacRuleResolver(cache);
  it.each([
    ['foobar in namespace1', { username: 'foobar' }, 'namespace1', [ruleReadPods, ruleReadServices]],
    ['foobar in namespace2', { username: 'foobar' }, 'namespace2', []],
    ['a group member without a namespace: only cluster rules', { username: 'foobar', groups: ['admin'] }, '', [ruleAdmin]],
    ['nobody', { username: '' }, '', []],
  ] as Array<[string, UserInfo, string, PolicyRule[]]>)('%s', (_n, user, ns, expected) => {
    expect(resolver.rulesFor(user, ns)).toEqual({ rules: expected, errors: [] });
  });

  it('follows writes and deletions, and ignores an older version arriving after a newer one', () => {
    const c = new RbacPolicyCache();
    const r = new RbacRuleResolver(c);
    c.apply('clusterroles', 'ADDED', clusterRole('v', ruleReadPods));
    const binding = clusterRoleBinding('b', 'v', 'User:u');
    c.apply('clusterrolebindings', 'ADDED', binding);
    expect(r.rulesFor({ username: 'u' }, '').rules).toEqual([ruleReadPods]);
    const newer = { ...binding, metadata: { ...binding.metadata, resourceVersion: String(++rv) }, subjects: subjects(['User:w']) };
    c.apply('clusterrolebindings', 'MODIFIED', newer);
    c.apply('clusterrolebindings', 'MODIFIED', binding); // the watch catching up with the first version
    expect(r.rulesFor({ username: 'u' }, '').rules).toEqual([]);
    expect(r.rulesFor({ username: 'w' }, '').rules).toEqual([ruleReadPods]);
    c.apply('clusterrolebindings', 'DELETED', newer);
    expect(r.rulesFor({ username: 'w' }, '').rules).toEqual([]);
    // a relist after a re-creation (a newer version) brings it back; the relist also drops what it no longer holds
    c.replace('clusterrolebindings', [{ ...binding, metadata: { ...binding.metadata, resourceVersion: String(++rv) } }]);
    expect(r.rulesFor({ username: 'u' }, '').rules).toEqual([ruleReadPods]);
    c.replace('clusterrolebindings', []);
    expect(r.rulesFor({ username: 'u' }, '').rules).toEqual([]);
  });
});

describe('Covers and the escalation message (policy_comparator_test.go, rule.go ConfirmNoEscalation)', () => {
  it.each([
    ['exact match', [{ verbs: ['get'], apiGroups: ['v1'], resources: ['builds'] }], [{ verbs: ['get'], apiGroups: ['v1'], resources: ['builds'] }], true],
    ['star verb, star group, star resource cover everything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['create', 'delete'], apiGroups: ['a', 'b'], resources: ['x', 'y/z'] }], true],
    ['resource names: owner without names covers named', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }], true],
    ['resource names: named owner does not cover unnamed', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], false],
    ['*/subresource covers resource/subresource', [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }], true],
    ['*/subresource does not cover the resource', [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], false],
    ['nonResourceURL prefix covers', [{ verbs: ['get'], nonResourceURLs: ['/api/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/api/v1', '/api/*'] }], true],
    ['nonResourceURL prefix does not cover a shorter prefix', [{ verbs: ['get'], nonResourceURLs: ['/api/v1/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/api/*'] }], false],
  ] as Array<[string, PolicyRule[], PolicyRule[], boolean]>)('%s', (_n, owner, servant, expected) => {
    expect(covers(owner, servant).covered).toBe(expected);
  });

  it('prints the missing rules compacted, sorted and de-duplicated, in kube\'s CompactString', () => {
    const msg = escalationMessage(
      { username: 'bob', groups: ['dev', 'system:authenticated'] },
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'secrets'] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['d'] }],
      [],
    );
    expect(msg).toBe(
      'user "bob" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}\n' +
        '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["d"], Verbs:["get"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
    expect(escalationMessage({ username: 'bob' }, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], [])).toBeUndefined();
    expect(compactString({ verbs: ['*'], nonResourceURLs: ['*'] })).toBe('{NonResourceURLs:["*"], Verbs:["*"]}');
  });

  it('appends rule resolution errors', () => {
    expect(escalationMessage({ username: 'u', groups: [] }, [], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], ['clusterrole.rbac.authorization.k8s.io "x" not found'])).toBe(
      'user "u" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [clusterrole.rbac.authorization.k8s.io "x" not found]',
    );
  });
});

describe('clusterrole aggregation (clusterroleaggregation_controller_test.go syncClusterRole)', () => {
  const labelled = (name: string, labels: Record<string, string>, ...rules: PolicyRule[]): RbacRole => ({ ...clusterRole(name, ...rules), metadata: { ...meta(name), labels } });
  const aggregated = (name: string, ...selectors: Array<Record<string, string>>): RbacRole => ({ ...clusterRole(name), aggregationRule: { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) } });
  const r1 = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
  const r2 = { verbs: ['list'], apiGroups: [''], resources: ['pods'] };
  it('gathers the rules of every matching role by name, per selector, each rule once, itself left out', () => {
    const target = { ...aggregated('target', { foo: 'bar' }, { foo: 'baz' }), metadata: { ...meta('target'), labels: { foo: 'bar' } } };
    const all = [target, labelled('b-role', { foo: 'bar' }, r2, r1), labelled('a-role', { foo: 'bar' }, r1), labelled('c-role', { foo: 'baz' }, r1, { verbs: ['*'], nonResourceURLs: ['/x'] }), labelled('other', { foo: 'no' }, r2)];
    expect(aggregatedRules(target, all)).toEqual([r1, r2, { verbs: ['*'], nonResourceURLs: ['/x'] }]);
  });
  it('no match gives no rules', () => {
    expect(aggregatedRules(aggregated('t', { foo: 'bar' }), [labelled('x', { foo: 'baz' }, r1)])).toEqual([]);
  });
});

describe("kube's bootstrap policy (bootstrappolicy testdata)", () => {
  const names = bootstrapClusterRoles.map((r) => r.metadata?.name);
  it('has the user-facing roles with their aggregation labels and rules', () => {
    expect(names).toEqual(expect.arrayContaining(['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:auth-delegator', 'system:monitoring']));
    const byName = (n: string) => bootstrapClusterRoles.find((r) => r.metadata?.name === n) as RbacRole;
    expect(byName('view').metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
    expect(byName('edit').aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }] });
    expect(byName('cluster-admin').rules).toEqual([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]);
  });
  it('binds cluster-admin to system:masters and the basic roles to system:authenticated', () => {
    const b = (n: string) => bootstrapClusterRoleBindings.find((x) => x.metadata?.name === n) as RbacBinding;
    expect(b('cluster-admin').subjects).toEqual([{ apiGroup: g, kind: 'Group', name: 'system:masters' }]);
    expect(b('system:basic-user').subjects).toEqual([{ apiGroup: g, kind: 'Group', name: 'system:authenticated' }]);
    expect(b('system:public-info-viewer').subjects?.map((s) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
  });
  it('has the kube-system and kube-public roles, each binding naming a role of its own namespace', () => {
    const roles = new Set(bootstrapNamespaceRoles.map((r) => `${r.metadata?.namespace}/${r.metadata?.name}`));
    expect(roles).toContain('kube-system/extension-apiserver-authentication-reader');
    for (const binding of bootstrapNamespaceRoleBindings as RbacBinding[]) expect(roles).toContain(`${binding.metadata.namespace}/${binding.roleRef.name}`);
  });
});
