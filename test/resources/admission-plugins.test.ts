// The default admission plugins that change objects in a real cluster, through the real server: ServiceAccount
// (with the `default` service account and kube-root-ca.crt ConfigMap kube's controllers put in every namespace),
// DefaultTolerationSeconds, Priority, LimitRanger and ResourceQuota, with kube's texts; mutating webhooks see the
// pod as these plugins left it; --disable-admission-plugins turns them off.
import { useApiServer, useWebhookServer } from '../../harness/jest.js';
import { allow, type ReceivedReview } from '../../harness/webhook-server.js';
import { api, registerMutating } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';

const storage = (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory';
const env = useApiServer({ storage });
const bare = useApiServer({
  storage: 'memory',
  flags: ['--disable-admission-plugins=ServiceAccount,DefaultTolerationSeconds,Priority,LimitRanger,ResourceQuota,DefaultStorageClass'],
});
const reviews: ReceivedReview[] = [];
const hooks = useWebhookServer({
  handler: (r) => {
    reviews.push(r);
    return allow();
  },
});

interface Pod {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    serviceAccountName?: string;
    serviceAccount?: string;
    priority?: number;
    priorityClassName?: string;
    tolerations?: Array<Record<string, unknown>>;
    volumes?: Array<{ name: string; projected?: unknown }>;
    containers: Array<{ name: string; volumeMounts?: Array<Record<string, unknown>>; resources?: Record<string, Record<string, string>> }>;
    initContainers?: Array<{ name: string; volumeMounts?: Array<Record<string, unknown>> }>;
  };
}

let nsCounter = 0;
async function namespace(server = env.server): Promise<string> {
  const name = `plugins-${++nsCounter}`;
  const r = await kubectl(server.kubeconfigPath, ['create', 'namespace', name]);
  if (r.code !== 0) throw new Error(r.stderr);
  return name;
}

const pod = (name: string, extra: Record<string, unknown> = {}, container: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx', ...container }], ...extra },
});
const createPod = (ns: string, body: unknown, server = env.server) => api(server, 'POST', `/api/v1/namespaces/${ns}/pods`, body);

const tokenVolume = {
  defaultMode: 420,
  sources: [
    { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
    { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
  ],
};
const defaultTolerations = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

describe('a pod created with kubectl in a fresh namespace', () => {
  it('gets the default service account, the token volume and mounts, the two tolerations and priority 0', async () => {
    const ns = await namespace();
    const run = await kubectl(env.server.kubeconfigPath, ['run', 'web', '--image=nginx', '-n', ns]);
    expect(run.stderr).toBe('');
    const got = await kubectl(env.server.kubeconfigPath, ['get', 'pod', 'web', '-n', ns, '-o', 'json']);
    const p = JSON.parse(got.stdout) as Pod;
    expect([p.spec.serviceAccountName, p.spec.serviceAccount]).toEqual(['default', 'default']);
    expect(p.spec.volumes).toHaveLength(1);
    const volume = p.spec.volumes![0]!;
    expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume.projected).toEqual(tokenVolume);
    expect(p.spec.containers[0]!.volumeMounts).toEqual([{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    expect(p.spec.tolerations).toEqual(defaultTolerations);
    expect(p.spec.priority).toBe(0);
    expect(p.spec.priorityClassName).toBeUndefined();
  });

  it('finds the default service account and kube-root-ca.crt in the namespace, as kube-controller-manager creates them', async () => {
    const ns = await namespace();
    await eventually(async () => {
      expect((await api(env.server, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status).toBe(200);
    });
    const cm = await eventually(async () => {
      const r = await api(env.server, 'GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
      expect(r.status).toBe(200);
      return r.json as { data: Record<string, string> };
    });
    expect(cm.data['ca.crt']).toBe(env.server.caPem);
    // the system namespaces got theirs at startup
    for (const system of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await eventually(async () => expect((await api(env.server, 'GET', `/api/v1/namespaces/${system}/serviceaccounts/default`)).status).toBe(200));
      await eventually(async () => expect((await api(env.server, 'GET', `/api/v1/namespaces/${system}/configmaps/kube-root-ca.crt`)).status).toBe(200));
    }
    // deleted: created again, as the controllers do
    expect((await api(env.server, 'DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status).toBe(200);
    await eventually(async () => expect((await api(env.server, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status).toBe(200));
  });

  it('mounts the token into init containers too, and not when automountServiceAccountToken is false on the pod or its service account', async () => {
    const ns = await namespace();
    const withInit = await createPod(ns, pod('init', { initContainers: [{ name: 'i', image: 'busybox' }] }));
    expect(withInit.status).toBe(201);
    const spec = (withInit.json as unknown as Pod).spec;
    expect(spec.initContainers![0]!.volumeMounts).toEqual([{ name: spec.volumes![0]!.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    const off = await createPod(ns, pod('off', { automountServiceAccountToken: false }));
    expect(off.status).toBe(201);
    expect((off.json as unknown as Pod).spec.volumes).toBeUndefined();
    expect((await api(env.server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'quiet' }, automountServiceAccountToken: false })).status).toBe(201);
    const quiet = await createPod(ns, pod('quiet', { serviceAccountName: 'quiet' }));
    expect(quiet.status).toBe(201);
    expect((quiet.json as unknown as Pod).spec.volumes).toBeUndefined();
  });

  it('is rejected with kube\'s text when its service account does not exist', async () => {
    const ns = await namespace();
    const r = await createPod(ns, pod('ghostly', { serviceAccountName: 'ghost' }));
    expect(r.status).toBe(403);
    expect(r.json['message']).toBe(`pods "ghostly" is forbidden: error looking up service account ${ns}/ghost: serviceaccount "ghost" not found`);
  });
});

describe('Priority on pods', () => {
  it('resolves priorityClassName, rejects unknown classes and a priority that does not match', async () => {
    const ns = await namespace();
    const critical = await createPod(ns, pod('critical', { priorityClassName: 'system-cluster-critical' }));
    expect(critical.status).toBe(201);
    expect((critical.json as { spec: Record<string, unknown> }).spec['priority']).toBe(2000000000);
    expect((critical.json as { spec: Record<string, unknown> }).spec['preemptionPolicy']).toBe('PreemptLowerPriority');
    const unknown = await createPod(ns, pod('unknown', { priorityClassName: 'nope' }));
    expect([unknown.status, unknown.json['message']]).toEqual([403, 'pods "unknown" is forbidden: no PriorityClass with name nope was found']);
    const mismatch = await createPod(ns, pod('mismatch', { priority: 7 }));
    expect([mismatch.status, mismatch.json['message']]).toEqual([
      403,
      'pods "mismatch" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    ]);
  });
});

describe('LimitRanger', () => {
  it('fills container defaults from the namespace\'s LimitRange and records them in kubernetes.io/limit-ranger', async () => {
    const ns = await namespace();
    const lr = await api(env.server, 'POST', `/api/v1/namespaces/${ns}/limitranges`, {
      metadata: { name: 'defaults' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '100m', memory: '64Mi' } }] },
    });
    expect(lr.status).toBe(201);
    const r = await createPod(ns, pod('limited', {}, { resources: { limits: { memory: '256Mi' } } }));
    expect(r.status).toBe(201);
    const p = r.json as unknown as Pod;
    expect(p.spec.containers[0]!.resources).toEqual({ limits: { memory: '256Mi', cpu: '500m' }, requests: { memory: '256Mi', cpu: '100m' } });
    expect(p.metadata.annotations?.['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu request for container c; cpu limit for container c');
  });

  it('rejects containers outside min and max with kube\'s texts', async () => {
    const ns = await namespace();
    const lr = await api(env.server, 'POST', `/api/v1/namespaces/${ns}/limitranges`, {
      metadata: { name: 'bounds' },
      spec: { limits: [{ type: 'Container', min: { cpu: '200m' }, max: { memory: '1Gi' } }] },
    });
    expect(lr.status).toBe(201);
    const small = await createPod(ns, pod('small', {}, { resources: { requests: { cpu: '100m' }, limits: { memory: '512Mi' } } }));
    expect([small.status, small.json['message']]).toEqual([403, 'pods "small" is forbidden: minimum cpu usage per Container is 200m, but request is 100m']);
    const big = await createPod(ns, pod('big', {}, { resources: { requests: { cpu: '300m' }, limits: { memory: '2Gi' } } }));
    expect([big.status, big.json['message']]).toEqual([403, 'pods "big" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi']);
  });
});

describe('ResourceQuota', () => {
  it('rejects the pod over a count quota with kube\'s text and keeps status.used', async () => {
    const ns = await namespace();
    const q = await kubectl(env.server.kubeconfigPath, ['create', 'quota', 'q', '--hard=pods=2', '-n', ns]);
    expect(q.stderr).toBe('');
    for (const name of ['p1', 'p2']) expect((await createPod(ns, pod(name))).status).toBe(201);
    const third = await kubectl(env.server.kubeconfigPath, ['run', 'p3', '--image=nginx', '-n', ns]);
    expect(third.stderr.trim()).toBe('Error from server (Forbidden): pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
    await eventually(async () => {
      const status = ((await api(env.server, 'GET', `/api/v1/namespaces/${ns}/resourcequotas/q`)).json as { status?: unknown }).status;
      expect(status).toEqual({ hard: { pods: '2' }, used: { pods: '2' } });
    });
    expect((await api(env.server, 'DELETE', `/api/v1/namespaces/${ns}/pods/p1`)).status).toBe(200);
    await eventually(async () => {
      const status = ((await api(env.server, 'GET', `/api/v1/namespaces/${ns}/resourcequotas/q`)).json as { status?: unknown }).status;
      expect(status).toEqual({ hard: { pods: '2' }, used: { pods: '1' } });
    });
    expect((await createPod(ns, pod('p3'))).status).toBe(201);
  });

  it('counts configmaps (kube-root-ca.crt included) and sums pod compute requests', async () => {
    const ns = await namespace();
    await eventually(async () => expect((await api(env.server, 'GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status).toBe(200));
    const quota = await api(env.server, 'POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
      metadata: { name: 'compute' },
      spec: { hard: { configmaps: '2', 'requests.cpu': '1', 'limits.memory': '1Gi' } },
    });
    expect(quota.status).toBe(201);
    expect((await api(env.server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'one' } })).status).toBe(201);
    const two = await api(env.server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'two' } });
    expect([two.status, two.json['message']]).toEqual([403, 'configmaps "two" is forbidden: exceeded quota: compute, requested: configmaps=1, used: configmaps=2, limited: configmaps=2']);
    const bare = await createPod(ns, pod('bare'));
    expect([bare.status, bare.json['message']]).toEqual([403, 'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c']);
    const sized = (name: string, cpu: string) => pod(name, {}, { resources: { requests: { cpu }, limits: { memory: '512Mi' } } });
    expect((await createPod(ns, sized('a', '600m'))).status).toBe(201);
    const b = await createPod(ns, sized('b', '600m'));
    expect([b.status, b.json['message']]).toEqual([403, 'pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1']);
    await eventually(async () => {
      const status = ((await api(env.server, 'GET', `/api/v1/namespaces/${ns}/resourcequotas/compute`)).json as { status?: { used?: unknown } }).status;
      expect(status?.used).toEqual({ configmaps: '2', 'requests.cpu': '600m', 'limits.memory': '512Mi' });
    });
  });
});

describe('mutating webhooks', () => {
  it('see the pod after the built-in plugins changed it', async () => {
    const ns = await namespace();
    await registerMutating(env.server, hooks.server, 'plugins-order', [{ name: 'pods.plugins.example.com', path: '/pods', resources: ['pods'], operations: ['CREATE'] }]);
    try {
      reviews.length = 0;
      expect((await createPod(ns, pod('seen'))).status).toBe(201);
      const review = reviews.find((r) => r.request.name === 'seen' && r.request.namespace === ns);
      const seen = review?.request.object as unknown as Pod;
      expect(seen.spec.serviceAccountName).toBe('default');
      expect(seen.spec.tolerations).toEqual(defaultTolerations);
      expect(seen.spec.priority).toBe(0);
      expect(seen.spec.volumes?.[0]?.name).toMatch(/^kube-api-access-/);
    } finally {
      await api(env.server, 'DELETE', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/plugins-order');
    }
  });
});

describe('--disable-admission-plugins', () => {
  it('turns each plugin off', async () => {
    const ns = await namespace(bare.server);
    expect((await api(bare.server, 'POST', `/api/v1/namespaces/${ns}/limitranges`, { metadata: { name: 'd' }, spec: { limits: [{ type: 'Container', default: { cpu: '1' } }] } })).status).toBe(201);
    expect((await api(bare.server, 'POST', `/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name: 'q' }, spec: { hard: { pods: '0' } } })).status).toBe(201);
    const r = await createPod(ns, pod('plain', { serviceAccountName: 'ghost', priorityClassName: 'nope' }), bare.server);
    expect(r.status).toBe(201);
    const p = r.json as unknown as Pod;
    expect(p.spec.volumes).toBeUndefined();
    expect(p.spec.tolerations).toBeUndefined();
    expect(p.spec.priority).toBeUndefined();
    expect(p.spec.containers[0]!.resources).toEqual({});
    expect(p.metadata.annotations).toBeUndefined();
  });
});
