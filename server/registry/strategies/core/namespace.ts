// Namespaces: phase Active with the "kubernetes" finalizer on create; DELETE turns them Terminating and the
// namespace controller finishes once spec.finalizers is empty.
import type { Strategy } from '../../resource.js';
import { objAt, type Obj } from '../fields.js';

export const namespaceStrategy: Strategy = {
  applyDefaults(obj) {
    // kube labels every namespace with its own name, so namespaceSelectors can pick namespaces by name.
    const name = obj.metadata?.name;
    if (name) obj.metadata!.labels = { ...(obj.metadata!.labels ?? {}), 'kubernetes.io/metadata.name': name };
    const spec = objAt(obj as Obj, 'spec');
    if (!Array.isArray(spec['finalizers']) && !(obj.metadata?.deletionTimestamp)) spec['finalizers'] = ['kubernetes'];
    const status = objAt(obj as Obj, 'status');
    if (!status['phase']) status['phase'] = obj.metadata?.deletionTimestamp ? 'Terminating' : 'Active';
  },
  gracefulDelete(obj) {
    objAt(obj as Obj, 'status')['phase'] = 'Terminating';
  },
  pendingFinalization(obj) {
    const f = (obj['spec'] as { finalizers?: unknown[] } | undefined)?.finalizers;
    return Array.isArray(f) && f.length > 0;
  },
};
