// Webhook admission end to end: a real apiserver calling real HTTPS webhook servers, after kube's e2e
// webhook conformance cases (test/e2e/apimachinery/webhook.go) and the behaviours of the dynamic admission docs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, delay, deny, patch, startWebhookServer, withWarnings, wrongUid, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';
import { api, deleteMutating, deleteValidating, freshNamespace, mwcPath, registerMutating, registerValidating, vwcPath } from './support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;
let dir: string;

const disallowed = { 'webhook-e2e-test': 'webhook-disallow' };

function route(r: ReceivedReview): WebhookReply {
  const obj = r.request.object as { data?: Record<string, string>; spec?: { containers?: Array<{ name: string }> }; metadata?: { annotations?: Record<string, string> } } | undefined;
  switch (r.path) {
    case '/deny-unwanted':
      if (obj?.data?.['webhook-e2e-test'] === 'webhook-disallow') return deny('the configmap contains unwanted key and value');
      if (obj?.spec?.containers?.some((c) => c.name === 'webhook-disallow')) return deny('the pod contains unwanted container name');
      return allow();
    case '/always-deny':
      return deny('this webhook denies all requests');
    case '/stage-1':
      return patch(obj?.data ? [{ op: 'add', path: '/data/mutation-stage-1', value: 'yes' }] : [{ op: 'add', path: '/data', value: { 'mutation-stage-1': 'yes' } }]);
    case '/stage-2':
      return patch([{ op: 'add', path: '/data/mutation-stage-2', value: 'yes' }]);
    case '/add-init-container':
      return patch([{ op: 'add', path: '/spec/initContainers', value: [{ name: 'webhook-added-init-container', image: 'busybox:1.36' }] }]);
    case '/slow':
      return delay(2000, allow());
    case '/warn':
      return withWarnings(allow(), ['first warning from the webhook', 'second warning']);
    case '/teapot':
      return deny('short and stout', 418);
    case '/wrong-uid':
      return wrongUid();
    case '/reinvoke-first': {
      // adds "first" only once the later webhook's annotation is there: needs reinvocation to happen at all
      const a = obj?.metadata?.annotations ?? {};
      if (a['second'] && !a['first']) return patch([{ op: 'add', path: '/metadata/annotations/first', value: 'yes' }]);
      return allow();
    }
    case '/reinvoke-second': {
      const a = obj?.metadata?.annotations;
      if (!a) return patch([{ op: 'add', path: '/metadata/annotations', value: { second: 'yes' } }]);
      return a['second'] ? allow() : patch([{ op: 'add', path: '/metadata/annotations/second', value: 'yes' }]);
    }
    default:
      return allow();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-wh-'));
  webhook = await startWebhookServer({ handler: route });
  server = await startApiServer({ storage: 'memory', flags: [`--audit-log-path=${path.join(dir, 'audit.log')}`] });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
const reviewsAt = (p: string) => webhook.reviews.filter((r) => r.path === p);

describe('validating webhooks (e2e conformance cases)', () => {
  it('denies pod and configmap create, update and patch; a namespace selector exempts a namespace', async () => {
    await registerValidating(server, webhook, 'deny-unwanted.example.com', [
      {
        name: 'deny-unwanted-cm.example.com',
        path: '/deny-unwanted',
        resources: ['configmaps', 'pods'],
        namespaceSelector: { matchExpressions: [{ key: 'skip-webhook-admission', operator: 'NotIn', values: ['yes'] }] },
      },
    ]);
    try {
      const ns = await freshNamespace(server);
      const pod = await api(server, 'POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'webhook-disallow', image: 'busybox' }] } });
      expect(pod.status).toBe(403);
      expect(pod.json).toMatchObject({ code: 403, message: 'admission webhook "deny-unwanted-cm.example.com" denied the request: the pod contains unwanted container name' });
      const denied = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('bad', disallowed));
      expect(denied.status).toBe(403);
      expect(denied.json['message']).toBe('admission webhook "deny-unwanted-cm.example.com" denied the request: the configmap contains unwanted key and value');
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('good', { a: 'b' }))).status).toBe(201);
      const upd = await api(server, 'PUT', `/api/v1/namespaces/${ns}/configmaps/good`, cm('good', disallowed));
      expect(upd.status).toBe(403);
      const pat = await api(server, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/good`, { data: disallowed }, 'application/merge-patch+json');
      expect(pat.status).toBe(403);
      const exempt = await freshNamespace(server, { 'skip-webhook-admission': 'yes' });
      expect((await api(server, 'POST', `/api/v1/namespaces/${exempt}/configmaps`, cm('bad', disallowed))).status).toBe(201);
    } finally {
      await deleteValidating(server, 'deny-unwanted.example.com');
    }
  });

  it('denies a subresource write (deployments/scale) while the main resource stays writable', async () => {
    await registerValidating(server, webhook, 'deny-scale.example.com', [{ name: 'deny-scale.example.com', path: '/always-deny', apiGroups: ['apps'], resources: ['deployments/scale'], operations: ['UPDATE'] }]);
    try {
      const ns = await freshNamespace(server);
      const d = { metadata: { name: 'web' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
      expect((await api(server, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, d)).status).toBe(201);
      const scale = await api(server, 'PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
      expect(scale.status).toBe(403);
      expect(scale.json['message']).toContain('admission webhook "deny-scale.example.com" denied the request');
      const review = reviewsAt('/always-deny').at(-1)!.request;
      expect(review).toMatchObject({ subResource: 'scale', resource: { group: 'apps', version: 'v1', resource: 'deployments' }, kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, operation: 'UPDATE' });
      expect((await api(server, 'PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web`, { spec: { replicas: 2 } }, 'application/merge-patch+json')).status).toBe(200);
    } finally {
      await deleteValidating(server, 'deny-scale.example.com');
    }
  });

  it('rejects unconditionally when a fail-closed webhook cannot be called (no CA to verify it)', async () => {
    await registerValidating(server, webhook, 'fail-closed.example.com', [
      { name: 'fail-closed.example.com', path: '/allow', clientConfig: { url: webhook.url('/allow') }, namespaceSelector: { matchLabels: { 'fail-closed': 'yes' } } },
    ]);
    try {
      const ns = await freshNamespace(server, { 'fail-closed': 'yes' });
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('x'));
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ reason: 'InternalError' });
      expect(String(r.json['message'])).toContain('failed calling webhook "fail-closed.example.com"');
    } finally {
      await deleteValidating(server, 'fail-closed.example.com');
    }
  });

  it('never calls REST-registered webhooks for webhook configuration objects', async () => {
    await registerValidating(server, webhook, 'deny-everything-labelled.example.com', [
      { name: 'deny-everything-labelled.example.com', path: '/always-deny', apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], operations: ['*'], objectSelector: { matchLabels: { guarded: 'yes' } } },
    ]);
    try {
      const ns = await freshNamespace(server);
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('guarded', {}, { guarded: 'yes' }))).status).toBe(403);
      const before = reviewsAt('/always-deny').length;
      const vwc = { metadata: { name: 'dummy.example.com', labels: { guarded: 'yes' } }, webhooks: [{ name: 'dummy.example.com', clientConfig: { url: webhook.url('/allow'), caBundle: webhook.caBundle }, admissionReviewVersions: ['v1'], sideEffects: 'None' }] };
      expect((await api(server, 'POST', vwcPath, vwc)).status).toBe(201);
      expect((await api(server, 'POST', mwcPath, vwc)).status).toBe(201);
      expect((await api(server, 'DELETE', `${vwcPath}/dummy.example.com`)).status).toBe(200);
      expect((await api(server, 'DELETE', `${mwcPath}/dummy.example.com`)).status).toBe(200);
      expect(reviewsAt('/always-deny').length).toBe(before);
    } finally {
      await deleteValidating(server, 'deny-everything-labelled.example.com');
    }
  });

  it('honours timeoutSeconds with failurePolicy Fail and Ignore', async () => {
    const ns = await freshNamespace(server);
    const sel = (v: string) => ({ objectSelector: { matchLabels: { timeout: v } } });
    await registerValidating(server, webhook, 'timeouts.example.com', [
      { name: 'fail-after-1s.example.com', path: '/slow', timeoutSeconds: 1, failurePolicy: 'Fail', ...sel('fail') },
      { name: 'ignore-after-1s.example.com', path: '/slow', timeoutSeconds: 1, failurePolicy: 'Ignore', ...sel('ignore') },
      { name: 'waits-5s.example.com', path: '/slow', timeoutSeconds: 5, failurePolicy: 'Fail', ...sel('long') },
    ]);
    try {
      const fail = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('f', {}, { timeout: 'fail' }));
      expect(fail.status).toBe(500);
      expect(String(fail.json['message'])).toMatch(/failed calling webhook "fail-after-1s.example.com".*(deadline|timeout|Timeout)/);
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('i', {}, { timeout: 'ignore' }))).status).toBe(201);
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('l', {}, { timeout: 'long' }))).status).toBe(201);
      // the URL carries ?timeout= as kube-apiserver sends it
      expect(reviewsAt('/slow').map((r) => r.query['timeout'])).toEqual(expect.arrayContaining(['1s', '5s']));
    } finally {
      await deleteValidating(server, 'timeouts.example.com');
    }
  });

  it('switches enforcement at once when a configuration\'s operations are patched', async () => {
    const ns = await freshNamespace(server);
    await registerValidating(server, webhook, 'switch.example.com', [{ name: 'switch.example.com', path: '/deny-unwanted', operations: ['CREATE'], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    try {
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('a', disallowed))).status).toBe(403);
      const p = await api(server, 'PATCH', `${vwcPath}/switch.example.com`, [{ op: 'replace', path: '/webhooks/0/rules/0/operations', value: ['UPDATE'] }], 'application/json-patch+json');
      expect(p.status).toBe(200);
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('a', disallowed))).status).toBe(201);
      expect((await api(server, 'PUT', `/api/v1/namespaces/${ns}/configmaps/a`, cm('a', disallowed))).status).toBe(403);
    } finally {
      await deleteValidating(server, 'switch.example.com');
    }
  });

  it('lists labelled configurations and removes them with deletecollection, ending their enforcement', async () => {
    const ns = await freshNamespace(server);
    for (const i of [1, 2, 3]) {
      await registerValidating(server, webhook, `listed-${i}.example.com`, [{ name: `listed-${i}.example.com`, path: '/deny-unwanted', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }], { suite: 'listing' });
    }
    const list = await api(server, 'GET', `${vwcPath}?labelSelector=suite%3Dlisting`);
    expect((list.json['items'] as unknown[]).length).toBe(3);
    expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('a', disallowed))).status).toBe(403);
    const del = await api(server, 'DELETE', `${vwcPath}?labelSelector=suite%3Dlisting`);
    expect(del.status).toBe(200);
    expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('a', disallowed))).status).toBe(201);
  });

  it('skips objects that do not match the objectSelector', async () => {
    const ns = await freshNamespace(server);
    await registerValidating(server, webhook, 'object-selector.example.com', [{ name: 'object-selector.example.com', path: '/always-deny', objectSelector: { matchLabels: { check: 'yes' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    try {
      const before = reviewsAt('/always-deny').length;
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('skipped'))).status).toBe(201);
      expect(reviewsAt('/always-deny').length).toBe(before);
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('checked', {}, { check: 'yes' }))).status).toBe(403);
    } finally {
      await deleteValidating(server, 'object-selector.example.com');
    }
  });
});

describe('mutating webhooks', () => {
  it('runs two mutating webhooks in order, the second seeing the first\'s change', async () => {
    const ns = await freshNamespace(server);
    const nsSel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    await registerMutating(server, webhook, 'ordered.example.com', [
      { name: 'stage-1.example.com', path: '/stage-1', ...nsSel },
      { name: 'stage-2.example.com', path: '/stage-2', ...nsSel },
    ]);
    try {
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('mutated', { original: 'x' }));
      expect(r.status).toBe(201);
      expect(r.json['data']).toEqual({ original: 'x', 'mutation-stage-1': 'yes', 'mutation-stage-2': 'yes' });
      const second = reviewsAt('/stage-2').at(-1)!.request.object as { data: Record<string, string> };
      expect(second.data['mutation-stage-1']).toBe('yes');
      const stored = await api(server, 'GET', `/api/v1/namespaces/${ns}/configmaps/mutated`);
      expect(stored.json['data']).toEqual(r.json['data']);
    } finally {
      await deleteMutating(server, 'ordered.example.com');
    }
  });

  it('mutates a pod and then applies defaults to what the webhook added', async () => {
    const ns = await freshNamespace(server);
    await registerMutating(server, webhook, 'init-container.example.com', [{ name: 'init-container.example.com', path: '/add-init-container', resources: ['pods'], operations: ['CREATE'], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    try {
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });
      expect(r.status).toBe(201);
      const init = (r.json['spec'] as { initContainers: Array<Record<string, unknown>> }).initContainers[0];
      expect(init).toMatchObject({ name: 'webhook-added-init-container', image: 'busybox:1.36', terminationMessagePolicy: 'File', terminationMessagePath: '/dev/termination-log', imagePullPolicy: 'IfNotPresent' });
    } finally {
      await deleteMutating(server, 'init-container.example.com');
    }
  });

  it('reinvokes an IfNeeded webhook once when a later webhook changed the object', async () => {
    const ns = await freshNamespace(server);
    const nsSel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    await registerMutating(server, webhook, 'reinvocation.example.com', [
      { name: 'first.example.com', path: '/reinvoke-first', reinvocationPolicy: 'IfNeeded', ...nsSel },
      { name: 'second.example.com', path: '/reinvoke-second', ...nsSel },
    ]);
    try {
      const firstBefore = reviewsAt('/reinvoke-first').length;
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('reinvoked'));
      expect(r.status).toBe(201);
      expect((r.json['metadata'] as { annotations: Record<string, string> }).annotations).toEqual({ first: 'yes', second: 'yes' });
      expect(reviewsAt('/reinvoke-first').length - firstBefore).toBe(2);
    } finally {
      await deleteMutating(server, 'reinvocation.example.com');
    }
  });

  it('writes mutation and patch audit annotations', async () => {
    const ns = await freshNamespace(server);
    await registerMutating(server, webhook, 'audited.example.com', [{ name: 'stage-1.example.com', path: '/stage-1', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    try {
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('audited'))).status).toBe(201);
      await eventually(() => {
        const events = readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        const ev = events.find((e) => e.verb === 'create' && e.objectRef?.namespace === ns && e.objectRef?.resource === 'configmaps');
        expect(ev?.annotations?.['mutation.webhook.admission.k8s.io/round_0_index_0']).toBeDefined();
        expect(JSON.parse(ev.annotations['mutation.webhook.admission.k8s.io/round_0_index_0'])).toMatchObject({ configuration: 'audited.example.com', webhook: 'stage-1.example.com', mutated: true });
        expect(ev.annotations['patch.webhook.admission.k8s.io/round_0_index_0']).toBeDefined();
      });
    } finally {
      await deleteMutating(server, 'audited.example.com');
    }
  });
});

describe('requests and responses', () => {
  async function withHook<T>(p: string, extra: Record<string, unknown>, run: (ns: string) => Promise<T>): Promise<T> {
    const ns = await freshNamespace(server);
    const name = `hook-${p.slice(1)}.example.com`;
    await registerValidating(server, webhook, name, [{ name, path: p, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } }, ...extra }]);
    try {
      return await run(ns);
    } finally {
      await deleteValidating(server, name);
    }
  }

  it('sends a full v1 AdmissionReview, with dryRun and options', async () => {
    await withHook('/allow', {}, async (ns) => {
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All&fieldManager=tester`, cm('dry'))).status).toBe(201);
      const rv = reviewsAt('/allow').at(-1)!;
      expect(rv.review).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
      expect(rv.request).toMatchObject({
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
        requestResource: { group: '', version: 'v1', resource: 'configmaps' },
        name: 'dry',
        namespace: ns,
        operation: 'CREATE',
        userInfo: { username: 'kubernetes-admin', groups: expect.arrayContaining(['system:masters', 'system:authenticated']) },
        object: { metadata: { name: 'dry' } },
        dryRun: true,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'], fieldManager: 'tester' },
      });
      expect(rv.request.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect((await api(server, 'GET', `/api/v1/namespaces/${ns}/configmaps/dry`)).status).toBe(404);
    });
  });

  it('sends oldObject on update and delete', async () => {
    await withHook('/allow', { operations: ['UPDATE', 'DELETE'] }, async (ns) => {
      await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('o', { v: '1' }));
      await api(server, 'PUT', `/api/v1/namespaces/${ns}/configmaps/o`, cm('o', { v: '2' }));
      const upd = reviewsAt('/allow').at(-1)!.request;
      expect(upd).toMatchObject({ operation: 'UPDATE', object: { data: { v: '2' } }, oldObject: { data: { v: '1' } }, options: { kind: 'UpdateOptions' } });
      await api(server, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/o`);
      const del = reviewsAt('/allow').at(-1)!.request;
      expect(del).toMatchObject({ operation: 'DELETE', oldObject: { data: { v: '2' } }, options: { kind: 'DeleteOptions' } });
      expect(del.object ?? null).toBeNull();
    });
  });

  it('sends a v1beta1 AdmissionReview when that is the version the webhook accepts', async () => {
    await withHook('/allow', { admissionReviewVersions: ['v1beta1'] }, async (ns) => {
      await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('beta'));
      expect(reviewsAt('/allow').at(-1)!.review.apiVersion).toBe('admission.k8s.io/v1beta1');
    });
  });

  it('returns the webhook\'s warnings as Warning headers', async () => {
    await withHook('/warn', {}, async (ns) => {
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('warned'));
      expect(r.status).toBe(201);
      expect(r.warnings).toEqual(['first warning from the webhook', 'second warning']);
    });
  });

  it('passes the webhook\'s status code through', async () => {
    await withHook('/teapot', {}, async (ns) => {
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('tea'));
      expect(r.status).toBe(418);
      expect(r.json['message']).toBe('admission webhook "hook-teapot.example.com" denied the request: short and stout');
    });
  });

  it('treats a response with the wrong uid as a failed call', async () => {
    await withHook('/wrong-uid', {}, async (ns) => {
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('uid'));
      expect(r.status).toBe(500);
      expect(String(r.json['message'])).toContain('failed calling webhook "hook-wrong-uid.example.com"');
      expect(String(r.json['message'])).toMatch(/uid/);
    });
  });

  it('shows kubectl users the denial message and the warnings', async () => {
    await withHook('/warn', {}, async (ns) => {
      const r = await kubectl(server.kubeconfigPath, ['create', 'configmap', 'k', '-n', ns, '--from-literal=a=b']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('Warning: first warning from the webhook');
    });
    await withHook('/always-deny', {}, async (ns) => {
      const r = await kubectl(server.kubeconfigPath, ['create', 'configmap', 'k', '-n', ns, '--from-literal=a=b']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('admission webhook "hook-always-deny.example.com" denied the request: this webhook denies all requests');
    });
  });

  it('records kube-apiserver\'s webhook metrics', async () => {
    const m = (await server.request('/metrics')).body;
    expect(m).toMatch(/apiserver_admission_webhook_request_total\{[^}]*name="hook-teapot.example.com"[^}]*\} \d+/);
    expect(m).toMatch(/apiserver_admission_webhook_rejection_count\{[^}]*name="hook-teapot.example.com"[^}]*\} \d+/);
    expect(m).toMatch(/apiserver_admission_webhook_admission_duration_seconds_bucket\{[^}]*name="hook-allow.example.com"/);
    expect(m).toMatch(/apiserver_admission_webhook_fail_open_count\{[^}]*name="ignore-after-1s.example.com"[^}]*\} \d+/);
    expect(m).toMatch(/apiserver_admission_step_admission_duration_seconds_bucket\{[^}]*type="validate"/);
    expect(m).toMatch(/apiserver_admission_controller_admission_duration_seconds_bucket\{[^}]*name="ValidatingAdmissionWebhook"/);
  });
});

describe('webhook configuration objects', () => {
  it('applies kube-apiserver\'s defaults, visible on GET', async () => {
    const r = await api(server, 'POST', vwcPath, { metadata: { name: 'defaults.example.com' }, webhooks: [{ name: 'defaults.example.com', clientConfig: { url: webhook.url('/allow'), caBundle: webhook.caBundle }, admissionReviewVersions: ['v1'], sideEffects: 'None', rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], operations: ['CREATE'] }] }] });
    expect(r.status).toBe(201);
    const got = await api(server, 'GET', `${vwcPath}/defaults.example.com`);
    expect((got.json['webhooks'] as unknown[])[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {}, rules: [{ scope: '*' }] });
    await deleteValidating(server, 'defaults.example.com');
  });

  it('rejects invalid configurations with field paths', async () => {
    const r = await api(server, 'POST', vwcPath, {
      metadata: { name: 'invalid.example.com' },
      webhooks: [
        { name: 'dup.example.com', clientConfig: { url: 'http://insecure.example.com/x' }, admissionReviewVersions: ['v9'], sideEffects: 'Some', timeoutSeconds: 31 },
        { name: 'dup.example.com', clientConfig: {}, sideEffects: 'None', admissionReviewVersions: ['v1'] },
      ],
    });
    expect(r.status).toBe(422);
    const fields = ((r.json['details'] as { causes: Array<{ field: string }> }).causes).map((c) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['webhooks[0].clientConfig.url', 'webhooks[0].admissionReviewVersions', 'webhooks[0].sideEffects', 'webhooks[0].timeoutSeconds', 'webhooks[1].name', 'webhooks[1].clientConfig']));
  });

  it('warns when a rule names a resource excluded from admission webhooks', async () => {
    const r = await api(server, 'POST', vwcPath, { metadata: { name: 'excluded.example.com' }, webhooks: [{ name: 'excluded.example.com', clientConfig: { url: webhook.url('/allow'), caBundle: webhook.caBundle }, admissionReviewVersions: ['v1'], sideEffects: 'None', rules: [{ apiGroups: ['authentication.k8s.io'], apiVersions: ['v1'], resources: ['tokenreviews'], operations: ['CREATE'] }] }] });
    expect(r.status).toBe(201);
    expect(r.warnings.join('\n')).toContain('tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect');
    await deleteValidating(server, 'excluded.example.com');
  });
});
