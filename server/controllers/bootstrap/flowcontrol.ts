// API Priority and Fairness' configuration objects, as kube-apiserver's config producer creates them at startup
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go): the mandatory `exempt` and `catch-all` priority
// levels and flow schemas, and the suggested set (system, node-high, leader-election, workload-high, workload-low,
// global-default and the schemas that reference them). Priority levels come first: the schemas reference them.
import type { KubeObject } from '../../api/types.js';
import type { BootstrapObject } from './ensure-objects.js';

const apiVersion = 'flowcontrol.apiserver.k8s.io/v1';
// every bootstrap object carries this annotation so the ensurer keeps its spec up to date
const autoUpdate = { 'apf.kubernetes.io/autoupdate-spec': 'true' };

type Rule = Record<string, unknown>;
const group = (...names: string[]): Rule[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const user = (...names: string[]): Rule[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts: Rule[] = [{ kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } }];
// clusterScope false is Go's zero value, omitted from JSON
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): Rule => ({ verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces: ['*'] });
const everyResource = resourceRule(['*'], ['*'], ['*'], true);
const everyNonResource = { verbs: ['*'], nonResourceURLs: ['*'] };
const everything = (subjects: Rule[]): Rule => ({ subjects, resourceRules: [everyResource], nonResourceRules: [everyNonResource] });

function priorityLevel(name: string, spec: Record<string, unknown>): BootstrapObject {
  return { object: { apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: autoUpdate }, spec } };
}
function limited(shares: number, lendablePercent: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): Record<string, unknown> {
  return { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' } } };
}

/** The status the APF controller writes on a FlowSchema whose priority level exists. */
function foundStatus(pl: string, now: string): Record<string, unknown> {
  return {
    conditions: [{ type: 'Dangling', status: 'False', lastTransitionTime: now, reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} and it exists` }],
  };
}

function flowSchema(name: string, pl: string, matchingPrecedence: number, distinguisher: string, rule: Rule, now: string): BootstrapObject {
  const spec: KubeObject = { priorityLevelConfiguration: { name: pl }, matchingPrecedence, ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}), rules: [rule] };
  return { object: { apiVersion, kind: 'FlowSchema', metadata: { name, annotations: autoUpdate }, spec }, status: foundStatus(pl, now) };
}

export function bootstrapPriorityLevels(): BootstrapObject[] {
  return [
    // mandatory
    priorityLevel('catch-all', limited(5, 0)),
    priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
    // suggested
    priorityLevel('system', limited(30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 })),
    priorityLevel('node-high', limited(40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 })),
    priorityLevel('leader-election', limited(10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 })),
    priorityLevel('workload-high', limited(40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 })),
    priorityLevel('workload-low', limited(100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 })),
    priorityLevel('global-default', limited(20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 })),
  ];
}

export function bootstrapFlowSchemas(now: string): BootstrapObject[] {
  const kcm = 'system:kube-controller-manager';
  const scheduler = 'system:kube-scheduler';
  return [
    // mandatory
    flowSchema('exempt', 'exempt', 1, '', everything(group('system:masters')), now),
    flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(group('system:unauthenticated', 'system:authenticated')), now),
    // suggested
    flowSchema('system-nodes', 'system', 500, 'ByUser', everything(group('system:nodes')), now),
    flowSchema(
      'system-node-high', 'node-high', 400, 'ByUser',
      { subjects: group('system:nodes'), resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false)] },
      now,
    ),
    flowSchema('probes', 'exempt', 2, '', { subjects: group('system:unauthenticated', 'system:authenticated'), nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }, now),
    flowSchema(
      'system-leader-election', 'leader-election', 100, 'ByUser',
      { subjects: [...user(kcm, scheduler), ...kubeSystemServiceAccounts], resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false)] },
      now,
    ),
    flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(user(kcm)), now),
    flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(user(scheduler)), now),
    flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts), now),
    flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(group('system:serviceaccounts')), now),
    flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(group('system:unauthenticated', 'system:authenticated')), now),
  ];
}
