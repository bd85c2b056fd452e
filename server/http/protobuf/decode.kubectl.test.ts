// Real kubectl against a stub API server that answers discovery and records POST bodies. kubectl's typed
// client sends creates as application/vnd.kubernetes.protobuf (and never retries with JSON on a 415), so
// these bodies are what the server must decode. Each decoded body must equal the JSON kubectl itself renders
// for the same object (`--dry-run=client -o json` is json.Marshal of the same Go value).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { StatusError, toStatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { decodeKubernetesProtobuf } from './index.js';

const run = promisify(execFile);
// a self-signed certificate and key for `kubectl create secret tls`
const testdata = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testdata');

// kubectl is on every machine's PATH (the project's tests require it); a missing kubectl fails, it does not skip.
const kubectlPath = 'kubectl';

interface CapturedPost {
  url: string;
  contentType: string;
  body: Buffer;
}

const resource = (name: string, kind: string, namespaced: boolean, singularName: string) => ({
  name,
  singularName,
  namespaced,
  kind,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
});

// Just enough legacy discovery for kubectl to map the kinds it creates.
function discovery(port: number): Record<string, unknown> {
  return {
    '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }] },
    '/apis': {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: ['apps', 'batch', 'rbac.authorization.k8s.io', 'scheduling.k8s.io', 'policy', 'networking.k8s.io'].map((name) => ({
        name,
        versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
        preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
      })),
    },
    '/api/v1': {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        resource('namespaces', 'Namespace', false, 'namespace'),
        resource('configmaps', 'ConfigMap', true, 'configmap'),
        resource('secrets', 'Secret', true, 'secret'),
        resource('serviceaccounts', 'ServiceAccount', true, 'serviceaccount'),
        resource('services', 'Service', true, 'service'),
        resource('pods', 'Pod', true, 'pod'),
        resource('resourcequotas', 'ResourceQuota', true, 'resourcequota'),
      ],
    },
    '/apis/batch/v1': { kind: 'APIResourceList', groupVersion: 'batch/v1', resources: [resource('jobs', 'Job', true, 'job'), resource('cronjobs', 'CronJob', true, 'cronjob')] },
    '/apis/rbac.authorization.k8s.io/v1': {
      kind: 'APIResourceList',
      groupVersion: 'rbac.authorization.k8s.io/v1',
      resources: [
        resource('roles', 'Role', true, 'role'),
        resource('rolebindings', 'RoleBinding', true, 'rolebinding'),
        resource('clusterroles', 'ClusterRole', false, 'clusterrole'),
        resource('clusterrolebindings', 'ClusterRoleBinding', false, 'clusterrolebinding'),
      ],
    },
    '/apis/scheduling.k8s.io/v1': { kind: 'APIResourceList', groupVersion: 'scheduling.k8s.io/v1', resources: [resource('priorityclasses', 'PriorityClass', false, 'priorityclass')] },
    '/apis/policy/v1': { kind: 'APIResourceList', groupVersion: 'policy/v1', resources: [resource('poddisruptionbudgets', 'PodDisruptionBudget', true, 'poddisruptionbudget')] },
    '/apis/networking.k8s.io/v1': { kind: 'APIResourceList', groupVersion: 'networking.k8s.io/v1', resources: [resource('ingresses', 'Ingress', true, 'ingress')] },
    '/apis/apps/v1': { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [resource('deployments', 'Deployment', true, 'deployment')] },
  };
}

function sendJSON(res: http.ServerResponse, code: number, value: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

describe('kubectl create sends protobuf bodies this decoder reads', () => {
  const posts: CapturedPost[] = [];
  let server: http.Server;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://stub');
        const docs = discovery((server.address() as AddressInfo).port);
        if (req.method === 'GET' && url.pathname in docs) return sendJSON(res, 200, docs[url.pathname]);
        if (req.method === 'POST') {
          const post = { url: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) };
          posts.push(post);
          try {
            return sendJSON(res, 201, decodeKubernetesProtobuf(post.body));
          } catch (err) {
            const status = toStatusError(err).status;
            return sendJSON(res, status.code, status);
          }
        }
        sendJSON(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dir = await mkdtemp(path.join(tmpdir(), 'kah-protobuf-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    const { port } = server.address() as AddressInfo;
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: stub, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
        'users: [{name: stub, user: {}}]',
        'contexts: [{name: stub, context: {cluster: stub, user: stub, namespace: default}}]',
        'current-context: stub',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  async function kubectl(args: string[]): Promise<string> {
    const { stdout } = await run(kubectlPath, [...args, '--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache')], {
      env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig },
      timeout: 30_000,
    });
    return stdout;
  }

  /** Runs `kubectl create <args>` for real and returns the decoded POST body and kubectl's own JSON for it. */
  async function create(args: string[]): Promise<{ post: CapturedPost; decoded: KubeObject; rendered: KubeObject }> {
    const before = posts.length;
    await kubectl(['create', ...args]);
    expect(posts.length).toBe(before + 1);
    const post = posts[posts.length - 1]!;
    expect(post.contentType).toBe('application/vnd.kubernetes.protobuf');
    const rendered = JSON.parse(await kubectl(['create', ...args, '--dry-run=client', '-o', 'json'])) as KubeObject;
    let decoded: KubeObject;
    try {
      decoded = decodeKubernetesProtobuf(post.body);
    } catch (err) {
      throw err instanceof StatusError ? new Error(`decoding ${post.url} failed: ${err.status.message}`) : err;
    }
    return { post, decoded, rendered };
  }

  it('decodes kubectl create namespace', async () => {
    const { post, decoded, rendered } = await create(['namespace', 'x']);
    expect(post.url).toMatch(/^\/api\/v1\/namespaces\?/);
    expect(decoded).toEqual(rendered);
    expect(decoded).toEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'x', creationTimestamp: null }, spec: {}, status: {} });
  });

  it('decodes kubectl create configmap --from-literal', async () => {
    const { post, decoded, rendered } = await create(['configmap', 'c', '--from-literal=a=b']);
    expect(post.url).toMatch(/^\/api\/v1\/namespaces\/default\/configmaps\?/);
    expect(decoded).toEqual(rendered);
    expect(decoded).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { a: 'b' } });
  });

  it('decodes kubectl create secret generic with its data base64-encoded', async () => {
    const { post, decoded, rendered } = await create(['secret', 'generic', 's', '--from-literal=k=v']);
    expect(post.url).toMatch(/^\/api\/v1\/namespaces\/default\/secrets\?/);
    expect(decoded).toEqual(rendered);
    expect(decoded).toMatchObject({ kind: 'Secret', metadata: { name: 's' }, data: { k: Buffer.from('v').toString('base64') } });
  });

  it('decodes kubectl create serviceaccount', async () => {
    const { post, decoded, rendered } = await create(['serviceaccount', 'sa']);
    expect(post.url).toMatch(/^\/api\/v1\/namespaces\/default\/serviceaccounts\?/);
    expect(decoded).toEqual(rendered);
    expect(decoded).toEqual({ kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'sa', creationTimestamp: null } });
  });

  it('decodes kubectl create deployment with replicas, image and container port', async () => {
    const { post, decoded, rendered } = await create(['deployment', 'web', '--image=nginx', '--replicas=2', '--port=80']);
    expect(post.url).toMatch(/^\/apis\/apps\/v1\/namespaces\/default\/deployments\?/);
    expect(decoded).toEqual(rendered);
    expect(decoded).toMatchObject({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] } },
      },
    });
  });

  it('decodes kubectl create service clusterip with its numeric targetPort', async () => {
    const { post, decoded, rendered } = await create(['service', 'clusterip', 'svc', '--tcp=80:8080']);
    expect(post.url).toMatch(/^\/api\/v1\/namespaces\/default\/services\?/);
    expect(decoded).toEqual(rendered);
    expect(decoded).toMatchObject({
      kind: 'Service',
      metadata: { name: 'svc', labels: { app: 'svc' } },
      spec: { type: 'ClusterIP', selector: { app: 'svc' }, ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }] },
    });
  });

  // Every other `kubectl create` generator: the body decodes into the JSON kubectl renders for the same object.
  it.each([
    ['job', 'j', '--image=busybox'],
    ['cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *'],
    ['role', 'r', '--verb=get,list', '--resource=pods', '--resource-name=a'],
    ['clusterrole', 'cr', '--verb=get', '--non-resource-url=/healthz'],
    ['clusterrole', 'agg', '--aggregation-rule=rbac.example.com/aggregate=true'],
    ['rolebinding', 'rb', '--role=r', '--user=alice', '--serviceaccount=default:sa'],
    ['clusterrolebinding', 'crb', '--clusterrole=cr', '--group=devs'],
    ['quota', 'q', '--hard=cpu=1,memory=1Gi,pods=10', '--scopes=BestEffort'],
    ['priorityclass', 'pc', '--value=1000', '--description=high', '--preemption-policy=Never'],
    ['poddisruptionbudget', 'pdb', '--selector=app=x', '--min-available=50%'],
    ['ingress', 'ing', '--rule=foo.com/bar*=svc:8080,tls=cert', '--annotation=a=b'],
    ['secret', 'docker-registry', 'reg', '--docker-server=r.io', '--docker-username=u', '--docker-password=p'],
    ['secret', 'tls', 'tls', `--cert=${path.join(testdata, 'tls.crt')}`, `--key=${path.join(testdata, 'tls.key')}`],
  ])('decodes kubectl create %s %s', async (...args: string[]) => {
    const { decoded, rendered } = await create(args);
    expect(decoded).toEqual(rendered);
  });
});
