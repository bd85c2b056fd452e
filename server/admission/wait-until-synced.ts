// admission.Handler.WaitForReady, shared by the webhook and policy plugins: a request that comes before the plugin's
// configuration sources finished their first load waits for them, up to 10 s, and is then refused with
// admission.NewForbidden's "not yet ready to handle request". kube checks every 100 ms; here the checks come after
// 1, 2, 4, … ms, at most 100 ms apart (a check reads one flag): the first requests of a start, its own bootstrap
// writes among them, go on within a few milliseconds of the sources' first lists instead of up to 100 ms later.
import { errors } from '../api/errors.js';
import type { AdmissionAttributes } from './attributes.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const firstCheckIntervalMs = 1;
const maxCheckIntervalMs = 100;

/** Resolves once hasSynced() is true; rejects with kube's Forbidden when timeoutMs passed first. */
export async function waitUntilSynced(hasSynced: () => boolean, attrs: AdmissionAttributes, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let interval = firstCheckIntervalMs; !hasSynced(); interval = Math.min(interval * 2, maxCheckIntervalMs)) {
    if (Date.now() >= deadline) throw forbiddenFor(attrs, 'not yet ready to handle request');
    await sleep(Math.min(interval, Math.max(1, deadline - Date.now())));
  }
}

/** admission.NewForbidden: the request's resource and name ("Unknown" when the object has none yet). */
export function forbiddenFor(attrs: AdmissionAttributes, why: string) {
  const name = attrs.name || attrs.object?.metadata?.name || 'Unknown';
  return errors.forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, name, why);
}
