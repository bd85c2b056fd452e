// Builders for the policy tests: defaulted policies and bindings, admission attributes, in-memory parameter
// lookup and sources. Plain data, no I/O.
import type {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicySpec,
  ValidatingAdmissionPolicyBindingSpec,
} from '../../api/admissionregistration.js';
import type { KubeObject } from '../../api/types.js';
import { newReinvocationContext, type AdmissionAttributes } from '../attributes.js';
import { staticSnapshotSource } from '../sources/source.js';
import type { ParamLookup } from './generic/types.js';
import { bindingItemsOf, policyItemsOf, type ValidatingPolicySources } from './sources.js';

/** A ValidatingAdmissionPolicy on apps/v1 deployments CREATE/UPDATE, defaulted as stored. */
export function vap(name: string, spec: Partial<ValidatingAdmissionPolicySpec> = {}): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name, generation: 1 },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
      },
      validations: [{ expression: 'object.spec.replicas > 1' }],
      ...spec,
    },
  };
}

export function vapb(name: string, policyName: string, spec: Partial<ValidatingAdmissionPolicyBindingSpec> = {}): ValidatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name, generation: 1 },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

export function deployment(name: string, replicas: number, namespace = 'team-a', labels: Record<string, string> = { app: 'nginx' }): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: { replicas, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
  };
}

/** CREATE of a Deployment in namespace team-a by "alice", unless overridden. */
export function deploymentAttributes(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const object = overrides.object === undefined && !('object' in overrides) ? deployment('web', 1) : overrides.object;
  return {
    operation: 'CREATE',
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    subresource: '',
    name: object?.metadata?.name ?? 'web',
    namespace: 'team-a',
    object,
    oldObject: undefined,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    dryRun: false,
    userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
    annotations: {},
    warnings: [],
    reinvocation: newReinvocationContext(),
    ...overrides,
  };
}

export const namespaces: Record<string, KubeObject> = {
  'team-a': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'prod', 'kubernetes.io/metadata.name': 'team-a' }, managedFields: [{ manager: 'x' }] }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
  'team-b': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b', labels: { env: 'dev', 'kubernetes.io/metadata.name': 'team-b' } }, spec: {}, status: { phase: 'Active' } },
};

export const getNamespace = async (name: string): Promise<KubeObject | undefined> => namespaces[name];

export function configMapParam(name: string, namespace: string, data: Record<string, string>, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data };
}

/** ConfigMaps (namespaced) and a cluster-scoped "ClusterParam" kind of example.com/v1, held in memory. */
export function memoryParamLookup(objects: KubeObject[]): ParamLookup {
  return {
    resolve(kind) {
      if (kind.group === '' && kind.version === 'v1' && kind.kind === 'ConfigMap') {
        return { resource: { group: '', version: 'v1', resource: 'configmaps' }, kind: { ...kind }, namespaced: true };
      }
      if (kind.group === 'example.com' && kind.version === 'v1' && kind.kind === 'ClusterParam') {
        return { resource: { group: 'example.com', version: 'v1', resource: 'clusterparams' }, kind: { ...kind }, namespaced: false };
      }
      return undefined;
    },
    async get(p, namespace, name) {
      return objects.find((o) => o.kind === p.kind.kind && (o.metadata?.namespace ?? '') === namespace && o.metadata?.name === name);
    },
    async list(p, namespace, selector) {
      return objects.filter((o) => o.kind === p.kind.kind && (namespace === '' || o.metadata?.namespace === namespace) && selector.matches(o.metadata?.labels));
    },
  };
}

const byName = (a: KubeObject, b: KubeObject): number => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1);

/** Sources as the API sources hand them out: objects sorted by name. */
export function apiSources(policies: ValidatingAdmissionPolicy[], bindings: ValidatingAdmissionPolicyBinding[]): ValidatingPolicySources {
  return {
    policies: staticSnapshotSource([...policies].sort(byName).flatMap((p) => policyItemsOf<ValidatingAdmissionPolicy>(p, 'api'))),
    bindings: staticSnapshotSource([...bindings].sort(byName).flatMap((b) => bindingItemsOf<ValidatingAdmissionPolicyBinding>(b, 'api'))),
  };
}
