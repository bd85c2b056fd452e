// Pure rules of the apps/v1 strategies, table-driven with kube's texts (pkg/apis/apps/validation/validation.go).
import { formatFieldError, FieldPath } from '../../../api/field.js';
import type { KubeObject, UserInfo } from '../../../api/types.js';
import { controllerRevisionStrategy } from './controllerrevision.js';
import { daemonSetStrategy, templateGenerationAnnotation } from './daemonset.js';
import { deploymentStrategy } from './deployment.js';
import { replicaSetStrategy } from './replicaset.js';
import { statefulSetStrategy } from './statefulset.js';
import { intOrPercentValue, validateIntOrPercent, validateSelectorAndTemplate } from './workload.js';

type Obj = Record<string, unknown>;

const template = (labels: Obj = { app: 'a' }, podSpec: Obj = {}): Obj => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Always', ...podSpec } });
const workload = (kind: string, spec: Obj): KubeObject => ({ apiVersion: 'apps/v1', kind, metadata: { name: 'w' }, spec: { selector: { matchLabels: { app: 'a' } }, template: template(), ...spec } });
const messages = (errs: ReturnType<NonNullable<typeof replicaSetStrategy.validate>>): string[] => errs.map(formatFieldError);

describe('the selector and template rules every workload shares', () => {
  const path = FieldPath.root('spec');
  it.each([
    ['a matching selector', { selector: { matchLabels: { app: 'a' } }, template: template() }, []],
    ['a selector that does not match', { selector: { matchLabels: { app: 'b' } }, template: template({ z: '1', app: 'a' }) }, ['spec.template.metadata.labels: Invalid value: {"app":"a","z":"1"}: `selector` does not match template `labels`']],
    ['no selector', { template: template() }, ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`']],
    ['an empty selector, which matches everything', { selector: { matchLabels: {} }, template: template() }, ['spec.selector: Invalid value: {}: empty selector is invalid for statefulset']],
    ['an unknown operator', { selector: { matchExpressions: [{ key: 'app', operator: 'Near' }] }, template: template() }, ['spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator', 'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Near"}]}']],
  ] as const)('%s', (_name, spec, expected) => {
    expect(messages(validateSelectorAndTemplate(spec as Obj, path, { emptyName: 'statefulset', unconvertibleDetail: '' }))).toEqual(expected);
  });

  it("counts a DaemonSet's missing selector only as not matching its template", () => {
    expect(messages(validateSelectorAndTemplate({ template: template() }, path, { emptyName: 'daemonset', selectorOptional: true }))).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`',
    ]);
  });

  it.each([
    [1, 1],
    ['25%', 25],
    ['25', 0],
    [undefined, 0],
  ] as const)('reads the int-or-percent %p as %p', (v, n) => expect(intOrPercentValue(v)).toBe(n));

  it('refuses malformed and over-100 percents with kube texts', () => {
    const p = FieldPath.root('maxSurge');
    expect(messages(validateIntOrPercent('x', p))).toEqual([
      "maxSurge: Invalid value: \"x\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ]);
    expect(messages(validateIntOrPercent('101%', p, { notOver100: true }))).toEqual(['maxSurge: Invalid value: "101%": must not be greater than 100%']);
    expect(messages(validateIntOrPercent(-1, p))).toEqual(['maxSurge: Invalid value: -1: must be greater than or equal to 0']);
  });
});

describe('StatefulSet', () => {
  it("defaults kube's fields, and a rollingUpdate only with a defaulted strategy type", () => {
    const defaulted = workload('StatefulSet', {});
    statefulSetStrategy.applyDefaults!(defaulted);
    expect((defaulted['spec'] as Obj)['updateStrategy']).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } });
    const explicit = workload('StatefulSet', { updateStrategy: { type: 'RollingUpdate' } });
    statefulSetStrategy.applyDefaults!(explicit);
    expect((explicit['spec'] as Obj)['updateStrategy']).toEqual({ type: 'RollingUpdate' });
  });

  it.each([
    ['replicas', { replicas: 5 }, true],
    ['ordinals', { ordinals: { start: 2 } }, true],
    ['template', { template: template({ app: 'a' }, { hostname: 'h' }) }, true],
    ['updateStrategy', { updateStrategy: { type: 'OnDelete' } }, true],
    ['revisionHistoryLimit', { revisionHistoryLimit: 1 }, true],
    ['persistentVolumeClaimRetentionPolicy', { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' } }, true],
    ['minReadySeconds', { minReadySeconds: 9 }, true],
    ['serviceName', { serviceName: 'other' }, false],
    ['podManagementPolicy', { podManagementPolicy: 'Parallel' }, false],
    ['volumeClaimTemplates', { volumeClaimTemplates: [{ metadata: { name: 'd' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }, false],
    ['selector', { selector: { matchLabels: { app: 'a', b: 'c' } }, template: template({ app: 'a', b: 'c' }) }, false],
  ] as const)('an update of %s is allowed: %p', (_field, change, allowed) => {
    const old = workload('StatefulSet', { serviceName: 'web' });
    statefulSetStrategy.applyDefaults!(old);
    const next = structuredClone(old);
    Object.assign(next['spec'] as Obj, change);
    statefulSetStrategy.applyDefaults!(next);
    const forbidden = messages(statefulSetStrategy.validateUpdate!(next, old)).filter((m) => m.startsWith('spec: Forbidden'));
    expect(forbidden.length === 0).toBe(allowed);
  });

  it('ratchets the serviceName rule for objects stored before it', () => {
    const old = workload('StatefulSet', { serviceName: 'Old_Name' });
    statefulSetStrategy.applyDefaults!(old);
    expect(messages(statefulSetStrategy.validate!(old))).toEqual([
      "spec.serviceName: Invalid value: \"Old_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    const next = structuredClone(old);
    (next['spec'] as Obj)['replicas'] = 2;
    expect(statefulSetStrategy.validateUpdate!(next, old)).toEqual([]);
  });

  it('requires access modes and a storage request of each volume claim template', () => {
    const sts = workload('StatefulSet', { volumeClaimTemplates: [{ metadata: { name: 'd' }, spec: {} }] });
    statefulSetStrategy.applyDefaults!(sts);
    expect(messages(statefulSetStrategy.validate!(sts))).toEqual([
      'spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required',
      'spec.volumeClaimTemplates[0].spec.resources[storage]: Required value',
    ]);
  });
});

const admin: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters'] };

describe('DaemonSet template generation', () => {
  const generation = (o: KubeObject) => o.metadata?.annotations?.[templateGenerationAnnotation];

  it('starts at 1, or keeps a higher value sent on create', () => {
    const ds = workload('DaemonSet', {});
    daemonSetStrategy.prepareForCreate!(ds, admin);
    expect(generation(ds)).toBe('1');
    const given = workload('DaemonSet', {});
    given.metadata!.annotations = { [templateGenerationAnnotation]: '4' };
    daemonSetStrategy.prepareForCreate!(given, admin);
    expect(generation(given)).toBe('4');
  });

  it('follows template changes on update, whatever the client sends', () => {
    const old = workload('DaemonSet', {});
    daemonSetStrategy.prepareForCreate!(old, admin);
    const same = structuredClone(old);
    same.metadata!.annotations = { [templateGenerationAnnotation]: '7' };
    daemonSetStrategy.prepareForUpdate!(same, old, '');
    expect(generation(same)).toBe('1');
    const changed = structuredClone(old);
    (changed['spec'] as Obj)['template'] = template({ app: 'a' }, { hostname: 'x' });
    daemonSetStrategy.prepareForUpdate!(changed, old, '');
    expect(generation(changed)).toBe('2');
  });
});

describe('ReplicaSet and Deployment', () => {
  it.each([
    ['ReplicaSet', replicaSetStrategy],
    ['Deployment', deploymentStrategy],
  ] as const)('%s: activeDeadlineSeconds is forbidden with the ReplicaSet wording', (kind, strategy) => {
    const obj = workload(kind, { template: template({ app: 'a' }, { activeDeadlineSeconds: 3 }) });
    strategy.applyDefaults!(obj);
    expect(messages(strategy.validate!(obj))).toEqual(['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported']);
  });

  it('Deployment: maxUnavailable and maxSurge may not both be 0; progressDeadlineSeconds must exceed minReadySeconds', () => {
    const obj = workload('Deployment', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } }, minReadySeconds: 600 });
    deploymentStrategy.applyDefaults!(obj);
    expect(messages(deploymentStrategy.validate!(obj))).toEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
      'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ]);
  });
});

describe('ControllerRevision', () => {
  const cr = (data: unknown, revision: number): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data, revision } as KubeObject);
  it('requires data, keeps it immutable, and lets revision change', () => {
    expect(messages(controllerRevisionStrategy.validate!(cr(null, 1)))).toEqual(['data: Required value: data is mandatory']);
    expect(messages(controllerRevisionStrategy.validateUpdate!(cr({ a: 2 }, 1), cr({ a: 1 }, 1)))).toEqual(['data: Invalid value: {"a":2}: field is immutable']);
    expect(controllerRevisionStrategy.validateUpdate!(cr({ a: 1 }, 3), cr({ a: 1 }, 1))).toEqual([]);
  });
});
