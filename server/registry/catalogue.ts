// The resources this apiserver serves. Data only: the columns mirror kube-apiserver's printers
// (pkg/printers/internalversion) so `kubectl get` prints what it prints against a real cluster.
import type { KubeObject } from '../api/types.js';
import { allVerbs, gvrKey, type PrinterColumn, type ResourceInfo, type Strategy } from './resource.js';
import { strategiesFor } from './strategies/index.js';
import type { PolicyStrategyOptions } from './strategies/policies.js';
import type { WebhookConfigurationStrategyOptions } from './strategies/admissionregistration.js';
import { customResourceDefinitionResource } from '../apiextensions/crd-resource.js';

type Entry = Partial<ResourceInfo> & Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>;

const countOf = (field: string) => (o: KubeObject): number => {
  const v = o[field];
  return v && typeof v === 'object' ? Object.keys(v as object).length : 0;
};
const lengthAt = (get: (o: KubeObject) => unknown) => (o: KubeObject): number => {
  const v = get(o);
  return Array.isArray(v) ? v.length : 0;
};
// Reads a nested field without a schema; the shapes are the v1 API's.
const at = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);
const str = (v: unknown): string => (v === undefined || v === null ? '<none>' : String(v));

const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' };

function podReady(o: KubeObject): string {
  const specs = lengthAt((x) => at(x, 'spec', 'containers'))(o);
  const statuses = (at(o, 'status', 'containerStatuses') as Array<{ ready?: boolean }> | undefined) ?? [];
  return `${statuses.filter((s) => s.ready).length}/${specs}`;
}
function podRestarts(o: KubeObject): number {
  const statuses = (at(o, 'status', 'containerStatuses') as Array<{ restartCount?: number }> | undefined) ?? [];
  return statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0);
}
function servicePorts(o: KubeObject): string {
  const ports = (at(o, 'spec', 'ports') as Array<{ port?: number; protocol?: string; nodePort?: number }> | undefined) ?? [];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}
function deploymentReady(o: KubeObject): string {
  return `${(at(o, 'status', 'readyReplicas') as number | undefined) ?? 0}/${(at(o, 'spec', 'replicas') as number | undefined) ?? 0}`;
}
function paramRefOf(o: KubeObject): string {
  const ref = at(o, 'spec', 'paramRef') as { namespace?: string; name?: string } | undefined;
  if (!ref) return '<unset>';
  return ref.namespace ? `${ref.namespace}/${ref.name ?? '*'}` : ref.name ?? '*';
}
function paramKindOf(o: KubeObject): string {
  const pk = at(o, 'spec', 'paramKind') as { apiVersion?: string; kind?: string } | undefined;
  return pk ? `${pk.apiVersion}/${pk.kind}` : '<unset>';
}

const entries: Entry[] = [
  // core/v1
  {
    group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'],
    subresources: { status: true }, nameRule: 'DNS1123Label', hasStatus: true,
    printerColumns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }, age],
  },
  {
    group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'],
    subresources: { status: true }, hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Ready', type: 'string', compute: podReady },
      { name: 'Status', type: 'string', compute: (o) => str(at(o, 'status', 'phase') ?? 'Pending') },
      { name: 'Restarts', type: 'string', compute: (o) => String(podRestarts(o)) },
      age,
      { name: 'IP', type: 'string', priority: 1, compute: (o) => str(at(o, 'status', 'podIP')) },
      { name: 'Node', type: 'string', priority: 1, compute: (o) => str(at(o, 'spec', 'nodeName')) },
    ],
  },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], printerColumns: [{ name: 'Data', type: 'integer', compute: (o) => countOf('data')(o) + countOf('binaryData')(o) }, age] },
  {
    group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true,
    printerColumns: [{ name: 'Type', type: 'string', jsonPath: '.type' }, { name: 'Data', type: 'integer', compute: countOf('data') }, age],
  },
  {
    group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'],
    subresources: { status: true }, nameRule: 'DNS1123Label', hasStatus: true,
    printerColumns: [
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      { name: 'Cluster-IP', type: 'string', compute: (o) => str(at(o, 'spec', 'clusterIP')) },
      { name: 'External-IP', type: 'string', compute: (o) => str((at(o, 'spec', 'externalIPs') as string[] | undefined)?.join(',')) },
      { name: 'Port(s)', type: 'string', compute: servicePorts },
      age,
    ],
  },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], printerColumns: [{ name: 'Secrets', type: 'integer', compute: lengthAt((o) => o['secrets']) }, age] },
  {
    group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'],
    printerColumns: [
      { name: 'Last Seen', type: 'string', jsonPath: '.lastTimestamp' },
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Reason', type: 'string', jsonPath: '.reason' },
      { name: 'Object', type: 'string', compute: (o) => `${String(at(o, 'involvedObject', 'kind') ?? '').toLowerCase()}/${str(at(o, 'involvedObject', 'name'))}` },
      { name: 'Message', type: 'string', jsonPath: '.message' },
    ],
  },
  // apps/v1
  {
    group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'],
    subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Ready', type: 'string', compute: deploymentReady },
      { name: 'Up-to-date', type: 'integer', compute: (o) => (at(o, 'status', 'updatedReplicas') as number | undefined) ?? 0 },
      { name: 'Available', type: 'integer', compute: (o) => (at(o, 'status', 'availableReplicas') as number | undefined) ?? 0 },
      age,
    ],
  },
  // admissionregistration.k8s.io/v1
  ...(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] as const).map<Entry>((kind) => ({
    group: 'admissionregistration.k8s.io', version: 'v1', resource: `${kind.toLowerCase()}s`, kind, namespaced: false, categories: ['api-extensions'], hasGeneration: true,
    printerColumns: [{ name: 'Webhooks', type: 'integer', compute: lengthAt((o) => o['webhooks']) }, age],
  })),
  ...(['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'] as const).map<Entry>((kind) => ({
    group: 'admissionregistration.k8s.io', version: 'v1', resource: `${kind.toLowerCase()}ies`.replace('policyies', 'policies'), kind, namespaced: false, categories: ['api-extensions'],
    subresources: { status: true }, hasGeneration: true, hasStatus: true,
    printerColumns: kind === 'ValidatingAdmissionPolicy'
      ? [{ name: 'Validations', type: 'integer', compute: lengthAt((o) => at(o, 'spec', 'validations')) }, { name: 'ParamKind', type: 'string', compute: paramKindOf }, age]
      : [{ name: 'Mutations', type: 'integer', compute: lengthAt((o) => at(o, 'spec', 'mutations')) }, { name: 'ParamKind', type: 'string', compute: paramKindOf }, age],
  })),
  ...(['ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding'] as const).map<Entry>((kind) => ({
    group: 'admissionregistration.k8s.io', version: 'v1', resource: `${kind.toLowerCase()}s`, kind, namespaced: false, categories: ['api-extensions'], hasGeneration: true,
    printerColumns: [{ name: 'PolicyName', type: 'string', jsonPath: '.spec.policyName' }, { name: 'ParamRef', type: 'string', compute: paramRefOf }, age],
  })),
  // Virtual resources: create-only, answered by the authn/authz stubs, never stored.
  { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: ['create'], virtual: 'authentication' },
  { group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: ['create'], virtual: 'authentication' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: ['create'], virtual: 'authorization' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: ['create'], virtual: 'authorization' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true, verbs: ['create'], virtual: 'authorization' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: ['create'], virtual: 'authorization' },
];

function complete(e: Entry, strategies: Record<string, Strategy>): ResourceInfo {
  const strategy: Strategy = strategies[gvrKey(e.group, e.version, e.resource)] ?? {};
  return {
    listKind: `${e.kind}List`,
    singular: e.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    verbs: allVerbs,
    subresources: {},
    nameRule: 'DNS1123Subdomain',
    hasGeneration: false,
    hasStatus: false,
    printerColumns: [age],
    strategy,
    ...e,
  };
}

/** The built-in resources, with the strategies of the given feature gates. */
export function builtinResourcesFor(gates: WebhookConfigurationStrategyOptions & PolicyStrategyOptions = {}): readonly ResourceInfo[] {
  const strategies = strategiesFor(gates);
  // apiextensions.k8s.io/v1 customresourcedefinitions: its strategy compiles CEL rules, so it is built per server.
  return Object.freeze([...entries.map((e) => complete(e, strategies)), complete(customResourceDefinitionResource(gates), strategies)]);
}

/** The built-in resources under the default feature gates. */
export const builtinResources: readonly ResourceInfo[] = builtinResourcesFor();
