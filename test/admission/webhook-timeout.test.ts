// The request's own `?timeout=` bounds its webhook calls, ported from kube's
// test/integration/apiserver/admissionwebhook/timeout_test.go (testWebhookTimeout): each webhook is called with
// min(its timeoutSeconds, what is left of the request) in `?timeout=`, and a request whose time runs out across
// sequential mutating webhooks fails with kube's Timeout, without calling the later ones.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { eventually } from '../support/eventually.js';
import { api, deleteMutating, deleteValidating, freshNamespace, registerMutating, registerValidating, type HookSpec } from './support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;

interface Invocation {
  path: string;
  timeoutSeconds: number;
}

// kube's timeoutRecorder: mutating calls in the order made, validating ones (parallel) sorted by path, after them
let invocations: Invocation[] = [];
function recordInvocation(call: Invocation): void {
  invocations.push(call);
  const validating = (i: Invocation) => i.path.includes('validating');
  const mutating = invocations.filter((i) => !validating(i));
  const rest = invocations.filter(validating).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  invocations = [...mutating, ...rest];
}

// the webhooks' pending answers, cleared at the end so that none outlives the suite
const answering = new Set<ReturnType<typeof setTimeout>>();

beforeAll(async () => {
  webhook = await startWebhookServer({
    handler: async (r) => {
      // newTimeoutWebhookHandler: the path ends in how long to take, e.g. /mutating/1/5s
      recordInvocation({ path: r.path, timeoutSeconds: Number.parseInt(r.query['timeout'] ?? '0', 10) });
      const seconds = Number.parseInt(r.path.split('/').pop()!, 10);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          answering.delete(timer);
          resolve();
        }, seconds * 1000);
        answering.add(timer);
      });
      return allow();
    },
  });
  server = await startApiServer({ storage: 'memory', flags: ['--disable-admission-plugins=ServiceAccount'] });
}, 60_000);
afterAll(async () => {
  for (const timer of answering) clearTimeout(timer);
  await server?.cleanup();
  await webhook?.close();
});

interface TestWebhook {
  path: string;
  timeoutSeconds: number;
  policy: 'Fail' | 'Ignore';
}

const hookSpec = (w: TestWebhook, j: number, label: string): HookSpec => ({
  name: `admission.integration.test.${j}.${w.path.replace(/^\//, '').replace(/\//g, '-')}`,
  path: w.path,
  resources: ['pods'],
  operations: ['*'],
  failurePolicy: w.policy,
  timeoutSeconds: w.timeoutSeconds,
  admissionReviewVersions: ['v1beta1'],
  // only this test's pods (kube's test filters on its client's user name instead)
  objectSelector: { matchLabels: { [label]: 'true' } },
});

const pod = (label: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'labeled', labels: { x: 'true', [label]: 'true' } },
  spec: { containers: [{ name: 'fake-name', image: 'fakeimage' }] },
});

let counter = 0;

async function runCase(timeoutSeconds: number, mutating: TestWebhook[], validating: TestWebhook[]) {
  const label = `timeout-case-${++counter}`;
  const ns = await freshNamespace(server);
  invocations = [];
  if (mutating.length > 0) await registerMutating(server, webhook, label, mutating.map((w, j) => hookSpec(w, j, label)));
  if (validating.length > 0) await registerValidating(server, webhook, label, validating.map((w, j) => hookSpec(w, j, label)));
  try {
    const res = await api(server, 'POST', `/api/v1/namespaces/${ns}/pods?timeout=${timeoutSeconds}s`, pod(label));
    return { res, label };
  } finally {
    if (mutating.length > 0) await deleteMutating(server, label);
    if (validating.length > 0) await deleteValidating(server, label);
  }
}

describe('webhook timeouts within the request timeout (kube timeout_test.go)', () => {
  it('minimum of request timeout or webhook timeout propagated', async () => {
    const { res } = await runCase(
      10,
      [
        { path: '/mutating/1/0s', policy: 'Fail', timeoutSeconds: 20 },
        { path: '/mutating/2/0s', policy: 'Fail', timeoutSeconds: 5 },
      ],
      [
        { path: '/validating/3/0s', policy: 'Fail', timeoutSeconds: 20 },
        { path: '/validating/4/0s', policy: 'Fail', timeoutSeconds: 5 },
      ],
    );
    expect(res.status).toBe(201);
    expect(invocations).toEqual([
      { path: '/mutating/1/0s', timeoutSeconds: 10 }, // from request
      { path: '/mutating/2/0s', timeoutSeconds: 5 }, // from webhook config
      { path: '/validating/3/0s', timeoutSeconds: 10 }, // from request
      { path: '/validating/4/0s', timeoutSeconds: 5 }, // from webhook config
    ]);
  }, 30_000);

  it('webhooks consume client timeout available, not webhook timeout', async () => {
    const { res } = await runCase(
      10,
      [
        { path: '/mutating/1/1s', policy: 'Fail', timeoutSeconds: 20 },
        { path: '/mutating/2/1s', policy: 'Fail', timeoutSeconds: 5 },
        { path: '/mutating/3/1s', policy: 'Fail', timeoutSeconds: 20 },
      ],
      [
        { path: '/validating/4/1s', policy: 'Fail', timeoutSeconds: 5 },
        { path: '/validating/5/1s', policy: 'Fail', timeoutSeconds: 10 },
        { path: '/validating/6/1s', policy: 'Fail', timeoutSeconds: 20 },
      ],
    );
    expect(res.status).toBe(201);
    expect(invocations).toEqual([
      { path: '/mutating/1/1s', timeoutSeconds: 10 }, // from request
      { path: '/mutating/2/1s', timeoutSeconds: 5 }, // from webhook config (less than request - 1s consumed)
      { path: '/mutating/3/1s', timeoutSeconds: 8 }, // from request - 2s consumed
      { path: '/validating/4/1s', timeoutSeconds: 5 }, // from webhook config (less than request - 3s consumed by mutating)
      { path: '/validating/5/1s', timeoutSeconds: 7 }, // from request - 3s consumed by mutating
      { path: '/validating/6/1s', timeoutSeconds: 7 }, // from request - 3s consumed by mutating
    ]);
  }, 30_000);

  it('timed out client requests skip later mutating webhooks (regardless of failure policy) and fail', async () => {
    const { res } = await runCase(
      3,
      [
        { path: '/mutating/1/5s', policy: 'Ignore', timeoutSeconds: 4 },
        { path: '/mutating/2/1s', policy: 'Ignore', timeoutSeconds: 5 },
        { path: '/mutating/3/1s', policy: 'Ignore', timeoutSeconds: 5 },
      ],
      [],
    );
    // kube answers with FinishRequest's or the dispatcher's Timeout, whichever sees the deadline first
    expect(res.status).toBe(504);
    expect(res.json['reason']).toBe('Timeout');
    expect(res.json['message']).toMatch(/^Timeout: request did not complete within requested timeout( - context deadline exceeded)?$/);
    // the first webhook fails open once the deadline ended its call; the dispatcher stops there
    await eventually(async () => {
      const metrics = (await server.request('/metrics')).body;
      expect(metrics).toMatch(/apiserver_admission_webhook_fail_open_count\{[^}]*name="admission\.integration\.test\.0\.mutating-1-5s"[^}]*\} 1/);
    });
    expect(invocations).toEqual([{ path: '/mutating/1/5s', timeoutSeconds: 3 }]); // from request
  }, 30_000);

  it('a request without ?timeout= gives each webhook its own timeoutSeconds', async () => {
    const label = `timeout-case-${++counter}`;
    const ns = await freshNamespace(server);
    invocations = [];
    await registerValidating(server, webhook, label, [hookSpec({ path: '/validating/1/0s', policy: 'Fail', timeoutSeconds: 30 }, 0, label)]);
    try {
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/pods`, pod(label))).status).toBe(201);
    } finally {
      await deleteValidating(server, label);
    }
    // the write handlers' 34 s bound (requestTimeoutUpperBound) is above any timeoutSeconds kube allows (30)
    expect(invocations).toEqual([{ path: '/validating/1/0s', timeoutSeconds: 30 }]);
  }, 30_000);
});
