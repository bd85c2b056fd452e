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

/** Creates the missing objects concurrently; returns the names created. Storage errors propagate (the caller retries). */
export async function ensureObjects(store: ResourceStore, user: UserInfo, objects: readonly BootstrapObject[]): Promise<string[]> {
  const created: string[] = [];
  await Promise.all(
    objects.map(async ({ object, status }) => {
      const name = String((object['metadata'] as { name?: string } | undefined)?.name ?? '');
      const ctx = newRequestContext(user, '');
      try {
        await store.get(ctx, name);
        return;
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
      try {
        // the controller's status goes in with the object: one write per object at startup
        await store.create(ctx, structuredClone(object), createOptions, status ? { initialStatus: status } : {});
        created.push(name);
      } catch (err) {
        // another writer (a second server on the same etcd) created it first
        if (err instanceof StatusError && err.code === 409) return;
        throw err;
      }
    }),
  );
  return created.sort();
}
