// kube's TestStoreDeletionPropagation (k8s.io/apiserver/pkg/registry/generic/registry/store_test.go), through this
// store: which GC finalizers a DELETE leaves on the object for each propagation policy, finalizers already there and
// default GC policy of the resource; an object left behind is marked (deletionTimestamp, grace 0, generation bumped).
import { StatusError } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { MemoryStorage } from '../storage/memory.js';
import { builtinResourcesFor } from './catalogue/index.js';
import type { GarbageCollectionPolicy } from './deletion-finalizers.js';
import { deletionFinalizersForGarbageCollection } from './deletion-finalizers.js';
import { metaOf } from './object-fields.js';
import { newRequestContext } from './request-context.js';
import { ResourceIndex } from './resource-index.js';
import { ResourceStore, type DeleteOptions } from './store.js';

const ctx = () => newRequestContext({ username: 'admin', groups: ['system:masters'] }, 'test');
const deleteOptions = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' };

/** deployments keep a generation; the default policy is swapped per case as kube swaps the test's strategy */
function deploymentStore(policy: GarbageCollectionPolicy | undefined): ResourceStore {
  const info = new ResourceIndex(builtinResourcesFor()).lookup('apps', 'v1', 'deployments')!;
  const strategy = { ...info.strategy };
  if (policy) strategy.defaultGarbageCollectionPolicy = policy;
  else delete strategy.defaultGarbageCollectionPolicy;
  return new ResourceStore({ ...info, strategy }, { storage: new MemoryStorage(), prefix: '/registry', admission: { async admit() {}, async validate() {} } });
}

const deployment = (name: string, finalizers: string[]): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...(finalizers.length ? { finalizers } : {}) },
  spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
});

const F = 'foregroundDeletion';
const O = 'orphan';
type Policy = 'Foreground' | 'Background' | 'Orphan' | undefined;
// [existing finalizers, policy, default-strategy result, orphan-strategy result]; 'gone' = deleted outright
const table: Array<[string[], Policy, string[] | 'gone', string[] | 'gone']> = [
  [[], 'Foreground', [F], [F]],
  [[], 'Background', 'gone', 'gone'],
  [[], 'Orphan', [O], [O]],
  [[], undefined, 'gone', [O]],
  [[O], 'Foreground', [F], [F]],
  [[O], 'Background', 'gone', 'gone'],
  [[O], 'Orphan', [O], [O]],
  [[O], undefined, [O], [O]],
  [[F], 'Foreground', [F], [F]],
  [[F], 'Background', 'gone', 'gone'],
  [[F], 'Orphan', [O], [O]],
  [[F], undefined, [F], [F]],
];

describe('DELETE and the garbage collector finalizers (kube TestStoreDeletionPropagation)', () => {
  const cases = table.flatMap(([existing, policy, byDefault, byOrphan]) => [
    [existing, policy, undefined, byDefault] as const,
    [existing, policy, 'OrphanDependents' as const, byOrphan] as const,
  ]);
  it.each(cases)('existing %j, propagationPolicy %s, default GC policy %s → %j', async (existing, policy, defaultPolicy, expected) => {
    const store = deploymentStore(defaultPolicy);
    const created = await store.create(ctx(), deployment('d', [...existing]), { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
    const opts: DeleteOptions = policy ? { propagationPolicy: policy } : {};
    const result = await store.delete(ctx(), 'd', opts, deleteOptions);
    if (expected === 'gone') {
      expect(result.deleted).toBe(true);
      await expect(store.get(ctx(), 'd')).rejects.toBeInstanceOf(StatusError);
      return;
    }
    expect(result.deleted).toBe(false);
    const m = metaOf(await store.get(ctx(), 'd'));
    expect(m.finalizers).toEqual(expected);
    expect(m.deletionTimestamp).toEqual(expect.any(String));
    expect(m.deletionGracePeriodSeconds).toBe(0);
    expect(m.generation).toBeGreaterThan(metaOf(created).generation!);
  });

  it('keeps the finalizers of others, in their order, with the GC one last (kube TestStoreDeleteWithOrphanDependents)', async () => {
    const store = deploymentStore('OrphanDependents');
    await store.create(ctx(), deployment('d', ['foo.com/x', 'bar.com/y']), { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
    await store.delete(ctx(), 'd', {}, deleteOptions);
    expect(metaOf(await store.get(ctx(), 'd')).finalizers).toEqual(['foo.com/x', 'bar.com/y', 'orphan']);
  });

  it('orphanDependents wins over the object\'s finalizers and the default, as kube\'s deprecated option does', () => {
    expect(deletionFinalizersForGarbageCollection(undefined, [F], { orphanDependents: true })).toEqual({ changed: true, finalizers: [O] });
    expect(deletionFinalizersForGarbageCollection('OrphanDependents', [O], { orphanDependents: false })).toEqual({ changed: true, finalizers: [] });
    expect(deletionFinalizersForGarbageCollection('OrphanDependents', ['x/y'], { orphanDependents: false })).toEqual({ changed: false, finalizers: ['x/y'] });
  });

  it('never adds a GC finalizer to a resource whose policy is Unsupported (events), and takes one off', () => {
    expect(deletionFinalizersForGarbageCollection('Unsupported', [], { propagationPolicy: 'Foreground' })).toEqual({ changed: false, finalizers: [] });
    expect(deletionFinalizersForGarbageCollection('Unsupported', [], { propagationPolicy: 'Orphan' })).toEqual({ changed: false, finalizers: [] });
    expect(deletionFinalizersForGarbageCollection('Unsupported', [O, 'x/y'], {})).toEqual({ changed: true, finalizers: ['x/y'] });
  });
});
