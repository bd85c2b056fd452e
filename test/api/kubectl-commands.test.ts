// The kubectl 1.32 commands a webhook author uses, as a table run against memory and etcd storage: each row runs
// the real kubectl, expects what kube-apiserver would make it print (exit 0 and an empty stderr, unless the row says
// otherwise: `kubectl diff` exits 1 when it finds differences) and then checks the effect on the server.
//
// Left out because the server does not serve what they need: `rollout history`/`rollout undo`/`rollout status` and
// `describe deployment` (replicasets), `create job`/`cronjob` (batch), `create role`/`rolebinding`/`clusterrole`/
// `clusterrolebinding` (rbac.authorization.k8s.io), `create quota`/`priorityclass`/`poddisruptionbudget`/`ingress`
// (their groups), `create token` (serviceaccounts/token), `logs`/`exec`/`port-forward`/`top` (no kubelet).
import { join } from 'node:path';
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import { useApiServer } from '../../harness/jest.js';
import type { OwnerReference } from '../../server/api/types.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { kubectl, type KubectlResult } from '../support/kubectl.js';

interface Obj {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: OwnerReference[]; managedFields?: Array<{ manager: string; operation: string }> };
  [k: string]: unknown;
}

interface Ctx {
  server: ApiServerHandle;
  ns: string;
  k(args: string[], input?: string): Promise<KubectlResult>;
  get(path: string): Promise<Obj | undefined>;
  create(path: string, body: Record<string, unknown>): Promise<Obj>;
  gone(path: string): Promise<void>;
}

interface Row {
  /** the kubectl command line, as a user types it (NS stands for the row's namespace) */
  name: string;
  /** objects the command works on, made through the API first */
  setup?(c: Ctx): Promise<void>;
  args(c: Ctx): string[];
  stdin?(c: Ctx): string;
  /** what happens on the server while kubectl runs */
  during?(c: Ctx): Promise<void>;
  /** kube's exit code for the command (0 unless said) and its stderr ('' unless said) */
  exitCode?: number;
  stderr?: string;
  /** the effect on the server, and what kubectl printed */
  check(c: Ctx, r: KubectlResult): Promise<void>;
}

/** How many LIST requests of configmaps the server answered (apiserver_request_total). */
async function configMapLists(c: Ctx): Promise<number> {
  const metrics = (await c.server.request('/metrics')).body;
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="LIST"') && l.includes('resource="configmaps"'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

const at = (obj: unknown, ...path: (string | number)[]): unknown => path.reduce<unknown>((o, p) => (o as Record<string | number, unknown> | undefined)?.[p], obj);
const decode = (b64: unknown) => Buffer.from(String(b64), 'base64').toString();

const deploymentBody = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.0' }] } } },
});
const configMapYaml = (ns: string, name: string, value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
data:
  mode: ${value}
`;

/** An owner configmap with three dependents (a configmap, a secret, a pod) that name it in their ownerReferences. */
async function ownerWithDependents(c: Ctx, owner: string, block = false): Promise<void> {
  const o = await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: owner } });
  const ref = [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: o.metadata.uid, ...(block ? { blockOwnerDeletion: true } : {}) }];
  await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: `${owner}-cm`, ownerReferences: ref } });
  await c.create(`/api/v1/namespaces/${c.ns}/secrets`, { metadata: { name: `${owner}-secret`, ownerReferences: ref } });
  await c.create(`/api/v1/namespaces/${c.ns}/pods`, { metadata: { name: `${owner}-pod`, ownerReferences: ref }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
}
const dependentPaths = (c: Ctx, owner: string) => [`/api/v1/namespaces/${c.ns}/configmaps/${owner}-cm`, `/api/v1/namespaces/${c.ns}/secrets/${owner}-secret`, `/api/v1/namespaces/${c.ns}/pods/${owner}-pod`];

const rows: Row[] = [
  // ---- auth ----
  {
    name: 'auth can-i create configmaps -n NS',
    args: (c) => ['auth', 'can-i', 'create', 'configmaps', '-n', c.ns],
    check: async (_c, r) => expect(r.stdout).toBe('yes\n'),
  },
  {
    name: 'auth can-i delete deployments.apps --as=jane -n NS',
    args: (c) => ['auth', 'can-i', 'delete', 'deployments.apps', '--as=jane', '-n', c.ns],
    // the default authorizer allows everyone; jane is impersonated by the admin (system:masters may impersonate)
    check: async (_c, r) => expect(r.stdout).toBe('yes\n'),
  },
  {
    name: 'auth can-i --list -n NS',
    args: (c) => ['auth', 'can-i', '--list', '-n', c.ns],
    check: async (_c, r) => expect(r.stdout).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/),
  },
  {
    name: 'auth whoami -o json',
    args: () => ['auth', 'whoami', '-o', 'json'],
    check: async (_c, r) => {
      const review = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(review).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', status: { userInfo: { username: 'kubernetes-admin' } } });
      expect(at(review, 'status', 'userInfo', 'groups')).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
    },
  },
  {
    name: 'auth whoami --as=jane --as-group=devs',
    args: () => ['auth', 'whoami', '--as=jane', '--as-group=devs'],
    check: async (_c, r) => {
      expect(r.stdout).toMatch(/Username\s+jane/);
      expect(r.stdout).toMatch(/Groups\s+\[devs system:authenticated\]/);
    },
  },
  // ---- create generators ----
  {
    name: 'create namespace',
    args: (c) => ['create', 'namespace', `${c.ns}-extra`],
    check: async (c, r) => {
      expect(r.stdout).toBe(`namespace/${c.ns}-extra created\n`);
      expect(await c.get(`/api/v1/namespaces/${c.ns}-extra`)).toBeDefined();
    },
  },
  {
    name: 'create configmap --from-literal',
    args: (c) => ['create', 'configmap', 'literal', '-n', c.ns, '--from-literal=a=b', '--from-literal=c=d'],
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap/literal created\n');
      expect((await c.get(`/api/v1/namespaces/${c.ns}/configmaps/literal`))?.['data']).toEqual({ a: 'b', c: 'd' });
    },
  },
  {
    name: 'create secret generic --from-literal',
    args: (c) => ['create', 'secret', 'generic', 'generic', '-n', c.ns, '--from-literal=password=s3cret'],
    check: async (c, r) => {
      expect(r.stdout).toBe('secret/generic created\n');
      const s = await c.get(`/api/v1/namespaces/${c.ns}/secrets/generic`);
      expect(s?.['type']).toBe('Opaque');
      expect(decode(at(s, 'data', 'password'))).toBe('s3cret');
    },
  },
  {
    name: 'create secret tls --cert --key',
    args: (c) => ['create', 'secret', 'tls', 'tls', '-n', c.ns, `--cert=${join(c.server.certDir, 'apiserver.crt')}`, `--key=${join(c.server.certDir, 'apiserver.key')}`],
    check: async (c, r) => {
      expect(r.stdout).toBe('secret/tls created\n');
      const s = await c.get(`/api/v1/namespaces/${c.ns}/secrets/tls`);
      expect(s?.['type']).toBe('kubernetes.io/tls');
      expect(decode(at(s, 'data', 'tls.crt'))).toContain('BEGIN CERTIFICATE');
    },
  },
  {
    name: 'create secret docker-registry',
    args: (c) => ['create', 'secret', 'docker-registry', 'pull', '-n', c.ns, '--docker-server=registry.example.com', '--docker-username=u', '--docker-password=p'],
    check: async (c, r) => {
      expect(r.stdout).toBe('secret/pull created\n');
      const s = await c.get(`/api/v1/namespaces/${c.ns}/secrets/pull`);
      expect(s?.['type']).toBe('kubernetes.io/dockerconfigjson');
      expect(JSON.parse(decode(at(s, 'data', '.dockerconfigjson')))).toMatchObject({ auths: { 'registry.example.com': { username: 'u', password: 'p' } } });
    },
  },
  {
    name: 'create deployment --image --replicas --port',
    args: (c) => ['create', 'deployment', 'gen', '-n', c.ns, '--image=nginx', '--replicas=2', '--port=80'],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps/gen created\n');
      const d = await c.get(`/apis/apps/v1/namespaces/${c.ns}/deployments/gen`);
      expect(at(d, 'spec', 'replicas')).toBe(2);
      expect(at(d, 'spec', 'template', 'spec', 'containers', 0)).toMatchObject({ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] });
    },
  },
  ...(
    [
      ['clusterip', ['--tcp=80:8080'], 'ClusterIP'],
      ['nodeport', ['--tcp=80:8080'], 'NodePort'],
      ['loadbalancer', ['--tcp=80:8080'], 'LoadBalancer'],
      ['externalname', ['--external-name=db.example.com'], 'ExternalName'],
    ] as const
  ).map(
    ([type, flags, kubeType]): Row => ({
      name: `create service ${type}`,
      args: (c) => ['create', 'service', type, `svc-${type}`, '-n', c.ns, ...flags],
      check: async (c, r) => {
        expect(r.stdout).toBe(`service/svc-${type} created\n`);
        const s = await c.get(`/api/v1/namespaces/${c.ns}/services/svc-${type}`);
        expect(at(s, 'spec', 'type')).toBe(kubeType);
        if (type === 'externalname') expect(at(s, 'spec', 'externalName')).toBe('db.example.com');
        else expect(at(s, 'spec', 'ports', 0)).toMatchObject({ port: 80, targetPort: 8080, protocol: 'TCP' });
      },
    }),
  ),
  {
    name: 'create serviceaccount',
    args: (c) => ['create', 'serviceaccount', 'robot', '-n', c.ns],
    check: async (c, r) => {
      expect(r.stdout).toBe('serviceaccount/robot created\n');
      expect(await c.get(`/api/v1/namespaces/${c.ns}/serviceaccounts/robot`)).toBeDefined();
    },
  },
  // ---- run, expose, set ----
  {
    name: 'run --image --labels --env',
    args: (c) => ['run', 'runner', '-n', c.ns, '--image=busybox', '--labels=app=runner', '--env=A=1', '--', 'sleep', '3600'],
    check: async (c, r) => {
      expect(r.stdout).toBe('pod/runner created\n');
      const p = await c.get(`/api/v1/namespaces/${c.ns}/pods/runner`);
      expect(at(p, 'spec', 'containers', 0)).toMatchObject({ name: 'runner', image: 'busybox', args: ['sleep', '3600'], env: [{ name: 'A', value: '1' }] });
      expect(p?.metadata.labels).toEqual({ app: 'runner' });
    },
  },
  {
    name: 'expose deployment --port --target-port',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('exposed'))),
    args: (c) => ['expose', 'deployment', 'exposed', '-n', c.ns, '--port=80', '--target-port=8080'],
    check: async (c, r) => {
      expect(r.stdout).toBe('service/exposed exposed\n');
      const s = await c.get(`/api/v1/namespaces/${c.ns}/services/exposed`);
      expect(at(s, 'spec', 'selector')).toEqual({ app: 'exposed' });
      expect(at(s, 'spec', 'ports', 0)).toMatchObject({ port: 80, targetPort: 8080 });
    },
  },
  {
    name: 'expose pod --port --name',
    setup: async (c) => void (await c.create(`/api/v1/namespaces/${c.ns}/pods`, { metadata: { name: 'lonely', labels: { app: 'lonely' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })),
    args: (c) => ['expose', 'pod', 'lonely', '-n', c.ns, '--port=443', '--name=lonely-svc'],
    check: async (c, r) => {
      expect(r.stdout).toBe('service/lonely-svc exposed\n');
      expect(at(await c.get(`/api/v1/namespaces/${c.ns}/services/lonely-svc`), 'spec', 'selector')).toEqual({ app: 'lonely' });
    },
  },
  {
    name: 'set image deployment/NAME web=nginx:1.2',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('imaged'))),
    args: (c) => ['set', 'image', 'deployment/imaged', '-n', c.ns, 'web=nginx:1.2'],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps/imaged image updated\n');
      expect(at(await c.get(`/apis/apps/v1/namespaces/${c.ns}/deployments/imaged`), 'spec', 'template', 'spec', 'containers', 0, 'image')).toBe('nginx:1.2');
    },
  },
  {
    name: 'set env deployment/NAME FOO=bar',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('enved'))),
    args: (c) => ['set', 'env', 'deployment/enved', '-n', c.ns, 'FOO=bar'],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps/enved env updated\n');
      expect(at(await c.get(`/apis/apps/v1/namespaces/${c.ns}/deployments/enved`), 'spec', 'template', 'spec', 'containers', 0, 'env')).toEqual([{ name: 'FOO', value: 'bar' }]);
    },
  },
  {
    name: 'set resources deployment/NAME --limits --requests',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('sized'))),
    args: (c) => ['set', 'resources', 'deployment/sized', '-n', c.ns, '--limits=cpu=200m,memory=512Mi', '--requests=cpu=100m'],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps/sized resource requirements updated\n');
      expect(at(await c.get(`/apis/apps/v1/namespaces/${c.ns}/deployments/sized`), 'spec', 'template', 'spec', 'containers', 0, 'resources')).toEqual({ limits: { cpu: '200m', memory: '512Mi' }, requests: { cpu: '100m' } });
    },
  },
  {
    name: 'scale deployment --replicas',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('scaled'))),
    args: (c) => ['scale', 'deployment', 'scaled', '-n', c.ns, '--replicas=4'],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps/scaled scaled\n');
      expect(at(await c.get(`/apis/apps/v1/namespaces/${c.ns}/deployments/scaled`), 'spec', 'replicas')).toBe(4);
    },
  },
  {
    name: 'rollout restart deployment/NAME',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('restarted'))),
    args: (c) => ['rollout', 'restart', 'deployment/restarted', '-n', c.ns],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps/restarted restarted\n');
      expect(at(await c.get(`/apis/apps/v1/namespaces/${c.ns}/deployments/restarted`), 'spec', 'template', 'metadata', 'annotations', 'kubectl.kubernetes.io/restartedAt')).toEqual(expect.any(String));
    },
  },
  {
    name: 'rollout pause deployment/NAME',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('paused'))),
    args: (c) => ['rollout', 'pause', 'deployment/paused', '-n', c.ns],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps/paused paused\n');
      expect(at(await c.get(`/apis/apps/v1/namespaces/${c.ns}/deployments/paused`), 'spec', 'paused')).toBe(true);
    },
  },
  {
    name: 'label and annotate',
    setup: async (c) => void (await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: 'tagged' } })),
    args: (c) => ['label', 'configmap', 'tagged', '-n', c.ns, 'tier=gold'],
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap/tagged labeled\n');
      const a = await c.k(['annotate', 'configmap', 'tagged', '-n', c.ns, 'note=hi']);
      expect(a).toMatchObject({ code: 0, stderr: '', stdout: 'configmap/tagged annotated\n' });
      const cm = await c.get(`/api/v1/namespaces/${c.ns}/configmaps/tagged`);
      expect(cm?.metadata.labels).toEqual({ tier: 'gold' });
      expect(cm?.metadata.annotations).toEqual({ note: 'hi' });
    },
  },
  // ---- explain ----
  {
    name: 'explain deployment.spec.template.spec.containers.resources',
    args: () => ['explain', 'deployment.spec.template.spec.containers.resources'],
    check: async (_c, r) => {
      expect(r.stdout).toMatch(/^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/);
      expect(r.stdout).toMatch(/FIELD: resources <ResourceRequirements>/);
      expect(r.stdout).toMatch(/\n {2}limits\t<map\[string\]Quantity>/);
    },
  },
  {
    name: 'explain pods.spec.containers.livenessProbe.httpGet --recursive',
    args: () => ['explain', 'pods.spec.containers.livenessProbe.httpGet', '--recursive'],
    check: async (_c, r) => {
      expect(r.stdout).toMatch(/FIELD: httpGet <HTTPGetAction>/);
      expect(r.stdout).toMatch(/\n {2}httpHeaders\t<\[\]HTTPHeader>\n {4}name\t<string> -required-\n/);
    },
  },
  {
    name: 'explain configmap.data',
    args: () => ['explain', 'configmap.data'],
    check: async (_c, r) => expect(r.stdout).toMatch(/^KIND:\s+ConfigMap\nVERSION:\s+v1\n\nFIELD: data <map\[string\]string>/),
  },
  // ---- wait, diff, apply --server-side, replace --force ----
  {
    name: "wait --for=jsonpath='{.data.mode}'=ready (set by another writer meanwhile)",
    setup: async (c) => void (await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: 'waited' }, data: { mode: 'starting' } })),
    args: (c) => ['wait', '--for=jsonpath={.data.mode}=ready', 'configmap/waited', '-n', c.ns, '--timeout=60s'],
    // kubectl prints the same whether the change lands before its first read or while it watches
    during: async (c) => void (await api(c.server, 'PATCH', `/api/v1/namespaces/${c.ns}/configmaps/waited`, { data: { mode: 'ready' } }, 'application/merge-patch+json')),
    check: async (_c, r) => expect(r.stdout).toBe('configmap/waited condition met\n'),
  },
  {
    name: 'wait --for=delete (the last finalizer goes while kubectl waits)',
    setup: async (c) => {
      await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: 'awaited', finalizers: ['example.com/hold'] } });
      await api(c.server, 'DELETE', `/api/v1/namespaces/${c.ns}/configmaps/awaited`);
    },
    args: (c) => ['wait', '--for=delete', 'configmap/awaited', '-n', c.ns, '--timeout=60s'],
    during: async (c) => {
      // kubectl's informer lists, then watches from the list's resourceVersion: once its LIST is answered, the
      // deletion cannot be missed (before it, kubectl would find nothing to wait for and print nothing)
      const before = await configMapLists(c);
      await eventually(async () => expect(await configMapLists(c)).toBeGreaterThan(before), 30_000);
      await api(c.server, 'PATCH', `/api/v1/namespaces/${c.ns}/configmaps/awaited`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    },
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap/awaited condition met\n');
      expect(await c.get(`/api/v1/namespaces/${c.ns}/configmaps/awaited`)).toBeUndefined();
    },
  },
  {
    name: 'diff -f - (no change: exit 0, nothing printed)',
    setup: async (c) => void (await c.k(['apply', '-f', '-'], configMapYaml(c.ns, 'diffed', 'blue'))),
    args: () => ['diff', '-f', '-'],
    stdin: (c) => configMapYaml(c.ns, 'diffed', 'blue'),
    check: async (_c, r) => expect(r.stdout).toBe(''),
  },
  {
    name: 'diff -f - (a change: exit 1, the unified diff, nothing written)',
    setup: async (c) => void (await c.k(['apply', '-f', '-'], configMapYaml(c.ns, 'diffed2', 'blue'))),
    args: () => ['diff', '-f', '-'],
    stdin: (c) => configMapYaml(c.ns, 'diffed2', 'green'),
    exitCode: 1,
    check: async (c, r) => {
      expect(r.stdout).toMatch(/\n- {2}mode: blue\n\+ {2}mode: green\n/);
      expect((await c.get(`/api/v1/namespaces/${c.ns}/configmaps/diffed2`))?.['data']).toEqual({ mode: 'blue' });
    },
  },
  {
    name: 'apply --server-side -f - (create, then change)',
    args: () => ['apply', '--server-side', '-f', '-'],
    stdin: (c) => configMapYaml(c.ns, 'ssa', 'blue'),
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap/ssa serverside-applied\n');
      const again = await c.k(['apply', '--server-side', '-f', '-'], configMapYaml(c.ns, 'ssa', 'green'));
      expect(again).toMatchObject({ code: 0, stderr: '', stdout: 'configmap/ssa serverside-applied\n' });
      const cm = await c.get(`/api/v1/namespaces/${c.ns}/configmaps/ssa`);
      expect(cm?.['data']).toEqual({ mode: 'green' });
      expect(cm?.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Apply' })]);
    },
  },
  {
    name: 'replace --force -f - (deleted and created again: a new uid)',
    setup: async (c) => void (await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: 'forced' }, data: { mode: 'blue' } })),
    args: () => ['replace', '--force', '-f', '-'],
    stdin: (c) => configMapYaml(c.ns, 'forced', 'green'),
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap "forced" deleted\nconfigmap/forced replaced\n');
      expect((await c.get(`/api/v1/namespaces/${c.ns}/configmaps/forced`))?.['data']).toEqual({ mode: 'green' });
    },
  },
  // ---- delete --cascade, with dependents found through ownerReferences ----
  {
    name: 'delete --cascade=background (the GC deletes the dependents)',
    setup: (c) => ownerWithDependents(c, 'bg-owner'),
    args: (c) => ['delete', 'configmap', 'bg-owner', '-n', c.ns, '--cascade=background'],
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap "bg-owner" deleted\n');
      for (const p of dependentPaths(c, 'bg-owner')) await c.gone(p);
    },
  },
  {
    name: 'delete --cascade=foreground (kubectl waits until the owner is gone, after its dependents)',
    setup: (c) => ownerWithDependents(c, 'fg-owner', true),
    args: (c) => ['delete', 'configmap', 'fg-owner', '-n', c.ns, '--cascade=foreground'],
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap "fg-owner" deleted\n');
      // the owner went only after its blocking dependents, and kubectl waited for the owner
      expect(await c.get(`/api/v1/namespaces/${c.ns}/configmaps/fg-owner`)).toBeUndefined();
      for (const p of dependentPaths(c, 'fg-owner')) expect(await c.get(p)).toBeUndefined();
    },
  },
  {
    name: 'delete --cascade=orphan (the dependents stay, without the reference)',
    setup: (c) => ownerWithDependents(c, 'orphan-owner'),
    args: (c) => ['delete', 'configmap', 'orphan-owner', '-n', c.ns, '--cascade=orphan'],
    check: async (c, r) => {
      expect(r.stdout).toBe('configmap "orphan-owner" deleted\n');
      expect(await c.get(`/api/v1/namespaces/${c.ns}/configmaps/orphan-owner`)).toBeUndefined();
      for (const p of dependentPaths(c, 'orphan-owner')) {
        const d = await c.get(p);
        expect(d).toBeDefined();
        expect(d!.metadata.ownerReferences).toBeUndefined();
      }
    },
  },
  {
    name: 'delete deployment (default cascade: background)',
    setup: async (c) => {
      const d = await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('cascaded'));
      await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: 'of-cascaded', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'cascaded', uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }] } });
    },
    args: (c) => ['delete', 'deployment', 'cascaded', '-n', c.ns],
    check: async (c, r) => {
      expect(r.stdout).toBe('deployment.apps "cascaded" deleted\n');
      await c.gone(`/api/v1/namespaces/${c.ns}/configmaps/of-cascaded`);
    },
  },
  // ---- reading ----
  {
    name: 'describe configmap',
    setup: async (c) => void (await c.create(`/api/v1/namespaces/${c.ns}/configmaps`, { metadata: { name: 'described' }, data: { k: 'v' } })),
    args: (c) => ['describe', 'configmap', 'described', '-n', c.ns],
    check: async (c, r) => expect(r.stdout).toMatch(new RegExp(`^Name:\\s+described\\nNamespace:\\s+${c.ns}\\n`)),
  },
  {
    name: 'describe pod',
    setup: async (c) => void (await c.create(`/api/v1/namespaces/${c.ns}/pods`, { metadata: { name: 'described-pod' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })),
    args: (c) => ['describe', 'pod', 'described-pod', '-n', c.ns],
    check: async (_c, r) => expect(r.stdout).toMatch(/^Name:\s+described-pod\n/),
  },
  {
    name: 'get all -o name',
    setup: async (c) => void (await c.create(`/apis/apps/v1/namespaces/${c.ns}/deployments`, deploymentBody('listed'))),
    args: (c) => ['get', 'all', '-n', c.ns, '-o', 'name'],
    check: async (_c, r) => expect(r.stdout.split('\n')).toContain('deployment.apps/listed'),
  },
  {
    name: 'api-resources',
    args: () => ['api-resources'],
    check: async (_c, r) => expect(r.stdout).toMatch(/\ndeployments\s+deploy\s+apps\/v1\s+true\s+Deployment\n/),
  },
  {
    name: 'api-versions',
    args: () => ['api-versions'],
    check: async (_c, r) => expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['v1', 'apps/v1', 'admissionregistration.k8s.io/v1'])),
  },
  {
    name: 'version -o json (kubectl warns of the skew to a 1.36 server, as against kube-apiserver 1.36)',
    args: () => ['version', '-o', 'json'],
    stderr: 'WARNING: version difference between client (1.32) and server (1.36) exceeds the supported minor version skew of +/-1\n',
    check: async (_c, r) => expect(JSON.parse(r.stdout)).toMatchObject({ serverVersion: { major: '1' } }),
  },
];

describe.each([['memory'], ['etcd3']] as const)('kubectl commands on %s storage', (storage) => {
  const env = useApiServer({ storage });
  let n = 0;

  const ctxFor = async (): Promise<Ctx> => {
    const server = env.server;
    const ns = `kc-${++n}`;
    const c: Ctx = {
      server,
      ns,
      k: (args, input) => kubectl(server.kubeconfigPath, args, input),
      get: async (path) => {
        const r = await api(server, 'GET', path);
        if (r.status === 404) return undefined;
        if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.json)}`);
        return r.json as unknown as Obj;
      },
      create: async (path, body) => {
        const r = await api(server, 'POST', path, body);
        if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
        return r.json as unknown as Obj;
      },
      gone: (path) =>
        eventually(async () => {
          const r = await api(server, 'GET', path);
          if (r.status !== 404) throw new Error(`${path} is still there (${r.status})`);
        }, 15_000),
    };
    const r = await api(server, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    if (r.status !== 201) throw new Error(`namespace ${ns}: ${r.status}`);
    return c;
  };

  it.each(rows.map((r) => [r.name, r] as const))('kubectl %s', async (_name, row) => {
    const c = await ctxFor();
    await row.setup?.(c);
    const running = c.k(row.args(c), row.stdin?.(c));
    await row.during?.(c);
    const r = await running;
    if (r.code !== (row.exitCode ?? 0) || r.stderr !== (row.stderr ?? '')) {
      throw new Error(`kubectl exited ${r.code} (kube's: ${row.exitCode ?? 0})\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    }
    await row.check(c, r);
  }, 90_000);
});
