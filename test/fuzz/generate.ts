// The fuzz request generator: every request is one draw from a few small tables (verb, path shape, query, headers,
// content type, body malformation), so a failure names the table entries that built it and the seed reproduces it.
// Each table says what a broken or hostile client sends; the suite (requests.test.ts) says what the server must answer.
import YAML from 'yaml';
import type { Prng } from '../support/prng.js';
import { apiVersionOf, groupVersionPath, type ServedResource } from './discovery.js';
import { protobufCases } from './protobuf-bodies.js';

type Obj = Record<string, unknown>;

export interface FuzzRequest {
  id: number;
  method: string;
  /** path and query, sent as-is */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** watches: how long to read the stream before closing it */
  streamMs?: number;
  /** watches: kube-apiserver sends the 200 and its headers as the stream begins (BeginStream in handlers/watch.go) */
  headersWithinMs?: number;
  /** the table entries that built this request */
  labels: { verb: string; resource: string; path: string; query: string; header: string; contentType: string; body: string };
}

/** The namespace the suite creates; objects made by the fuzz carry names from `fuzzNames`. */
export const fuzzNamespace = 'fuzz';
export const fuzzNames = ['fz-0', 'fz-1', 'fz-2', 'fz-3', 'fz-4', 'fz-5'];
/** deletecollection only ever selects this label, so the fuzz never wipes the objects other requests rely on. */
export const doomedSelector = 'fz-doomed%3Dtrue';

export interface FuzzWorld {
  /** main resources (no subresource) */
  resources: ServedResource[];
  /** subresources by `group/resource` */
  subresources: Map<string, ServedResource[]>;
}

export function fuzzWorld(served: ServedResource[]): FuzzWorld {
  const subresources = new Map<string, ServedResource[]>();
  for (const r of served.filter((s) => s.subresource !== '')) {
    const key = `${r.group}/${r.version}/${r.resource}`;
    subresources.set(key, [...(subresources.get(key) ?? []), r]);
  }
  return { resources: served.filter((s) => s.subresource === ''), subresources };
}

// ---------------------------------------------------------------------------------------------------------------
// Objects: a valid-looking base per kind, so that one malformation at a time reaches deep into validation.

const podSpec = { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }] };
const podTemplate = { metadata: { labels: { app: 'fz' } }, spec: podSpec };
const selector = { matchLabels: { app: 'fz' } };

const kindTemplates: Record<string, () => Obj> = {
  ConfigMap: () => ({ data: { k: 'v' }, binaryData: { b: 'AAE=' } }),
  Secret: () => ({ type: 'Opaque', data: { k: 'dg==' }, stringData: { s: 'x' } }),
  Pod: () => ({ spec: podSpec }),
  Service: () => ({ spec: { selector: { app: 'fz' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } }),
  ServiceAccount: () => ({ automountServiceAccountToken: false }),
  Deployment: () => ({ spec: { replicas: 1, selector, template: podTemplate } }),
  ReplicaSet: () => ({ spec: { replicas: 1, selector, template: podTemplate } }),
  StatefulSet: () => ({ spec: { replicas: 1, serviceName: 's', selector, template: podTemplate } }),
  DaemonSet: () => ({ spec: { selector, template: podTemplate } }),
  Job: () => ({ spec: { template: { ...podTemplate, spec: { ...podSpec, restartPolicy: 'Never' } } } }),
  Role: () => ({ rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }),
  ClusterRole: () => ({ rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }),
  RoleBinding: () => ({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }] }),
  ClusterRoleBinding: () => ({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }] }),
  Namespace: () => ({ spec: { finalizers: ['kubernetes'] } }),
  Lease: () => ({ spec: { holderIdentity: 'fz', leaseDurationSeconds: 10 } }),
  ResourceQuota: () => ({ spec: { hard: { pods: '10' } } }),
  LimitRange: () => ({ spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }),
  PersistentVolumeClaim: () => ({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
  PriorityClass: () => ({ value: 1000 }),
  Event: () => ({ involvedObject: { kind: 'ConfigMap', name: 'fz-0', namespace: fuzzNamespace }, reason: 'Fuzz', message: 'm' }),
};

function baseObject(r: ServedResource, name: string, namespace: string | undefined): Obj {
  const metadata: Obj = { name, labels: { fz: '1' }, annotations: { 'fz/a': 'x' } };
  if (namespace !== undefined) metadata['namespace'] = namespace;
  return { apiVersion: apiVersionOf(r), kind: r.kind, metadata, ...(kindTemplates[r.kind]?.() ?? {}) };
}

// ---------------------------------------------------------------------------------------------------------------
// Values of the wrong type, and where to put them.

const wrongValues: readonly unknown[] = [1, -1, 0, 1.5, 1e308, -0, 'x', '', '1', true, false, null, [], [1], ['a', 1], {}, { a: 1 }, [[]], [{}], { '': null }];

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The exact shapes issue #13 reports, plus siblings, each a path and a wrongly typed value. */
const knownWrongTypes: ReadonlyArray<[string[], unknown]> = [
  [['metadata', 'finalizers'], 'str'],
  [['metadata', 'labels'], [1]],
  [['metadata', 'labels'], { a: 1 }],
  [['metadata', 'annotations'], { a: true }],
  [['data'], 123],
  [['data'], { k: 1 }],
  [['spec', 'replicas'], 'x'],
  [['spec', 'replicas'], 1.5],
  [['metadata', 'ownerReferences'], 123],
  [['metadata', 'ownerReferences'], [{ apiVersion: 1, kind: [], name: {}, uid: 5 }]],
  [['metadata', 'generateName'], 7],
  [['metadata', 'name'], 5],
  [['metadata', 'namespace'], []],
  [['metadata', 'resourceVersion'], 12],
  [['metadata', 'generation'], 'g'],
  [['metadata', 'creationTimestamp'], 'not a time'],
  [['metadata', 'deletionGracePeriodSeconds'], 'x'],
  [['metadata', 'managedFields'], 'x'],
  [['metadata', 'managedFields'], [{ manager: 1, operation: 'Nope', fieldsType: 'FieldsV1', fieldsV1: 'x' }]],
  [['metadata'], []],
  [['metadata'], 'x'],
  [['apiVersion'], 1],
  [['kind'], {}],
  [['spec'], 'x'],
  [['spec', 'template', 'spec', 'containers'], 'x'],
  [['spec', 'template', 'spec', 'containers', '0', 'ports'], [{ containerPort: 'http' }]],
  [['spec', 'containers'], [1]],
  [['spec', 'ports'], [{ port: 'x' }]],
  [['spec', 'selector'], 'app=fz'],
  [['rules'], [{ verbs: 'get' }]],
  [['subjects'], {}],
  [['immutable'], 'yes'],
  [['binaryData'], { b: 'not base64!' }],
  [['data'], { k: 'not base64!' }],
  [['status'], 'x'],
];

function setAt(obj: Obj, path: readonly string[], value: unknown): void {
  let cur: Obj = obj;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    if (next === null || typeof next !== 'object') cur[key] = {};
    cur = cur[key] as Obj;
  }
  cur[path[path.length - 1]!] = value;
}

/** Every path in a JSON value (objects and arrays alike), for the random wrong-type mutation. */
function allPaths(v: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (v !== null && typeof v === 'object') {
    for (const [k, child] of Object.entries(v as Obj)) {
      const p = [...prefix, k];
      out.push(p);
      allPaths(child, p, out);
    }
  }
  return out;
}

function valueAt(v: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((cur, k) => (cur !== null && typeof cur === 'object' ? (cur as Obj)[k] : undefined), v);
}

// ---------------------------------------------------------------------------------------------------------------
// Text-level building blocks: deep nesting, huge strings, duplicate keys. A placeholder string in an object is
// replaced by raw JSON text after serialisation (JSON text is YAML flow style too).

const placeholder = '__FZ_RAW__';

function withRaw(obj: Obj, path: readonly string[], rawJSON: string): string {
  const copy = structuredClone(obj);
  setAt(copy, path, placeholder);
  return JSON.stringify(copy).replace(`"${placeholder}"`, () => rawJSON);
}

export function deepJSON(depth: number, shape: 'array' | 'object' | 'mixed'): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    const arr = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
    open.push(arr ? '[' : '{"a":');
    close.push(arr ? ']' : '}');
  }
  return open.join('') + '1' + close.reverse().join('');
}

const nestingDepths = [64, 500, 1000, 2000, 3000, 5000];
const deepPaths: ReadonlyArray<string[]> = [
  ['metadata', 'labels'],
  ['metadata', 'annotations', 'fz/deep'],
  ['metadata', 'finalizers'],
  ['metadata', 'ownerReferences'],
  ['metadata', 'managedFields'],
  ['data', 'k'],
  ['data'],
  ['spec'],
  ['spec', 'fz'],
  ['fzUnknown'],
  ['status'],
];

/** kube-apiserver's request body limit is 3 MiB; etcd's default request limit 1.5 MiB; ConfigMap/Secret data 1 MiB. */
const hugeSizes = [1024 * 1024 + 1, 1536 * 1024, 3 * 1024 * 1024 - 4096, 3 * 1024 * 1024 + 1];
const hugePaths: ReadonlyArray<string[]> = [
  ['metadata', 'annotations', 'fz/huge'],
  ['metadata', 'labels', 'fz'],
  ['metadata', 'name'],
  ['data', 'k'],
  ['fzUnknown'],
  ['spec', 'fz'],
];

// ---------------------------------------------------------------------------------------------------------------
// Object body malformations (create, update, apply, and patches that carry a whole object).

interface BodyCtx {
  rng: Prng;
  base: Obj;
  /** json or yaml: how the (possibly mutated) object is written */
  syntax: 'json' | 'yaml';
}

interface BodyCase {
  name: string;
  weight: number;
  make(c: BodyCtx): string | Buffer;
}

const serialise = (c: BodyCtx, obj: unknown): string => (c.syntax === 'yaml' && c.rng.chance(0.7) ? YAML.stringify(obj) : JSON.stringify(obj));

const objectBodyCases: readonly BodyCase[] = [
  { name: 'valid', weight: 8, make: (c) => serialise(c, c.base) },
  {
    name: 'wrong-type-known',
    weight: 14,
    make: (c) => {
      const [path, value] = c.rng.pick(knownWrongTypes);
      const obj = structuredClone(c.base);
      setAt(obj, path, value);
      return serialise(c, obj);
    },
  },
  {
    name: 'wrong-type-random-path',
    weight: 14,
    make: (c) => {
      const obj = structuredClone(c.base);
      const path = c.rng.pick(allPaths(obj));
      const was = jsonType(valueAt(obj, path));
      const value = c.rng.pick(wrongValues.filter((v) => jsonType(v) !== was));
      setAt(obj, path, value);
      return serialise(c, obj);
    },
  },
  {
    name: 'unknown-field',
    weight: 6,
    make: (c) => {
      const obj = structuredClone(c.base);
      // non-ASCII names too: the unknown-field warning carries the name into a response header
      const field = c.rng.pick(['fzUnknown', 'fzUnknown', 'fé', 'f€', 'f😀', 'f\ufffd', 'f"q', 'f\\b', 'f\nl']);
      const path = c.rng.pick([[field], ['metadata', field], ['spec', field], ['data', 'k', field], ['spec', 'template', 'spec', field], ['status', field]]);
      setAt(obj, path, c.rng.pick(wrongValues));
      return serialise(c, obj);
    },
  },
  {
    name: 'deep-nesting',
    weight: 6,
    make: (c) => withRaw(c.base, c.rng.pick(deepPaths), deepJSON(c.rng.pick(nestingDepths), c.rng.pick(['array', 'object', 'mixed'] as const))),
  },
  {
    name: 'huge-string',
    weight: 1,
    make: (c) => withRaw(c.base, c.rng.pick(hugePaths), JSON.stringify('a'.repeat(c.rng.pick(hugeSizes) - 300))),
  },
  {
    name: 'duplicate-keys',
    weight: 4,
    make: (c) => {
      const text = JSON.stringify(c.base);
      return c.rng.pick([
        () => text.replace('"metadata":{', '"metadata":{"name":"fz-dup","name":5,'),
        () => text.replace('{', '{"kind":"Pod","kind":{},'),
        () => text.replace('"labels":{', '"labels":{"fz":"a","fz":["b"],'),
        () => text.replace('"labels":{', '"labels":{"f€":"a","f€":"b",'),
        () => text.replace(/}$/, ',"metadata":{"name":"fz-1"}}'),
        () => text.replace('{', '{"spec":1,"spec":{"replicas":"x"},'),
      ])();
    },
  },
  {
    name: 'syntax-error',
    weight: 8,
    make: (c) => {
      const text = serialise(c, c.base);
      return c.rng.pick([
        () => text.slice(0, c.rng.int(1, text.length - 1)),
        () => text + '}',
        () => text + ' trailing',
        () => text.replace(':', ''),
        () => text.replace('"', "'"),
        () => '{"a":}',
        () => '{',
        () => '[',
        () => '"',
        () => '{"apiVersion":"v1",,}',
        () => '{"a":NaN,"b":Infinity}',
        () => '{"a":1e99999}',
        () => '{"a":01}',
        () => '{"a":"\\uD800"}',
        () => '{"a":"\\x41"}',
        () => '\t- a\n\t- b:\n  c',
        () => 'a: b: c',
        () => 'a: "unterminated',
        () => '--- a\n--- b\n',
        () => '!!binary notbase64',
        () => 'a: !!int x',
        () => '? [complex, key]\n: v',
        () => '%YAML 9.9\n---\na: 1',
      ])();
    },
  },
  {
    name: 'not-an-object',
    weight: 3,
    make: (c) => c.rng.pick(['', ' ', '\n', 'null', '[]', '[{}]', '1', '"s"', 'true', '{}', '---\n', '- a\n- b\n']),
  },
  {
    name: 'yaml-alias',
    weight: 3,
    make: (c) => {
      // a billion-laughs shape: each level refers to the previous one nine times
      const levels = c.rng.pick([3, 6, 9]);
      const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
      const meta = YAML.stringify({ apiVersion: c.base['apiVersion'], kind: c.base['kind'], metadata: c.base['metadata'] });
      return c.rng.pick([
        () => `${meta}data:\n${lines.map((l) => `  ${l}`).join('\n')}\n`,
        () => `${meta}fzUnknown:\n${lines.map((l) => `  ${l}`).join('\n')}\n`,
        () => `x: &x {apiVersion: v1}\n<<: *x\nkind: ${String(c.base['kind'])}\nmetadata: {name: fz-merge}\n`,
        () => `${meta}data: &d {k: v}\nbinaryData: *d\n`,
        () => `a: &a [*a]\n`,
      ])();
    },
  },
  {
    name: 'bad-encoding',
    weight: 2,
    make: (c) => {
      const text = JSON.stringify(c.base);
      return c.rng.pick([
        () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
        () => Buffer.from(text, 'utf16le'),
        () => Buffer.from(text.replace('"fz-', '"\u0000fz-')),
        () => Buffer.concat([Buffer.from(text.slice(0, 20)), Buffer.from([0xc0, 0xae, 0xff, 0xfe]), Buffer.from(text.slice(20))]),
      ])();
    },
  },
  {
    name: 'type-meta',
    weight: 4,
    make: (c) => {
      const obj = structuredClone(c.base);
      c.rng.pick([
        () => delete obj['apiVersion'],
        () => delete obj['kind'],
        () => (obj['kind'] = 'NoSuchKind'),
        () => (obj['kind'] = c.rng.pick(['Pod', 'ConfigMap', 'Namespace', 'Status', 'List', 'Scale', 'DeleteOptions'])),
        () => (obj['apiVersion'] = c.rng.pick(['v2', 'apps/v1', 'nope/v1', '/', 'v1/v1/v1', ''])),
        () => Object.assign(obj, { kind: 'List', items: [structuredClone(c.base)] }),
      ])();
      return serialise(c, obj);
    },
  },
  {
    name: 'metadata-values',
    weight: 6,
    make: (c) => {
      const obj = structuredClone(c.base);
      const m = obj['metadata'] as Obj;
      c.rng.pick([
        () => (m['name'] = c.rng.pick(['', '.', '..', 'UPPER', 'a/b', 'a%b', 'x'.repeat(300), '-a', 'fz-other'])),
        () => (m['namespace'] = c.rng.pick(['', 'other', 'UPPER', '..'])),
        () => delete m['name'],
        () => Object.assign(m, { name: undefined, generateName: c.rng.pick(['fz-', '', 'UP', 'x'.repeat(300)]) }),
        () => (m['resourceVersion'] = c.rng.pick(['abc', '-1', '0', '99999999999999999999', ''])),
        () => (m['uid'] = c.rng.pick(['not-a-uid', ''])),
        () => (m['deletionTimestamp'] = '2020-01-01T00:00:00Z'),
        () => (m['finalizers'] = c.rng.pick([['fz/x'], ['bad finalizer'], ['kubernetes'], ['a', 'a']])),
        () => (m['labels'] = { 'bad key!': 'v', fz: 'x'.repeat(100) }),
        () => (m['labels'] = { 'fz-doomed': 'true' }),
        () => (m['ownerReferences'] = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'fz-0', uid: c.rng.pick(['', 'x', '00000000-0000-0000-0000-000000000000']), controller: true }]),
        () => (m['managedFields'] = [{ manager: 'fz', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:bogus': 1 } } }]),
        () => (m['selfLink'] = '/x'),
      ])();
      return serialise(c, obj);
    },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Patch bodies per patch type.

const jsonPatchOps: ReadonlyArray<(rng: Prng) => unknown> = [
  () => ({ op: 'add', path: '/metadata/labels/fz-added', value: 'v' }),
  () => ({ op: 'add', path: '/metadata/labels', value: [1] }),
  () => ({ op: 'replace', path: '/metadata/finalizers', value: 'str' }),
  () => ({ op: 'replace', path: '/spec/replicas', value: 'x' }),
  () => ({ op: 'add', path: '/data', value: 123 }),
  () => ({ op: 'add', path: '/metadata/ownerReferences', value: 123 }),
  () => ({ op: 'add', path: '/fzUnknown', value: {} }),
  () => ({ op: 'remove', path: '/metadata' }),
  () => ({ op: 'remove', path: '/no/such/path' }),
  () => ({ op: 'remove', path: '' }),
  () => ({ op: 'replace', path: '', value: [] }),
  () => ({ op: 'move', from: '/nope', path: '/x' }),
  () => ({ op: 'move', from: '/metadata', path: '/metadata/labels' }),
  () => ({ op: 'copy', from: '/metadata/labels', path: '/metadata/annotations' }),
  () => ({ op: 'test', path: '/metadata/name', value: 'not-the-name' }),
  () => ({ op: 'test', path: '/kind', value: 1 }),
  () => ({ op: 'nope', path: '/x' }),
  () => ({ op: 'add' }),
  () => ({ path: '/x', value: 1 }),
  () => ({ op: 'add', path: 'no-leading-slash', value: 1 }),
  () => ({ op: 'add', path: '/metadata/labels/a~2b', value: 'x' }),
  () => ({ op: 'add', path: '/metadata/finalizers/-', value: 'fz/x' }),
  () => ({ op: 'add', path: '/metadata/finalizers/99999999999999999999', value: 'x' }),
  () => ({ op: 'add', path: '/metadata/finalizers/-1', value: 'x' }),
  () => ({ op: 'add', path: '/metadata/finalizers/01', value: 'x' }),
  () => ({ op: 'add', path: '/__proto__/polluted', value: 'x' }),
  () => ({ op: 'add', path: '/metadata/name', value: 'renamed' }),
  () => ({ op: 'add', path: '/metadata/namespace', value: 'elsewhere' }),
  () => ({ op: 'add', path: '/metadata/resourceVersion', value: 'abc' }),
  () => ({ op: 'add', path: '/metadata/uid', value: 'x' }),
  () => ({ op: 'add', path: '/apiVersion', value: 'v2' }),
  (rng) => ({ op: 'add', path: '/spec/' + Array.from({ length: rng.pick([10, 500, 3000]) }, () => 'a').join('/'), value: 1 }),
];

const mergePatchCases: ReadonlyArray<(rng: Prng) => unknown> = [
  () => ({ metadata: { labels: { fz: 'patched' } } }),
  () => ({ metadata: null }),
  () => ({ metadata: { labels: [1] } }),
  () => ({ metadata: { finalizers: 'str' } }),
  () => ({ metadata: { ownerReferences: 123 } }),
  () => ({ metadata: { name: 'renamed' } }),
  () => ({ metadata: { namespace: 'elsewhere' } }),
  () => ({ metadata: { resourceVersion: 'abc' } }),
  () => ({ metadata: { uid: 'x' } }),
  () => ({ data: 123 }),
  () => ({ data: { k: null, j: 1 } }),
  () => ({ spec: { replicas: 'x' } }),
  () => ({ spec: null }),
  () => ({ status: { replicas: 'x' } }),
  () => ({ kind: 'Pod' }),
  () => ({ apiVersion: null, kind: null }),
  () => ({ fzUnknown: { a: 1 } }),
  () => [],
  () => 'x',
  () => null,
  () => 1,
];

const strategicPatchCases: ReadonlyArray<(rng: Prng) => unknown> = [
  () => ({ $patch: 'delete' }),
  () => ({ $patch: 'replace', metadata: { name: 'fz-0' } }),
  () => ({ $patch: 'nope' }),
  () => ({ $patch: 1 }),
  () => ({ metadata: { $patch: 'replace' } }),
  () => ({ metadata: { finalizers: { $patch: 'x' } } }),
  () => ({ metadata: { '$setElementOrder/finalizers': 'str' } }),
  () => ({ metadata: { '$setElementOrder/finalizers': [{}] } }),
  () => ({ metadata: { '$deleteFromPrimitiveList/finalizers': {} } }),
  () => ({ metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 1] } }),
  () => ({ metadata: { $retainKeys: 5 } }),
  () => ({ metadata: { ownerReferences: [{ $patch: 'delete' }] } }),
  () => ({ metadata: { ownerReferences: [{ $patch: 'delete', uid: 1 }] } }),
  () => ({ metadata: { ownerReferences: [1, 'x'] } }),
  () => ({ metadata: { labels: [1] } }),
  () => ({ metadata: { finalizers: 'str' } }),
  () => ({ data: 123 }),
  () => ({ spec: { replicas: 'x' } }),
  () => ({ spec: { template: { spec: { containers: [1] } } } }),
  () => ({ spec: { template: { spec: { containers: [{ name: 'c', $patch: 'delete' }] } } } }),
  () => ({ spec: { template: { spec: { containers: [{ image: 'no-merge-key' }] } } } }),
  () => ({ spec: { template: { spec: { containers: { $patch: 'replace' } } } } }),
  () => ({ spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'zz' }, 'x'] } } } }),
  () => ({ spec: { ports: [{ port: 'x' }] } }),
  () => ({ rules: { $patch: 'delete' } }),
  () => ({ fzUnknown: { $patch: 'delete' } }),
  () => [],
  () => null,
];

function deepPatch(rng: Prng, kind: 'merge' | 'json'): string {
  const deep = deepJSON(rng.pick(nestingDepths), rng.pick(['array', 'object', 'mixed'] as const));
  if (kind === 'json') return `[{"op":"add","path":"/metadata/annotations","value":${deep}}]`;
  return rng.pick([`{"metadata":{"labels":${deep}}}`, `{"spec":${deep}}`, `{"fzUnknown":${deep}}`, `{"data":{"k":${deep}}}`, deep]);
}

// ---------------------------------------------------------------------------------------------------------------
// Content types.

interface ContentType {
  name: string;
  weight: number;
  /** the Content-Type header ('' = none) */
  header: string;
  /** what the body is written as */
  body: 'object-json' | 'object-yaml' | 'protobuf' | 'json-patch' | 'merge-patch' | 'strategic-patch' | 'apply';
}

const objectContentTypes: readonly ContentType[] = [
  { name: 'json', weight: 10, header: 'application/json', body: 'object-json' },
  { name: 'json-charset', weight: 1, header: 'application/json; charset=utf-8', body: 'object-json' },
  { name: 'yaml', weight: 5, header: 'application/yaml', body: 'object-yaml' },
  { name: 'protobuf', weight: 4, header: 'application/vnd.kubernetes.protobuf', body: 'protobuf' },
  { name: 'none', weight: 1, header: '', body: 'object-json' },
  { name: 'text-plain', weight: 1, header: 'text/plain', body: 'object-json' },
  { name: 'cbor', weight: 1, header: 'application/cbor', body: 'object-json' },
  { name: 'xml', weight: 1, header: 'application/xml', body: 'object-json' },
  { name: 'garbage-type', weight: 1, header: ';;;/', body: 'object-json' },
  { name: 'merge-patch-on-write', weight: 1, header: 'application/merge-patch+json', body: 'object-json' },
  { name: 'apply-on-write', weight: 1, header: 'application/apply-patch+yaml', body: 'object-yaml' },
];

const patchContentTypes: readonly ContentType[] = [
  { name: 'json-patch', weight: 5, header: 'application/json-patch+json', body: 'json-patch' },
  { name: 'merge-patch', weight: 5, header: 'application/merge-patch+json', body: 'merge-patch' },
  { name: 'strategic-merge-patch', weight: 5, header: 'application/strategic-merge-patch+json', body: 'strategic-patch' },
  { name: 'apply-patch', weight: 5, header: 'application/apply-patch+yaml', body: 'apply' },
  { name: 'apply-patch-cbor', weight: 1, header: 'application/apply-patch+cbor', body: 'apply' },
  { name: 'json-on-patch', weight: 1, header: 'application/json', body: 'merge-patch' },
  { name: 'yaml-on-patch', weight: 1, header: 'application/yaml', body: 'object-yaml' },
  { name: 'protobuf-on-patch', weight: 1, header: 'application/vnd.kubernetes.protobuf', body: 'protobuf' },
  { name: 'none-on-patch', weight: 1, header: '', body: 'merge-patch' },
  { name: 'unknown-on-patch', weight: 1, header: 'application/x-nope', body: 'merge-patch' },
];

// ---------------------------------------------------------------------------------------------------------------
// Paths, queries, headers.

/** Segments a broken client puts where a name or namespace goes (already percent-encoded where needed). */
const badSegments = ['.', '..', '%', '%c0%ae', '%c0%ae%c0%ae', '%2e', '%2e%2e', '%2E%2E', '%2F', 'a%2Fb', '%00', '%zz', '%e0%80', 'UPPER', 'a..b', 'x'.repeat(300), '%E2%98%83', '~', ':', '@', 'a;b', 'a%3Fb', '*', '%20'];

interface PathShape {
  name: string;
  weight: number;
  /** collection: the collection URL; item: the item URL; sub: the subresource suffix ('' if none) */
  make(rng: Prng, p: { gv: string; resource: string; ns: string | undefined; name: string; sub: string; item: boolean }): string;
}

const nsPart = (ns: string | undefined): string => (ns === undefined ? '' : `/namespaces/${ns}`);
const standardPath = (p: { gv: string; resource: string; ns: string | undefined; name: string; sub: string; item: boolean }, over: Partial<{ ns: string | undefined; name: string; resource: string; sub: string }> = {}): string => {
  const q = { ...p, ...over };
  return `${q.gv}${nsPart(q.ns)}/${q.resource}${q.item ? `/${q.name}` : ''}${q.item && q.sub ? `/${q.sub}` : ''}`;
};

const pathShapes: readonly PathShape[] = [
  { name: 'standard', weight: 70, make: (_r, p) => standardPath(p) },
  { name: 'bad-name', weight: 8, make: (r, p) => standardPath({ ...p, item: true }, { name: r.pick(badSegments) }) },
  { name: 'empty-name', weight: 3, make: (_r, p) => standardPath({ ...p, item: true }, { name: '' }) },
  { name: 'bad-namespace', weight: 4, make: (r, p) => standardPath(p, { ns: r.pick([...badSegments, '']) }) },
  { name: 'missing-namespace', weight: 1, make: (_r, p) => standardPath(p, { ns: 'fz-absent' }) },
  { name: 'unknown-subresource', weight: 2, make: (r, p) => standardPath({ ...p, item: true }, { sub: r.pick(['nope', 'status/extra', '..', '%', 'scale/x', 'log', 'exec', 'proxy', 'token', 'eviction', 'binding', 'approval']) }) },
  { name: 'extra-segments', weight: 2, make: (r, p) => `${standardPath({ ...p, item: true })}/a/b/c${r.chance(0.5) ? '/' : ''}` },
  { name: 'trailing-slash', weight: 1, make: (_r, p) => `${standardPath(p)}/` },
  { name: 'double-slash', weight: 2, make: (r, p) => standardPath(p).replace(/\//g, (m) => (r.chance(0.3) ? '//' : m)) },
  { name: 'dot-segments', weight: 2, make: (r, p) => r.pick([`${p.gv}/../${p.resource}`, `${p.gv}/./${p.resource}`, `${standardPath(p)}/..`, `${standardPath(p)}/.`, `/api/../${p.gv.slice(1)}/${p.resource}`]) },
  { name: 'unknown-resource', weight: 2, make: (r, p) => standardPath(p, { resource: r.pick(['nopes', 'UPPER', '%', '..', 'configmaps.v1', 'configmap']) }) },
  { name: 'unknown-group-version', weight: 2, make: (r, p) => r.pick([`/apis/nope.example.com/v1/${p.resource}`, `/api/v2/${p.resource}`, `/apis//v1/${p.resource}`, `/apis/apps//deployments`, `/api//namespaces`, `/apis/%/v1/x`]) },
  { name: 'watch-prefix', weight: 1, make: (_r, p) => standardPath(p).replace(/^(\/apis?\/(?:[^/]+\/)?v[^/]+)/, '$1/watch') },
  { name: 'non-api', weight: 1, make: (r) => r.pick(['/', '/nope', '/healthz/nope', '/openapi/v3/nope', '/openapi/v2?x=%', '/version/x', '/metrics/x', '/livez/%', '/readyz/..', '/apis/%zz', '//', '/api/v1/%']) },
];

interface QueryCase {
  name: string;
  weight: number;
  make(rng: Prng): string;
}

const queryCases: readonly QueryCase[] = [
  { name: 'none', weight: 40, make: () => '' },
  { name: 'valid', weight: 10, make: (r) => r.pick(['limit=2', 'labelSelector=fz%3D1', 'fieldSelector=metadata.name%3Dfz-0', 'fieldValidation=Strict', 'fieldValidation=Warn', 'fieldValidation=Ignore', 'dryRun=All', 'pretty=true', 'resourceVersion=0', 'fieldManager=fz']) },
  { name: 'field-validation', weight: 6, make: (r) => `fieldValidation=${r.pick(['Strict', 'Warn', 'Ignore', 'strict', 'Bogus', '', '%'])}` },
  { name: 'bad-number', weight: 4, make: (r) => `${r.pick(['limit', 'timeoutSeconds', 'gracePeriodSeconds', 'resourceVersion'])}=${r.pick(['-1', 'abc', '1.5', '99999999999999999999', '', '0x10'])}` },
  { name: 'bad-selector', weight: 4, make: (r) => `${r.pick(['labelSelector', 'fieldSelector'])}=${r.pick(['!!!', '%3D%3D%3D', 'a%20in%20(', 'metadata.nope%3Dx', 'x'.repeat(500), 'a%3D(b', '%'])}` },
  { name: 'bad-continue', weight: 2, make: (r) => `limit=1&continue=${r.pick(['garbage', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiLi4vIn0', '%', ''])}` },
  { name: 'bad-rv-match', weight: 2, make: (r) => `resourceVersionMatch=${r.pick(['Exact', 'NotOlderThan', 'Bogus'])}${r.chance(0.5) ? '&resourceVersion=abc' : ''}` },
  { name: 'bad-dry-run', weight: 2, make: (r) => `dryRun=${r.pick(['Bogus', 'All&dryRun=Bogus', '', 'all'])}` },
  { name: 'bad-propagation', weight: 2, make: (r) => `propagationPolicy=${r.pick(['Bogus', 'orphan', ''])}` },
  { name: 'bad-field-manager', weight: 2, make: (r) => `fieldManager=${r.pick(['x'.repeat(200), '%00', '', 'a%0Ab'])}` },
  { name: 'force-without-apply', weight: 1, make: () => 'force=true' },
  { name: 'bad-watch-flag', weight: 2, make: (r) => `watch=${r.pick(['maybe', '2', '', 'TRUE'])}` },
  { name: 'bad-encoding', weight: 2, make: (r) => r.pick(['%', '%zz=1', 'a=%', '=', '&&&', 'limit=1&limit=2', 'pretty', 'x[y]=1', 'a[b][c][d][e]=1']) },
];

interface HeaderCase {
  name: string;
  weight: number;
  make(rng: Prng): Record<string, string>;
}

const headerCases: readonly HeaderCase[] = [
  { name: 'json', weight: 50, make: () => ({ Accept: 'application/json' }) },
  { name: 'no-accept', weight: 4, make: () => ({}) },
  { name: 'accept-yaml', weight: 3, make: () => ({ Accept: 'application/yaml' }) },
  { name: 'accept-protobuf', weight: 3, make: () => ({ Accept: 'application/vnd.kubernetes.protobuf' }) },
  { name: 'accept-table', weight: 2, make: (r) => ({ Accept: r.pick(['application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', 'application/json;as=Nope;v=v9;g=x', 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json']) }) },
  { name: 'accept-odd', weight: 3, make: (r) => ({ Accept: r.pick(['text/html', 'application/xml', '*/*', '', ';;;', 'application/json;q=abc', 'application/*', 'application/cbor']) }) },
  { name: 'content-encoding', weight: 2, make: (r) => ({ Accept: 'application/json', 'Content-Encoding': r.pick(['gzip', 'br', 'deflate', 'nope', 'gzip, gzip']) }) },
  { name: 'impersonation', weight: 3, make: (r) => ({ Accept: 'application/json', ...r.pick<Record<string, string>>([{ 'Impersonate-User': '' }, { 'Impersonate-User': 'fz' }, { 'Impersonate-Group': 'system:masters' }, { 'Impersonate-User': 'fz', 'Impersonate-Extra-%zz': 'x' }, { 'Impersonate-Uid': 'x' }, { 'Impersonate-User': 'system:anonymous' }]) }) },
  { name: 'bad-bearer', weight: 2, make: (r) => ({ Accept: 'application/json', Authorization: r.pick(['Bearer', 'Bearer ', 'Bearer x.y.z', 'Basic Zm9vOmJhcg==', 'Nope']) }) },
  { name: 'odd-headers', weight: 2, make: (r) => ({ Accept: 'application/json', ...r.pick<Record<string, string>>([{ 'If-Match': '*' }, { 'X-Remote-User': 'fz' }, { Expect: '100-continue' }, { 'User-Agent': 'x'.repeat(2000) }, { 'Accept-Encoding': 'gzip' }]) }) },
];

// ---------------------------------------------------------------------------------------------------------------
// Verbs.

interface VerbCase {
  name: string;
  weight: number;
  method: string | ((rng: Prng) => string);
  /** the item URL (with a name) or the collection URL */
  item: boolean;
  /** which subresource: none, or one drawn from what the resource serves (plus bogus ones) */
  sub?: boolean;
  body?: 'object' | 'patch' | 'delete-options';
  watch?: boolean;
  extraQuery?: string;
}

const verbCases: readonly VerbCase[] = [
  { name: 'get', weight: 8, method: 'GET', item: true },
  { name: 'list', weight: 6, method: 'GET', item: false },
  { name: 'watch', weight: 3, method: 'GET', item: false, watch: true },
  { name: 'create', weight: 16, method: 'POST', item: false, body: 'object' },
  { name: 'update', weight: 10, method: 'PUT', item: true, body: 'object' },
  { name: 'patch', weight: 14, method: 'PATCH', item: true, body: 'patch' },
  { name: 'delete', weight: 5, method: 'DELETE', item: true, body: 'delete-options' },
  { name: 'deletecollection', weight: 2, method: 'DELETE', item: false, extraQuery: `labelSelector=${doomedSelector}` },
  { name: 'subresource-get', weight: 3, method: 'GET', item: true, sub: true },
  { name: 'subresource-update', weight: 5, method: 'PUT', item: true, sub: true, body: 'object' },
  { name: 'subresource-patch', weight: 5, method: 'PATCH', item: true, sub: true, body: 'patch' },
  { name: 'subresource-delete', weight: 2, method: 'DELETE', item: true, sub: true },
  { name: 'subresource-create', weight: 1, method: 'POST', item: true, sub: true, body: 'object' },
  { name: 'odd-method', weight: 1, method: (r) => r.pick(['OPTIONS', 'PROPFIND', 'TRACE', 'HEAD', 'POST', 'PUT']), item: false, body: 'object' },
];

const deleteOptionsBodies: ReadonlyArray<(rng: Prng) => string | undefined> = [
  () => undefined,
  () => undefined,
  () => '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}',
  () => '{"propagationPolicy":"Bogus"}',
  () => '{"gracePeriodSeconds":"x"}',
  () => '{"preconditions":{"uid":"x","resourceVersion":"1"}}',
  () => '{"preconditions":"x"}',
  () => '{"dryRun":["Bogus"]}',
  () => '{',
  () => '[]',
  (r) => deepJSON(r.pick(nestingDepths), 'object'),
];

// ---------------------------------------------------------------------------------------------------------------

function subresourceFor(rng: Prng, world: FuzzWorld, r: ServedResource): string {
  const served = world.subresources.get(`${r.group}/${r.version}/${r.resource}`) ?? [];
  if (served.length > 0 && rng.chance(0.8)) return rng.pick(served).subresource;
  return rng.pick(['status', 'scale', 'finalize', 'status', 'nope']);
}

function objectBody(rng: Prng, ct: ContentType, base: Obj, t: { apiVersion: string; kind: string; name: string; namespace: string | undefined }): { body: Buffer; label: string } {
  if (ct.body === 'protobuf') {
    const c = rng.weighted(protobufCases);
    return { body: c.make(rng, t), label: c.name };
  }
  const c = rng.weighted(objectBodyCases);
  const made = c.make({ rng, base, syntax: ct.body === 'object-yaml' || ct.body === 'apply' ? 'yaml' : 'json' });
  return { body: typeof made === 'string' ? Buffer.from(made, 'utf8') : made, label: c.name };
}

function patchBody(rng: Prng, ct: ContentType, base: Obj, t: { apiVersion: string; kind: string; name: string; namespace: string | undefined }): { body: Buffer; label: string } {
  const text = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');
  switch (ct.body) {
    case 'json-patch': {
      if (rng.chance(0.1)) return { body: Buffer.from(deepPatch(rng, 'json')), label: 'json-patch-deep' };
      if (rng.chance(0.1)) return { body: Buffer.from(rng.pick(['{}', '"x"', '[1]', '[', 'null', '[[]]', '[{"op":"add","path":"/a","value":1}'])), label: 'json-patch-malformed' };
      const ops = Array.from({ length: rng.int(1, 4) }, () => rng.pick(jsonPatchOps)(rng));
      return { body: text(ops), label: 'json-patch-ops' };
    }
    case 'merge-patch':
      if (rng.chance(0.15)) return { body: Buffer.from(deepPatch(rng, 'merge')), label: 'merge-patch-deep' };
      if (rng.chance(0.1)) return { body: Buffer.from(rng.pick(['{', '', '{"a":}', '{"a":1,"a":{"b":2}}'])), label: 'merge-patch-malformed' };
      return { body: text(rng.pick(mergePatchCases)(rng)), label: 'merge-patch-cases' };
    case 'strategic-patch':
      if (rng.chance(0.15)) return { body: Buffer.from(deepPatch(rng, 'merge')), label: 'strategic-patch-deep' };
      return { body: text(rng.pick(strategicPatchCases)(rng)), label: 'strategic-patch-cases' };
    default: {
      const made = objectBody(rng, ct, base, t);
      return { body: made.body, label: `${ct.body}:${made.label}` };
    }
  }
}

/** One generated request. Pure: the same rng state and world give the same request. */
export function generateRequest(rng: Prng, world: FuzzWorld, id: number): FuzzRequest {
  const r = rng.pick(world.resources);
  const verb = rng.weighted(verbCases);
  const method = typeof verb.method === 'string' ? verb.method : verb.method(rng);
  const ns = r.namespaced ? (rng.chance(0.85) ? fuzzNamespace : rng.pick(['default', 'kube-system', 'fz-absent'])) : undefined;
  // Namespaces are named from the pool too, but never `fuzz` itself (the rest of the run needs it).
  const name = rng.pick(fuzzNames);
  const sub = verb.sub ? subresourceFor(rng, world, r) : '';
  const shape = rng.weighted(pathShapes);
  let path = shape.make(rng, { gv: groupVersionPath(r.group, r.version), resource: r.resource, ns, name, sub, item: verb.item });

  const query = rng.weighted(queryCases);
  const params = [verb.extraQuery, verb.watch ? 'watch=1&timeoutSeconds=2' : undefined, query.make(rng)].filter((p): p is string => !!p);
  if (verb.body === 'patch' || (verb.sub && method === 'PATCH')) params.push(rng.chance(0.9) ? 'fieldManager=fz' : '');
  if (params.some((p) => p !== '')) path += `?${params.filter((p) => p !== '').join('&')}`;

  const header = rng.weighted(headerCases);
  const headers = header.make(rng);
  const labels = { verb: verb.name, resource: `${r.group || 'core'}/${r.version}/${r.resource}${sub ? `/${sub}` : ''}`, path: shape.name, query: query.name, header: header.name, contentType: '-', body: '-' };

  let body: Buffer | undefined;
  const t = { apiVersion: apiVersionOf(r), kind: r.kind, name, namespace: ns };
  const base = baseObject(r, name, ns);
  if (verb.body === 'object' || verb.body === 'patch') {
    const ct = rng.weighted(verb.body === 'patch' ? patchContentTypes : objectContentTypes);
    if (ct.header !== '') headers['Content-Type'] = ct.header;
    const made = verb.body === 'patch' ? patchBody(rng, ct, base, t) : objectBody(rng, ct, base, t);
    body = made.body;
    labels.contentType = ct.name;
    labels.body = made.label;
  } else if (verb.body === 'delete-options') {
    const text = rng.pick(deleteOptionsBodies)(rng);
    if (text !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = Buffer.from(text);
      labels.contentType = 'json';
      labels.body = text.length > 60 ? 'delete-options-deep' : 'delete-options';
    }
  }
  // A watch streams until its timeout: read it briefly. Any other GET that turns out to stream (a watch the server
  // started where it should not) is cut after a while and still checked.
  const streams = verb.watch || shape.name === 'watch-prefix' || /[?&]watch=/.test(path);
  return { id, method, path, headers, body, streamMs: streams ? 150 : method === 'GET' ? 3000 : undefined, headersWithinMs: verb.watch ? 1000 : undefined, labels };
}
