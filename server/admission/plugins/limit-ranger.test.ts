// Cases of kube's plugin/pkg/admission/limitranger/admission_test.go: TestMergePodResourceRequirements,
// TestPodLimitFunc (Container min/max) and the limit-ranger annotation.
import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { fakeAttributes, fakeLister } from './fake-admission.js';
import { LimitRanger, aggregateMessage, defaultRequirements, mergePodResourceRequirements, validatePodLimits } from './limit-ranger.js';

const range = (item: Record<string, unknown>, name = 'abc'): KubeObject => ({ metadata: { name, namespace: 'ns' }, spec: { limits: [{ type: 'Container', ...item }] } });
const resources = (requests: Record<string, string>, limits: Record<string, string>) => ({
  ...(Object.keys(limits).length ? { limits } : {}),
  ...(Object.keys(requests).length ? { requests } : {}),
});
const podSpec = (...containers: Array<Record<string, unknown>>) => ({ containers: containers.map((r, i) => ({ name: `foo-${i}`, image: 'i', resources: r })) });

describe('LimitRanger defaults (TestMergePodResourceRequirements)', () => {
  const defaults = defaultRequirements([range({ default: { cpu: '50m', memory: '5Mi' }, defaultRequest: { cpu: '25m', memory: '2Mi' } })]);

  it('fills an empty container and says so in the annotation', () => {
    const spec = podSpec({});
    expect(mergePodResourceRequirements(spec, defaults)).toBe('LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0');
    expect(spec.containers[0]!['resources']).toEqual(resources({ cpu: '25m', memory: '2Mi' }, { cpu: '50m', memory: '5Mi' }));
  });

  it('keeps what the container sets and names only what it filled', () => {
    const spec = podSpec(resources({ cpu: '10m' }, { memory: '3Mi' }));
    expect(mergePodResourceRequirements(spec, defaults)).toBe('LimitRanger plugin set: memory request for container foo-0; cpu limit for container foo-0');
    expect(spec.containers[0]!['resources']).toEqual(resources({ cpu: '10m', memory: '2Mi' }, { memory: '3Mi', cpu: '50m' }));
  });

  it('covers init containers and sets nothing when all is given', () => {
    const spec = { ...podSpec(resources({ cpu: '1', memory: '1Mi' }, { cpu: '1', memory: '1Mi' })), initContainers: [{ name: 'init', image: 'i' }] };
    expect(mergePodResourceRequirements(spec, defaults)).toBe('LimitRanger plugin set: cpu, memory request for init container init; cpu, memory limit for init container init');
    expect(mergePodResourceRequirements(podSpec(resources({ cpu: '1', memory: '1Mi' }, { cpu: '1', memory: '1Mi' })), defaults)).toBeUndefined();
  });
});

describe('LimitRanger min and max (TestPodLimitFunc, Container type)', () => {
  const minMax = [range({ min: { cpu: '100m', memory: '10Mi' }, max: { cpu: '1', memory: '1Gi' } })];
  it.each<[string, Record<string, unknown>, string[]]>([
    ['within bounds', resources({ cpu: '200m', memory: '20Mi' }, { cpu: '500m', memory: '100Mi' }), []],
    ['request below min', resources({ cpu: '50m', memory: '20Mi' }, { cpu: '500m', memory: '100Mi' }), ['minimum cpu usage per Container is 100m, but request is 50m']],
    ['no request for a min', resources({ memory: '20Mi' }, { cpu: '500m', memory: '100Mi' }), ['minimum cpu usage per Container is 100m.  No request is specified']],
    ['limit above max', resources({ cpu: '200m', memory: '20Mi' }, { cpu: '2', memory: '100Mi' }), ['maximum cpu usage per Container is 1, but limit is 2']],
    ['no limit for a max', resources({ cpu: '200m', memory: '20Mi' }, { cpu: '500m' }), ['maximum memory usage per Container is 1Gi.  No limit is specified']],
  ])('%s', (_name, r, want) => {
    expect(validatePodLimits(podSpec(r), minMax)).toEqual(want);
  });

  it('aggregates several violations as kube\'s utilerrors.NewAggregate', () => {
    expect(aggregateMessage(['a', 'b'])).toBe('[a, b]');
  });
});

describe('LimitRanger plugin', () => {
  it('defaults on admit, then rejects on validate with kube\'s 403 text', async () => {
    const lister = fakeLister({ '/limitranges': [range({ default: { cpu: '2' }, max: { cpu: '1' } })] });
    const plugin = new LimitRanger({ lister });
    const object: KubeObject = { metadata: { name: 'p' }, spec: podSpec({}) };
    const attrs = fakeAttributes({ object });
    await plugin.admit(attrs);
    expect(object.metadata?.annotations).toEqual({ 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu limit for container foo-0' });
    const err = await Promise.resolve(plugin.validate(attrs)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).message).toBe('pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });

  it('leaves pods alone in a namespace without LimitRanges, and pod updates everywhere', async () => {
    const object: KubeObject = { metadata: { name: 'p' }, spec: podSpec({}) };
    await new LimitRanger({ lister: fakeLister({ '/limitranges': [] }) }).admit(fakeAttributes({ object }));
    expect(object).toEqual({ metadata: { name: 'p' }, spec: podSpec({}) });
    expect(new LimitRanger({ lister: fakeLister({}) }).handles('UPDATE')).toBe(false);
  });
});
