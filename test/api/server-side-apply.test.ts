// Server-side apply (PATCH application/apply-patch+yaml) end to end: the real kubectl 1.32 (`apply --server-side`,
// `scale`, `--force-conflicts`), @kubernetes/client-node's apply content type, and admission on apply, against
// kube-apiserver's field manager behaviour (managedFields entries, conflicts, pruning of fields no longer applied).
import * as k8s from '@kubernetes/client-node';
import { useApiServer, useWebhookServer } from '../../harness/jest.js';
import { allow, type ReceivedReview } from '../../harness/webhook-server.js';
import { api, registerMutating } from '../admission/support.js';
import { crontabCRD } from '../crd/fixtures.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: 'memory' });
const reviews: ReceivedReview[] = [];
const hooks = useWebhookServer({
  handler: (r) => {
    reviews.push(r);
    return allow();
  },
});
const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);

function expectOk(r: { code: number | null; stdout: string; stderr: string }): void {
  if (r.code !== 0) throw new Error(`kubectl exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
}

const deployment = (opts: { replicas?: number; image?: string; labels?: Record<string, string> }) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ssa
  labels: ${JSON.stringify(opts.labels ?? { app: 'web' })}
spec:
${opts.replicas === undefined ? '' : `  replicas: ${opts.replicas}\n`}  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: web
        image: ${opts.image ?? 'nginx:1.25'}
        ports:
        - containerPort: 80
`;

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

async function getDeployment(): Promise<{ metadata: { labels?: Record<string, string>; managedFields: ManagedFieldsEntry[] }; spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } }> {
  const r = await k(['get', 'deployment', 'web', '-n', 'ssa', '-o', 'json', '--show-managed-fields']);
  expectOk(r);
  return JSON.parse(r.stdout);
}

describe('kubectl apply --server-side', () => {
  it('creates the object, owned by manager kubectl with operation Apply', async () => {
    expectOk(await k(['create', 'namespace', 'ssa']));
    const r = await k(['apply', '--server-side', '-f', '-'], deployment({ replicas: 2 }));
    expectOk(r);
    expect(r.stdout).toContain('deployment.apps/web serverside-applied');
    const d = await getDeployment();
    expect(d.spec.replicas).toBe(2);
    const applied = d.metadata.managedFields.filter((e) => e.operation === 'Apply');
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(applied[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(applied[0]!.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"web"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
            },
          },
        },
      },
    });
    // server-set defaults belong to nobody
    expect(JSON.stringify(d.metadata.managedFields)).not.toContain('f:strategy');
  });

  it('updates the object on a second apply with a changed field', async () => {
    const r = await k(['apply', '--server-side', '-f', '-'], deployment({ replicas: 2, image: 'nginx:1.26' }));
    expectOk(r);
    expect(r.stdout).toContain('deployment.apps/web serverside-applied');
    const d = await getDeployment();
    expect(d.spec.template.spec.containers[0]!.image).toBe('nginx:1.26');
    expect(d.metadata.managedFields.map((e) => `${e.manager}/${e.operation}`)).toEqual(['kubectl/Apply']);
  });

  it('reports a conflict with the manager of `kubectl scale`, and takes the field over with --force-conflicts', async () => {
    expectOk(await k(['scale', 'deployment', 'web', '-n', 'ssa', '--replicas=5']));
    let d = await getDeployment();
    expect(d.spec.replicas).toBe(5);
    const scaler = d.metadata.managedFields.find((e) => e.operation === 'Update')!;
    expect(scaler).toMatchObject({ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });

    let r = await k(['apply', '--server-side', '-f', '-'], deployment({ replicas: 3, image: 'nginx:1.26' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas');
    expect((await getDeployment()).spec.replicas).toBe(5);

    r = await k(['apply', '--server-side', '--force-conflicts', '-f', '-'], deployment({ replicas: 3, image: 'nginx:1.26' }));
    expectOk(r);
    d = await getDeployment();
    expect(d.spec.replicas).toBe(3);
    // the scaler lost its only field, so its entry is gone
    expect(d.metadata.managedFields.map((e) => `${e.manager}/${e.operation}`)).toEqual(['kubectl/Apply']);
  });

  it('removes a label the manager no longer applies, and keeps fields it never owned', async () => {
    expectOk(await k(['apply', '--server-side', '-f', '-'], deployment({ replicas: 3, image: 'nginx:1.26', labels: { app: 'web', tier: 'frontend' } })));
    expectOk(await k(['label', 'deployment', 'web', '-n', 'ssa', 'team=blue']));
    expect((await getDeployment()).metadata.labels).toEqual({ app: 'web', tier: 'frontend', team: 'blue' });
    expectOk(await k(['apply', '--server-side', '-f', '-'], deployment({ replicas: 3, image: 'nginx:1.26', labels: { app: 'web' } })));
    const d = await getDeployment();
    expect(d.metadata.labels).toEqual({ app: 'web', team: 'blue' });
  });

  it('removes a field the manager stops applying when nobody else owns it (the server default comes back)', async () => {
    expectOk(await k(['apply', '--server-side', '-f', '-'], deployment({ image: 'nginx:1.26' })));
    expect((await getDeployment()).spec.replicas).toBe(1);
  });

  it('applies a custom resource, merging lists by their CRD list-map keys', async () => {
    const crd = crontabCRD.replace(
      /              replicas:\n/,
      `              workers:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: { type: string }
                    size: { type: integer }
              replicas:\n`,
    );
    expectOk(await k(['apply', '-f', '-'], crd));
    expectOk(await k(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']));
    const cr = (workers: string) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: nightly
  namespace: ssa
spec:
  cronSpec: "0 0 * * *"
  workers: ${workers}
`;
    let r = await k(['apply', '--server-side', '-f', '-'], cr('[{name: a, size: 1}]'));
    expectOk(r);
    expect(r.stdout).toContain('crontab.stable.example.com/nightly serverside-applied');
    // another manager adds a worker
    r = await k(['apply', '--server-side', '--field-manager=other', '-f', '-'], cr('[{name: b, size: 2}]').replace('  cronSpec: "0 0 * * *"\n', ''));
    expectOk(r);
    r = await k(['get', 'crontab', 'nightly', '-n', 'ssa', '-o', 'json', '--show-managed-fields']);
    expectOk(r);
    const obj = JSON.parse(r.stdout);
    expect(obj.spec.workers).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 2 },
    ]);
    const kubectlEntry = obj.metadata.managedFields.find((e: ManagedFieldsEntry) => e.manager === 'kubectl');
    expect(kubectlEntry.fieldsV1).toEqual({ 'f:spec': { 'f:cronSpec': {}, 'f:workers': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:size': {} } } } });
    // a conflicting value for a field the other manager owns
    r = await k(['apply', '--server-side', '-f', '-'], cr('[{name: a, size: 1}, {name: b, size: 3}]'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Apply failed with 1 conflict: conflict with "other": .spec.workers[name="b"].size');
  });
});

describe('the apply patch through the API', () => {
  it('requires a fieldManager (422 on PatchOptions)', async () => {
    const res = await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/x', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 'application/apply-patch+yaml');
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ reason: 'Invalid', message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch' });
  });

  it('refuses force on a non-apply patch', async () => {
    const res = await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/x?force=true', { data: {} }, 'application/merge-patch+json');
    expect(res.status).toBe(422);
    expect(res.json['message']).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('refuses a configuration of another kind', async () => {
    const res = await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/x?fieldManager=t', 'apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n', 'application/apply-patch+yaml');
    expect(res.status).toBe(400);
    expect(res.json['message']).toBe('invalid object type: /v1, Kind=Secret');
  });

  it('answers a conflict with kube Status: 409, reason Conflict, FieldManagerConflict causes', async () => {
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owned}\ndata: {mode: ${v}}\n`;
    expect((await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/owned?fieldManager=first', cm('a'), 'application/apply-patch+yaml')).status).toBe(201);
    const res = await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/owned?fieldManager=second', cm('b'), 'application/apply-patch+yaml');
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "first": .data.mode',
      details: { causes: [{ type: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.mode' }] },
    });
    // the same value is shared ownership, not a conflict
    const shared = await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/owned?fieldManager=second', cm('a'), 'application/apply-patch+yaml');
    expect(shared.status).toBe(200);
    const managers = (shared.json['metadata'] as { managedFields: ManagedFieldsEntry[] }).managedFields.map((e) => e.manager);
    expect(managers).toEqual(['first', 'second']);
  });

  it('records creates and updates of other clients as Update entries', async () => {
    const created = await api(env.server, 'POST', '/api/v1/namespaces/ssa/configmaps?fieldManager=creator', { metadata: { name: 'plain', labels: { a: '1' } }, data: { x: '1' } });
    expect(created.status).toBe(201);
    const mf = (created.json['metadata'] as { managedFields: ManagedFieldsEntry[] }).managedFields;
    expect(mf).toEqual([
      {
        manager: 'creator',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      },
    ]);
    const res = await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/plain?fieldManager=applier', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {x: "2"}\n', 'application/apply-patch+yaml');
    expect(res.status).toBe(409);
    expect(res.json['message']).toBe('Apply failed with 1 conflict: conflict with "creator" using v1: .data.x');
  });
});

describe('@kubernetes/client-node', () => {
  it('applies with the apply-patch+yaml content type', async () => {
    const core = env.client(k8s.CoreV1Api);
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-client', namespace: 'ssa' }, data: { a: '1' } };
    const created = await core.patchNamespacedConfigMap(
      { name: 'from-client', namespace: 'ssa', body, fieldManager: 'my-controller' },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );
    expect(created.data).toEqual({ a: '1' });
    expect(created.metadata?.managedFields?.[0]).toMatchObject({ manager: 'my-controller', operation: 'Apply' });
    const updated = await core.patchNamespacedConfigMap(
      { name: 'from-client', namespace: 'ssa', body: { ...body, data: { b: '2' } }, fieldManager: 'my-controller', force: true },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );
    // a was applied before and is no longer: removed
    expect(updated.data).toEqual({ b: '2' });
  });
});

describe('admission on apply', () => {
  it('sends CREATE for an apply that creates the object, UPDATE otherwise', async () => {
    await registerMutating(env.server, hooks.server, 'ssa-watch', [{ name: 'ssa.watch.example.com', path: '/watch', operations: ['CREATE', 'UPDATE'] }]);
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: admitted}\ndata: {v: "${v}"}\n`;
    reviews.length = 0;
    expect((await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/admitted?fieldManager=m', cm('1'), 'application/apply-patch+yaml')).status).toBe(201);
    expect((await api(env.server, 'PATCH', '/api/v1/namespaces/ssa/configmaps/admitted?fieldManager=m', cm('2'), 'application/apply-patch+yaml')).status).toBe(200);
    const seen = reviews.filter((r) => r.request.name === 'admitted').map((r) => r.request.operation);
    expect(seen).toEqual(['CREATE', 'UPDATE']);
  });
});
