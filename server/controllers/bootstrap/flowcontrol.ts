// API Priority and Fairness' mandatory configuration objects, as kube-apiserver's config producer
// (pkg/registry/flowcontrol/ensurer, k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go) creates them at
// startup: the `exempt` and `catch-all` priority levels and flow schemas. The suggested set (system, node-high,
// leader-election, workload-high, workload-low, global-default and their schemas) is not created here.
import type { BootstrapObject } from './ensure-objects.js';

const apiVersion = 'flowcontrol.apiserver.k8s.io/v1';
// the mandatory objects carry this annotation so the ensurer keeps their spec up to date
const autoUpdate = { 'apf.kubernetes.io/autoupdate-spec': 'true' };

const allResources = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
const allNonResources = { verbs: ['*'], nonResourceURLs: ['*'] };
const group = (name: string) => ({ kind: 'Group', group: { name } });

/** The status the APF controller writes on a FlowSchema whose priority level exists. */
function foundStatus(pl: string, now: string): Record<string, unknown> {
  return {
    conditions: [{ type: 'Dangling', status: 'False', lastTransitionTime: now, reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} and it exists` }],
  };
}

/** The mandatory priority levels first: the flow schemas reference them. */
export function mandatoryPriorityLevels(): BootstrapObject[] {
  return [
    {
      object: {
        apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name: 'exempt', annotations: autoUpdate },
        spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
      },
    },
    {
      object: {
        apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name: 'catch-all', annotations: autoUpdate },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
      },
    },
  ];
}

export function mandatoryFlowSchemas(now: string): BootstrapObject[] {
  return [
    {
      object: {
        apiVersion, kind: 'FlowSchema', metadata: { name: 'exempt', annotations: autoUpdate },
        spec: {
          priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1,
          rules: [{ subjects: [group('system:masters')], resourceRules: [allResources], nonResourceRules: [allNonResources] }],
        },
      },
      status: foundStatus('exempt', now),
    },
    {
      object: {
        apiVersion, kind: 'FlowSchema', metadata: { name: 'catch-all', annotations: autoUpdate },
        spec: {
          priorityLevelConfiguration: { name: 'catch-all' }, matchingPrecedence: 10000, distinguisherMethod: { type: 'ByUser' },
          rules: [{ subjects: [group('system:unauthenticated'), group('system:authenticated')], resourceRules: [allResources], nonResourceRules: [allNonResources] }],
        },
      },
      status: foundStatus('catch-all', now),
    },
  ];
}
