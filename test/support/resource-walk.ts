// Walks one served resource the way users meet it: create (client-node, and `kubectl create -f`), get, list with a
// label selector, watch (ADDED, MODIFIED, DELETED), update, the three patch types, delete; plus the fields kube
// defaults on create and invalid objects refused with kube's Status. One table entry per kind, against one server
// per test file (`useApiServer`), so a group's whole API is checked in a few seconds.
import * as k8s from '@kubernetes/client-node';
import type { ApiServerEnv } from '../../harness/jest.js';
import { eventually } from './eventually.js';
import { kubectl } from './kubectl.js';

type Obj = Record<string, unknown>;

export interface ResourceWalk {
  group: string;
  version: string;
  /** plural, as in the URL */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** The walk's object name, when the kind constrains names (an APIService is version.group); default walk-<kind>. */
  name?: string;
  /** A valid object of the kind, without apiVersion/kind/metadata.namespace (the walk fills them in). */
  object(name: string): Obj;
  /** Fields kube's defaulting sets on create (empty only for kinds kube defaults nothing of): a dotted path (list items by index: `spec.template.spec.containers.0.imagePullPolicy`) and the value. */
  defaulted: Array<{ path: string; value: unknown }>;
  /**
   * Objects kube's validation refuses (422 Invalid), with what kube answers: the Status `message` exactly, and/or
   * `causes` that must all be present (reason, field, message exactly as kube's field.Error prints them). At least one.
   */
  invalid: Array<{ name: string; object: Obj; message?: string; causes?: Array<{ reason: string; field: string; message: string }> }>;
  /** kube's deprecation warning for the resource (v1 Endpoints), which kubectl prints on stderr once per command. */
  warning?: string;
}

const apiVersionOf = (w: ResourceWalk): string => (w.group ? `${w.group}/${w.version}` : w.version);
const kubectlResource = (w: ResourceWalk): string => (w.group ? `${w.resource}.${w.version}.${w.group}` : w.resource);

function valueAt(obj: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Obj)[k] : undefined), obj);
}

function manifest(w: ResourceWalk, name: string, namespace: string | undefined, labels: Record<string, string>): k8s.KubernetesObject {
  const body = w.object(name);
  const metadata = { ...((body['metadata'] as Obj | undefined) ?? {}), name, ...(namespace ? { namespace } : {}) } as Obj;
  metadata['labels'] = { ...((metadata['labels'] as Record<string, string> | undefined) ?? {}), ...labels };
  return { ...body, apiVersion: apiVersionOf(w), kind: w.kind, metadata } as k8s.KubernetesObject;
}

interface StatusBody {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: Array<{ reason?: string; field?: string; message?: string }> };
}

function statusOf(err: unknown): StatusBody {
  const body = (err as { body?: unknown }).body;
  if (typeof body === 'string') return JSON.parse(body) as StatusBody;
  if (body && typeof body === 'object') return body as StatusBody;
  throw err;
}

/** Registers the walk of each resource as jest tests against the suite's server. */
export function describeResourceWalks(env: ApiServerEnv, namespace: string, walks: readonly ResourceWalk[]): void {
  beforeAll(async () => {
    const res = await env.server.request('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } });
    if (res.status !== 201 && res.status !== 409) throw new Error(`creating namespace ${namespace}: ${res.status} ${res.body}`);
  });

  describe.each(walks.map((w) => [`${apiVersionOf(w)} ${w.kind}`, w] as const))('%s', (_title, w) => {
    const ns = w.namespaced ? namespace : undefined;
    const name = w.name ?? `walk-${w.kind.toLowerCase()}`;
    const client = (): k8s.KubernetesObjectApi => k8s.KubernetesObjectApi.makeApiClient(env.kubeConfig);

    it('is created with kube defaults, read, listed, watched, updated, patched three ways and deleted (client-node)', async () => {
      const api = client();
      const created = (await api.create(manifest(w, name, ns, { walk: name }))) as k8s.KubernetesObject & Obj;
      for (const d of w.defaulted) expect([d.path, valueAt(created, d.path)]).toEqual([d.path, d.value]);

      const events: Array<[string, string | undefined]> = [];
      const prefix = w.group ? `/apis/${w.group}/${w.version}` : `/api/${w.version}`;
      const watchPath = `${prefix}${ns ? `/namespaces/${ns}` : ''}/${w.resource}`;
      const objectPath = `${watchPath}/${name}`;
      const header = { apiVersion: apiVersionOf(w), kind: w.kind, metadata: { name, ...(ns ? { namespace: ns } : {}) } };
      const controller = await new k8s.Watch(env.kubeConfig).watch(
        watchPath,
        { labelSelector: `walk=${name}`, resourceVersion: '0' },
        (type, obj: k8s.KubernetesObject) => events.push([type, obj.metadata?.labels?.['walk-step']]),
        () => undefined,
      );
      try {
        await eventually(() => expect(events).toContainEqual(['ADDED', undefined]));

        const read = (await api.read(header)) as k8s.KubernetesObject;
        expect(read.metadata?.uid).toBe(created.metadata?.uid);
        const list = await api.list(apiVersionOf(w), w.kind, ns, undefined, undefined, undefined, undefined, `walk=${name}`);
        expect(list.items.map((i) => i.metadata?.name)).toEqual([name]);

        read.metadata!.labels = { ...read.metadata!.labels, 'walk-step': 'update' };
        const updated = await api.replace(read);
        expect(updated.metadata?.labels?.['walk-step']).toBe('update');

        // JSON patch through the raw API (client-node's generic client sends objects only), merge and strategic through client-node
        const jsonPatch = await env.server.request(`${objectPath}?fieldManager=walk`, {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json-patch+json' },
          body: [{ op: 'replace', path: '/metadata/labels/walk-step', value: 'json' }],
        });
        expect([jsonPatch.status, jsonPatch.json<k8s.KubernetesObject>().metadata?.labels?.['walk-step']]).toEqual([200, 'json']);
        for (const [strategy, step] of [
          [k8s.PatchStrategy.MergePatch, 'merge'],
          [k8s.PatchStrategy.StrategicMergePatch, 'strategic'],
        ] as const) {
          const patched = await api.patch({ ...header, metadata: { ...header.metadata, labels: { 'walk-step': step } } }, undefined, undefined, undefined, undefined, strategy);
          expect([strategy, patched.metadata?.labels?.['walk-step']]).toEqual([strategy, step]);
        }

        await api.delete(header);
        await eventually(async () => {
          const gone = await api.read(header).catch((e: unknown) => e);
          expect((gone as { code?: number }).code).toBe(404);
        });
        // a controller's own writes (status) may add MODIFIED events between ours: compare the label steps seen
        const steps = (): Array<[string, string | undefined]> => events.filter((e, i) => i === 0 || e[0] !== 'MODIFIED' || e[1] !== events[i - 1]![1]);
        await eventually(() =>
          expect(steps()).toEqual([
            ['ADDED', undefined],
            ['MODIFIED', 'update'],
            ['MODIFIED', 'json'],
            ['MODIFIED', 'merge'],
            ['MODIFIED', 'strategic'],
            ['DELETED', 'strategic'],
          ]),
        );
      } finally {
        controller.abort();
      }
    });

    it('is created, printed as a table, shown as YAML and deleted by kubectl', async () => {
      const kname = `${name}-kubectl`;
      const stderr = w.warning ? `Warning: ${w.warning}\n` : '';
      const nsArgs = ns ? ['-n', ns] : [];
      const create = await kubectl(env.server.kubeconfigPath, ['create', '-f', '-'], JSON.stringify(manifest(w, kname, ns, {})));
      expect([create.code, create.stderr]).toEqual([0, stderr]);
      const table = await kubectl(env.server.kubeconfigPath, ['get', kubectlResource(w), ...nsArgs]);
      expect([table.code, table.stderr]).toEqual([0, stderr]);
      expect(table.stdout).toMatch(new RegExp(`^NAME\\s`));
      expect(table.stdout).toContain(kname);
      const yaml = await kubectl(env.server.kubeconfigPath, ['get', kubectlResource(w), kname, ...nsArgs, '-o', 'yaml']);
      expect([yaml.code, yaml.stderr]).toEqual([0, stderr]);
      expect(yaml.stdout).toContain(`kind: ${w.kind}`);
      const del = await kubectl(env.server.kubeconfigPath, ['delete', kubectlResource(w), kname, ...nsArgs, '--wait=false']);
      expect([del.code, del.stderr]).toEqual([0, stderr]);
    });

    if (w.invalid.length === 0) throw new Error(`${w.kind}: a walk needs at least one invalid object kube refuses`);
    it.each(w.invalid.map((c) => [c.name, c] as const))('refuses an invalid object: %s', async (_n, c) => {
      const err = await client().create(manifest({ ...w, object: () => c.object }, `${name}-invalid`, ns, {})).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeDefined();
      const status = statusOf(err);
      expect([status.code, status.reason]).toEqual([422, 'Invalid']);
      if (c.message !== undefined) expect(status.message).toBe(c.message);
      for (const cause of c.causes ?? []) expect(status.details?.causes ?? []).toContainEqual(cause);
    });
  });
}
