// Impersonation through the real server (kube's WithImpersonation filter): kubectl --as/--as-group/--as-uid and raw
// Impersonate-* headers, authorized as the "impersonate" verb by the server's ABAC policy, with kube's 400 and 403
// texts; the impersonated user is who authorization, admission (a webhook's AdmissionReview, a
// ValidatingAdmissionPolicy's request.userInfo and authorizer), SelfSubjectReview and audit's impersonatedUser see.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { api, freshNamespace, registerValidating } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';
import { writeTokenKubeconfig } from '../support/token-kubeconfig.js';

let server: ApiServerHandle;
let webhook: WebhookServer;
let dir: string;
const kubeconfigs: Record<string, string> = {};

const abac = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });
const policies = [
  // bob may impersonate any user and extra, his group any group; no one may impersonate uids or service accounts
  abac({ user: 'bob', namespace: '*', resource: 'users', apiGroup: '' }),
  abac({ user: 'bob', namespace: '*', resource: 'userextras', apiGroup: 'authentication.k8s.io' }),
  abac({ group: 'impersonators', namespace: '*', resource: 'groups', apiGroup: '' }),
  // what the impersonated users may do themselves
  abac({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
  abac({ group: 'dev', namespace: '*', resource: 'configmaps', apiGroup: '' }),
  abac({ group: 'system:authenticated', namespace: '*', resource: 'selfsubjectreviews', apiGroup: 'authentication.k8s.io' }),
  // discovery, for kubectl
  abac({ group: 'system:authenticated', nonResourcePath: '*', readonly: true }),
];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-impersonation-'));
  writeFileSync(path.join(dir, 'tokens.csv'), 'bob-token,bob,bob-uid,"impersonators"\ncarol-token,carol,carol-uid\n');
  writeFileSync(path.join(dir, 'abac.jsonl'), `${policies.join('\n')}\n`);
  webhook = await startWebhookServer({ handler: () => allow() });
  server = await startApiServer({
    storage: 'memory',
    flags: [
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
      '--authorization-mode=ABAC',
      `--authorization-policy-file=${path.join(dir, 'abac.jsonl')}`,
      `--audit-log-path=${path.join(dir, 'audit.log')}`,
    ],
  });
  for (const user of ['bob', 'carol']) {
    kubeconfigs[user] = writeTokenKubeconfig(dir, server, user);
  }
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A request with a bearer token (no client certificate) and the given headers. */
function asToken(token: string, method: string, p: string, headers: Record<string, string | string[]>, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(p, server.url), { method, ca: server.caPem, agent: false, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers } }, (res) => {
      let data = '';
      res.on('data', (d: Buffer) => (data += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data.startsWith('{') ? (JSON.parse(data) as Record<string, unknown>) : { raw: data } }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const ssr = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
const forbidden = (message: string, details: Record<string, string>) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });

interface AuditEvent {
  requestURI: string;
  verb: string;
  user: Record<string, unknown>;
  impersonatedUser?: Record<string, unknown>;
  responseStatus: { code: number };
  objectRef?: Record<string, string>;
}
const auditEvents = (): AuditEvent[] =>
  readFileSync(path.join(dir, 'audit.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEvent);

describe('kubectl --as / --as-group', () => {
  // kubectl auth whoami sends its SelfSubjectReview as protobuf, which this server does not decode for that kind
  // yet; `kubectl create -f - -o json` sends the same review as JSON and prints the same answer. --validate=false:
  // kubectl's client-side validation downloads /openapi/v2 as protobuf, which this server does not serve yet.
  it('answers a SelfSubjectReview with the impersonated user, groups and system:authenticated', async () => {
    const r = await kubectl(kubeconfigs['bob']!, ['create', '-f', '-', '-o', 'json', '--validate=false', '--as=alice', '--as-group=dev'], ssr);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(r.stdout) as { status: unknown }).status).toEqual({ userInfo: { username: 'alice', groups: ['dev', 'system:authenticated'] } });
  });

  it('gives an impersonated service account its groups when none are asked for (system:masters may impersonate anyone)', async () => {
    const r = await kubectl(server.kubeconfigPath, ['create', '-f', '-', '-o', 'json', '--validate=false', '--as=system:serviceaccount:ci:builder'], ssr);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(r.stdout) as { status: unknown }).status).toEqual({
      userInfo: { username: 'system:serviceaccount:ci:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'] },
    });
  });

  it("refuses a user with no impersonate permission with kube's 403", async () => {
    const r = await kubectl(kubeconfigs['carol']!, ['get', '--raw', '/api/v1/namespaces/default/configmaps', '--as=alice']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error from server (Forbidden): users "alice" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope: No policy matched.\n');
  });

  it('refuses a uid the requester may not impersonate, naming uids.authentication.k8s.io', async () => {
    const r = await kubectl(kubeconfigs['bob']!, ['get', '--raw', '/api/v1/namespaces/default/configmaps', '--as=alice', '--as-uid=1234']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error from server (Forbidden): uids.authentication.k8s.io "1234" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: No policy matched.\n',
    );
  });

  it('authorizes the request itself as the impersonated user', async () => {
    const ok = await kubectl(kubeconfigs['bob']!, ['create', 'configmap', 'made-by-dave', '-n', 'default', '--as=dave', '--as-group=dev']);
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 0, stderr: '' });
    const no = await kubectl(kubeconfigs['bob']!, ['create', 'secret', 'generic', 'by-dave', '-n', 'default', '--as=dave', '--as-group=dev']);
    expect(no.code).toBe(1);
    expect(no.stderr).toBe('error: failed to create secret secrets is forbidden: User "dave" cannot create resource "secrets" in API group "" in the namespace "default": No policy matched.\n');
  });
});

describe('Impersonate-* headers', () => {
  it("refuses groups, extras or a uid without a user with kube's 400", async () => {
    const r = await asToken('bob-token', 'GET', '/api/v1/namespaces/default/configmaps', { 'Impersonate-Group': ['dev', 'ops'], 'Impersonate-Uid': 'u1' });
    expect(r).toEqual({
      status: 400,
      json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'requested [{Group  dev    } {Group  ops    } {UID  u1  authentication.k8s.io/v1  }] without impersonating a user', reason: 'BadRequest', code: 400 },
    });
  });

  it('refuses a service account in its namespace, and a group the requester may not impersonate', async () => {
    const sa = await asToken('bob-token', 'GET', '/api/v1/namespaces/default/configmaps', { 'Impersonate-User': 'system:serviceaccount:ci:builder' });
    expect(sa).toEqual({
      status: 403,
      json: forbidden('serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ci": No policy matched.', { name: 'builder', kind: 'serviceaccounts' }),
    });
    const group = await asToken('carol-token', 'GET', '/api/v1/namespaces/default/configmaps', { 'Impersonate-User': 'carol', 'Impersonate-Group': 'dev' });
    expect(group.json['message']).toBe('users "carol" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope: No policy matched.');
  });

  it('sets percent-encoded, lower-cased extra keys and keeps repeated values apart', async () => {
    const r = await asToken(
      'bob-token',
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { 'Impersonate-User': 'alice', 'Impersonate-Group': ['a, b', 'c'], 'Impersonate-Extra-Example.com%2FTeam': ['x', 'y'], 'Impersonate-Extra-Scopes': 'view' },
      JSON.parse(ssr),
    );
    expect(r.status).toBe(201);
    expect(r.json['status']).toEqual({ userInfo: { username: 'alice', groups: ['a, b', 'c', 'system:authenticated'], extra: { 'example.com/team': ['x', 'y'], scopes: ['view'] } } });
  });

  it('authorizes an impersonated system:anonymous as anonymous (system:unauthenticated, not system:authenticated)', async () => {
    const r = await server.request('/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', body: JSON.parse(ssr), headers: { 'Content-Type': 'application/json', 'Impersonate-User': 'system:anonymous' } });
    // ABAC's system:authenticated policies do not cover it: the review itself is refused as that user
    expect({ status: r.status, message: r.json<Record<string, unknown>>()['message'] }).toEqual({
      status: 403,
      message: 'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope: No policy matched.',
    });
  });
});

describe('admission sees the impersonated user', () => {
  it('sends the impersonated userInfo to a validating webhook', async () => {
    const ns = await freshNamespace(server, { 'impersonation-webhook': 'yes' });
    await registerValidating(server, webhook, 'impersonation-userinfo.example.com', [
      { name: 'userinfo.impersonation.example.com', path: '/userinfo', namespaceSelector: { matchLabels: { 'impersonation-webhook': 'yes' } } },
    ]);
    const r = await kubectl(server.kubeconfigPath, ['create', 'configmap', 'seen-by-webhook', '-n', ns, '--as=alice', '--as-group=dev', '--as-uid=alice-uid']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const review = webhook.reviews.find((x) => x.path === '/userinfo' && x.request.name === 'seen-by-webhook');
    expect(review?.request.userInfo).toEqual({ username: 'alice', uid: 'alice-uid', groups: ['dev', 'system:authenticated'] });
    expect(review?.headers['impersonate-user']).toBeUndefined();
  });

  it("gives a ValidatingAdmissionPolicy the impersonated request.userInfo, and its authorizer checks that user's permissions", async () => {
    const ns = await freshNamespace(server, { 'impersonation-vap': 'yes' });
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'impersonation-userinfo' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
        validations: [
          {
            expression: "request.userInfo.username != 'alice'",
            messageExpression: "'user ' + request.userInfo.username + ' (' + (has(request.userInfo.uid) ? request.userInfo.uid : 'no uid') + ') in ' + request.userInfo.groups.join(',') + ' may not'",
          },
          { expression: "authorizer.group('').resource('secrets').namespace(request.namespace).check('get').allowed()", message: 'the requester may not read secrets' },
        ],
      },
    };
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'impersonation-userinfo-binding' },
      spec: { policyName: 'impersonation-userinfo', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'impersonation-vap': 'yes' } } } },
    };
    expect((await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy)).status).toBe(201);
    expect((await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding)).status).toBe(201);
    const prefix = `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'impersonation-userinfo' with binding 'impersonation-userinfo-binding' denied request: `;
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } };
    const as = (user: string, groups: string[]) => asToken('bob-token', 'POST', `/api/v1/namespaces/${ns}/configmaps`, { 'Impersonate-User': user, 'Impersonate-Group': groups }, cm);
    // bob may not impersonate uids: the policy test impersonates from the admin for alice's uid
    await eventually(async () => {
      const r = await kubectl(server.kubeconfigPath, ['create', 'configmap', 'cm', '-n', ns, '--as=alice', '--as-group=dev', '--as-uid=alice-uid']);
      expect(r.stderr).toBe(`error: failed to create configmap: ${prefix}user alice (alice-uid) in dev,system:authenticated may not\n`);
    });
    // dave (group dev) may create configmaps but not read secrets
    const dave = await as('dave', ['dev']);
    // a validation without a reason answers Invalid (422), as kube's
    expect(dave.status).toBe(422);
    expect(dave.json['message']).toBe(`${prefix}the requester may not read secrets`);
    // the same user impersonated with alice's name is refused by the first validation instead
    expect((await as('alice', ['dev'])).json['message']).toBe(`${prefix}user alice (no uid) in dev,system:authenticated may not`);
  });
});

describe('audit', () => {
  it('records the authenticated user as user and the impersonated one as impersonatedUser, and refusals without it', async () => {
    const marker = `/api/v1/namespaces/default/configmaps?labelSelector=audit-${Date.now().toString(36)}`;
    expect((await asToken('bob-token', 'GET', marker, { 'Impersonate-User': 'alice', 'Impersonate-Group': 'dev' })).status).toBe(200);
    expect((await asToken('carol-token', 'GET', marker, { 'Impersonate-User': 'alice' })).status).toBe(403);
    const events = await eventually(() => {
      const found = auditEvents().filter((e) => e.requestURI === marker);
      expect(found).toHaveLength(2);
      return found;
    });
    expect(events.find((e) => e.responseStatus.code === 200)).toMatchObject({
      verb: 'list',
      user: { username: 'bob', uid: 'bob-uid', groups: ['impersonators', 'system:authenticated'] },
      impersonatedUser: { username: 'alice', groups: ['dev', 'system:authenticated'] },
    });
    const refused = events.find((e) => e.responseStatus.code === 403)!;
    expect(refused.user).toMatchObject({ username: 'carol' });
    expect(refused.impersonatedUser).toBeUndefined();
  });
});
