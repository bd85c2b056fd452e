// Cases of kube's plugin/pkg/admission/resourcequota/admission_test.go (TestAdmitBelowQuotaLimit,
// TestAdmitExceedQuotaLimit, TestAdmitEnforceQuotaConstraints, TestAdmitBelowTerminatingQuotaLimit's counting).
import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { fakeAttributes, fakeLister } from './fake-admission.js';
import { ResourceQuotaAdmission, checkQuota } from './resource-quota.js';
import { formatQuantity, objectUsage, podComputeUsage } from './resource-quota-usage.js';

const quota = (name: string, hard: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, namespace: 'ns' }, spec: { hard, ...extra } });
const pod = (name: string, requests: Record<string, string>, limits: Record<string, string>, phase?: string): KubeObject => ({
  metadata: { name, namespace: 'ns' },
  spec: { containers: [{ name: 'c', image: 'i', resources: { requests, limits } }] },
  ...(phase ? { status: { phase } } : {}),
});

async function create(quotas: KubeObject[], pods: KubeObject[], object: KubeObject, resource = 'pods'): Promise<string> {
  const lister = fakeLister({ '/resourcequotas': quotas, '/pods': pods, '/configmaps': [] });
  const plugin = new ResourceQuotaAdmission({ lister, isNamespaced: () => true });
  try {
    await plugin.validate(fakeAttributes({ object, resource }));
  } catch (err) {
    if (err instanceof StatusError) return `${err.code} ${err.message}`;
    throw err;
  }
  return 'admitted';
}

describe('ResourceQuota admission', () => {
  const hard = { cpu: '3', memory: '100Gi', pods: '5' };
  const existing = [pod('a', { cpu: '1', memory: '50Gi' }, {}), pod('b', { cpu: '1', memory: '40Gi' }, {})];

  it('admits below the limit (TestAdmitBelowQuotaLimit)', async () => {
    expect(await create([quota('quota', hard)], existing, pod('123', { cpu: '100m', memory: '2Gi' }, {}))).toBe('admitted');
  });

  it('rejects above the limit with kube\'s text (TestAdmitExceedQuotaLimit)', async () => {
    expect(await create([quota('quota', hard)], existing, pod('123', { cpu: '3', memory: '2Gi' }, {}))).toBe(
      '403 pods "123" is forbidden: exceeded quota: quota, requested: cpu=3, used: cpu=2, limited: cpu=3',
    );
  });

  it('requires the quota\'s compute resources on every container (TestAdmitEnforceQuotaConstraints)', async () => {
    expect(await create([quota('quota', { cpu: '3', memory: '100Gi', 'limits.cpu': '3', 'limits.memory': '100Gi' })], [], pod('123', { cpu: '100m' }, {}))).toBe(
      '403 pods "123" is forbidden: failed quota: quota: must specify limits.cpu for: c; limits.memory for: c; memory for: c',
    );
  });

  it('does not count terminal pods', async () => {
    const q = quota('quota', { pods: '1' });
    expect(await create([q], [pod('done', {}, {}, 'Succeeded')], pod('new', {}, {}))).toBe('admitted');
    expect(await create([q], [pod('running', {}, {}, 'Running')], pod('new', {}, {}))).toBe('403 pods "new" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1');
  });

  it('counts other resources under count/<resource> and their legacy name, and evaluates the pod scopes', async () => {
    const cm: KubeObject = { metadata: { name: 'cm' } };
    expect(await create([quota('q', { 'count/configmaps': '0' })], [], cm, 'configmaps')).toBe('403 configmaps "cm" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=0, limited: count/configmaps=0');
    expect(await create([quota('q', { pods: '0' }, { scopes: ['BestEffort'] })], [], pod('x', {}, {}))).toBe('403 pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0');
    expect(await create([quota('q', { pods: '0' }, { scopes: ['BestEffort'] })], [], pod('x', { cpu: '1' }, {}))).toBe('admitted');
    expect(await create([quota('q', { pods: '0' }, { scopes: ['Terminating'] })], [], pod('x', {}, {}))).toBe('admitted');
    expect(await create([quota('q', { count: '0' }, { scopes: ['NotTerminating'] })], [], { metadata: { name: 'cm' } }, 'configmaps')).toBe('admitted');
    // PriorityClass scopes are not evaluated: the quota is skipped
    expect(await create([quota('q', { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } })], [], pod('x', {}, {}))).toBe('admitted');
    expect(await create([], [], pod('x', {}, {}))).toBe('admitted');
  });

  it('names every exceeded resource, sorted', () => {
    expect(checkQuota({ quota: 'q', hard: { pods: '1', 'requests.memory': '1Gi' }, used: { pods: 1, 'requests.memory': 2 ** 29 } }, { pods: 1, 'requests.memory': 2 ** 30 })).toBe(
      'exceeded quota: q, requested: pods=1,requests.memory=1Gi, used: pods=1,requests.memory=512Mi, limited: pods=1,requests.memory=1Gi',
    );
  });
});

describe('quota usage', () => {
  it('sums containers and takes the largest init container where larger (PodUsageFunc)', () => {
    const spec = {
      containers: [{ resources: { requests: { cpu: '100m' }, limits: { memory: '1Gi' } } }, { resources: { requests: { cpu: '200m' } } }],
      initContainers: [{ resources: { requests: { cpu: '500m' } } }],
    };
    expect(podComputeUsage(spec)).toEqual({ cpu: 0.5, 'requests.cpu': 0.5, 'limits.memory': 2 ** 30 });
    expect(objectUsage('apps', 'deployments', {})).toEqual({ 'count/deployments.apps': 1 });
  });

  it('formats sums as kube canonical quantities', () => {
    expect([formatQuantity(0.1 + 0.2, false), formatQuantity(2, false), formatQuantity(3 * 2 ** 20, true), formatQuantity(0, true), formatQuantity(5000, false)]).toEqual(['300m', '2', '3Mi', '0', '5k']);
  });
});
