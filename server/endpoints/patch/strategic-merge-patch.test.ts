import { strategicMergeSchemaFor } from './smp-schema.js';
import { StrategicMergePatchError, strategicMergePatch } from './strategic-merge-patch.js';

type Obj = Record<string, unknown>;

const schemaOf = (group: string, kind: string) => {
  const s = strategicMergeSchemaFor({ group, kind });
  if (!s) throw new Error(`no schema for ${group}/${kind}`);
  return s;
};
const pod = schemaOf('', 'Pod');
const deployment = schemaOf('apps', 'Deployment');

const apply = (original: Obj, patch: Obj | null, schema = pod): Obj => strategicMergePatch(structuredClone(original), structuredClone(patch), schema);

function failure(original: Obj, patch: Obj, schema = pod): { message: string; errorClass: string } {
  try {
    apply(original, patch, schema);
  } catch (e) {
    if (e instanceof StrategicMergePatchError) return { message: e.message, errorClass: e.errorClass };
    throw e;
  }
  throw new Error('expected the patch to fail');
}

const containers = (...cs: Obj[]) => ({ spec: { containers: cs } });
const names = (list: unknown) => (list as Obj[]).map((c) => c['name']);

describe('strategic merge patch: maps and scalars', () => {
  it.each<[string, Obj, Obj, Obj]>([
    ['merges nested maps key by key', { metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { b: '3', c: '4' } } }, { metadata: { labels: { a: '1', b: '3', c: '4' } } }],
    ['deletes a key set to null', { metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { a: null } } }, { metadata: { labels: { b: '2' } } }],
    ['ignores a null for a key the original lacks', { spec: {} }, { spec: { nodeName: null } }, { spec: {} }],
    ['takes a new value without its nulls', { spec: {} }, { spec: { securityContext: { runAsUser: 1, fsGroup: null } } }, { spec: { securityContext: { runAsUser: 1 } } }],
    ['replaces a value of another type', { spec: { x: 'a' } }, { spec: { x: { y: 1 } } }, { spec: { x: { y: 1 } } }],
    ['replaces scalars', { spec: { nodeName: 'a' } }, { spec: { nodeName: 'b' } }, { spec: { nodeName: 'b' } }],
    [
      'replaces a map with $patch: replace',
      { metadata: { labels: { a: '1', b: '2' } } },
      { metadata: { labels: { $patch: 'replace', c: '3' } } },
      { metadata: { labels: { c: '3' } } },
    ],
    ['empties a map with $patch: delete', { metadata: { annotations: { a: '1' } } }, { metadata: { annotations: { $patch: 'delete' } } }, { metadata: { annotations: {} } }],
    ['drops a new map that carries $patch', { metadata: {} }, { metadata: { annotations: { $patch: 'replace', a: '1' } } }, { metadata: {} }],
    ['leaves the object alone for a null patch', { a: 1 }, null as unknown as Obj, { a: 1 }],
  ])('%s', (_name, original, patch, expected) => {
    expect(apply(original, patch)).toEqual(expected);
  });

  it('keeps "__proto__" a plain key', () => {
    const out = apply({ metadata: { labels: {} } }, JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}') as Obj);
    const labels = (out['metadata'] as Obj)['labels'] as Obj;
    // still a plain object (its prototype's prototype is null), with "__proto__" as its own data key
    expect(Object.getPrototypeOf(Object.getPrototypeOf(labels))).toBeNull();
    expect(Object.getOwnPropertyDescriptor(labels, '__proto__')?.value).toBe('x');
  });
});

describe('strategic merge patch: lists merged by key', () => {
  const original = containers({ name: 'a', image: 'x' }, { name: 'b', image: 'y' });

  it('merges an element by its merge key and keeps the others in place', () => {
    expect(apply(original, containers({ name: 'b', image: 'z' }))).toEqual(containers({ name: 'a', image: 'x' }, { name: 'b', image: 'z' }));
  });

  it('puts a new element ahead of the server-only ones, as kube does without $setElementOrder', () => {
    expect(names((apply(original, containers({ name: 'c', image: 'w' }))['spec'] as Obj)['containers'])).toEqual(['c', 'a', 'b']);
  });

  it('places a new element per $setElementOrder', () => {
    const patch = { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }, { name: 'b' }], containers: [{ name: 'c', image: 'w' }] } };
    expect(names((apply(original, patch)['spec'] as Obj)['containers'])).toEqual(['a', 'c', 'b']);
  });

  it('reorders with $setElementOrder alone', () => {
    const out = apply(original, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } });
    expect(out).toEqual(containers({ name: 'b', image: 'y' }, { name: 'a', image: 'x' }));
  });

  it('deletes an element with $patch: delete', () => {
    expect(apply(original, containers({ name: 'a', $patch: 'delete' }))).toEqual(containers({ name: 'b', image: 'y' }));
  });

  it('replaces the whole list with $patch: replace', () => {
    expect(apply(original, containers({ name: 'z', image: 'q' }, { $patch: 'replace' }))).toEqual(containers({ name: 'z', image: 'q' }));
  });

  it('merges container env by name, ports by containerPort, volumeMounts by mountPath', () => {
    const o = containers({
      name: 'a',
      env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
      ports: [{ containerPort: 80, name: 'http' }],
      volumeMounts: [{ mountPath: '/data', name: 'd' }],
    });
    const p = containers({ name: 'a', env: [{ name: 'B', value: '3' }], ports: [{ containerPort: 80, protocol: 'TCP' }], volumeMounts: [{ mountPath: '/data', readOnly: true }] });
    expect(apply(o, p)).toEqual(
      containers({
        name: 'a',
        env: [{ name: 'A', value: '1' }, { name: 'B', value: '3' }],
        ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
        volumeMounts: [{ mountPath: '/data', name: 'd', readOnly: true }],
      }),
    );
  });

  it('merges initContainers, imagePullSecrets, hostAliases and topologySpreadConstraints by their keys', () => {
    const o = {
      spec: {
        initContainers: [{ name: 'i', image: 'x' }],
        imagePullSecrets: [{ name: 'r1' }],
        hostAliases: [{ ip: '1.1.1.1', hostnames: ['a'] }],
        topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }],
      },
    };
    const p = {
      spec: {
        initContainers: [{ name: 'i', image: 'y' }],
        imagePullSecrets: [{ name: 'r2' }],
        hostAliases: [{ ip: '1.1.1.1', hostnames: ['b'] }],
        topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 2 }],
      },
    };
    const out = apply(o, p)['spec'] as Obj;
    expect(out['initContainers']).toEqual([{ name: 'i', image: 'y' }]);
    expect(out['imagePullSecrets']).toEqual([{ name: 'r2' }, { name: 'r1' }]);
    expect(out['hostAliases']).toEqual([{ ip: '1.1.1.1', hostnames: ['b'] }]);
    expect(out['topologySpreadConstraints']).toEqual([{ topologyKey: 'zone', maxSkew: 2, whenUnsatisfiable: 'DoNotSchedule' }]);
  });

  it('merges status.conditions by type and ownerReferences by uid', () => {
    const o = {
      metadata: { ownerReferences: [{ uid: '1', name: 'a' }] },
      status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Scheduled', status: 'True' }] },
    };
    const p = { metadata: { ownerReferences: [{ uid: '1', controller: true }] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(apply(o, p)).toEqual({
      metadata: { ownerReferences: [{ uid: '1', name: 'a', controller: true }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Scheduled', status: 'True' }] },
    });
  });

  it('replaces lists without a merge strategy atomically', () => {
    const o = { spec: { tolerations: [{ key: 'a' }, { key: 'b' }], containers: [{ name: 'c', args: ['x', 'y'] }] } };
    const p = { spec: { tolerations: [{ key: 'c' }], containers: [{ name: 'c', args: ['z'] }] } };
    expect(apply(o, p)).toEqual({ spec: { tolerations: [{ key: 'c' }], containers: [{ name: 'c', args: ['z'] }] } });
  });

  it('merges service ports by port and webhooks by name', () => {
    const svc = schemaOf('', 'Service');
    expect(apply({ spec: { ports: [{ port: 80, name: 'http' }, { port: 443 }] } }, { spec: { ports: [{ port: 80, targetPort: 8080 }] } }, svc)).toEqual({
      spec: { ports: [{ port: 80, name: 'http', targetPort: 8080 }, { port: 443 }] },
    });
    const vwc = schemaOf('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration');
    const o = { webhooks: [{ name: 'a.example.com', failurePolicy: 'Fail', matchConditions: [{ name: 'm', expression: 'true' }] }, { name: 'b.example.com' }] };
    const p = { webhooks: [{ name: 'a.example.com', failurePolicy: 'Ignore', matchConditions: [{ name: 'm', expression: 'false' }] }] };
    expect(apply(o, p, vwc)).toEqual({
      webhooks: [{ name: 'a.example.com', failurePolicy: 'Ignore', matchConditions: [{ name: 'm', expression: 'false' }] }, { name: 'b.example.com' }],
    });
  });
});

describe('strategic merge patch: primitive merge lists (finalizers)', () => {
  it('adds finalizers as a set: a new one goes first, known ones keep their live place', () => {
    expect(apply({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['c'] } })).toEqual({ metadata: { finalizers: ['c', 'a', 'b'] } });
    expect(apply({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['b', 'c'] } })).toEqual({ metadata: { finalizers: ['a', 'b', 'c'] } });
  });

  it('removes with $deleteFromPrimitiveList', () => {
    expect(apply({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'c'] } })).toEqual({ metadata: { finalizers: ['b'] } });
  });

  it('applies kubectl’s add + delete + order triple', () => {
    const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], '$setElementOrder/finalizers': ['b', 'c'], finalizers: ['c'] } };
    expect(apply({ metadata: { finalizers: ['a', 'b'] } }, patch)).toEqual({ metadata: { finalizers: ['b', 'c'] } });
  });

  it('replaces a primitive list without merge strategy', () => {
    expect(apply({ spec: { containers: [{ name: 'a', command: ['x'] }] } }, { spec: { containers: [{ name: 'a', command: ['y'] }] } })).toEqual({
      spec: { containers: [{ name: 'a', command: ['y'] }] },
    });
  });
});

describe('strategic merge patch: $retainKeys', () => {
  const dep = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } }, replicas: 1 } };

  it('clears the keys not retained (Deployment spec.strategy)', () => {
    expect(apply(dep, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, deployment)).toEqual({ spec: { strategy: { type: 'Recreate' }, replicas: 1 } });
  });

  it('switches a volume source (pod volumes are merge+retainKeys)', () => {
    const o = { spec: { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] } };
    const p = { spec: { volumes: [{ $retainKeys: ['configMap', 'name'], name: 'v', configMap: { name: 'cm' } }] } };
    expect(apply(o, p)).toEqual({ spec: { volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', emptyDir: {} }] } });
  });

  it('rejects a patch that sets a key it does not retain', () => {
    expect(failure(dep, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 2 } } } }, deployment)).toEqual({
      message: 'invalid patch format of retainKeys',
      errorClass: 'BadRequest',
    });
  });

  it('rejects a $retainKeys that is not a list', () => {
    expect(failure(dep, { spec: { strategy: { $retainKeys: 'type' } } }, deployment).message).toBe('invalid patch format of retainKeys');
  });
});

describe('strategic merge patch: kubectl apply patches round-trip', () => {
  it('applies a client-side apply patch to a Deployment', () => {
    const live = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      spec: {
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'app', image: 'app:v1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
              { name: 'sidecar', image: 'side:v1' },
            ],
            terminationGracePeriodSeconds: 30,
          },
        },
      },
    };
    // what kubectl apply sends after: image app:v2, env B removed and C added, replicas 3, Recreate strategy
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}' } },
      spec: {
        replicas: 3,
        strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null },
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
            containers: [
              {
                '$setElementOrder/env': [{ name: 'A' }, { name: 'C' }],
                env: [{ name: 'C', value: '3' }, { $patch: 'delete', name: 'B' }],
                image: 'app:v2',
                name: 'app',
              },
            ],
          },
        },
      },
    };
    expect(apply(live, patch, deployment)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}' } },
      spec: {
        replicas: 3,
        strategy: { type: 'Recreate' },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'app', image: 'app:v2', env: [{ name: 'A', value: '1' }, { name: 'C', value: '3' }] },
              { name: 'sidecar', image: 'side:v1' },
            ],
            terminationGracePeriodSeconds: 30,
          },
        },
      },
    });
  });

  it('adds a container in the order $setElementOrder gives', () => {
    const live = containers({ name: 'a' }, { name: 'b' });
    const patch = { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'new' }, { name: 'b' }], containers: [{ name: 'new', image: 'n' }] } };
    expect(names((apply(live, patch)['spec'] as Obj)['containers'])).toEqual(['a', 'new', 'b']);
  });

  it('drops directive keys from values the original did not have', () => {
    const patch = { spec: { containers: [{ name: 'a', '$setElementOrder/env': [{ name: 'X' }], env: [{ name: 'X', value: '1' }] }] } };
    expect(apply({ spec: {} }, patch)).toEqual({ spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '1' }] }] } });
  });
});

describe('strategic merge patch: errors as kube classifies them', () => {
  it.each<[string, Obj, Obj, { message: string; errorClass: string }]>([
    [
      'a list element without its merge key',
      containers({ name: 'a' }),
      containers({ image: 'x' }),
      { message: 'map: map[image:x] does not contain declared merge key: name', errorClass: 'Internal' },
    ],
    // findMapInSliceBasedOnKeyValue's text (strategicpatch/patch.go), without the period it lost in kube 1.9
    ['a $setElementOrder list with an element that is not a map', containers({ name: 'a' }), { spec: { '$setElementOrder/containers': [{ name: 'zz' }, 'x'] } }, { message: 'value for key 1 is not a map', errorClass: 'Internal' }],
    ['$patch: merge on a map', { metadata: { labels: { a: '1' } } }, { metadata: { labels: { $patch: 'merge' } } }, { message: 'unknown patch type: merge in map: map[$patch:merge]', errorClass: 'Internal' }],
    ['$patch: merge in a list', containers({ name: 'a' }), containers({ $patch: 'merge' }), { message: 'merging lists cannot yet be specified in the patch', errorClass: 'Internal' }],
    ['lists of lists', { spec: { containers: [[1]] } }, { spec: { containers: [[2]] } }, { message: 'lists of lists are not supported', errorClass: 'Invalid' }],
    [
      'mixed element types',
      { metadata: { finalizers: ['a'] } },
      { metadata: { finalizers: [1] } },
      { message: 'list element types are not identical: [[a] [1]]', errorClass: 'Internal' },
    ],
    ['$setElementOrder without a field', containers({ name: 'a' }), { spec: { $setElementOrder: [] } }, { message: 'invalid patch format of setElementOrder list', errorClass: 'BadRequest' }],
    [
      '$deleteFromPrimitiveList without a field',
      { metadata: { finalizers: ['a'] } },
      { metadata: { $deleteFromPrimitiveList: ['a'] } },
      { message: 'invalid patch format of primitive list', errorClass: 'BadRequest' },
    ],
    [
      'a $setElementOrder that is not a list',
      containers({ name: 'a' }),
      { spec: { '$setElementOrder/containers': 'a' } },
      { message: 'expected a []interface {}, but received a string', errorClass: 'Internal' },
    ],
    [
      'a patch list out of $setElementOrder order',
      containers({ name: 'a' }, { name: 'b' }),
      { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b' }] } },
      { message: "the order in patch list:\n[map[name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]", errorClass: 'Internal' },
    ],
  ])('%s', (_name, original, patch, expected) => {
    expect(failure(original, patch)).toEqual(expected);
  });
});
