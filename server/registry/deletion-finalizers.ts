// Which garbage-collection finalizers a DELETE puts on the object, as k8s.io/apiserver's generic store does
// (registry/generic/registry/store.go: deletionFinalizersForGarbageCollection, shouldOrphanDependents,
// shouldDeleteDependents). The garbage collector (server/controllers/garbage-collector.ts) acts on them.

/** metav1.FinalizerOrphanDependents: the GC removes the owner's references from its dependents first. */
export const FinalizerOrphanDependents = 'orphan';
/** metav1.FinalizerDeleteDependents: the GC deletes the blocking dependents first (foreground deletion). */
export const FinalizerDeleteDependents = 'foregroundDeletion';

/**
 * rest.GarbageCollectionPolicy of a resource's delete strategy. Built-in resources of kube's current versions
 * answer DeleteDependents (background) or nothing (custom resources: the same); events answer Unsupported.
 */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** The DeleteOptions fields that choose the propagation. */
export interface PropagationOptions {
  propagationPolicy?: string;
  /** deprecated in favour of propagationPolicy; setting both is refused before the store sees it */
  orphanDependents?: boolean;
}

/** kube's shouldOrphanDependents: options first, then the finalizers already on the object, then the default. */
export function shouldOrphanDependents(defaultPolicy: GarbageCollectionPolicy | undefined, finalizers: readonly string[], opts: PropagationOptions): boolean {
  if (defaultPolicy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy === 'Orphan') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Foreground') return false;
  for (const f of finalizers) {
    if (f === FinalizerOrphanDependents) return true;
    if (f === FinalizerDeleteDependents) return false;
  }
  return defaultPolicy === 'OrphanDependents';
}

/** kube's shouldDeleteDependents: foreground only when asked for, or already under way. */
export function shouldDeleteDependents(defaultPolicy: GarbageCollectionPolicy | undefined, finalizers: readonly string[], opts: PropagationOptions): boolean {
  if (defaultPolicy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy === 'Foreground') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Orphan') return false;
  for (const f of finalizers) {
    if (f === FinalizerDeleteDependents) return true;
    if (f === FinalizerOrphanDependents) return false;
  }
  return false;
}

/**
 * kube's deletionFinalizersForGarbageCollection: the object's finalizers without `orphan` and
 * `foregroundDeletion`, then the one the propagation asks for; `changed` when the set differs from before.
 */
export function deletionFinalizersForGarbageCollection(
  defaultPolicy: GarbageCollectionPolicy | undefined,
  finalizers: readonly string[],
  opts: PropagationOptions,
): { changed: boolean; finalizers: string[] } {
  const next = finalizers.filter((f) => f !== FinalizerOrphanDependents && f !== FinalizerDeleteDependents);
  if (shouldOrphanDependents(defaultPolicy, finalizers, opts)) next.push(FinalizerOrphanDependents);
  if (shouldDeleteDependents(defaultPolicy, finalizers, opts)) next.push(FinalizerDeleteDependents);
  const before = new Set(finalizers);
  const after = new Set(next);
  const changed = before.size !== after.size || [...after].some((f) => !before.has(f));
  return changed ? { changed, finalizers: next } : { changed, finalizers: [...finalizers] };
}
