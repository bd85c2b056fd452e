import { loadApplySchema, type ApplySchema } from '../../admission/policy/mutating/apply-schema.js';
import { mergeAppliedConfiguration } from '../../admission/policy/mutating/apply-configuration.js';
import type { KubeObject } from '../../api/types.js';
import { emptyFieldSet, fromFieldsV1, insertPath, pathString, toFieldsV1, type FieldSet } from './field-set.js';
import { decodeManagedFields, encodeManagedFields, recordApply, recordUpdate, type ManagerEntry, type OwnershipSchema } from './managed-fields.js';
import { crdSchemaNode } from './ownership-schema.js';

// the schema server-side apply uses at run time: the Pod's OpenAPI shape with its list types
let podSchema: ApplySchema;
let pod: OwnershipSchema;
let configMap: OwnershipSchema;
beforeAll(async () => {
  podSchema = await loadApplySchema({ group: '', version: 'v1', kind: 'Pod' });
  pod = { root: podSchema.root, typed: true, ignoreStatus: true };
  configMap = { root: (await loadApplySchema({ group: '', version: 'v1', kind: 'ConfigMap' })).root, typed: true, ignoreStatus: false };
});
const now = '2025-01-01T00:00:00Z';

function apply(live: KubeObject | undefined, config: KubeObject, entries: ManagerEntry[], manager: string, force = false) {
  const merged = mergeAppliedConfiguration(live ?? {}, config, podSchema);
  if (!merged.ok) throw new Error(merged.error);
  return recordApply({ live, merged: merged.object, config, entries, manager, apiVersion: 'v1', force, now, schema: pod });
}

const podConfig = (image: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'a' } },
  spec: { containers: [{ name: 'c', image, ...extra }] },
});

describe('FieldsV1', () => {
  it('round-trips members with children as "." entries', () => {
    const v1 = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } } };
    expect(toFieldsV1(fromFieldsV1(v1))).toEqual(v1);
  });

  it.each([
    [['f:spec', 'f:replicas'], '.spec.replicas'],
    [['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'], '.spec.containers[name="c"].image'],
    [['f:spec', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'], '.spec.ports[containerPort=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"x"'], '.metadata.finalizers[="x"]'],
  ])('prints %j as %s', (path, text) => {
    expect(pathString(path)).toBe(text);
  });
});

// toEqual ignores the order of keys; managedFields are compared as the JSON text kube-apiserver would send
const jsonText = (v: unknown): string => JSON.stringify(v);

describe('FieldsV1 key order', () => {
  const setOf = (members: string[]): FieldSet => {
    const s = emptyFieldSet();
    for (const m of members) s.members.add(m);
    return s;
  };

  it('writes field names, then keys, values and indexes, each sorted, indexes by number (i:9 before i:10)', () => {
    // inserted out of order: the output order is the serializer's, not the set's
    const s = setOf(['i:10', 'v:"b"', 'f:spec', 'k:{"name":"c"}', 'i:9', 'f:apiVersion', 'v:"a"', 'i:2']);
    insertPath(s, ['f:spec', 'f:replicas']);
    insertPath(s, ['f:spec', 'f:paused']);
    insertPath(s, ['k:{"name":"c"}', 'f:image']);
    insertPath(s, ['f:metadata', 'f:labels', 'f:b']);
    insertPath(s, ['f:metadata', 'f:labels', 'f:a']);
    expect(jsonText(toFieldsV1(s))).toBe(
      '{"f:apiVersion":{},"f:metadata":{"f:labels":{"f:a":{},"f:b":{}}},"f:spec":{".":{},"f:paused":{},"f:replicas":{}},' +
        '"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{}},"v:\\"a\\"":{},"v:\\"b\\"":{},"i:2":{},"i:9":{},"i:10":{}}',
    );
  });

  it('writes an empty child set as {} when its path is a member, and not at all when it is not', () => {
    const s = setOf(['f:data']);
    s.children.set('f:data', emptyFieldSet());
    s.children.set('f:status', emptyFieldSet());
    expect(jsonText(toFieldsV1(s))).toBe('{"f:data":{}}');
  });

  it.each([
    [['i:01', 'i:1'], '{"i:01":{},"i:1":{}}'],
    [['i:1', 'i:01'], '{"i:1":{},"i:01":{}}'],
  ])('keeps indexes that compare equal in the order the set holds them (%j)', (members, text) => {
    expect(jsonText(toFieldsV1(setOf(members)))).toBe(text);
  });

  it('reads a "." entry as membership and writes it back first', () => {
    const v1 = { 'f:b': { 'f:x': {}, '.': {} }, 'f:a': { '.': {} } };
    expect(jsonText(toFieldsV1(fromFieldsV1(v1)))).toBe('{"f:a":{},"f:b":{".":{},"f:x":{}}}');
  });
});

describe('recordUpdate managedFields', () => {
  const configMapBody = (): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c1', namespace: 'default', labels: { app: 'bench', tier: 'create' }, annotations: { 'bench.kah.dev/case': 'create' } },
      data: { 'config.yaml': 'log:\n  level: info\n', mode: 'benchmark' },
    }) as KubeObject;
  const createdEntry =
    '{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2025-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":' +
    '{"f:data":{".":{},"f:config.yaml":{},"f:mode":{}},"f:metadata":{"f:annotations":{".":{},"f:bench.kah.dev/case":{}},"f:labels":{".":{},"f:app":{},"f:tier":{}}}}}';
  const create = (): ManagerEntry[] => recordUpdate({ live: undefined, next: configMapBody(), entries: [], manager: 'kubectl-create', apiVersion: 'v1', now, schema: configMap });

  it('gives a ConfigMap create one Update entry owning its data, labels and annotations, not its name or namespace', () => {
    expect(jsonText(encodeManagedFields(create()))).toBe(`[${createdEntry}]`);
  });

  it('moves a data key an update changes from its creator to the editor', () => {
    const next = configMapBody();
    (next as { data: Record<string, string> }).data['mode'] = 'changed';
    const entries = recordUpdate({ live: configMapBody(), next, entries: create(), manager: 'kubectl-edit', apiVersion: 'v1', now: '2025-01-02T00:00:00Z', schema: configMap });
    expect(jsonText(encodeManagedFields(entries))).toBe(
      `[${createdEntry.replace('"f:config.yaml":{},"f:mode":{}', '"f:config.yaml":{}')},` +
        '{"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","time":"2025-01-02T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:mode":{}}}}]',
    );
  });

  it('keeps an updater apiVersion apart: the same manager at v2 gets its own entry, back at v1 merges into the first', () => {
    const withExtra = configMapBody();
    (withExtra as { data: Record<string, string> }).data['extra'] = 'x';
    const withMore = structuredClone(withExtra);
    (withMore as { data: Record<string, string> }).data['more'] = 'y';
    let entries = recordUpdate({ live: undefined, next: configMapBody(), entries: [], manager: 'm', apiVersion: 'v1', now, schema: configMap });
    entries = recordUpdate({ live: configMapBody(), next: withExtra, entries, manager: 'm', apiVersion: 'v2', now: '2025-01-02T00:00:00Z', schema: configMap });
    entries = recordUpdate({ live: withExtra, next: withMore, entries, manager: 'm', apiVersion: 'v1', now: '2025-01-03T00:00:00Z', schema: configMap });
    expect(jsonText(encodeManagedFields(entries).map((e) => [e['manager'], e['apiVersion'], e['time'], e['fieldsV1']]))).toBe(
      '[["m","v2","2025-01-02T00:00:00Z",{"f:data":{"f:extra":{}}}],' +
        '["m","v1","2025-01-03T00:00:00Z",{"f:data":{".":{},"f:config.yaml":{},"f:mode":{},"f:more":{}},"f:metadata":{"f:annotations":{".":{},"f:bench.kah.dev/case":{}},"f:labels":{".":{},"f:app":{},"f:tier":{}}}}]]',
    );
  });

  const podWithPorts = (): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', finalizers: ['b', 'a'] },
    spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080 }, { containerPort: 53, protocol: 'UDP' }] }, { name: 'side', image: 'busybox' }] },
    status: { phase: 'Pending' },
  });
  const podFields =
    '{"f:metadata":{"f:finalizers":{".":{},"v:\\"a\\"":{},"v:\\"b\\"":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"side\\"}":{".":{},"f:image":{},"f:name":{}},' +
    '"k:{\\"name\\":\\"web\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":53,\\"protocol\\":\\"UDP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}},' +
    '"k:{\\"containerPort\\":8080,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}';

  it('keys containers by name and ports by containerPort with the protocol defaulted, and owns no status on the main resource', () => {
    const entries = recordUpdate({ live: undefined, next: podWithPorts(), entries: [], manager: 'm', apiVersion: 'v1', now, schema: pod });
    expect(jsonText(encodeManagedFields(entries))).toBe(`[{"manager":"m","operation":"Update","apiVersion":"v1","time":"${now}","fieldsType":"FieldsV1","fieldsV1":${podFields}}}]`);
  });

  it('owns status through /status, and writes the subresource last', () => {
    const entries = recordUpdate({ live: undefined, next: podWithPorts(), entries: [], manager: 'm', apiVersion: 'v1', subresource: 'status', now, schema: { ...pod, ignoreStatus: false } });
    expect(jsonText(encodeManagedFields(entries))).toBe(
      `[{"manager":"m","operation":"Update","apiVersion":"v1","time":"${now}","fieldsType":"FieldsV1","fieldsV1":${podFields},"f:status":{"f:phase":{}}},"subresource":"status"}]`,
    );
  });
});

describe('recordApply', () => {
  it('owns exactly the applied fields, list elements by key', () => {
    const out = apply(undefined, podConfig('nginx'), [], 'm');
    if (!out.ok) throw out.error;
    expect(encodeManagedFields(out.entries)).toEqual([
      {
        manager: 'm',
        operation: 'Apply',
        apiVersion: 'v1',
        time: now,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      },
    ]);
  });

  it('conflicts on a field another manager set to a different value, and force takes it over', () => {
    const first = apply(undefined, podConfig('nginx'), [], 'first');
    if (!first.ok) throw first.error;
    const live = { ...(first.object as KubeObject) };
    const conflict = apply(live, podConfig('busybox'), first.entries, 'second');
    expect(conflict.ok).toBe(false);
    if (conflict.ok) return;
    expect(conflict.error.status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "first": .spec.containers[name="c"].image',
      details: { causes: [{ type: 'FieldManagerConflict', message: 'conflict with "first"', field: '.spec.containers[name="c"].image' }] },
    });
    const forced = apply(live, podConfig('busybox'), first.entries, 'second', true);
    if (!forced.ok) throw forced.error;
    const firstFields = forced.entries.find((e) => e.manager === 'first')!;
    expect(toFieldsV1(firstFields.set)).toEqual({ 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {} } } } });
  });

  it('lists several conflicts by manager', () => {
    const entries = decodeManagedFields([
      { manager: 'a', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } } },
      { manager: 'b', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { 'f:image': {} } } } } },
    ]);
    const live: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'old' }] } };
    const out = apply(live, podConfig('new'), entries, 'me');
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error.message).toBe('Apply failed with 2 conflicts: conflicts with "a" using v1:\n- .metadata.labels.app\nconflicts with "b":\n- .spec.containers[name="c"].image');
  });

  it('removes what the manager applied before and no longer applies, unless another manager owns it', () => {
    const first = apply(undefined, podConfig('nginx', { args: ['x'], command: ['sh'] }), [], 'm');
    if (!first.ok) throw first.error;
    // someone else updates command
    const live = first.object as KubeObject;
    const changed = structuredClone(live);
    (changed['spec'] as { containers: Array<Record<string, unknown>> }).containers[0]!['command'] = ['bash'];
    const afterUpdate = recordUpdate({ live, next: changed, entries: first.entries, manager: 'editor', apiVersion: 'v1', now, schema: pod });
    const second = apply(changed, podConfig('nginx'), afterUpdate, 'm');
    if (!second.ok) throw second.error;
    const container = (second.object['spec'] as { containers: Array<Record<string, unknown>> }).containers[0]!;
    expect(container).toEqual({ name: 'c', image: 'nginx', command: ['bash'] });
  });

  it('gives the fields of an untracked object to before-first-apply', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'old' }] } };
    const out = apply(live, podConfig('new'), [], 'me');
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .spec.containers[name="c"].image');
  });
});

describe('recordUpdate', () => {
  it('records nothing for a write that changes nothing', () => {
    const obj: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    expect(recordUpdate({ live: obj, next: structuredClone(obj), entries: [], manager: 'm', apiVersion: 'v1', now, schema: pod })).toEqual([]);
  });

  it('merges into the manager entry and drops removed fields from every manager', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: '1', b: '2' } } };
    const entries = recordUpdate({ live: undefined, next: live, entries: [], manager: 'creator', apiVersion: 'v1', now, schema: pod });
    const next: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: '1', c: '3' } } };
    const after = recordUpdate({ live, next, entries, manager: 'editor', apiVersion: 'v1', now, schema: pod });
    expect(encodeManagedFields(after).map((e) => [e['manager'], e['fieldsV1']])).toEqual([
      ['creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }],
      ['editor', { 'f:metadata': { 'f:labels': { 'f:c': {} } } }],
    ]);
  });
});

describe('CRD schemas', () => {
  it('merges x-kubernetes-list-type map lists by their keys and set lists by value', () => {
    const root = crdSchemaNode({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'], items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } } },
            tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
            args: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    });
    const schema = { root, closed: false, unknownFields: () => [] };
    const live: KubeObject = { spec: { ports: [{ port: 80, protocol: 'TCP', x: 1 }], tags: ['a'], args: ['1'] } };
    const merged = mergeAppliedConfiguration(live, { spec: { ports: [{ port: 80, y: 2 }, { port: 81 }], tags: ['b'], args: ['2'] } }, schema);
    expect(merged).toEqual({ ok: true, object: { spec: { ports: [{ port: 80, protocol: 'TCP', x: 1, y: 2 }, { port: 81 }], tags: ['a', 'b'], args: ['2'] } } });
  });
});

describe('managedFields cost grows linearly with the depth of the object', () => {
  // An unknown field nested `depth` levels down, the shape of the 800-level ConfigMap that took seconds when
  // emptiness was tested by a walk at every level of every set operation (cubic in the depth).
  const deepPod = (depth: number, leaf: number): KubeObject => {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) v = { a: v };
    return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, zz: v } as KubeObject;
  };
  const createThenUpdateThenApply = (depth: number): void => {
    const created = recordUpdate({ live: undefined, next: deepPod(depth, 1), entries: [], manager: 'm', apiVersion: 'v1', now, schema: pod });
    const updated = recordUpdate({ live: deepPod(depth, 1), next: deepPod(depth, 2), entries: created, manager: 'other', apiVersion: 'v1', now, schema: pod });
    // an apply to the deep object: its sets and the comparison of live and merged objects walk every level
    const applied = apply(deepPod(depth, 2), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { x: 'y' } } }, updated, 'applier');
    if (!applied.ok) throw new Error('apply failed');
    expect(encodeManagedFields(applied.entries).map((e) => e['manager'])).toEqual(['applier', 'other']);
  };
  // the cheapest of several runs: robust to a busy machine, and what the work itself costs
  const cost = (depth: number): number => {
    let best = Infinity;
    for (let run = 0; run < 5; run++) {
      const start = performance.now();
      createThenUpdateThenApply(depth);
      best = Math.min(best, performance.now() - start);
    }
    return best;
  };

  it('doubling the depth (250 → 500, the nesting limit) at most triples the cost (linear: 2, quadratic: 4, cubic: 8)', () => {
    cost(500); // warm up: the first runs compile
    const shallow = cost(250);
    const deep = cost(500);
    expect(deep / shallow).toBeLessThan(3);
  });
});
