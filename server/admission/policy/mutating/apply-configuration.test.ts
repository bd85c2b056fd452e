import type { KubeObject } from '../../../api/types.js';
import { applyStructuredMergeDiff, findAtomics, pruneNulls } from './apply-configuration.js';
import { applySchemaFor, loadApplySchema, type ApplySchema } from './apply-schema.js';

const deploymentSchema = applySchemaFor({ group: 'apps', kind: 'Deployment' });

function deploymentWith(spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'web' }): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}

const podSpec = (spec: Record<string, unknown>) => ({ template: { spec } });

function apply(live: KubeObject, patch: Record<string, unknown>, schema = deploymentSchema): KubeObject {
  const r = applyStructuredMergeDiff(live, patch, schema);
  if (!r.ok) throw new Error(r.error);
  return r.object;
}

function applyError(live: KubeObject, patch: Record<string, unknown>, schema = deploymentSchema): string {
  const r = applyStructuredMergeDiff(live, patch, schema);
  if (r.ok) throw new Error(`applied: ${JSON.stringify(r.object)}`);
  return r.error;
}

describe('ApplyConfiguration merge semantics (structured-merge-diff Merge)', () => {
  // [name, live spec, patch spec, expected spec]
  const table: Array<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = [
    ['a scalar is replaced', { replicas: 1 }, { replicas: 3 }, { replicas: 3 }],
    ['a new scalar is added, the others are kept', { replicas: 1 }, { paused: true }, { replicas: 1, paused: true }],
    [
      'structs merge field by field',
      podSpec({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' }),
      podSpec({ dnsPolicy: 'None' }),
      podSpec({ restartPolicy: 'Always', dnsPolicy: 'None' }),
    ],
    [
      'a listType=map list gets a new element after the live ones (volumes keyed by name)',
      podSpec({ volumes: [{ name: 'x' }] }),
      podSpec({ volumes: [{ name: 'y' }] }),
      podSpec({ volumes: [{ name: 'x' }, { name: 'y' }] }),
    ],
    [
      'a listType=map element is merged with the live element of the same key',
      podSpec({ volumes: [{ name: 'x' }, { name: 'y' }] }),
      podSpec({ volumes: [{ name: 'y', hostPath: { path: 'a' } }] }),
      podSpec({ volumes: [{ name: 'x' }, { name: 'y', hostPath: { path: 'a' } }] }),
    ],
    [
      'containers merge by name; fields of the live container stay',
      podSpec({ containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }] }] }),
      podSpec({ containers: [{ name: 'nginx', image: 'nginx:2' }] }),
      podSpec({ containers: [{ name: 'nginx', image: 'nginx:2', ports: [{ containerPort: 80, protocol: 'TCP' }] }] }),
    ],
    [
      'container ports are keyed by containerPort and protocol, protocol defaulting to TCP',
      podSpec({ containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] }),
      podSpec({ containers: [{ name: 'c', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 80, protocol: 'UDP' }] }] }),
      podSpec({ containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 80, protocol: 'UDP' }] }] }),
    ],
    [
      'a duplicated live key is replaced by the patch element and the duplicates collapse (env)',
      podSpec({ containers: [{ name: 'nginx', env: [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }, { name: 'foo', value: 'bar' }] }] }),
      podSpec({ containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }] }] }),
      podSpec({ containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }, { name: 'foo', value: 'bar' }] }] }),
    ],
    [
      'live duplicates are kept when the patch does not touch the list',
      { replicas: 1, ...podSpec({ containers: [{ name: 'nginx', env: [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }] }] }) },
      { replicas: 3 },
      { replicas: 3, ...podSpec({ containers: [{ name: 'nginx', env: [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }] }] }) },
    ],
    [
      'shared elements take the patch order among themselves, new ones follow the element before them in the patch',
      podSpec({ volumes: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }),
      podSpec({ volumes: [{ name: 'c' }, { name: 'n' }, { name: 'a' }] }),
      podSpec({ volumes: [{ name: 'b' }, { name: 'c' }, { name: 'n' }, { name: 'a' }] }),
    ],
    ['a null removes the field', { replicas: 1, paused: true }, { paused: null }, { replicas: 1 }],
    [
      'a granular map (resources.limits) merges key by key',
      podSpec({ containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }] }),
      podSpec({ containers: [{ name: 'c', resources: { limits: { memory: '1Gi' } } }] }),
      podSpec({ containers: [{ name: 'c', resources: { limits: { cpu: '1', memory: '1Gi' } } }] }),
    ],
  ];

  it.each(table)('%s', (_name, live, patch, expected) => {
    expect(apply(deploymentWith(live), { spec: patch })).toEqual(deploymentWith(expected));
  });

  it('merges labels and annotations key by key and finalizers as a set (patch order first for shared items)', () => {
    const live = deploymentWith({}, { name: 'web', labels: { a: '1' }, annotations: { x: 'y' }, finalizers: ['f1', 'f2'] });
    const out = apply(live, { metadata: { labels: { b: '2' }, annotations: { x: 'z' }, finalizers: ['f3', 'f1'] } });
    expect(out.metadata).toEqual({ name: 'web', labels: { a: '1', b: '2' }, annotations: { x: 'z' }, finalizers: ['f3', 'f1', 'f2'] });
  });

  it('sets apiVersion and kind of the patch to the object\'s', () => {
    expect(apply(deploymentWith({ replicas: 1 }), { apiVersion: 'v1', kind: 'Pod', spec: { replicas: 2 } })).toEqual(deploymentWith({ replicas: 2 }));
  });

  it('does not modify its inputs', () => {
    const live = deploymentWith(podSpec({ volumes: [{ name: 'x' }] }));
    const patch = { spec: podSpec({ volumes: [{ name: 'y' }] }) };
    const liveCopy = structuredClone(live);
    const patchCopy = structuredClone(patch);
    apply(live, patch);
    expect(live).toEqual(liveCopy);
    expect(patch).toEqual(patchCopy);
  });

  it('merges a kind without schema as kube\'s deduced type: objects merge, lists are replaced', () => {
    const schema = applySchemaFor({ group: 'example.com', kind: 'Widget' });
    const live: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { a: 1, list: [1, 2], nested: { x: 1 } } };
    expect(apply(live, { spec: { list: [3], nested: { y: 2 }, extra: 'e' } }, schema)).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { a: 1, list: [3], nested: { x: 1, y: 2 }, extra: 'e' },
    });
  });
});

describe('ApplyConfiguration errors (kube\'s texts)', () => {
  it('refuses an atomic struct: .spec.selector (LabelSelector)', () => {
    expect(applyError(deploymentWith({ replicas: 1 }), { spec: { selector: { matchLabels: { l: 'v' } } } })).toBe(
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector',
    );
  });

  it('refuses atomic lists, naming elements by index', () => {
    expect(applyError(deploymentWith({}), { spec: podSpec({ containers: [{ name: 'c', args: ['a'] }], tolerations: [{ key: 'k' }] }) })).toBe(
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.template.spec.containers[0].args, .spec.template.spec.tolerations',
    );
  });

  it('refuses an unknown top-level field of a known kind', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
    expect(applyError(cm, { spec: { invalidField: 'x' } }, applySchemaFor({ group: '', kind: 'ConfigMap' }))).toBe(
      'failed to convert patch object to typed object: .spec: field not declared in schema',
    );
    expect(applyError(cm, { spec: {}, metadata: { bogus: 1 } }, applySchemaFor({ group: '', kind: 'ConfigMap' }))).toBe(
      'failed to convert patch object to typed object: errors:\n  .spec: field not declared in schema\n  .metadata.bogus: field not declared in schema',
    );
  });

  it('refuses an element of a keyed list without its key, and duplicated keys', () => {
    expect(applyError(deploymentWith({}), { spec: podSpec({ containers: [{ image: 'x' }] }) })).toBe(
      'failed to convert patch object to typed object: .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
    expect(applyError(deploymentWith({}), { spec: podSpec({ containers: [{ name: 'a' }, { name: 'a' }] }) })).toBe(
      'failed to convert patch object to typed object: .spec.template.spec.containers: duplicate entries for key [name="a"]',
    );
  });

  it('refuses a live object whose keyed list cannot be keyed', () => {
    expect(applyError(deploymentWith(podSpec({ containers: [{ image: 'x' }] })), { spec: { replicas: 2 } })).toBe(
      'failed to convert original object to typed object: .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
  });
});

describe('findAtomics', () => {
  it('finds nothing in a deduced value, and the atomic fields of typed ones', () => {
    expect(findAtomics({ a: [1] }, { type: 'deduced' })).toEqual([]);
    expect(findAtomics({ spec: podSpec({ nodeSelector: { a: 'b' }, imagePullSecrets: [{ name: 's' }] }) }, deploymentSchema.root)).toEqual([
      '.spec.template.spec.nodeSelector',
      '.spec.template.spec.imagePullSecrets[0]',
    ]);
    expect(findAtomics({ metadata: { ownerReferences: [{ uid: 'u' }] } }, deploymentSchema.root)).toEqual(['.metadata.ownerReferences[0]']);
  });
});

describe('pruneNulls', () => {
  it('drops null fields at every level', () => {
    expect(pruneNulls({ a: null, b: { c: null, d: 1 }, e: [{ f: null }] })).toEqual({ b: { d: 1 }, e: [{}] });
  });
});

// The same merges with the Deployment's OpenAPI shape (client-node's models) under the patch tags' list types.
describe('ApplyConfiguration with the kind\'s OpenAPI schema', () => {
  let typed: ApplySchema;
  beforeAll(async () => {
    typed = await loadApplySchema({ group: 'apps', version: 'v1', kind: 'Deployment' });
  });

  it('is what applySchemaFor answers for that version once loaded, and closed', () => {
    expect(typed.closed).toBe(true);
    expect(applySchemaFor({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(typed);
    expect(applySchemaFor({ group: 'apps', kind: 'Deployment' }).closed).toBe(false);
  });

  it('merges spec.template.spec.containers by name, keeping the live order and fields', () => {
    const live = deploymentWith(podSpec({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] }));
    const out = apply(live, { spec: podSpec({ containers: [{ name: 'b', image: 'b:2' }, { name: 'sidecar', image: 's' }] }) }, typed);
    expect(out.spec).toEqual(podSpec({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:2' }, { name: 'sidecar', image: 's' }] }));
  });

  it('merges a container\'s env by name and ports by containerPort and protocol (TCP by default)', () => {
    const live = deploymentWith(podSpec({ containers: [{ name: 'a', env: [{ name: 'X', value: '1' }], ports: [{ containerPort: 80 }] }] }));
    const out = apply(live, { spec: podSpec({ containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 80, protocol: 'UDP' }] }] }) }, typed);
    expect(out.spec).toEqual(
      podSpec({ containers: [{ name: 'a', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 80, protocol: 'UDP' }] }] }),
    );
  });

  it('merges resources.claims by name (+listType=map without patch tags)', () => {
    const live = deploymentWith(podSpec({ containers: [{ name: 'a', resources: { claims: [{ name: 'gpu' }] } }] }));
    const out = apply(live, { spec: podSpec({ containers: [{ name: 'a', resources: { claims: [{ name: 'fpga' }] } }] }) }, typed);
    expect(out.spec).toEqual(podSpec({ containers: [{ name: 'a', resources: { claims: [{ name: 'gpu' }, { name: 'fpga' }] } }] }));
  });

  it('merges finalizers as a set, labels and annotations key by key', () => {
    const live = deploymentWith({}, { name: 'web', labels: { a: '1' }, annotations: { x: 'y' }, finalizers: ['f1', 'f2'] });
    const out = apply(live, { metadata: { labels: { b: '2' }, annotations: { x: 'z' }, finalizers: ['f3', 'f1'] } }, typed);
    expect(out.metadata).toEqual({ name: 'web', labels: { a: '1', b: '2' }, annotations: { x: 'z' }, finalizers: ['f3', 'f1', 'f2'] });
  });

  it('refuses atomic lists, maps and structs wherever they are', () => {
    expect(applyError(deploymentWith({}), { spec: podSpec({ containers: [{ name: 'c', args: ['a'] }], tolerations: [{ key: 'k' }] }) }, typed)).toBe(
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.template.spec.containers[0].args, .spec.template.spec.tolerations',
    );
    expect(applyError(deploymentWith({}), { spec: { selector: { matchLabels: { l: 'v' } } } }, typed)).toBe(
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector',
    );
    expect(applyError(deploymentWith({}), { spec: podSpec({ nodeSelector: { disk: 'ssd' }, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } }) }, typed)).toBe(
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.template.spec.nodeSelector, .spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, .spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms',
    );
  });

  it('refuses a field the schema does not declare, at any depth, naming keyed elements by key', () => {
    expect(applyError(deploymentWith({}), { spec: podSpec({ containers: [{ name: 'x', bogus: 1 }] }) }, typed)).toBe(
      'failed to convert patch object to typed object: .spec.template.spec.containers[name="x"].bogus: field not declared in schema',
    );
    expect(applyError(deploymentWith({}), { spec: { strategy: { rollingUpdate: { maxSurgeZ: 1 } } } }, typed)).toBe(
      'failed to convert patch object to typed object: .spec.strategy.rollingUpdate.maxSurgeZ: field not declared in schema',
    );
    expect(applyError(deploymentWith({}), { spec: { bogus: 1 }, metadata: { bogus: 1 } }, typed)).toBe(
      'failed to convert patch object to typed object: errors:\n  .spec.bogus: field not declared in schema\n  .metadata.bogus: field not declared in schema',
    );
  });

  it('accepts any key in a map and any value in an object-typed field', () => {
    const out = apply(deploymentWith({}), { spec: podSpec({ containers: [{ name: 'a', resources: { limits: { 'example.com/gpu': '1' } } }] }) }, typed);
    expect(out.spec).toEqual(podSpec({ containers: [{ name: 'a', resources: { limits: { 'example.com/gpu': '1' } } }] }));
  });

  it('finds every undeclared field of an object as the strict JSON decoder names them', () => {
    const obj = { apiVersion: 'apps/v1', kind: 'Deployment', bogus: 1, metadata: { name: 'x', labels: { a: 'b' }, nope: 1 }, spec: podSpec({ containers: [{ name: 'a' }, { name: 'b', ports: [{ containerPortZ: 8080 }] }], tolerations: [{ key: 'k', what: 1 }] }) };
    expect(typed.unknownFields(obj)).toEqual(['bogus', 'metadata.nope', 'spec.template.spec.containers[1].ports[0].containerPortZ', 'spec.template.spec.tolerations[0].what']);
  });
});
