// The patch metadata strategic merge patch reads from k8s.io/api's Go struct tags
// (`patchStrategy:"merge" patchMergeKey:"name"`), written out for the built-in kinds this server knows.
// A kind listed here accepts application/strategic-merge-patch+json; any other kind gets kube's 415, as a
// custom resource does. Fields not listed have no patch tags: maps merge key by key, lists are replaced.
// The list of covered keys is documented at the top of strategic-merge-patch.ts; keep the two in sync.

/** The patch tags of one field. */
export interface PatchMeta {
  /** the patchStrategy tag: "merge", "retainKeys", "merge,retainKeys" or "replace" */
  readonly strategy?: string;
  /** the patchMergeKey tag, for lists of objects with strategy merge */
  readonly mergeKey?: string;
  /** the struct the field holds (for a list: its elements), when it has tagged fields of its own */
  readonly schema?: () => StructSchema;
}

/** A Go struct's fields that carry patch tags or lead to some that do, by JSON name. */
export type StructSchema = { readonly [jsonField: string]: PatchMeta };

const merge = (mergeKey?: string, schema?: () => StructSchema): PatchMeta => ({ strategy: 'merge', ...(mergeKey ? { mergeKey } : {}), ...(schema ? { schema } : {}) });
const nested = (schema: () => StructSchema): PatchMeta => ({ schema });

// metav1.ObjectMeta
const objectMeta: StructSchema = {
  ownerReferences: merge('uid'),
  finalizers: merge(),
};

// core/v1 Container and EphemeralContainer (EphemeralContainerCommon carries the same tags)
const container: StructSchema = {
  ports: merge('containerPort'),
  env: merge('name'),
  volumeMounts: merge('mountPath'),
  volumeDevices: merge('devicePath'),
};

// core/v1 PodSpec
const podSpec: StructSchema = {
  volumes: { strategy: 'merge,retainKeys', mergeKey: 'name' },
  initContainers: merge('name', () => container),
  containers: merge('name', () => container),
  ephemeralContainers: merge('name', () => container),
  imagePullSecrets: merge('name'),
  hostAliases: merge('ip'),
  topologySpreadConstraints: merge('topologyKey'),
  schedulingGates: merge('name'),
  resourceClaims: { strategy: 'merge,retainKeys', mergeKey: 'name' },
};

// core/v1 PodStatus
const podStatus: StructSchema = {
  conditions: merge('type'),
  podIPs: merge('ip'),
  hostIPs: merge('ip'),
  resourceClaimStatuses: { strategy: 'merge,retainKeys', mergeKey: 'name' },
};

const podTemplateSpec: StructSchema = { metadata: nested(() => objectMeta), spec: nested(() => podSpec) };
const conditionsStatus: StructSchema = { conditions: merge('type') };
const metaOnly: StructSchema = { metadata: nested(() => objectMeta) };

// A workload: spec.template is a PodTemplateSpec, status.conditions merge by type.
const workload = (specExtra: StructSchema = {}): StructSchema => ({
  metadata: nested(() => objectMeta),
  spec: nested(() => ({ template: nested(() => podTemplateSpec), ...specExtra })),
  status: nested(() => conditionsStatus),
});

// admissionregistration ValidatingWebhook / MutatingWebhook
const webhook: StructSchema = { matchConditions: merge('name') };
const webhookConfiguration: StructSchema = { metadata: nested(() => objectMeta), webhooks: merge('name', () => webhook) };
// ValidatingAdmissionPolicySpec / MutatingAdmissionPolicySpec. (VAP status.conditions has no patch tags.)
const admissionPolicy: StructSchema = {
  metadata: nested(() => objectMeta),
  spec: nested(() => ({ matchConditions: merge('name'), variables: merge('name') })),
};

/** Patch metadata by "group/Kind" (the core group is ""): the kinds that accept strategic merge patch. */
export const strategicMergeSchemas: Readonly<Record<string, StructSchema>> = Object.freeze({
  // core/v1
  '/Pod': { metadata: nested(() => objectMeta), spec: nested(() => podSpec), status: nested(() => podStatus) },
  '/PodTemplate': { metadata: nested(() => objectMeta), template: nested(() => podTemplateSpec) },
  '/ReplicationController': workload(),
  '/Service': {
    metadata: nested(() => objectMeta),
    spec: nested(() => ({ ports: merge('port') })),
    status: nested(() => conditionsStatus),
  },
  '/ServiceAccount': { metadata: nested(() => objectMeta), secrets: merge('name') },
  '/Namespace': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
  '/Node': {
    metadata: nested(() => objectMeta),
    spec: nested(() => ({ podCIDRs: merge() })),
    status: nested(() => ({ addresses: merge('type'), conditions: merge('type') })),
  },
  '/PersistentVolumeClaim': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
  '/PersistentVolume': metaOnly,
  '/ConfigMap': metaOnly,
  '/Secret': metaOnly,
  '/Event': metaOnly,
  '/Endpoints': metaOnly,
  '/LimitRange': metaOnly,
  '/ResourceQuota': metaOnly,
  // apps/v1
  'apps/Deployment': workload({ strategy: { strategy: 'retainKeys' } }),
  'apps/StatefulSet': workload(),
  'apps/DaemonSet': workload(),
  'apps/ReplicaSet': workload(),
  // ControllerRevision.data is a RawExtension: no patch tags below ObjectMeta
  'apps/ControllerRevision': metaOnly,
  // batch/v1
  'batch/Job': workload(),
  'batch/CronJob': {
    metadata: nested(() => objectMeta),
    spec: nested(() => ({ jobTemplate: nested(() => ({ metadata: nested(() => objectMeta), spec: nested(() => ({ template: nested(() => podTemplateSpec) })) })) })),
  },
  // autoscaling/v1 Scale, the /scale subresource
  'autoscaling/Scale': metaOnly,
  // autoscaling/v2 HorizontalPodAutoscaler: status.conditions merge by type (v1 has no conditions field)
  'autoscaling/HorizontalPodAutoscaler': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
  // admissionregistration.k8s.io
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': webhookConfiguration,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': webhookConfiguration,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': admissionPolicy,
  'admissionregistration.k8s.io/MutatingAdmissionPolicy': admissionPolicy,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': metaOnly,
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding': metaOnly,
  // apiextensions.k8s.io: no patch tags below ObjectMeta (spec.versions is replaced as a whole)
  'apiextensions.k8s.io/CustomResourceDefinition': metaOnly,
  // coordination, events, rbac, policy, networking: ObjectMeta's tags only, or status conditions
  'coordination.k8s.io/Lease': metaOnly,
  'events.k8s.io/Event': metaOnly,
  'rbac.authorization.k8s.io/Role': metaOnly,
  'rbac.authorization.k8s.io/ClusterRole': metaOnly,
  'rbac.authorization.k8s.io/RoleBinding': metaOnly,
  'rbac.authorization.k8s.io/ClusterRoleBinding': metaOnly,
  'policy/PodDisruptionBudget': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
  'networking.k8s.io/NetworkPolicy': metaOnly,
  'networking.k8s.io/Ingress': metaOnly,
  'networking.k8s.io/IngressClass': metaOnly,
  'storage.k8s.io/StorageClass': metaOnly,
  'scheduling.k8s.io/PriorityClass': metaOnly,
  // issue #15 networking, discovery, node: ObjectMeta's tags, ServiceCIDRStatus.conditions merged by type
  'networking.k8s.io/IPAddress': metaOnly,
  'networking.k8s.io/ServiceCIDR': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
  'discovery.k8s.io/EndpointSlice': metaOnly,
  'node.k8s.io/RuntimeClass': metaOnly,
  // storage.k8s.io (StorageClass above), certificates, resource, flowcontrol, apiregistration: k8s.io/api's tags
  'storage.k8s.io/CSIDriver': metaOnly,
  'storage.k8s.io/CSINode': { metadata: nested(() => objectMeta), spec: nested(() => ({ drivers: merge('name') })) },
  'storage.k8s.io/CSIStorageCapacity': metaOnly,
  'storage.k8s.io/VolumeAttachment': metaOnly,
  'storage.k8s.io/VolumeAttributesClass': metaOnly,
  'certificates.k8s.io/CertificateSigningRequest': metaOnly,
  'resource.k8s.io/DeviceClass': metaOnly,
  'resource.k8s.io/ResourceClaim': { metadata: nested(() => objectMeta), status: nested(() => ({ reservedFor: merge('uid') })) },
  'resource.k8s.io/ResourceClaimTemplate': metaOnly,
  'resource.k8s.io/ResourceSlice': metaOnly,
  'flowcontrol.apiserver.k8s.io/FlowSchema': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
  'apiregistration.k8s.io/APIService': { metadata: nested(() => objectMeta), status: nested(() => conditionsStatus) },
});

/** The patch metadata of a kind, or undefined when strategic merge patch is not supported for it. */
export function strategicMergeSchemaFor(gvk: { group: string; kind: string }): StructSchema | undefined {
  const key = `${gvk.group}/${gvk.kind}`;
  return Object.prototype.hasOwnProperty.call(strategicMergeSchemas, key) ? strategicMergeSchemas[key] : undefined;
}

/** The field's patch tags and the schema of its value: unknown fields have neither. */
export function lookupPatchMeta(schema: StructSchema, field: string): { meta: PatchMeta; schema: StructSchema } {
  const meta = Object.prototype.hasOwnProperty.call(schema, field) ? schema[field]! : {};
  return { meta, schema: meta.schema?.() ?? {} };
}
