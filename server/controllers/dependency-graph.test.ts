import type { KubeObject, OwnerReference } from '../api/types.js';
import { DependencyGraph, nodeOf } from './dependency-graph.js';

const ref = (uid: string, blockOwnerDeletion?: boolean): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}) });
const obj = (uid: string, owners: OwnerReference[] = [], extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: uid, namespace: 'ns', uid, ownerReferences: owners, ...extra } });

describe('DependencyGraph', () => {
  it('indexes dependents under owners never seen, and follows owner changes', () => {
    const g = new DependencyGraph();
    const first = g.upsert(nodeOf('/configmaps', obj('d', [ref('o1'), ref('o2', true)])));
    expect(first.previous).toBeUndefined();
    expect(first.changes.added.map((r) => r.uid)).toEqual(['o1', 'o2']);
    expect(g.dependentsOf('o1').map((n) => n.uid)).toEqual(['d']);
    expect(g.blockingDependentsOf('o2').map((n) => n.uid)).toEqual(['d']);
    expect(g.blockingDependentsOf('o1')).toEqual([]);
    const second = g.upsert(nodeOf('/configmaps', obj('d', [ref('o2', false), ref('o3')])));
    expect(second.changes).toEqual({ added: [ref('o3')], removed: [ref('o1')], unblocked: [ref('o2', false)] });
    expect(g.dependentsOf('o1')).toEqual([]);
    expect(g.blockingDependentsOf('o2')).toEqual([]);
    g.remove('d');
    expect(g.dependentsOf('o3')).toEqual([]);
    expect(g.size).toBe(0);
  });

  it('tells the deletion modes apart by deletionTimestamp and the GC finalizers', () => {
    const ts = { deletionTimestamp: '2024-01-01T00:00:00Z' };
    expect(nodeOf('/x', obj('a', [], { ...ts, finalizers: ['foregroundDeletion'] }))).toMatchObject({ beingDeleted: true, deletingDependents: true, orphaningDependents: false });
    expect(nodeOf('/x', obj('a', [], { ...ts, finalizers: ['orphan'] }))).toMatchObject({ beingDeleted: true, deletingDependents: false, orphaningDependents: true });
    // the finalizer alone, without deletionTimestamp, is no deletion yet
    expect(nodeOf('/x', obj('a', [], { finalizers: ['foregroundDeletion'] }))).toMatchObject({ beingDeleted: false, deletingDependents: false });
  });

  it('reads ill-typed ownerReferences and finalizers (stored by an older server) as none, without throwing', () => {
    const ill = (metadata: Record<string, unknown>): KubeObject => ({ metadata: { name: 'a', namespace: 'ns', uid: 'a', ...metadata } });
    expect(nodeOf('/x', ill({ ownerReferences: 'x', finalizers: { a: 1 } }))).toMatchObject({ owners: [], deletingDependents: false, orphaningDependents: false });
    // a string is not a list of finalizers, even one that contains a finalizer's name
    expect(nodeOf('/x', ill({ deletionTimestamp: '2025-01-02T00:00:00Z', finalizers: 'orphan' }))).toMatchObject({ beingDeleted: true, orphaningDependents: false });
    expect(nodeOf('/x', ill({ ownerReferences: [ref('o1'), 7, null] })).owners).toEqual([ref('o1')]);
  });
});
