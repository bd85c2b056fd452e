// What kube-apiserver's bootstrap controllers do at startup, reduced to its effect for a mock: create each
// object that is missing (a restart on etcd finds them all and writes nothing), all at once, and write the status
// the owning controller would (APIService availability, FlowSchema references) onto objects created here.
import { StatusError } from '../../api/errors.js';
import type { KubeObject, UserInfo } from '../../api/types.js';
import { newRequestContext } from '../../registry/request-context.js';
import type { ResourceStore } from '../../registry/store.js';

export interface BootstrapObject {
  object: KubeObject;
  /** the status the controller owning the object writes once it exists (stored with the object) */
  status?: Record<string, unknown>;
}

const createOptions: KubeObject = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' };

/**
 * Creates the missing objects concurrently; returns the names created. One list tells what exists (a restart on
 * etcd reads and writes nothing more). Storage errors propagate (the caller retries).
 */
export async function ensureObjects(store: ResourceStore, user: UserInfo, objects: readonly BootstrapObject[]): Promise<string[]> {
  const metaOf = (o: KubeObject) => (o['metadata'] ?? {}) as { name?: string; namespace?: string };
  // "namespace/name" for namespaced objects (kube's bootstrap roles in kube-system), the name otherwise
  const idOf = (o: KubeObject): string => {
    const m = metaOf(o);
    return m.namespace ? `${m.namespace}/${m.name ?? ''}` : String(m.name ?? '');
  };
  const existing = new Set((await store.list(newRequestContext(user, ''), {})).items.map(idOf));
  const created: string[] = [];
  await Promise.all(
    objects
      .filter(({ object }) => !existing.has(idOf(object)))
      .map(async ({ object, status }) => {
        try {
          // the controller's status goes in with the object: one write per object
          await store.create(newRequestContext(user, metaOf(object).namespace ?? ''), structuredClone(object), createOptions, status ? { initialStatus: status } : {});
          created.push(idOf(object));
        } catch (err) {
          // another writer (a second server on the same etcd) created it first
          if (!(err instanceof StatusError && err.code === 409)) throw err;
        }
      }),
  );
  return created.sort();
}
