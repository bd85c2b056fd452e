// pods/eviction as kube's EvictionREST.Create (pkg/registry/core/pod/storage/eviction.go): after admission of the
// Eviction (CREATE, kind policy/v1 Eviction), a pod that already caused its disruption (Pending, Succeeded, Failed,
// or being deleted) is deleted outright; otherwise the PodDisruptionBudgets selecting it decide: none deletes it,
// more than one is a 500, one must allow a disruption (status.disruptionsAllowed, decremented and the pod recorded
// in status.disruptedPods) unless the pod is not ready and the budget can spare it. A refusal is 429.
// The budgets are read through the resource index (policy/v1 poddisruptionbudgets), as kube reads them through its
// loopback client.
import { errors, StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { labelSelectorAsSelector, type LabelSelectorLike } from '../../registry/selectors/label-selector.js';
import { metaOf } from '../../registry/object-fields.js';
import type { RequestContext } from '../../registry/request-context.js';
import type { DeleteOptions, ResourceStore } from '../../registry/store.js';
import type { ApiContext } from '../api-context.js';

/** MaxDisruptedPodSize: more pending evictions than this and the budget refuses until its controller catches up. */
export const maxDisruptedPodSize = 2000;
const evictionsRetrySteps = 20;
const violatesBudget = "Cannot evict pod as it would violate the pod's disruption budget.";

interface PDBStatus {
  observedGeneration?: number;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  disruptedPods?: Record<string, string>;
  conditions?: Array<Record<string, unknown>>;
}

function tooManyRequests(retryAfterSeconds: number, cause: string): StatusError {
  const e = new StatusError(429, 'TooManyRequests', violatesBudget, retryAfterSeconds > 0 ? { retryAfterSeconds } : {}, retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {});
  e.status.details = { ...e.status.details, causes: [{ reason: 'DisruptionBudget', message: cause }] };
  return e;
}

/** createTooManyRequestsError: the budget has not caught up with its own spec, or the pod changed meanwhile. */
function stillProcessing(pdbName: string): StatusError {
  return tooManyRequests(10, `The disruption budget ${pdbName} is still being processed by the server.`);
}

function pdbForbidden(name: string, why: string): StatusError {
  return errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, why);
}

/** podutil.IsPodReady */
export function isPodReady(pod: KubeObject): boolean {
  const conditions = ((pod['status'] ?? {}) as { conditions?: Array<{ type?: string; status?: string }> }).conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** canIgnorePDB: the pod's disruption already happened (or it never ran). */
function canIgnorePDB(pod: KubeObject): boolean {
  const phase = ((pod['status'] ?? {}) as { phase?: string }).phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || metaOf(pod).deletionTimestamp !== undefined;
}

function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = ((pod['status'] ?? {}) as { phase?: string }).phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || metaOf(pod).deletionTimestamp !== undefined);
}

/** getPodDisruptionBudgets: a budget whose selector is empty or does not convert matches nothing. */
export function selectingBudgets(pdbs: readonly KubeObject[], pod: KubeObject): KubeObject[] {
  const labels = metaOf(pod).labels ?? {};
  return pdbs.filter((pdb) => {
    if (metaOf(pdb).namespace !== metaOf(pod).namespace) return false;
    const sel = labelSelectorAsSelector(((pdb['spec'] ?? {}) as { selector?: LabelSelectorLike }).selector);
    if (!sel.ok || sel.selector.empty()) return false;
    return sel.selector.matches(labels);
  });
}

/** checkAndDecrement's decision on one budget: the status to write, or the refusal. */
export function decrementBudget(pdb: KubeObject, podName: string, now: string, dryRun: boolean): { ok: true; status: PDBStatus } | { ok: false; error: StatusError } {
  const name = metaOf(pdb).name ?? '';
  const status = structuredClone((pdb['status'] ?? {}) as PDBStatus);
  const allowed = status.disruptionsAllowed ?? 0;
  if ((status.observedGeneration ?? 0) < (metaOf(pdb).generation ?? 0)) return { ok: false, error: stillProcessing(name) };
  if (allowed < 0) return { ok: false, error: pdbForbidden(name, 'pdb disruptions allowed is negative') };
  if (Object.keys(status.disruptedPods ?? {}).length > maxDisruptedPodSize) return { ok: false, error: pdbForbidden(name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller') };
  if (allowed === 0) return { ok: false, error: tooManyRequests(0, `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`) };
  status.disruptionsAllowed = allowed - 1;
  if (status.disruptionsAllowed === 0) {
    // pdbhelper.UpdateDisruptionAllowedCondition through meta.SetStatusCondition
    const conditions = status.conditions ?? [];
    const i = conditions.findIndex((c) => c['type'] === 'DisruptionAllowed');
    const next = { type: 'DisruptionAllowed', status: 'False', observedGeneration: status.observedGeneration ?? 0, reason: 'InsufficientPods', message: '' };
    if (i < 0) conditions.push({ ...next, lastTransitionTime: now });
    else conditions[i] = { ...next, lastTransitionTime: conditions[i]!['status'] === 'False' ? conditions[i]!['lastTransitionTime'] : now };
    status.conditions = conditions;
  }
  if (!dryRun) status.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: now };
  return { ok: true, status };
}

/** Eviction.deleteOptions as the store takes them, with the request's dryRun propagated (propagateDryRun). */
function evictionDeleteOptions(eviction: KubeObject, queryDryRun: boolean): { opts: DeleteOptions; dryRun: boolean; rvSet: boolean; options: KubeObject } {
  const d = (eviction['deleteOptions'] ?? {}) as { dryRun?: string[]; gracePeriodSeconds?: number; propagationPolicy?: string; orphanDependents?: boolean; preconditions?: { uid?: string; resourceVersion?: string } };
  const bodyDryRun = Array.isArray(d.dryRun) && d.dryRun.length > 0;
  if (bodyDryRun && queryDryRun && !(d.dryRun!.length === 1 && d.dryRun![0] === 'All')) {
    throw new StatusError(500, '', `Non-matching dry-run options in request and content: [All] and [${d.dryRun!.join(' ')}]`);
  }
  const opts: DeleteOptions = {};
  if (d.preconditions) opts.preconditions = { ...d.preconditions };
  if (d.gracePeriodSeconds !== undefined) opts.gracePeriodSeconds = d.gracePeriodSeconds;
  if (d.propagationPolicy !== undefined) opts.propagationPolicy = d.propagationPolicy;
  if (d.orphanDependents !== undefined) opts.orphanDependents = d.orphanDependents;
  const dryRun = bodyDryRun || queryDryRun;
  const options: KubeObject = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...d, ...(dryRun ? { dryRun: ['All'] } : {}) };
  return { opts, dryRun, rvSet: d.preconditions?.resourceVersion !== undefined, options };
}

function withResourceVersion(opts: DeleteOptions, rv: string | undefined): DeleteOptions {
  return { ...opts, preconditions: { ...(opts.preconditions ?? {}), ...(rv ? { resourceVersion: rv } : {}) } };
}

function isConflict(err: unknown): boolean {
  return err instanceof StatusError && err.code === 409;
}

const success = (): KubeObject => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });

/** EvictionREST.Create after the Eviction was admitted. Returns the Status to answer with (its code is the HTTP status). */
export async function evictPod(api: ApiContext, pods: ResourceStore, ctx: RequestContext, urlName: string, eviction: KubeObject, validate: (obj: KubeObject) => Promise<void>): Promise<KubeObject> {
  if ((metaOf(eviction).name ?? '') !== urlName) throw errors.badRequest('name in URL does not match name in Eviction object');
  const { opts, dryRun, rvSet, options } = evictionDeleteOptions(eviction, ctx.dryRun);
  await validate(structuredClone(eviction));
  const delCtx: RequestContext = { ...ctx, dryRun };
  const deletePod = (o: DeleteOptions) => pods.delete(delCtx, urlName, o, options, { admission: false });

  let pod: KubeObject | undefined;
  for (let attempt = 0; ; attempt++) {
    pod = await pods.get(ctx, urlName);
    if (!canIgnorePDB(pod)) break;
    try {
      await deletePod(shouldEnforceResourceVersion(pod) && !rvSet ? withResourceVersion(opts, metaOf(pod).resourceVersion) : opts);
      return success();
    } catch (err) {
      if (!isConflict(err) || rvSet || attempt + 1 >= evictionsRetrySteps) throw err;
    }
  }

  const pdbInfo = api.index.lookup('policy', 'v1', 'poddisruptionbudgets');
  let pdbName = '';
  let updateDeletionOptions = false;
  if (pdbInfo) {
    const pdbStore = api.storeFor(pdbInfo);
    const all = (await pdbStore.list({ ...ctx, namespace: metaOf(pod).namespace ?? ctx.namespace }, {})).items;
    const pdbs = selectingBudgets(all, pod);
    if (pdbs.length > 1) {
      // returned as the created object, not as an error: its code is the response's
      return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 };
    }
    if (pdbs.length === 1) {
      let pdb = pdbs[0]!;
      pdbName = metaOf(pdb).name ?? '';
      const st = (pdb['status'] ?? {}) as PDBStatus;
      const policy = ((pdb['spec'] ?? {}) as { unhealthyPodEvictionPolicy?: string }).unhealthyPodEvictionPolicy;
      const ready = isPodReady(pod);
      if (!ready && policy === 'AlwaysAllow') updateDeletionOptions = true;
      else if (!ready && (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0) updateDeletionOptions = true;
      else {
        // retry.RetryOnConflict(EvictionsRetry): re-read the budget after a lost race, give up with a Timeout
        for (let attempt = 0; ; attempt++) {
          const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          const decided = decrementBudget(pdb, urlName, now, dryRun);
          if (!decided.ok) throw decided.error;
          if (dryRun) break;
          try {
            const rv = metaOf(pdb).resourceVersion;
            await pdbStore.update(ctx, pdbName, 'status', (cur) => ({ ...cur, metadata: { ...metaOf(cur), resourceVersion: rv }, status: decided.status }), { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
            break;
          } catch (err) {
            if (!isConflict(err)) throw err;
            if (attempt + 1 >= evictionsRetrySteps) throw errors.timeout(`couldn't update PodDisruptionBudget ${JSON.stringify(pdbName)} due to conflicts`, 10);
            pdb = await pdbStore.get(ctx, pdbName);
          }
        }
      }
    }
  }
  try {
    await deletePod(updateDeletionOptions ? withResourceVersion(opts, metaOf(pod).resourceVersion) : opts);
  } catch (err) {
    // the pod changed since its readiness was judged: the client should try again
    if (isConflict(err) && updateDeletionOptions && !rvSet) throw stillProcessing(pdbName);
    throw err;
  }
  return success();
}
