import type { KubeObject } from '../api/types.js';
import type { ResourceInfo } from '../registry/resource.js';
import { evaluateJsonPath, humanDuration, nameColumnDescription, parseTableAccept, toTable, translateTimestampSince } from './table.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  it.each([
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [-500, '0s'],
    [0, '0s'],
    [5 * s, '5s'],
    [59 * s, '59s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [3 * m + 20 * s, '3m20s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [4 * h + 30 * m, '4h30m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [48 * h, '2d'],
    [2 * d + 5 * h, '2d5h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [730 * d + 45 * d, '2y45d'],
    [365 * 8 * d, '8y'],
  ])('%d ms → %s', (ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });

  it('reads an unset timestamp as <unknown>', () => {
    expect(translateTimestampSince(undefined, new Date())).toBe('<unknown>');
    expect(translateTimestampSince('2024-01-01T00:00:00Z', new Date('2024-01-01T00:03:20Z'))).toBe('3m20s');
  });
});

describe('evaluateJsonPath', () => {
  const obj = { a: { b: { c: 1 } }, list: [{ b: 'first' }, { b: 'second' }], 'x.y': 2, m: { 'k.z': 3 } };
  it.each<[string, unknown]>([
    ['.a.b.c', 1],
    ['{.a.b.c}', 1],
    ['.list[0].b', 'first'],
    ['.list[1].b', 'second'],
    ['.list[-1].b', 'second'],
    [".m['k.z']", 3],
    ['.a.missing', undefined],
    ['.list[5].b', undefined],
    ['.a.b.c.d', undefined],
    ['.list.b', undefined],
  ])('%s → %j', (path, expected) => {
    expect(evaluateJsonPath(obj, path)).toEqual(expected);
  });
});

const now = new Date('2024-05-01T12:00:00Z');
const widgets: ResourceInfo = {
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  listKind: 'WidgetList',
  singular: 'widget',
  namespaced: true,
  shortNames: [],
  categories: [],
  verbs: ['get', 'list'],
  subresources: {},
  nameRule: 'DNS1123Subdomain',
  hasGeneration: false,
  hasStatus: false,
  strategy: {},
  printerColumns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'The phase' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
    { name: 'Owner', type: 'string', priority: 1, compute: (o) => (o.metadata?.ownerReferences?.[0]?.name as string | undefined) ?? null },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

const widget = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', resourceVersion: '42', creationTimestamp: '2024-05-01T11:56:40Z', uid: `uid-${name}` },
  ...extra,
});

describe('toTable', () => {
  it('starts with the Name column and follows with the printer columns', () => {
    const t = toTable(widgets, [], { now });
    expect(t.columnDefinitions).toEqual([
      { name: 'Name', type: 'string', format: 'name', description: nameColumnDescription, priority: 0 },
      { name: 'Phase', type: 'string', format: '', description: 'The phase', priority: 0 },
      { name: 'Replicas', type: 'integer', format: '', description: '', priority: 0 },
      { name: 'Ready', type: 'boolean', format: '', description: '', priority: 0 },
      { name: 'Owner', type: 'string', format: '', description: '', priority: 1 },
      { name: 'Age', type: 'date', format: '', description: '', priority: 0 },
    ]);
    expect(t).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [] });
  });

  it('renders cells by column type, with <none> for missing values and ages as HumanDuration', () => {
    const t = toTable(
      widgets,
      [
        widget('w1', { spec: { replicas: 3 }, status: { phase: 'Running', ready: true } }),
        { ...widget('w2'), metadata: { ...widget('w2').metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'boss', uid: 'u' }] } },
      ],
      { now },
    );
    expect(t.rows.map((r) => r.cells)).toEqual([
      ['w1', 'Running', 3, true, '<none>', '3m20s'],
      ['w2', '<none>', '<none>', '<none>', 'boss', '3m20s'],
    ]);
  });

  it('carries PartialObjectMetadata by default', () => {
    const t = toTable(widgets, [widget('w1')], { now });
    expect(t.rows[0]!.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: widget('w1').metadata });
  });

  it('carries the whole object for includeObject=Object and nothing for None', () => {
    expect(toTable(widgets, [widget('w1')], { now, includeObject: 'Object' }).rows[0]!.object).toEqual(widget('w1'));
    expect(toTable(widgets, [widget('w1')], { now, includeObject: 'None' }).rows[0]!.object).toBeNull();
  });

  it('speaks meta.k8s.io/v1beta1 when asked', () => {
    const t = toTable(widgets, [widget('w1')], { now, tableVersion: 'v1beta1' });
    expect(t.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(t.rows[0]!.object).toMatchObject({ apiVersion: 'meta.k8s.io/v1beta1' });
  });

  it('copies the list metadata, or a single object’s resourceVersion', () => {
    expect(toTable(widgets, [], { listMeta: { resourceVersion: '7', continue: 'tok', remainingItemCount: 3 } }).metadata).toEqual({
      resourceVersion: '7',
      continue: 'tok',
      remainingItemCount: 3,
    });
    expect(toTable(widgets, [widget('w1')], { now }).metadata).toEqual({ resourceVersion: '42' });
  });
});

describe('parseTableAccept', () => {
  it.each<[string | undefined, string | undefined]>([
    ['application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json', 'v1'],
    ['application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json', 'v1beta1'],
    ['application/json; as=Table; v=v1; g=meta.k8s.io', 'v1'],
    ['application/json;as=Table;v=v2;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io', 'v1'],
    ['application/json;as=Table;v=v1', undefined],
    ['application/json;as=Table;v=v1;g=example.com', undefined],
    ['application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', undefined],
    ['application/json', undefined],
    ['application/json, application/json;as=Table;v=v1;g=meta.k8s.io', undefined],
    ['application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io', 'v1'],
    ['application/json;as=Table;v=v1;g=meta.k8s.io;q=0', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %j', (accept, expected) => {
    expect(parseTableAccept(accept)).toBe(expected);
  });
});
