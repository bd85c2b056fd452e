// Cases of kube's plugin/pkg/admission/priority/admission_test.go (TestPodAdmission).
import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { fakeAttributes } from './fake-admission.js';
import { PriorityAdmission } from './priority.js';

const pc = (name: string, value: number, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name }, value, ...extra });
const defaultClass1 = pc('default1', 1000, { globalDefault: true });
const nondefaultClass1 = pc('nondefault1', 2000, { description: 'Just a test priority class' });
const systemClusterCritical = pc('system-cluster-critical', 2000000000, { preemptionPolicy: 'PreemptLowerPriority' });
const neverPreempt = pc('nopreemption1', 2000, { preemptionPolicy: 'Never' });

async function admitPod(classes: KubeObject[], spec: Record<string, unknown>, opts: Parameters<typeof fakeAttributes>[0] = {}): Promise<Record<string, unknown> | string> {
  const object: KubeObject = { metadata: { name: 'pod-w-priorityclass' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
  try {
    await new PriorityAdmission({ listPriorityClasses: async () => classes }).admit(fakeAttributes({ object, ...opts }));
  } catch (err) {
    if (err instanceof StatusError) return `${err.code} ${err.message}`;
    throw err;
  }
  return object['spec'] as Record<string, unknown>;
}

describe('Priority admission of pods', () => {
  it('gives a pod without a class the global default (Pod with no priority class)', async () => {
    expect(await admitPod([defaultClass1, nondefaultClass1], {})).toMatchObject({ priority: 1000, priorityClassName: 'default1' });
  });

  it('gives 0 and no class name when no class is the default (pod without priority class and no existing priority class)', async () => {
    const spec = (await admitPod([nondefaultClass1], {})) as Record<string, unknown>;
    expect([spec['priority'], spec['priorityClassName']]).toEqual([0, undefined]);
  });

  it('resolves the named class (pod with priority class)', async () => {
    expect(await admitPod([defaultClass1, nondefaultClass1], { priorityClassName: 'nondefault1' })).toMatchObject({ priority: 2000 });
    expect(await admitPod([systemClusterCritical], { priorityClassName: 'system-cluster-critical' })).toMatchObject({ priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('rejects a class that does not exist (pod with non-existing priority class)', async () => {
    expect(await admitPod([defaultClass1], { priorityClassName: 'foo1' })).toBe('403 pods "pod-w-priorityclass" is forbidden: no PriorityClass with name foo1 was found');
  });

  it('rejects an integer priority that differs from the computed one, and accepts an equal one', async () => {
    expect(await admitPod([defaultClass1], { priority: 1 })).toBe(
      '403 pods "pod-w-priorityclass" is forbidden: the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    );
    expect(await admitPod([defaultClass1], { priority: 1000 })).toMatchObject({ priority: 1000 });
  });

  it('copies preemptionPolicy and rejects a different one (pod with non-preempting priority class)', async () => {
    expect(await admitPod([neverPreempt], { priorityClassName: 'nopreemption1' })).toMatchObject({ priority: 2000, preemptionPolicy: 'Never' });
    expect(await admitPod([neverPreempt], { priorityClassName: 'nopreemption1', preemptionPolicy: 'PreemptLowerPriority' })).toBe(
      '403 pods "pod-w-priorityclass" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
  });

  it('keeps the stored priority on update (pod update: priority cannot change)', async () => {
    const oldObject: KubeObject = { metadata: { name: 'pod-w-priorityclass' }, spec: { priority: 1000, preemptionPolicy: 'PreemptLowerPriority' } };
    expect(await admitPod([defaultClass1], { priority: 5 }, { operation: 'UPDATE', oldObject })).toMatchObject({ priority: 1000, preemptionPolicy: 'PreemptLowerPriority' });
  });
});
