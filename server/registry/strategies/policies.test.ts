import type { KubeObject } from '../../api/types.js';
import { kubernetesCelEnvironment } from '../../admission/cel/kubernetes.js';
import { strategiesFor } from './index.js';
import {
  mutatingAdmissionPolicyBindingStrategyWith,
  mutatingAdmissionPolicyStrategyWith,
  validatingAdmissionPolicyBindingStrategyWith,
  validatingAdmissionPolicyStrategyWith,
} from './policies.js';

function policy(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }] }, validations: [{ expression: 'object.spec.replicas <= 100' }], ...spec },
  };
}

function binding(kind: 'ValidatingAdmissionPolicyBinding' | 'MutatingAdmissionPolicyBinding', name: string, policyName: string): KubeObject {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, spec: { policyName, ...(kind === 'ValidatingAdmissionPolicyBinding' ? { validationActions: ['Deny'] } : {}) } };
}

function mutating(name: string): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: {
      reinvocationPolicy: 'Never',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }] },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
    },
  };
}

const reserved = 'names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';
const suffixWarning = 'metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';

describe('policy strategies', () => {
  it('are registered for the four policy resources', () => {
    const s = strategiesFor({ manifestBasedAdmissionControlConfig: true });
    for (const r of ['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']) {
      expect(s[`admissionregistration.k8s.io/v1/${r}`]?.validate).toBeDefined();
    }
    // built for the gates: the reserved suffix is refused with the gate on
    expect(s['admissionregistration.k8s.io/v1/validatingadmissionpolicies']!.validate!(policy('x.static.k8s.io')).map((e) => e.field)).toContain('metadata.name');
  });

  it('applies the v1 defaults, then validates the defaulted policy (e2e: VAP API operations template)', () => {
    const s = validatingAdmissionPolicyStrategyWith();
    const obj = policy('p');
    s.applyDefaults!(obj);
    expect(obj['spec']).toMatchObject({ failurePolicy: 'Fail', matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: '*' }] } });
    expect(s.validate!(obj)).toEqual([]);
  });

  it('compiles expressions when given a CEL environment', () => {
    const obj = policy('p', { validations: [{ expression: 'object.spec.replicas <=' }] });
    const plain = validatingAdmissionPolicyStrategyWith();
    const compiling = validatingAdmissionPolicyStrategyWith({ cel: kubernetesCelEnvironment() });
    plain.applyDefaults!(obj);
    expect(plain.validate!(obj)).toEqual([]);
    expect(compiling.validate!(obj).map((e) => e.field)).toEqual(['spec.validations[0].expression']);
  });

  it('validates a write to /status on its own, and a write to the object on its spec', () => {
    const s = validatingAdmissionPolicyStrategyWith();
    const old = policy('p');
    s.applyDefaults!(old);
    const statusWrite = { ...structuredClone(old), status: { conditions: [{ type: 'Ready', status: 'Maybe', reason: 'R', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] } };
    expect(s.validateUpdate!(statusWrite, old).map((e) => e.field)).toEqual(['status.conditions[0].status']);
    const specWrite = structuredClone(old);
    (specWrite['spec'] as Record<string, unknown>)['failurePolicy'] = 'Sometimes';
    expect(s.validateUpdate!(specWrite, old).map((e) => e.field)).toEqual(['spec.failurePolicy']);
  });

  it.each([
    ['ValidatingAdmissionPolicyBinding', validatingAdmissionPolicyBindingStrategyWith] as const,
    ['MutatingAdmissionPolicyBinding', mutatingAdmissionPolicyBindingStrategyWith] as const,
  ])('refuses a %s naming a static policy when the gate is on', (kind, strategyWith) => {
    const s = strategyWith({ manifestBasedAdmissionControlConfig: true });
    const b = binding(kind, 'b', 'p.static.k8s.io');
    s.applyDefaults!(b);
    expect(s.validate!(b)).toEqual([{ type: 'Invalid', field: 'spec.policyName', badValue: 'p.static.k8s.io', detail: reserved }]);
    expect(strategyWith().validate!(b)).toEqual([]);
  });

  it('rejects REST creates of reserved names with the gate on, warns with it off, and keeps stored ones updatable', () => {
    const obj = policy('x.static.k8s.io');
    const on = validatingAdmissionPolicyStrategyWith({ manifestBasedAdmissionControlConfig: true });
    const off = validatingAdmissionPolicyStrategyWith();
    on.applyDefaults!(obj);
    expect(on.validate!(obj)).toEqual([{ type: 'Invalid', field: 'metadata.name', badValue: 'x.static.k8s.io', detail: reserved }]);
    expect(on.validateUpdate!(obj, obj)).toEqual([]);
    expect(off.validate!(obj)).toEqual([]);
    expect(off.warningsOnCreate!(obj)).toEqual([suffixWarning]);
    expect(on.warningsOnCreate!(obj)).toEqual([]);
    expect(on.warningsOnUpdate!(obj, obj)).toEqual([suffixWarning]);
  });

  it('requires reinvocationPolicy on MutatingAdmissionPolicies and defaults their failurePolicy', () => {
    const s = mutatingAdmissionPolicyStrategyWith();
    const obj = mutating('m');
    s.applyDefaults!(obj);
    expect(obj['spec']).toMatchObject({ failurePolicy: 'Fail' });
    expect(s.validate!(obj)).toEqual([]);
    delete (obj['spec'] as Record<string, unknown>)['reinvocationPolicy'];
    expect(s.validate!(obj).map((e) => e.field)).toEqual(['spec.reinvocationPolicy']);
  });
});
