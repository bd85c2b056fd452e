// RBAC through the real server (--authorization-mode=Node,RBAC), with kubectl, client-node and raw HTTPS as users
// from a token file. Ported from kube's test/integration/auth/rbac_test.go (TestRBAC's job-writer case, the
// escalation cases, TestBootstrapping) and checked against kube's texts: the 403 of
// k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go, "RBAC: allowed by …" of
// plugin/pkg/auth/authorizer/rbac/rbac.go, ConfirmNoEscalation of pkg/registry/rbac/validation/rule.go, the
// aggregationRule refusal of pkg/registry/rbac/clusterrole/policybased/storage.go.
import { AuthorizationV1Api, CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';
import { writeTokenKubeconfig } from '../support/token-kubeconfig.js';

let server: ApiServerHandle;
let dir: string;
const users = ['alice', 'bob', 'carol', 'dave', 'job-writer', 'job-writer-namespace', 'nobody'] as const;
type User = (typeof users)[number];
const kubeconfigs = {} as Record<User, string>;
const rbacGroup = 'rbac.authorization.k8s.io';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-rbac-'));
  // token,user,uid,"groups"
  writeFileSync(path.join(dir, 'tokens.csv'), `${users.map((u) => `${u}-token,${u},${u}-uid${u === 'bob' ? ',"devs"' : ''}`).join('\n')}\n`);
  server = await startApiServer({ storage: 'memory', flags: [`--token-auth-file=${path.join(dir, 'tokens.csv')}`, '--authorization-mode=Node,RBAC'] });
  for (const user of users) {
    kubeconfigs[user] = writeTokenKubeconfig(dir, server, user);
  }
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** client-node as one of the token users */
function clientAs<T>(user: User, api: new (...args: never[]) => T): T {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigs[user]);
  // makeApiClient's constructor type is the generated API class
  return kc.makeApiClient(api as unknown as Parameters<KubeConfig['makeApiClient']>[0]) as T;
}

/** raw HTTPS with a bearer token (or none: anonymous) */
function raw(token: string | undefined, method: string, p: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers['Authorization'] = `Bearer ${token}`;
    const req = https.request(new URL(p, server.url), { method, ca: server.caPem, agent: false, headers }, (res) => {
      let data = '';
      res.on('data', (d: Buffer) => (data += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data.startsWith('{') ? (JSON.parse(data) as Record<string, unknown>) : { raw: data } }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
const as = (user: User, method: string, p: string, body?: unknown) => raw(`${user}-token`, method, p, body);

let nsCounter = 0;
async function namespace(): Promise<string> {
  const name = `rbac-${++nsCounter}-${Date.now().toString(36)}`;
  const r = await api(server, 'POST', '/api/v1/namespaces', { metadata: { name } });
  expect(r.status).toBe(201);
  return name;
}
async function adminCreate(p: string, body: Record<string, unknown>): Promise<void> {
  const r = await api(server, 'POST', p, body);
  if (r.status !== 201) throw new Error(`${p}: ${r.status} ${JSON.stringify(r.json)}`);
}
const clusterRole = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) =>
  adminCreate(`/apis/${rbacGroup}/v1/clusterroles`, { metadata: { name, ...((extra['labels'] as object | undefined) ? { labels: extra['labels'] } : {}) }, rules, ...(extra['aggregationRule'] ? { aggregationRule: extra['aggregationRule'] } : {}) });
const bindCluster = (name: string, roleName: string, subjects: unknown[]) =>
  adminCreate(`/apis/${rbacGroup}/v1/clusterrolebindings`, { metadata: { name }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: roleName }, subjects });
const bindInNamespace = (ns: string, name: string, kind: 'Role' | 'ClusterRole', roleName: string, subjects: unknown[]) =>
  adminCreate(`/apis/${rbacGroup}/v1/namespaces/${ns}/rolebindings`, { metadata: { name }, roleRef: { apiGroup: rbacGroup, kind, name: roleName }, subjects });
const user = (name: string) => ({ kind: 'User', apiGroup: rbacGroup, name });
const forbiddenStatus = (message: string, details: Record<string, string>) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });

describe("kube's bootstrap policy (TestBootstrapping)", () => {
  it('creates the bootstrap clusterroles and bindings, with admin, edit and view aggregated, before readiness', async () => {
    const roles = await kubectl(server.kubeconfigPath, ['get', 'clusterroles', '-o', 'jsonpath={.items[*].metadata.name}']);
    expect(roles.stdout.split(' ')).toEqual(expect.arrayContaining(['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:aggregate-to-view']));
    const bindings = await kubectl(server.kubeconfigPath, ['get', 'clusterrolebinding', 'cluster-admin', '-o', 'jsonpath={.subjects[0].name}']);
    expect(bindings.stdout).toBe('system:masters');
    // view's rules are system:aggregate-to-view's; edit has view's and system:aggregate-to-edit's
    const view = (await api(server, 'GET', `/apis/${rbacGroup}/v1/clusterroles/view`)).json;
    const aggregateToView = (await api(server, 'GET', `/apis/${rbacGroup}/v1/clusterroles/system:aggregate-to-view`)).json;
    expect(view['rules']).toEqual(aggregateToView['rules']);
    const edit = (await api(server, 'GET', `/apis/${rbacGroup}/v1/clusterroles/edit`)).json;
    expect((edit['rules'] as unknown[]).length).toBeGreaterThan((view['rules'] as unknown[]).length);
    // the kube-system roles of bootstrappolicy.NamespaceRoles()
    const reader = await api(server, 'GET', `/apis/${rbacGroup}/v1/namespaces/kube-system/rolebindings/system::extension-apiserver-authentication-reader`);
    expect(reader.json['roleRef']).toEqual({ apiGroup: rbacGroup, kind: 'Role', name: 'extension-apiserver-authentication-reader' });
    const health = await server.request('/readyz/poststarthook/rbac/bootstrap-roles');
    expect([health.status, health.body]).toEqual([200, 'ok']);
  });

  it('lets the admin (system:masters) do anything, and lets every authenticated user discover and review itself', async () => {
    expect((await kubectl(server.kubeconfigPath, ['auth', 'can-i', '*', '*'])).stdout.trim()).toBe('yes');
    expect((await as('nobody', 'GET', '/api')).status).toBe(200);
    expect((await as('nobody', 'GET', '/version')).status).toBe(200);
    expect((await kubectl(kubeconfigs.nobody, ['auth', 'can-i', 'create', 'selfsubjectaccessreviews.authorization.k8s.io'])).stdout.trim()).toBe('yes');
  });

  it('gives anonymous requests the public info only, and the single health checks to /readyz/* holders (system:monitoring)', async () => {
    expect((await raw(undefined, 'GET', '/version')).status).toBe(200);
    expect((await raw(undefined, 'GET', '/healthz')).status).toBe(200);
    const r = await raw(undefined, 'GET', '/api');
    expect([r.status, r.json]).toEqual([403, forbiddenStatus('forbidden: User "system:anonymous" cannot get path "/api"', {})]);
    // the individual checks are system:monitoring's, not public
    const check = await raw(undefined, 'GET', '/readyz/etcd');
    expect([check.status, check.json['message']]).toEqual([403, 'forbidden: User "system:anonymous" cannot get path "/readyz/etcd"']);
    expect((await as('nobody', 'GET', '/readyz/etcd')).status).toBe(403);
    await clusterRole('nobody-monitoring', [{ nonResourceURLs: ['/readyz/*'], verbs: ['get'] }]);
    await bindCluster('nobody-monitoring', 'nobody-monitoring', [user('nobody')]);
    expect((await as('nobody', 'GET', '/readyz/etcd')).status).toBe(200);
  });
});

describe('denials with kube\'s 403 texts', () => {
  it('refuses a resource request in a namespace, at the cluster scope, by name and for a path', async () => {
    const ns = await namespace();
    const create = await kubectl(kubeconfigs.nobody, ['create', 'configmap', 'x', '-n', ns]);
    expect(create.stderr.trim()).toBe(`error: failed to create configmap: configmaps is forbidden: User "nobody" cannot create resource "configmaps" in API group "" in the namespace "${ns}"`);
    const get = await as('nobody', 'GET', `/api/v1/namespaces/${ns}/pods/p1/log`);
    expect([get.status, get.json]).toEqual([403, forbiddenStatus(`pods "p1" is forbidden: User "nobody" cannot get resource "pods/log" in API group "" in the namespace "${ns}"`, { name: 'p1', kind: 'pods' })]);
    const nodes = await as('nobody', 'GET', '/api/v1/nodes');
    expect(nodes.json['message']).toBe('nodes is forbidden: User "nobody" cannot list resource "nodes" in API group "" at the cluster scope');
    const metrics = await as('nobody', 'GET', '/metrics');
    expect([metrics.status, metrics.json['message']]).toEqual([403, 'forbidden: User "nobody" cannot get path "/metrics"']);
  });

  it('adds the binding resolution errors as the reason, as kube\'s RBAC authorizer does', async () => {
    const ns = await namespace();
    await bindInNamespace(ns, 'dangling', 'ClusterRole', 'no-such-clusterrole', [user('nobody')]);
    const r = await as('nobody', 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect([r.status, r.json['message']]).toEqual([
      403,
      `configmaps is forbidden: User "nobody" cannot list resource "configmaps" in API group "" in the namespace "${ns}": RBAC: clusterrole.rbac.authorization.k8s.io "no-such-clusterrole" not found`,
    ]);
  });

  it('gives client-node the Status as an ApiException', async () => {
    const ns = await namespace();
    const err = await clientAs('nobody', CoreV1Api)
      .listNamespacedSecret({ namespace: ns })
      .then(
        () => undefined,
        (e: { code?: number; body?: string }) => e,
      );
    expect(err?.code).toBe(403);
    expect(JSON.parse(err?.body ?? '{}')).toMatchObject({ reason: 'Forbidden', message: `secrets is forbidden: User "nobody" cannot list resource "secrets" in API group "" in the namespace "${ns}"` });
  });
});

describe('grants (TestRBAC: job-writer)', () => {
  it('allows what a clusterrolebinding grants everywhere and a rolebinding in its namespace only, at once', async () => {
    const jobNs = await namespace();
    const otherNs = await namespace();
    await clusterRole('write-jobs', [{ apiGroups: ['batch'], resources: ['jobs'], verbs: ['*'] }]);
    await bindCluster('write-jobs', 'write-jobs', [user('job-writer')]);
    await bindInNamespace(jobNs, 'write-jobs', 'ClusterRole', 'write-jobs', [user('job-writer-namespace')]);
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } } };
    const jobs = (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`;
    const steps: Array<[User, string, string, unknown, number]> = [
      ['nobody', 'POST', jobs(jobNs), job, 403],
      ['nobody', 'GET', `${jobs(jobNs)}/pi`, undefined, 403],
      ['job-writer-namespace', 'GET', jobs(otherNs), undefined, 403],
      ['job-writer-namespace', 'POST', jobs(otherNs), job, 403],
      ['job-writer', 'GET', jobs(otherNs), undefined, 200],
      ['job-writer', 'GET', `${jobs(otherNs)}/pi`, undefined, 404],
      ['job-writer', 'POST', jobs(otherNs), job, 201],
      ['job-writer', 'GET', `${jobs(otherNs)}/pi`, undefined, 200],
      ['job-writer-namespace', 'GET', jobs(jobNs), undefined, 200],
      ['job-writer-namespace', 'GET', `${jobs(jobNs)}/pi`, undefined, 404],
      ['job-writer-namespace', 'POST', jobs(jobNs), job, 201],
      ['job-writer-namespace', 'GET', `${jobs(jobNs)}/pi`, undefined, 200],
    ];
    for (const [u, method, p, body, status] of steps) expect([u, method, p, (await as(u, method, p, body)).status]).toEqual([u, method, p, status]);
  });

  it('answers kubectl auth can-i, can-i --list and can-i --as from RBAC', async () => {
    const ns = await namespace();
    expect((await kubectl(kubeconfigs.alice, ['auth', 'can-i', 'create', 'pods', '-n', ns])).stdout.trim()).toBe('no');
    await bindInNamespace(ns, 'alice-edit', 'ClusterRole', 'edit', [user('alice')]);
    const yes = await kubectl(kubeconfigs.alice, ['auth', 'can-i', 'create', 'pods', '-n', ns]);
    expect([yes.code, yes.stdout.trim()]).toEqual([0, 'yes']);
    const subresource = await kubectl(kubeconfigs.alice, ['auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', ns]);
    expect(subresource.stdout.trim()).toBe('yes');
    const elsewhere = await kubectl(kubeconfigs.alice, ['auth', 'can-i', 'create', 'pods', '-n', 'default']);
    expect([elsewhere.code, elsewhere.stdout.trim()]).toEqual([1, 'no']);
    // the admin asks for alice (impersonation, which system:masters may do)
    expect((await kubectl(server.kubeconfigPath, ['auth', 'can-i', 'delete', 'deployments.apps', '-n', ns, '--as=alice'])).stdout.trim()).toBe('yes');
    expect((await kubectl(server.kubeconfigPath, ['auth', 'can-i', 'create', 'roles.rbac.authorization.k8s.io', '-n', ns, '--as=alice'])).stdout.trim()).toBe('no');
    const list = await kubectl(kubeconfigs.alice, ['auth', 'can-i', '--list', '-n', ns]);
    expect(list.code).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    expect(lines.find((l) => l.startsWith('pods '))).toMatch(/\[create delete deletecollection patch update get list watch\]$/);
    expect(lines.find((l) => l.startsWith('selfsubjectaccessreviews.authorization.k8s.io '))).toMatch(/\[create\]$/);
    expect(lines.find((l) => /^\s+\[\/version\]/.test(l))).toMatch(/\[get\]$/);
  });

  it('grants a service account through its binding, and kubectl auth can-i --as=system:serviceaccount:… says so', async () => {
    const ns = await namespace();
    await bindInNamespace(ns, 'robot-view', 'ClusterRole', 'view', [{ kind: 'ServiceAccount', name: 'robot' }]);
    const asRobot = ['--as=system:serviceaccount:' + ns + ':robot', '-n', ns];
    expect((await kubectl(server.kubeconfigPath, ['auth', 'can-i', 'list', 'pods', ...asRobot])).stdout.trim()).toBe('yes');
    expect((await kubectl(server.kubeconfigPath, ['auth', 'can-i', 'create', 'pods', ...asRobot])).stdout.trim()).toBe('no');
    expect((await kubectl(server.kubeconfigPath, ['auth', 'can-i', 'list', 'pods', '--as=system:serviceaccount:' + ns + ':other', '-n', ns])).stdout.trim()).toBe('no');
    const denied = await kubectl(server.kubeconfigPath, ['get', 'secrets', ...asRobot]);
    expect(denied.stderr.trim()).toBe(`Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:${ns}:robot" cannot list resource "secrets" in API group "" in the namespace "${ns}"`);
  });

  it('honours resourceNames and nonResourceURLs with a * suffix', async () => {
    const ns = await namespace();
    await adminCreate(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'mine' } });
    await adminCreate(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'theirs' } });
    await clusterRole(`named-cm-${ns}`, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['mine'], verbs: ['get'] }, { nonResourceURLs: ['/metrics*'], verbs: ['get'] }]);
    await bindCluster(`named-cm-${ns}`, `named-cm-${ns}`, [user('dave')]);
    expect((await as('dave', 'GET', `/api/v1/namespaces/${ns}/configmaps/mine`)).status).toBe(200);
    expect((await as('dave', 'GET', `/api/v1/namespaces/${ns}/configmaps/theirs`)).status).toBe(403);
    expect((await as('dave', 'GET', `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(403);
    expect((await as('dave', 'GET', '/metrics')).status).toBe(200);
  });
});

describe('access and rules reviews answered from RBAC', () => {
  it('SubjectAccessReview and LocalSubjectAccessReview say which binding allowed', async () => {
    const ns = await namespace();
    await bindInNamespace(ns, 'carol-view', 'ClusterRole', 'view', [user('carol')]);
    const authz = new KubeConfig();
    authz.loadFromFile(server.kubeconfigPath);
    const client = authz.makeApiClient(AuthorizationV1Api);
    const sar = await client.createSubjectAccessReview({ body: { spec: { user: 'carol', resourceAttributes: { namespace: ns, verb: 'list', resource: 'pods' } } } });
    expect(sar.status).toEqual({ allowed: true, reason: `RBAC: allowed by RoleBinding "carol-view/${ns}" of ClusterRole "view" to User "carol"` });
    const denied = await client.createSubjectAccessReview({ body: { spec: { user: 'carol', resourceAttributes: { namespace: ns, verb: 'delete', resource: 'pods' } } } });
    expect(denied.status).toEqual({ allowed: false });
    const local = await client.createNamespacedLocalSubjectAccessReview({ namespace: ns, body: { metadata: { namespace: ns }, spec: { user: 'x', groups: ['system:authenticated'], nonResourceAttributes: undefined, resourceAttributes: { namespace: ns, verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' } } } });
    expect(local.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"' });
  });

  it('SelfSubjectRulesReview lists the requester\'s rules (client-node)', async () => {
    const ns = await namespace();
    await adminCreate(`/apis/${rbacGroup}/v1/namespaces/${ns}/roles`, { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }] });
    await bindInNamespace(ns, 'bob-cm', 'Role', 'cm-reader', [{ kind: 'Group', apiGroup: rbacGroup, name: 'devs' }]);
    await bindInNamespace(ns, 'bob-missing', 'Role', 'no-such-role', [user('bob')]);
    const review = await clientAs('bob', AuthorizationV1Api).createSelfSubjectRulesReview({ body: { spec: { namespace: ns } } });
    expect(review.status?.resourceRules).toEqual(expect.arrayContaining([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] }]));
    expect(review.status?.nonResourceRules).toEqual(expect.arrayContaining([{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }]));
    expect(review.status?.incomplete).toBe(false);
    expect(review.status?.evaluationError).toBe('role.rbac.authorization.k8s.io "no-such-role" not found');
  });
});

describe('impersonation is authorized by RBAC', () => {
  it('refuses impersonation without the impersonate verb and allows it with', async () => {
    const denied = await kubectl(kubeconfigs.carol, ['get', 'pods', '-n', 'default', '--as=alice']);
    expect(denied.stderr.trim()).toBe('Error from server (Forbidden): users "alice" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope');
    await clusterRole('impersonate-alice', [{ apiGroups: [''], resources: ['users'], resourceNames: ['alice'], verbs: ['impersonate'] }]);
    await bindCluster('carol-impersonates-alice', 'impersonate-alice', [user('carol')]);
    const ok = await kubectl(kubeconfigs.carol, ['auth', 'can-i', 'create', 'selfsubjectrulesreviews.authorization.k8s.io', '--as=alice']);
    expect(ok.stdout.trim()).toBe('yes');
    const other = await kubectl(kubeconfigs.carol, ['auth', 'can-i', 'list', 'pods', '--as=bob']);
    expect(other.stderr.trim()).toContain('users "bob" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope');
  });
});

describe('escalation prevention (TestRBAC escalation cases)', () => {
  const rolesPath = (ns: string) => `/apis/${rbacGroup}/v1/namespaces/${ns}/roles`;
  const bindingsPath = (ns: string) => `/apis/${rbacGroup}/v1/namespaces/${ns}/rolebindings`;

  it('lets a namespace admin create roles with what it holds and refuses more, with kube\'s text', async () => {
    const ns = await namespace();
    await bindInNamespace(ns, 'dave-admin', 'ClusterRole', 'admin', [user('dave')]);
    expect((await as('dave', 'POST', rolesPath(ns), { metadata: { name: 'ok' }, rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }] })).status).toBe(201);
    const refused = await as('dave', 'POST', rolesPath(ns), { metadata: { name: 'too-much' }, rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list'] }, { apiGroups: ['*'], resources: ['*/scale'], verbs: ['escalate'] }] });
    expect([refused.status, refused.json]).toEqual([
      403,
      forbiddenStatus(
        'roles.rbac.authorization.k8s.io "too-much" is forbidden: user "dave" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
          // sorted as Go sorts strings: `[""` before `["*"`
          '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}\n' +
          '{APIGroups:["*"], Resources:["*/scale"], Verbs:["escalate"]}',
        { name: 'too-much', group: rbacGroup, kind: 'roles' },
      ),
    ]);
    // an update that adds a rule not held is refused the same way
    const ok = (await as('dave', 'GET', `${rolesPath(ns)}/ok`)).json as { rules: unknown[] };
    const update = await as('dave', 'PUT', `${rolesPath(ns)}/ok`, { ...ok, rules: [...ok.rules, { apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] });
    expect([update.status, update.json['message']]).toEqual([
      403,
      'roles.rbac.authorization.k8s.io "ok" is forbidden: user "dave" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
    ]);
    // kubectl shows the same text
    const viaKubectl = await kubectl(kubeconfigs.dave, ['create', 'role', 'nodes-reader', '--verb=get', '--resource=nodes', '-n', ns]);
    expect(viaKubectl.stderr.trim()).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "nodes-reader" is forbidden: user "dave" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
    );
    // a role the writer could not create may still have its ownerReferences and finalizers changed (what the GC writes)
    await adminCreate(rolesPath(ns), { metadata: { name: 'beyond' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] });
    const beyond = (await as('dave', 'GET', `${rolesPath(ns)}/beyond`)).json as { metadata: Record<string, unknown> };
    expect((await as('dave', 'PUT', `${rolesPath(ns)}/beyond`, { ...beyond, metadata: { ...beyond.metadata, finalizers: ['example.com/keep'] } })).status).toBe(200);
    const { resourceVersion: _rv, ...unconditional } = beyond.metadata;
    expect((await as('dave', 'PUT', `${rolesPath(ns)}/beyond`, { ...beyond, metadata: { ...unconditional, finalizers: ['example.com/keep'], labels: { a: 'b' } } })).status).toBe(403);
  });

  it('lets whoever may escalate roles create any role', async () => {
    const ns = await namespace();
    await adminCreate(rolesPath(ns), { metadata: { name: 'role-writer' }, rules: [{ apiGroups: [rbacGroup], resources: ['roles'], verbs: ['create', 'escalate'] }] });
    await bindInNamespace(ns, 'carol-role-writer', 'Role', 'role-writer', [user('carol')]);
    expect((await as('carol', 'POST', rolesPath(ns), { metadata: { name: 'anything' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] })).status).toBe(201);
  });

  it('binds only roles whose rules the writer holds, or that it may bind; a missing role is a 404', async () => {
    const ns = await namespace();
    await adminCreate(rolesPath(ns), { metadata: { name: 'binding-writer' }, rules: [{ apiGroups: [rbacGroup], resources: ['rolebindings'], verbs: ['create'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    await bindInNamespace(ns, 'alice-binding-writer', 'Role', 'binding-writer', [user('alice')]);
    await adminCreate(rolesPath(ns), { metadata: { name: 'cm-get' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    const binding = (name: string, kind: string, roleName: string) => ({ metadata: { name }, roleRef: { apiGroup: rbacGroup, kind, name: roleName }, subjects: [user('nobody')] });
    expect((await as('alice', 'POST', bindingsPath(ns), binding('held', 'Role', 'cm-get'))).status).toBe(201);
    const refused = await as('alice', 'POST', bindingsPath(ns), binding('not-held', 'ClusterRole', 'edit'));
    expect(refused.status).toBe(403);
    const message = String(refused.json['message']);
    expect(message.startsWith('rolebindings.rbac.authorization.k8s.io "not-held" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["bindings"], Verbs:["get" "list" "watch"]}\n')).toBe(true);
    // alice holds get on configmaps: only edit's other configmaps verbs are missing, compacted into one line
    expect(message.split('\n')).toContain('{APIGroups:[""], Resources:["configmaps"], Verbs:["create" "delete" "deletecollection" "patch" "update" "list" "watch"]}');
    const missing = await as('alice', 'POST', bindingsPath(ns), binding('missing', 'Role', 'no-such-role'));
    expect([missing.status, missing.json['message']]).toEqual([404, 'roles.rbac.authorization.k8s.io "no-such-role" not found']);
    // the bind verb on that clusterrole, in this namespace, is enough
    await adminCreate(rolesPath(ns), { metadata: { name: 'bind-edit' }, rules: [{ apiGroups: [rbacGroup], resources: ['clusterroles'], resourceNames: ['edit'], verbs: ['bind'] }] });
    await bindInNamespace(ns, 'alice-bind-edit', 'Role', 'bind-edit', [user('alice')]);
    expect((await as('alice', 'POST', bindingsPath(ns), binding('not-held', 'ClusterRole', 'edit'))).status).toBe(201);
    expect((await as('alice', 'POST', bindingsPath(ns), binding('admin-too', 'ClusterRole', 'admin'))).status).toBe(403);
  });

  it('requires full authority for an aggregationRule', async () => {
    await clusterRole('clusterrole-writer', [{ apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['create'] }]);
    await bindCluster('bob-clusterrole-writer', 'clusterrole-writer', [user('bob')]);
    const r = await as('bob', 'POST', `/apis/${rbacGroup}/v1/clusterroles`, { metadata: { name: 'gatherer' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { gather: 'me' } }] } });
    expect([r.status, r.json['message']]).toEqual([403, 'clusterroles.rbac.authorization.k8s.io "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule']);
  });
});

describe('aggregated clusterroles (clusterrole-aggregation controller)', () => {
  it('adds a role labelled aggregate-to-view to view (and so to edit and admin), and removes it again', async () => {
    const ns = await namespace();
    await bindInNamespace(ns, 'nobody-view', 'ClusterRole', 'view', [user('nobody')]);
    expect((await as('nobody', 'GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`)).status).toBe(403);
    const rule = { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list'] };
    await clusterRole('leases-to-view', [rule], { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } });
    await eventually(async () => expect((await as('nobody', 'GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`)).status).toBe(200));
    for (const name of ['view', 'edit', 'admin']) {
      await eventually(async () => expect((await api(server, 'GET', `/apis/${rbacGroup}/v1/clusterroles/${name}`)).json['rules']).toEqual(expect.arrayContaining([rule])));
    }
    expect((await api(server, 'DELETE', `/apis/${rbacGroup}/v1/clusterroles/leases-to-view`)).status).toBe(200);
    await eventually(async () => expect((await as('nobody', 'GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`)).status).toBe(403));
  });

  it('keeps a user-made aggregated role up to date (client-node)', async () => {
    const rbac = (() => {
      const kc = new KubeConfig();
      kc.loadFromFile(server.kubeconfigPath);
      return kc.makeApiClient(RbacAuthorizationV1Api);
    })();
    await rbac.createClusterRole({ body: { metadata: { name: 'monitoring' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] } } });
    await rbac.createClusterRole({ body: { metadata: { name: 'monitoring-endpoints', labels: { 'example.com/aggregate-to-monitoring': 'true' } }, rules: [{ apiGroups: [''], resources: ['endpoints'], verbs: ['get'] }] } });
    await eventually(async () => expect((await rbac.readClusterRole({ name: 'monitoring' })).rules).toEqual([{ apiGroups: [''], resources: ['endpoints'], verbs: ['get'] }]));
    // a direct change to an aggregated role's rules is stomped by the controller
    const current = await rbac.readClusterRole({ name: 'monitoring' });
    await rbac.replaceClusterRole({ name: 'monitoring', body: { ...current, rules: [] } });
    await eventually(async () => expect((await rbac.readClusterRole({ name: 'monitoring' })).rules).toEqual([{ apiGroups: [''], resources: ['endpoints'], verbs: ['get'] }]));
  });
});

describe('system:masters under RBAC', () => {
  it('lists the rules its RBAC bindings give (cluster-admin among them), as kube does', async () => {
    const list = await kubectl(server.kubeconfigPath, ['auth', 'can-i', '--list', '-n', 'default']);
    const lines = list.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('*.* '))).toMatch(/\[\]\s+\[\]\s+\[\*\]$/);
    expect(lines.find((l) => /^\s+\[\*\]/.test(l))).toMatch(/\[\*\]\s+\[\]\s+\[\*\]$/);
    expect(lines.find((l) => l.startsWith('selfsubjectaccessreviews.authorization.k8s.io '))).toMatch(/\[create\]$/);
  });
});

describe('clusterrole validation (pkg/apis/rbac/validation ValidateClusterRole)', () => {
  it('requires a selector in an aggregationRule and valid label selectors', async () => {
    const empty = await api(server, 'POST', `/apis/${rbacGroup}/v1/clusterroles`, { metadata: { name: 'empty-aggregation' }, aggregationRule: { clusterRoleSelectors: [] } });
    expect([empty.status, empty.json['message']]).toEqual([
      422,
      'ClusterRole.rbac.authorization.k8s.io "empty-aggregation" is invalid: aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
    const bad = await api(server, 'POST', `/apis/${rbacGroup}/v1/clusterroles`, { metadata: { name: 'bad-aggregation' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] } });
    expect([bad.status, bad.json['message']]).toEqual([
      422,
      'ClusterRole.rbac.authorization.k8s.io "bad-aggregation" is invalid: aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is \'In\' or \'NotIn\'',
    ]);
  });
});
