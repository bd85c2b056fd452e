// Builders for the MutatingAdmissionPolicy tests: defaulted policies and bindings, and sources as the API hands
// them out. Plain data, no I/O.
import type {
  Mutation,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  MutatingAdmissionPolicyBindingSpec,
  MutatingAdmissionPolicySpec,
} from '../../../api/admissionregistration.js';
import type { KubeObject } from '../../../api/types.js';
import { staticSnapshotSource } from '../../sources/source.js';
import { bindingItemsOf, policyItemsOf, type MutatingPolicySources } from '../sources.js';

export const applyConfiguration = (expression: string): Mutation => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
export const jsonPatch = (expression: string): Mutation => ({ patchType: 'JSONPatch', jsonPatch: { expression } });

/** A MutatingAdmissionPolicy on apps/v1 deployments CREATE/UPDATE, defaulted as stored. */
export function map(name: string, mutations: Mutation[], spec: Partial<MutatingAdmissionPolicySpec> = {}): MutatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name, generation: 1 },
    spec: {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
      },
      mutations,
      ...spec,
    },
  };
}

export function mapb(name: string, policyName: string, spec: Partial<MutatingAdmissionPolicyBindingSpec> = {}): MutatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name, generation: 1 },
    spec: { policyName, ...spec },
  };
}

const byName = (a: KubeObject, b: KubeObject): number => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1);

/** Sources as the API sources hand them out: objects sorted by name. */
export function mutatingApiSources(policies: MutatingAdmissionPolicy[], bindings: MutatingAdmissionPolicyBinding[]): MutatingPolicySources {
  return {
    policies: staticSnapshotSource([...policies].sort(byName).flatMap((p) => policyItemsOf<MutatingAdmissionPolicy>(p, 'api'))),
    bindings: staticSnapshotSource([...bindings].sort(byName).flatMap((b) => bindingItemsOf<MutatingAdmissionPolicyBinding>(b, 'api'))),
  };
}
