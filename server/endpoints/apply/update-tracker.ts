// The field manager of every write that is not an apply (create, update, non-apply patch, /status, /scale): an
// Update entry for the request's manager, as kube's handlers record it before admission.
import { apiVersionOf, type KubeObject } from '../../api/types.js';
import { metaOf } from '../../registry/object-fields.js';
import type { ResourceInfo } from '../../registry/resource.js';
import type { ManagedFieldsTracker } from '../../registry/store.js';
import { encodeManagedFields, managedFieldsForUpdate, recordUpdate } from './managed-fields.js';
import { resourceApplySchema } from './ownership-schema.js';
import { currentRfc3339Seconds } from '../../api/current-second.js';

export function updateTracker(info: ResourceInfo, manager: string, subresource: string, now: () => string = currentRfc3339Seconds): ManagedFieldsTracker {
  return async (old: KubeObject | undefined, next: KubeObject) => {
    const { ownership } = await resourceApplySchema(info);
    // /status owns status; the main resource of a kind with a status subresource never does
    // (a CSR's /approval writes status.conditions, so it owns them too)
    const schema = subresource === 'status' || subresource === 'approval' ? { ...ownership, ignoreStatus: false } : ownership;
    const entries = recordUpdate({
      live: old,
      next,
      entries: managedFieldsForUpdate(old, next),
      manager,
      apiVersion: apiVersionOf(info.group, info.version),
      ...(subresource ? { subresource } : {}),
      now: now(),
      schema,
    });
    const meta = metaOf(next);
    if (entries.length > 0) meta.managedFields = encodeManagedFields(entries) as unknown as NonNullable<typeof meta.managedFields>;
    else delete meta.managedFields;
  };
}
