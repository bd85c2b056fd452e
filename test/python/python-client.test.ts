// The Python `kubernetes` client (Debian's python3-kubernetes), unchanged, against the harness apiserver on both
// storages: typed CRUD, selectors, watch (the client sends ?watch=True), the three patch types, the dynamic client
// on a custom resource, and an informer's list-then-watch resume. Each script prints its results as JSON.
import { Etcd3 } from 'etcd3';
import { useApiServer } from '../../harness/jest.js';
import { pythonWithKubernetes, runPythonScript, type ScriptResult, type StepResult } from './python-client.js';

/** A step's value; fails with the step's recorded error otherwise. */
function valueOf(results: ScriptResult, step: string): unknown {
  const r = results[step] as StepResult | undefined;
  if (!r?.ok) throw new Error(`step ${step} failed: ${JSON.stringify(r, null, 2)}`);
  return r.value;
}

/** A step that must have failed with this API status. */
function apiErrorOf(results: ScriptResult, step: string): { status?: number; body?: Record<string, unknown> } {
  const r = results[step] as StepResult | undefined;
  if (!r || r.ok || r.status === undefined) throw new Error(`step ${step} should have failed with an API error: ${JSON.stringify(r, null, 2)}`);
  return { status: r.status, body: r.body as Record<string, unknown> };
}

beforeAll(() => {
  // fails here, with what was tried, when no interpreter has the package
  pythonWithKubernetes();
});

/** kube's root-ca-cert-publisher puts this ConfigMap into every namespace, so every list of ConfigMaps holds it. */
const rootCa = 'kube-root-ca.crt';

describe.each([['memory' as const], ['etcd3' as const]])('the Python kubernetes client against %s storage', (storage) => {
  const env = useApiServer({ storage });
  const run = (script: string, namespace: string, ...extra: string[]) => runPythonScript(script, [env.server.kubeconfigPath, namespace, ...extra]);

  it('creates, reads, replaces, lists and deletes a ConfigMap and a Deployment through CoreV1Api and AppsV1Api', async () => {
    const r = await run('kah_crud.py', 'py-crud');
    expect(valueOf(r, 'cm.create')).toMatchObject({ kind: 'ConfigMap', data: { a: '1' }, metadata: { name: 'py-cm', namespace: 'py-crud', labels: { app: 'py' } } });
    expect(valueOf(r, 'cm.read')).toMatchObject({ metadata: { name: 'py-cm' } });
    expect(valueOf(r, 'cm.replace')).toMatchObject({ data: { a: '1', b: '2' } });
    expect(valueOf(r, 'cm.list')).toEqual([rootCa, 'py-cm']);
    expect(valueOf(r, 'cm.delete.dryRun')).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(valueOf(r, 'cm.read.afterDryRun')).toBe('py-cm');
    expect(valueOf(r, 'cm.delete')).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'py-cm', kind: 'configmaps' } });
    expect(apiErrorOf(r, 'cm.read.afterDelete')).toMatchObject({ status: 404, body: { reason: 'NotFound', message: 'configmaps "py-cm" not found' } });

    expect(valueOf(r, 'deploy.create')).toMatchObject({ kind: 'Deployment', metadata: { name: 'py-web', generation: 1 }, spec: { replicas: 1 } });
    expect(valueOf(r, 'deploy.replace')).toMatchObject({ metadata: { generation: 2 }, spec: { replicas: 3 } });
    expect(valueOf(r, 'deploy.readScale')).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });
    expect(valueOf(r, 'deploy.patchScale')).toMatchObject({ kind: 'Scale', spec: { replicas: 2 } });
    expect(valueOf(r, 'deploy.readStatus')).toMatchObject({ spec: { replicas: 2 } });
    expect(valueOf(r, 'deploy.list')).toEqual(['py-web']);
    expect(valueOf(r, 'deploy.delete')).toMatchObject({ kind: 'Status', status: 'Success', details: { group: 'apps', kind: 'deployments' } });
    expect(apiErrorOf(r, 'deploy.read.afterDelete')).toMatchObject({ status: 404 });
  });

  it('lists with label and field selectors, pages with limit and continue, and lists across namespaces', async () => {
    const r = await run('kah_selectors.py', 'py-selectors');
    expect(valueOf(r, 'label.equals')).toEqual(['web-1', 'web-2']);
    expect(valueOf(r, 'label.in')).toEqual(['db-1', 'web-1', 'web-2']);
    expect(valueOf(r, 'label.notExists')).toEqual([rootCa, 'plain']);
    expect(apiErrorOf(r, 'label.bad')).toMatchObject({ status: 400, body: { reason: 'BadRequest', message: "unable to parse requirement: found '', expected: ',', ')' or identifier" } });
    expect(valueOf(r, 'field.name')).toEqual(['db-1']);
    expect(valueOf(r, 'field.notName')).toEqual([rootCa, 'plain', 'web-1', 'web-2']);
    expect(apiErrorOf(r, 'field.unsupported')).toMatchObject({
      status: 400,
      body: { reason: 'BadRequest', message: '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"' },
    });
    expect(valueOf(r, 'allNamespaces.fieldNamespace')).toEqual(['db-1', 'web-1', 'web-2']);
    expect(valueOf(r, 'paginate')).toEqual([
      ['db-1', rootCa],
      ['plain', 'web-1'],
      ['web-2'],
    ]);
  });

  it('watches with watch.Watch().stream: the current state as ADDED, then ADDED, MODIFIED and DELETED', async () => {
    const r = await run('kah_watch_events.py', 'py-watch');
    expect(valueOf(r, 'connected')).toBe(true);
    expect(valueOf(r, 'finished')).toBe(true);
    const events = r['events'] as Array<{ type: string; name: string; data: Record<string, string> | null }>;
    expect(events.map((e) => [e.type, e.name])).toEqual([
      ['ADDED', 'before'],
      ['ADDED', rootCa],
      ['ADDED', 'live'],
      ['MODIFIED', 'live'],
      ['DELETED', 'live'],
    ]);
    expect(events[3]!.data).toEqual({ v: '2' });
  });

  it('patches with a strategic merge patch (dict body), a JSON patch (list body), a merge patch and server-side apply', async () => {
    const r = await run('kah_patches.py', 'py-patches');
    expect(valueOf(r, 'cm.strategic')).toEqual({ a: '1', b: '2' });
    expect(valueOf(r, 'cm.json')).toEqual({ b: '2', c: '3' });
    // a failed JSON patch test: NewGenericServerResponse(422) of handlers/patch.go
    expect(apiErrorOf(r, 'cm.json.testFails')).toMatchObject({ status: 422, body: { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' } });
    expect(valueOf(r, 'deploy.strategic')).toEqual([
      ['web', 'nginx:2'],
      ['side', 'busybox:1'],
    ]);
    expect(valueOf(r, 'deploy.merge')).toEqual([['web', 'nginx:3']]);
    expect(valueOf(r, 'apply')).toEqual({ data: { k: 'v' }, managers: ['py-apply'] });
  });

  it('drives a custom resource through kubernetes.dynamic.DynamicClient', async () => {
    const r = await run('kah_dynamic_cr.py', 'py-dynamic');
    expect(valueOf(r, 'crd.established')).toBe(true);
    expect(valueOf(r, 'discover')).toEqual({ namespaced: true, verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] });
    expect(valueOf(r, 'create')).toEqual({ size: 1, color: 'red' });
    expect(valueOf(r, 'get')).toBe(1);
    expect(valueOf(r, 'list.label')).toEqual(['w2']);
    expect(valueOf(r, 'patch.merge')).toBe(5);
    // the CRD handler's patch types: no strategic merge (apiextensions-apiserver customresource_handler.go)
    expect(apiErrorOf(r, 'patch.strategic')).toMatchObject({
      status: 415,
      body: {
        reason: 'UnsupportedMediaType',
        message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      },
    });
    expect(valueOf(r, 'replace')).toBe('green');
    expect(valueOf(r, 'watch.connected')).toBe(true);
    expect(valueOf(r, 'delete')).toBe('Success');
    expect(valueOf(r, 'watch.done')).toBe(true);
    expect(r['watch.events']).toEqual([
      ['ADDED', 'w1'],
      ['ADDED', 'w2'],
      ['DELETED', 'w2'],
    ]);
    expect(apiErrorOf(r, 'get.afterDelete')).toMatchObject({ status: 404, body: { message: 'widgets.py.example.com "w2" not found' } });
  });

  it('resumes a watch from a list resourceVersion, seeing only what came after', async () => {
    const args: string[] = [];
    if (storage === 'etcd3') {
      // An old resourceVersion, compacted away as kube-apiserver's compactor would: the client must get 410 Expired.
      // (Compacting at R keeps R, so a watch from R-1 still works: compact two writes past the old one.)
      const create = async (name: string): Promise<string> => {
        const res = await env.server.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name } }, headers: { 'Content-Type': 'application/json' } });
        return (JSON.parse(res.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      };
      const oldRv = await create('py-old');
      await create('py-mid');
      const latestRv = await create('py-later');
      const etcd = new Etcd3({ hosts: env.server.etcd!.endpoint });
      try {
        await etcd.kv.compact({ revision: latestRv, physical: true });
      } finally {
        etcd.close();
      }
      args.push(oldRv);
    }
    const r = await run('kah_informer.py', 'py-informer', ...args);
    expect((r['listed'] as { names: string[] }).names).toEqual([rootCa, 'listed']);
    expect(valueOf(r, 'resume')).toEqual([
      ['ADDED', 'later-1'],
      ['MODIFIED', 'listed'],
      ['ADDED', 'later-2'],
    ]);
    if (storage === 'etcd3') expect(valueOf(r, 'expired')).toEqual({ status: 410, reason: expect.stringMatching(/^Expired: too old resource version: \d+ \(\d+\)$/) });
  });
});
