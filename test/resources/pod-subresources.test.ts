// Pod subresources, CONNECT subresources and TokenRequest through the real HTTP API, as kube-apiserver serves them:
// pods/binding (BindingREST), pods/eviction with PodDisruptionBudgets (EvictionREST), pods/ephemeralcontainers and
// pods/resize (their own update strategies), serviceaccounts/token (TokenREST, claims of pkg/serviceaccount), and
// pods/exec|attach|portforward|proxy, services/proxy with CONNECT admission (handlers.ConnectResource).
// KAH_TEST_STORAGE=etcd3 runs the same suite on a harness-started etcd.
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, deny, startWebhookServer, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { api, deleteValidating, freshNamespace, registerValidating } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';

let server: ApiServerHandle;
let webhook: WebhookServer;
let ns: string;

const storage = process.env['KAH_TEST_STORAGE'] === 'etcd3' ? 'etcd3' : 'memory';

function route(r: ReceivedReview): WebhookReply {
  const obj = r.request.object as { command?: string[]; container?: string } | undefined;
  if (r.path === '/deny-exec' && r.request.subResource === 'exec' && obj?.command?.includes('forbidden-command')) return deny('exec of forbidden-command is not allowed here');
  return allow();
}

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: route });
  server = await startApiServer({ storage });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await webhook?.close();
});

beforeEach(async () => {
  ns = await freshNamespace(server);
  webhook.reset();
});

const podsPath = () => `/api/v1/namespaces/${ns}/pods`;

function podBody(name: string, extra: { labels?: Record<string, string>; containers?: Array<Record<string, unknown>>; nodeName?: string; serviceAccountName?: string } = {}): Record<string, unknown> {
  const spec: Record<string, unknown> = { containers: extra.containers ?? [{ name: 'app', image: 'nginx:1.27' }] };
  if (extra.nodeName) spec['nodeName'] = extra.nodeName;
  if (extra.serviceAccountName) spec['serviceAccountName'] = extra.serviceAccountName;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) }, spec };
}

async function createPod(name: string, extra: Parameters<typeof podBody>[1] = {}): Promise<Record<string, unknown>> {
  const r = await api(server, 'POST', podsPath(), podBody(name, extra));
  expect(r.status).toBe(201);
  return r.json;
}

/** What the kubelet would report: the pod running, ready or not. */
async function setPodRunning(name: string, ready: boolean): Promise<void> {
  const r = await api(server, 'PATCH', `${podsPath()}/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }, 'application/merge-patch+json');
  expect(r.status).toBe(200);
}

describe('pods/binding', () => {
  it('binds an unbound pod: spec.nodeName, the binding annotations, PodScheduled True; answers 201 Success', async () => {
    await createPod('web');
    const r = await api(server, 'POST', `${podsPath()}/web/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', annotations: { 'scheduler/decided': 'yes' } }, target: { kind: 'Node', name: 'node-1' } });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const pod = (await api(server, 'GET', `${podsPath()}/web`)).json as { spec: { nodeName: string }; metadata: { annotations: Record<string, string> }; status: { conditions: Array<{ type: string; status: string }> } };
    expect(pod.spec.nodeName).toBe('node-1');
    expect(pod.metadata.annotations['scheduler/decided']).toBe('yes');
    expect(pod.status.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]));
  });

  it("refuses to bind a pod twice with kube's conflict on pods/binding", async () => {
    await createPod('twice', { nodeName: 'node-a' });
    const r = await api(server, 'POST', `${podsPath()}/twice/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'twice' }, target: { name: 'node-b' } });
    expect(r.status).toBe(409);
    expect(r.json['reason']).toBe('Conflict');
    expect(r.json['message']).toBe('Operation cannot be fulfilled on pods/binding "twice": pod twice is already assigned to node "node-a"');
  });

  it('answers ValidatePodBinding errors and a name mismatch as kube does', async () => {
    await createPod('bad');
    const noTarget = await api(server, 'POST', `${podsPath()}/bad/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bad' }, target: {} });
    // BindingREST returns errs.ToAggregate(), not a Status: kube answers 500 with the aggregate's text
    expect(noTarget.status).toBe(500);
    expect(noTarget.json['message']).toBe('target.name: Required value');
    const mismatch = await api(server, 'POST', `${podsPath()}/bad/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'other' }, target: { name: 'n' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json['message']).toBe('name in URL does not match name in Binding object');
  });

  it('serves the deprecated top-level bindings (create only)', async () => {
    await createPod('legacy');
    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/bindings`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'legacy' }, target: { name: 'node-9' } });
    expect(r.status).toBe(201);
    expect(((await api(server, 'GET', `${podsPath()}/legacy`)).json['spec'] as { nodeName: string }).nodeName).toBe('node-9');
    expect((await api(server, 'GET', `/api/v1/namespaces/${ns}/bindings`)).status).toBe(405);
  });

  it('lists the subresources in discovery with their kinds and verbs', async () => {
    const list = (await api(server, 'GET', '/api/v1')).json as { resources: Array<{ name: string; kind: string; verbs: string[]; group?: string; version?: string }> };
    const by = (n: string) => list.resources.find((x) => x.name === n);
    expect(by('pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect(by('pods/eviction')).toMatchObject({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(by('pods/exec')).toMatchObject({ kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(by('pods/proxy')).toMatchObject({ kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    expect(by('pods/ephemeralcontainers')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(by('serviceaccounts/token')).toMatchObject({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
    expect(by('bindings')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
  });
});

const pdbsPath = () => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;

async function createPDB(name: string, selector: Record<string, string>, status: Record<string, unknown>): Promise<void> {
  const c = await api(server, 'POST', pdbsPath(), { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: selector } } });
  expect(c.status).toBe(201);
  const s = await api(server, 'PATCH', `${pdbsPath()}/${name}/status`, { status: { observedGeneration: 1, ...status } }, 'application/merge-patch+json');
  expect(s.status).toBe(200);
}

const eviction = (name: string, deleteOptions?: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...(deleteOptions ? { deleteOptions } : {}) });

describe('pods/eviction', () => {
  it('deletes a running pod no budget selects and answers 201 Success', async () => {
    await createPod('free', { labels: { app: 'free' } });
    await setPodRunning('free', true);
    const r = await api(server, 'POST', `${podsPath()}/free/eviction`, eviction('free'));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    expect((await api(server, 'GET', `${podsPath()}/free`)).status).toBe(404);
  });

  it("refuses with 429 and kube's DisruptionBudget cause when the budget allows no disruption", async () => {
    await createPod('guarded', { labels: { app: 'db' } });
    await setPodRunning('guarded', true);
    await createPDB('db-pdb', { app: 'db' }, { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const r = await api(server, 'POST', `${podsPath()}/guarded/eviction`, eviction('guarded'));
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget db-pdb needs 1 healthy pods and has 1 currently' }] },
    });
    expect((await api(server, 'GET', `${podsPath()}/guarded`)).status).toBe(200);
  });

  it('decrements disruptionsAllowed, records the pod in disruptedPods, and deletes it', async () => {
    await createPod('spare', { labels: { app: 'web' } });
    await setPodRunning('spare', true);
    await createPDB('web-pdb', { app: 'web' }, { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    const r = await api(server, 'POST', `${podsPath()}/spare/eviction`, eviction('spare'));
    expect(r.status).toBe(201);
    const pdb = (await api(server, 'GET', `${pdbsPath()}/web-pdb`)).json as { status: { disruptionsAllowed: number; disruptedPods: Record<string, string>; conditions: Array<Record<string, unknown>> } };
    expect(pdb.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(pdb.status.disruptedPods)).toEqual(['spare']);
    expect(pdb.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })]);
    expect((await api(server, 'GET', `${podsPath()}/spare`)).status).toBe(404);
  });

  it('says the budget is still being processed while its observedGeneration lags', async () => {
    await createPod('lag', { labels: { app: 'lag' } });
    await setPodRunning('lag', true);
    await createPDB('lag-pdb', { app: 'lag' }, { observedGeneration: 0, disruptionsAllowed: 1 });
    const r = await api(server, 'POST', `${podsPath()}/lag/eviction`, eviction('lag'));
    expect(r.status).toBe(429);
    expect(r.json['details']).toEqual({ retryAfterSeconds: 10, causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget lag-pdb is still being processed by the server.' }] });
  });

  it('answers 500 when more than one budget selects the pod', async () => {
    await createPod('double', { labels: { app: 'two' } });
    await setPodRunning('double', true);
    await createPDB('pdb-a', { app: 'two' }, { disruptionsAllowed: 1 });
    await createPDB('pdb-b', { app: 'two' }, { disruptionsAllowed: 1 });
    const r = await api(server, 'POST', `${podsPath()}/double/eviction`, eviction('double'));
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' });
  });

  it('evicts a pending pod without looking at budgets, and honours deleteOptions.dryRun', async () => {
    await createPod('pending', { labels: { app: 'db2' } });
    await createPDB('db2-pdb', { app: 'db2' }, { disruptionsAllowed: 0 });
    const dry = await api(server, 'POST', `${podsPath()}/pending/eviction`, eviction('pending', { dryRun: ['All'] }));
    expect(dry.status).toBe(201);
    expect((await api(server, 'GET', `${podsPath()}/pending`)).status).toBe(200);
    expect((await api(server, 'POST', `${podsPath()}/pending/eviction`, eviction('pending'))).status).toBe(201);
    expect((await api(server, 'GET', `${podsPath()}/pending`)).status).toBe(404);
  });

  it('one webhook for pods/exec and pods/eviction (CONNECT, CREATE) sees CREATE of a policy/v1 Eviction and CONNECT of PodExecOptions', async () => {
    const reg = await registerValidating(server, webhook, `evict-${ns}`, [{ name: 'evict.example.com', path: '/allow', resources: ['pods/exec', 'pods/eviction'], operations: ['CONNECT', 'CREATE'], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    expect(reg.status).toBe(201);
    try {
      await createPod('watched');
      await eventually(async () => {
        webhook.reset();
        const r = await api(server, 'POST', `${podsPath()}/watched/eviction?dryRun=All`, eviction('watched'));
        expect(r.status).toBe(201);
        expect(webhook.reviews.length).toBeGreaterThan(0);
      });
      const req = webhook.reviews.at(-1)!.request;
      expect(req).toMatchObject({
        operation: 'CREATE',
        kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        subResource: 'eviction',
        name: 'watched',
        namespace: ns,
        dryRun: true,
        object: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'watched', namespace: ns } },
        oldObject: null,
      });
      webhook.reset();
      await createPod('shell', { nodeName: 'n1' });
      expect((await api(server, 'GET', `${podsPath()}/shell/exec?command=id&stdout=true`)).status).toBe(500);
      expect(webhook.reviews.map((r) => [r.request.operation, r.request.subResource, r.request.kind.kind, r.request.object])).toEqual([
        ['CONNECT', 'exec', 'PodExecOptions', { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, command: ['id'] }],
      ]);
    } finally {
      await deleteValidating(server, `evict-${ns}`);
    }
  });
});

describe('pods/ephemeralcontainers and pods/resize', () => {
  it('adds an ephemeral container and ignores every other change sent through the subresource', async () => {
    await createPod('debug-me');
    const r = await api(server, 'PATCH', `${podsPath()}/debug-me/ephemeralcontainers`, { spec: { containers: [{ name: 'app', image: 'changed:1' }], ephemeralContainers: [{ name: 'debugger', image: 'busybox:1.36', targetContainerName: 'app', stdin: true, tty: true }] } }, 'application/strategic-merge-patch+json');
    expect(r.status).toBe(200);
    const spec = r.json['spec'] as { containers: Array<{ image: string }>; ephemeralContainers: Array<Record<string, unknown>> };
    expect(spec.containers[0]!.image).toBe('nginx:1.27');
    expect(spec.ephemeralContainers).toEqual([expect.objectContaining({ name: 'debugger', image: 'busybox:1.36', terminationMessagePolicy: 'File' })]);
    expect((await api(server, 'GET', `${podsPath()}/debug-me/ephemeralcontainers`)).json['kind']).toBe('Pod');
  });

  it("refuses changes to an existing ephemeral container and forbidden fields with kube's texts", async () => {
    await createPod('eph');
    expect((await api(server, 'PATCH', `${podsPath()}/eph/ephemeralcontainers`, { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox:1' }] } }, 'application/strategic-merge-patch+json')).status).toBe(200);
    const changed = await api(server, 'PATCH', `${podsPath()}/eph/ephemeralcontainers`, { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox:2' }] } }, 'application/strategic-merge-patch+json');
    expect(changed.status).toBe(422);
    expect((changed.json['details'] as { causes: Array<{ field: string; reason: string; message: string }> }).causes).toEqual([
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[dbg]', message: 'Forbidden: existing ephemeral containers "dbg" may not be changed\n' },
    ]);
    const ports = await api(server, 'PATCH', `${podsPath()}/eph/ephemeralcontainers`, { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox:1' }, { name: 'p', image: 'x', ports: [{ containerPort: 80 }] }] } }, 'application/strategic-merge-patch+json');
    expect(ports.status).toBe(422);
    expect(String(ports.json['message'])).toContain('spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container');
  });

  it('resizes cpu and memory, ignores other fields, and refuses a QOS class change', async () => {
    await createPod('sized', { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } }] });
    const ok = await api(server, 'PATCH', `${podsPath()}/sized/resize`, { spec: { containers: [{ name: 'app', image: 'ignored:2', resources: { requests: { cpu: '200m' } } }] } }, 'application/strategic-merge-patch+json');
    expect(ok.status).toBe(200);
    const c = (ok.json['spec'] as { containers: Array<{ image: string; resources: unknown }> }).containers[0]!;
    expect(c).toMatchObject({ image: 'nginx:1.27', resources: { requests: { cpu: '200m' } } });
    const toBestEffort = await api(server, 'PATCH', `${podsPath()}/sized/resize`, { spec: { containers: [{ name: 'app', resources: { requests: null } }] } }, 'application/strategic-merge-patch+json');
    expect(toBestEffort.status).toBe(422);
    expect(String(toBestEffort.json['message'])).toContain('Pod QOS Class may not change as a result of resizing');
    const gpu = await api(server, 'PATCH', `${podsPath()}/sized/resize`, { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '200m', 'example.com/gpu': '1' } } }] } }, 'application/strategic-merge-patch+json');
    expect(gpu.status).toBe(422);
    expect(String(gpu.json['message'])).toContain('spec: Forbidden: only cpu and memory resources are mutable');
  });
});

function decodeJWT(token: string): { header: Record<string, unknown>; claims: Record<string, unknown>; signed: Buffer; signature: Buffer } {
  const [h, p, s] = token.split('.');
  return { header: JSON.parse(Buffer.from(h!, 'base64url').toString()), claims: JSON.parse(Buffer.from(p!, 'base64url').toString()), signed: Buffer.from(`${h}.${p}`), signature: Buffer.from(s!, 'base64url') };
}

describe('serviceaccounts/token', () => {
  it("issues a signed JWT with kube's claims, bound to a pod", async () => {
    const sa = await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    expect(sa.status).toBe(201);
    const pod = await createPod('runner', { serviceAccountName: 'robot', nodeName: 'node-3' });
    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: ['vault'], expirationSeconds: 1200, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } },
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'robot', namespace: ns }, spec: { audiences: ['vault'], expirationSeconds: 1200 } });
    const status = r.json['status'] as { token: string; expirationTimestamp: string };
    const { header, claims, signed, signature } = decodeJWT(status.token);
    expect(header['alg']).toBe('RS256');
    expect(typeof header['kid']).toBe('string');
    const saUid = (sa.json['metadata'] as { uid: string }).uid;
    const podUid = (pod['metadata'] as { uid: string }).uid;
    expect(claims).toEqual({
      aud: ['vault'],
      exp: expect.any(Number),
      iat: expect.any(Number),
      iss: 'https://kubernetes.default.svc.cluster.local',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'kubernetes.io': { namespace: ns, node: { name: 'node-3' }, pod: { name: 'runner', uid: podUid }, serviceaccount: { name: 'robot', uid: saUid } },
      nbf: claims['iat'],
      sub: `system:serviceaccount:${ns}:robot`,
    });
    expect((claims['exp'] as number) - (claims['iat'] as number)).toBe(1200);
    expect(Date.parse(status.expirationTimestamp) / 1000).toBe(claims['exp']);
    // signed by the key the server generated in its cert dir
    const key = createPublicKey(readFileSync(path.join(server.certDir, 'service-account-signing.key')));
    expect(verify('sha256', signed, key, signature)).toBe(true);
  });

  it("defaults the audiences and expiration, and refuses short expirations and foreign pods with kube's texts", async () => {
    await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } });
    const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/bot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    expect(r.status).toBe(201);
    expect(r.json['spec']).toMatchObject({ audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 3600 });
    const short = await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/bot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 60 } });
    expect(short.status).toBe(422);
    expect(short.json['message']).toBe('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    await createPod('other-sa', { serviceAccountName: 'default' });
    const foreign = await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/bot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other-sa' } } });
    expect(foreign.status).toBe(400);
    expect(foreign.json['message']).toBe('cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.');
    expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/missing/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).status).toBe(404);
  });

  it('kubectl create token prints a JWT whose claims are kube\'s', async () => {
    await api(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'cli' } });
    const out = await kubectl(server.kubeconfigPath, ['-n', ns, 'create', 'token', 'cli', '--audience=api', '--duration=20m']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const { claims } = decodeJWT(out.stdout.trim());
    expect(claims).toMatchObject({ aud: ['api'], sub: `system:serviceaccount:${ns}:cli`, 'kubernetes.io': { namespace: ns, serviceaccount: { name: 'cli' } } });
    expect((claims['exp'] as number) - (claims['iat'] as number)).toBe(1200);
  });
});

describe('CONNECT subresources', () => {
  const connectRules = ['pods/exec', 'pods/attach', 'pods/portforward', 'pods/proxy', 'services/proxy'];

  async function withConnectWebhook<T>(fn: () => Promise<T>): Promise<T> {
    const name = `connect-${ns}`;
    const reg = await registerValidating(server, webhook, name, [{ name: 'connect.example.com', path: '/deny-exec', resources: connectRules, operations: ['CONNECT'], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    expect(reg.status).toBe(201);
    try {
      return await fn();
    } finally {
      await deleteValidating(server, name);
    }
  }

  /** Waits until the webhook is in force, then returns the review of one request. */
  async function reviewOf(method: string, urlPath: string): Promise<{ status: number; json: Record<string, unknown>; request: ReceivedReview['request'] }> {
    return eventually(async () => {
      webhook.reset();
      const r = await api(server, method, urlPath);
      expect(webhook.reviews.length).toBe(1);
      return { status: r.status, json: r.json, request: webhook.reviews[0]!.request };
    });
  }

  it('admits pods/exec with operation CONNECT and the PodExecOptions from the query, then says there is no kubelet', async () => {
    await createPod('shell', { nodeName: 'node-1' });
    await withConnectWebhook(async () => {
      const r = await reviewOf('POST', `${podsPath()}/shell/exec?command=sh&command=-c&command=date&stdin=true&stdout=true&tty=1&container=app`);
      expect(r.request).toMatchObject({
        operation: 'CONNECT',
        kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        subResource: 'exec',
        requestKind: { group: '', version: 'v1', kind: 'PodExecOptions' },
        name: 'shell',
        namespace: ns,
        oldObject: null,
        options: null,
        dryRun: false,
      });
      expect(r.request.object).toEqual({ kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, stdout: true, tty: true, container: 'app', command: ['sh', '-c', 'date'] });
      expect(r.status).toBe(500);
      expect(String(r.json['message'])).toMatch(/^error dialing backend: this server runs no kubelet/);
    });
  });

  it('builds PodAttachOptions, PodPortForwardOptions, PodProxyOptions and ServiceProxyOptions as kube does', async () => {
    await createPod('target', { nodeName: 'node-1' });
    const svc = await api(server, 'POST', `/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'front' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.status).toBe(201);
    await withConnectWebhook(async () => {
      const attach = await reviewOf('GET', `${podsPath()}/target/attach?stdin=true&stdout=true`);
      expect(attach.request.object).toEqual({ kind: 'PodAttachOptions', apiVersion: 'v1', stdin: true, stdout: true });
      expect(attach.request.subResource).toBe('attach');
      const pf = await reviewOf('POST', `${podsPath()}/target/portforward?ports=8080&ports=9090`);
      expect(pf.request.object).toEqual({ kind: 'PodPortForwardOptions', apiVersion: 'v1', ports: [8080, 9090] });
      const proxy = await reviewOf('PUT', `${podsPath()}/target/proxy/api/v1/x/`);
      expect(proxy.request).toMatchObject({ operation: 'CONNECT', subResource: 'proxy', object: { kind: 'PodProxyOptions', apiVersion: 'v1', path: '/api/v1/x/' } });
      const svcProxy = await reviewOf('GET', `/api/v1/namespaces/${ns}/services/front/proxy`);
      expect(svcProxy.request).toMatchObject({ resource: { resource: 'services' }, subResource: 'proxy', kind: { kind: 'ServiceProxyOptions' } });
      expect(svcProxy.request.object).toEqual({ kind: 'ServiceProxyOptions', apiVersion: 'v1' });
      expect(svcProxy.status).toBe(500);
    });
  });

  it('routes only the methods kube registers and refuses dry runs', async () => {
    await createPod('routes', { nodeName: 'node-1' });
    expect((await api(server, 'PUT', `${podsPath()}/routes/exec`)).status).toBe(405);
    expect((await api(server, 'GET', `${podsPath()}/routes/exec/extra`)).status).toBe(404);
    const dry = await api(server, 'POST', `${podsPath()}/routes/exec?command=ls&dryRun=All`);
    expect(dry.status).toBe(400);
    expect(dry.json['message']).toBe('dryRun is not supported');
  });

  it("answers kube's streamLocation errors: no host assigned, an unknown or unnamed container", async () => {
    await createPod('unscheduled');
    const noHost = await api(server, 'POST', `${podsPath()}/unscheduled/exec?command=ls&stdout=true`);
    expect(noHost.status).toBe(400);
    expect(noHost.json['message']).toBe('pod unscheduled does not have a host assigned');
    await createPod('two', { nodeName: 'n', containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'x:1' }] });
    const which = await api(server, 'POST', `${podsPath()}/two/exec?command=ls`);
    expect(which.json['message']).toBe('a container name must be specified for pod two, choose one of: [a b]');
    const unknown = await api(server, 'POST', `${podsPath()}/two/exec?command=ls&container=c`);
    expect(unknown.json['message']).toBe('container c is not valid for pod two');
  });

  it('kubectl exec shows a webhook denial, and the no-kubelet error once allowed', async () => {
    await createPod('kx', { nodeName: 'node-1' });
    await withConnectWebhook(async () => {
      const denied = await eventually(async () => {
        const out = await kubectl(server.kubeconfigPath, ['-n', ns, 'exec', 'kx', '--', 'forbidden-command']);
        expect(out.stderr).toContain('exec of forbidden-command is not allowed here');
        return out;
      });
      expect(denied.code).not.toBe(0);
      expect(denied.stderr).toContain('admission webhook "connect.example.com" denied the request: exec of forbidden-command is not allowed here');
      const allowed = await kubectl(server.kubeconfigPath, ['-n', ns, 'exec', 'kx', '--', 'date']);
      expect(allowed.code).not.toBe(0);
      expect(allowed.stderr).toContain('this server runs no kubelet');
    });
  });

  it('kubectl exec of an unscheduled pod, attach and port-forward print the errors kube gives without a kubelet', async () => {
    await createPod('pending-pod');
    const noHost = await kubectl(server.kubeconfigPath, ['-n', ns, 'exec', 'pending-pod', '--', 'date']);
    expect(noHost.code).not.toBe(0);
    expect(noHost.stderr).toContain('Error from server (BadRequest): pod pending-pod does not have a host assigned');
    await createPod('streams', { nodeName: 'node-1' });
    const attach = await kubectl(server.kubeconfigPath, ['-n', ns, 'attach', 'streams']);
    expect(attach.code).not.toBe(0);
    expect(attach.stderr).toContain(`Error from server: error dialing backend: this server runs no kubelet and proxies to no backend (node "node-1"): pods/attach of ${ns}/streams cannot be served`);
    // kubectl port-forward only dials a running pod
    await setPodRunning('streams', true);
    const pf = await kubectl(server.kubeconfigPath, ['-n', ns, 'port-forward', 'pod/streams', '0:80']);
    expect(pf.code).not.toBe(0);
    expect(pf.stderr).toContain(`error upgrading connection: error dialing backend: this server runs no kubelet and proxies to no backend (node "node-1"): pods/portforward of ${ns}/streams cannot be served`);
  });

  it('kubectl debug (without attaching) adds an ephemeral container through pods/ephemeralcontainers', async () => {
    await createPod('dbg', { nodeName: 'node-1' });
    const out = await kubectl(server.kubeconfigPath, ['-n', ns, 'debug', 'dbg', '--image=busybox:1.36', '--profile=general']);
    expect(out.code).toBe(0);
    const pod = (await api(server, 'GET', `${podsPath()}/dbg`)).json as { spec: { ephemeralContainers: Array<{ name: string; image: string }> } };
    expect(pod.spec.ephemeralContainers).toEqual([expect.objectContaining({ name: expect.stringMatching(/^debugger-/), image: 'busybox:1.36' })]);
  });

  it('a ValidatingAdmissionPolicy on pods/exec denies by the options object', async () => {
    await createPod('vap', { nodeName: 'node-1' });
    const policy = `no-tty-${ns}`;
    const p = await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'], operations: ['CONNECT'] }] },
        validations: [{ expression: "!has(object.tty) || !object.tty || request.operation != 'CONNECT'", message: 'interactive exec is not allowed' }],
      },
    });
    expect(p.status).toBe(201);
    const b = await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: { policyName: policy, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } } },
    });
    expect(b.status).toBe(201);
    try {
      const denied = await eventually(async () => {
        const r = await api(server, 'POST', `${podsPath()}/vap/exec?command=sh&tty=true&stdin=true`);
        // a validation without `reason` denies as Invalid (422), the message is admission.NewForbidden's
        expect(r.status).toBe(422);
        return r;
      });
      expect(denied.json['reason']).toBe('Invalid');
      expect(denied.json['message']).toBe(`pods "vap" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: interactive exec is not allowed`);
      expect((await api(server, 'POST', `${podsPath()}/vap/exec?command=date&stdout=true`)).status).toBe(500);
    } finally {
      await api(server, 'DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${policy}`);
      await api(server, 'DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${policy}`);
    }
  });
});

describe('authorization of CONNECT subresources', () => {
  let secured: ApiServerHandle;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kah-connect-authz-'));
    writeFileSync(path.join(dir, 'tokens.csv'), 'reader-token,reader,1002,\n');
    // ABAC readonly: get, list and watch only
    writeFileSync(path.join(dir, 'abac.jsonl'), JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'reader', namespace: '*', resource: '*', apiGroup: '*', readonly: true } }) + '\n');
    secured = await startApiServer({ storage: 'memory', flags: ['--anonymous-auth=false', `--token-auth-file=${path.join(dir, 'tokens.csv')}`, '--authorization-mode=ABAC', `--authorization-policy-file=${path.join(dir, 'abac.jsonl')}`] });
  }, 60_000);
  afterAll(async () => {
    await secured?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function asReader(method: string, p: string): Promise<{ status: number; json: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(p, secured.url), { method, ca: secured.caPem, headers: { Authorization: 'Bearer reader-token' } }, (res) => {
        let data = '';
        res.on('data', (d: Buffer) => (data += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data.startsWith('{') ? JSON.parse(data) : {} }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('authorizes POST as create and GET as get, and then also requires create for exec, attach and portforward (kube #133515)', async () => {
    const created = await api(secured, 'POST', '/api/v1/namespaces/default/pods', podBody('p', { nodeName: 'node-1' }));
    expect(created.status).toBe(201);
    const post = await asReader('POST', '/api/v1/namespaces/default/pods/p/exec?command=ls');
    expect(post.status).toBe(403);
    expect(post.json['message']).toMatch(/^pods "p" is forbidden: User "reader" cannot create resource "pods\/exec" in API group "" in the namespace "default"/);
    for (const sub of ['exec', 'attach', 'portforward']) {
      const get = await asReader('GET', `/api/v1/namespaces/default/pods/p/${sub}?command=ls&ports=80`);
      expect(get.status).toBe(403);
      expect(get.json).toMatchObject({ reason: 'Forbidden', details: { name: 'p', kind: 'pods' } });
      // authorization let the GET through as `get`: the refusal is the Connecter's own create check
      expect(String(get.json['message'])).toMatch(/^pods "p" is forbidden: /);
      expect(String(get.json['message'])).not.toContain('cannot get');
    }
    // a proxy needs no more than its method's verb
    expect((await asReader('GET', '/api/v1/namespaces/default/pods/p/proxy/healthz')).status).toBe(500);
  });
});
