// The admission chain around the webhooks: NamespaceLifecycle, per-item deletecollection, and the
// ExcludeAdmissionWebhookVirtualResources feature gate on and off.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { api, deleteValidating, freshNamespace, registerValidating } from './support.js';

let webhook: WebhookServer;
let server: ApiServerHandle;
let gateOff: ApiServerHandle;

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: () => allow() });
  [server, gateOff] = await Promise.all([
    startApiServer({ storage: 'memory' }),
    startApiServer({ storage: 'memory', featureGates: { ExcludeAdmissionWebhookVirtualResources: false } }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.cleanup(), gateOff?.cleanup()]);
  await webhook?.close();
});

describe('NamespaceLifecycle', () => {
  it('rejects creates in a namespace that does not exist', async () => {
    const r = await api(server, 'POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ reason: 'NotFound', message: 'namespaces "nowhere" not found' });
  });

  it('rejects creates in a terminating namespace', async () => {
    const ns = await freshNamespace(server);
    await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    expect((await api(server, 'DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'late' } });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ reason: 'Forbidden', message: `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated` });
    // release the finalizer so the namespace can go
    await api(server, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  });

  it.each(['default', 'kube-system', 'kube-public'])('refuses to delete the %s namespace', async (ns) => {
    const r = await api(server, 'DELETE', `/api/v1/namespaces/${ns}`);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ reason: 'Forbidden', message: `namespaces "${ns}" is forbidden: this namespace may not be deleted` });
  });
});

describe('deletecollection', () => {
  it('passes every deleted item through admission', async () => {
    const ns = await freshNamespace(server);
    for (const n of ['a', 'b', 'c']) await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: n, labels: { batch: 'yes' } } });
    await registerValidating(server, webhook, 'deletes.example.com', [{ name: 'deletes.example.com', path: '/deletes', operations: ['DELETE'], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    try {
      const before = webhook.reviews.length;
      const r = await api(server, 'DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=batch%3Dyes`);
      expect(r.status).toBe(200);
      // kube admits each item with the collection request's attributes: no name, the item as oldObject
      // (testResourceDeletecollection in test/integration/apiserver/admissionwebhook/admission_test.go)
      const seen = webhook.reviews
        .slice(before)
        .filter((x) => x.path === '/deletes')
        .map((x) => `${x.request.operation}:${x.request.name ?? ''}:${(x.request.oldObject as { metadata: { name: string } }).metadata.name}`);
      expect(seen.sort()).toEqual(['DELETE::a', 'DELETE::b', 'DELETE::c']);
    } finally {
      await deleteValidating(server, 'deletes.example.com');
    }
  });
});

describe('virtual resources and ExcludeAdmissionWebhookVirtualResources', () => {
  const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  const hook = { name: 'reviews.example.com', path: '/reviews', apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], operations: ['CREATE'] };

  it('does not call webhooks for auth reviews while the gate is on (the default)', async () => {
    await registerValidating(server, webhook, 'reviews.example.com', [hook]);
    try {
      const before = webhook.reviews.filter((r) => r.path === '/reviews').length;
      const r = await api(server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review);
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ status: { userInfo: { username: 'kubernetes-admin' } } });
      expect(webhook.reviews.filter((x) => x.path === '/reviews').length).toBe(before);
    } finally {
      await deleteValidating(server, 'reviews.example.com');
    }
  });

  it('calls them when the gate is off', async () => {
    await registerValidating(gateOff, webhook, 'reviews.example.com', [hook]);
    try {
      const before = webhook.reviews.filter((r) => r.path === '/reviews').length;
      expect((await api(gateOff, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review)).status).toBe(201);
      const calls = webhook.reviews.filter((x) => x.path === '/reviews').slice(before);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.request).toMatchObject({ kind: { group: 'authentication.k8s.io', kind: 'SelfSubjectReview' }, operation: 'CREATE' });
    } finally {
      await deleteValidating(gateOff, 'reviews.example.com');
    }
  });
});

describe('--disable-admission-plugins', () => {
  it('takes a plugin out of the chain', async () => {
    const disabled = await startApiServer({ storage: 'memory', flags: ['--disable-admission-plugins=ValidatingAdmissionWebhook,NamespaceLifecycle'] });
    try {
      await registerValidating(disabled, webhook, 'disabled.example.com', [{ name: 'disabled.example.com', path: '/disabled' }]);
      const before = webhook.reviews.filter((r) => r.path === '/disabled').length;
      // NamespaceLifecycle is off too: a create in a missing namespace is not refused
      expect((await api(disabled, 'POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } })).status).toBe(201);
      expect(webhook.reviews.filter((r) => r.path === '/disabled').length).toBe(before);
      expect(disabled.stdout()).toMatch(/"msg":"admission chain","plugins":\["LimitRanger","ServiceAccount","Priority","DefaultTolerationSeconds","DefaultStorageClass","MutatingAdmissionPolicy","MutatingAdmissionWebhook","ValidatingAdmissionPolicy","ResourceQuota"\]/);
    } finally {
      await disabled.cleanup();
    }
  });
});
