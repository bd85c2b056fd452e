// The names kube publishes its OpenAPI definitions under (kube-openapi's OpenAPIModelName: the Go package path,
// reversed domain first, then the type: io.k8s.api.core.v1.Pod, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta),
// for client-node's models, whose names keep only the version and the type (V1Pod, V1ObjectMeta) and a group
// prefix where two packages share a type name (CoreV1Event, AdmissionregistrationV1ServiceReference).
//
// A model's package is found from where it is reached: the kind's own group version for the kind, the meta/v1
// types by name, a group prefix when the model has one, core/v1 for everything core/v1 types reach and for the
// few core/v1 types other groups embed; anything else is in the package of the type that refers to it.

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/** Definition names as kube-openapi derives them from Go packages. */
export function definitionName(group: string, version: string, kind: string): string {
  if (group === '') return `io.k8s.api.core.${version}.${kind}`;
  if (group === metaGroup) return `io.k8s.apimachinery.pkg.apis.meta.${version}.${kind}`;
  if (group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  if (group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}.${kind}`;
  if (!group.includes('.')) return `io.k8s.api.${group}.${version}.${kind}`;
  if (group.endsWith('.k8s.io')) return `io.k8s.api.${group.slice(0, -'.k8s.io'.length).split('.')[0]}.${version}.${kind}`;
  // Custom resources: the reversed group, as the CRD OpenAPI builder names them (com.example.stable.v1.CronTab).
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** A pseudo group for k8s.io/apimachinery/pkg/apis/meta/v1. */
export const metaGroup = 'meta.k8s.io';

/** k8s.io/apimachinery/pkg/apis/meta/v1 types client-node models (as V1<Type>). */
const metaTypes = new Set([
  'APIGroup', 'APIGroupList', 'APIResource', 'APIResourceList', 'APIVersions', 'Condition', 'DeleteOptions',
  'FieldSelectorRequirement', 'FieldsV1', 'GroupVersionForDiscovery', 'LabelSelector', 'LabelSelectorRequirement',
  'ListMeta', 'ManagedFieldsEntry', 'MicroTime', 'ObjectMeta', 'OwnerReference', 'Preconditions',
  'ServerAddressByClientCIDR', 'Status', 'StatusCause', 'StatusDetails', 'Time', 'WatchEvent',
]);

/** core/v1 types that other groups' types embed (apps' PodTemplateSpec, references). */
const coreTypesEmbeddedElsewhere = new Set(['PodTemplateSpec', 'ObjectReference', 'LocalObjectReference', 'TypedLocalObjectReference', 'TypedObjectReference']);

/** The group of a model's group prefix ("Core" → "", "Admissionregistration" → "admissionregistration.k8s.io"). */
function prefixGroup(prefix: string): string {
  const lower = prefix.toLowerCase();
  if (lower === 'core') return '';
  if (lower === 'apps' || lower === 'batch' || lower === 'autoscaling' || lower === 'policy') return lower;
  if (lower === 'rbac') return 'rbac.authorization.k8s.io';
  return `${lower}.k8s.io`;
}

const MODEL = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z][A-Za-z0-9]*)$/;

/** The Go type name of a model (`V1Container` → Container) and its group prefix, if any. */
export function parseModelName(model: string): { prefix?: string; version: string; type: string } | undefined {
  const m = MODEL.exec(model);
  if (!m) return undefined;
  return { ...(m[1] ? { prefix: m[1] } : {}), version: m[2]!.toLowerCase(), type: m[3]! };
}

/** The package of a model reached from a type in `from` (the kind's own group version for the kind itself). */
export function packageOfModel(model: string, from: GroupVersion): GroupVersion & { type: string } {
  const parsed = parseModelName(model);
  if (!parsed) return { ...from, type: model };
  const { prefix, version, type } = parsed;
  if (metaTypes.has(type) && !prefix) return { group: metaGroup, version: 'v1', type };
  if (prefix) return { group: prefixGroup(prefix), version: from.group === prefixGroup(prefix) ? from.version : version, type };
  if (from.group === '' || coreTypesEmbeddedElsewhere.has(type)) return { group: '', version: from.group === '' ? from.version : 'v1', type };
  // served under the referring kind's version (admissionregistration v1 MutatingAdmissionPolicy from v1beta1's models)
  return { group: from.group, version: from.version, type };
}
