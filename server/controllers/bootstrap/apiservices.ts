// The local APIService objects kube-apiserver's autoregister controller creates at startup, one per group version
// the server lists (pkg/controlplane/apiserver/aggregator.go apiServicesToRegister/makeAPIService): named
// version.group, `service` unset (Local), with the group's and version's priorities from kube's tables
// (DefaultGenericAPIServicePriorities and cmd/kube-apiserver's apiVersionPriorities); a group version missing from
// the tables gets none, as in kube. kube-aggregator's availability controller then marks local ones Available.
import type { BootstrapObject } from './ensure-objects.js';

const priorities: Record<string, { group: number; version: number }> = {
  'v1': { group: 18000, version: 1 },
  // the aggregator's own group, which it registers itself
  'apiregistration.k8s.io/v1': { group: 18000, version: 15 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'resource.k8s.io/v1': { group: 16200, version: 21 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
};

/** The status kube-aggregator's AvailableConditionController writes on a local APIService. */
function localAvailable(now: string): Record<string, unknown> {
  return { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' }] };
}

/** The local APIServices of the given served group versions ({group: '', version: 'v1'} for the core group). */
export function localAPIServices(groupVersions: ReadonlyArray<{ group: string; version: string }>, now: string): BootstrapObject[] {
  const seen = new Set<string>();
  const out: BootstrapObject[] = [];
  for (const { group, version } of [...groupVersions, { group: 'apiregistration.k8s.io', version: 'v1' }]) {
    const key = group ? `${group}/${version}` : version;
    const p = priorities[key];
    if (!p || seen.has(key)) continue;
    seen.add(key);
    out.push({
      object: {
        apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
        // kube's autoregister controller marks what it syncs on start
        metadata: { name: `${version}.${group}`, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
        spec: { group, version, groupPriorityMinimum: p.group, versionPriority: p.version },
      },
      status: localAvailable(now),
    });
  }
  return out;
}
