// What client-node's generated models lose of kube's Go types, and decode errors need: the Go name of a struct
// (`v1.ObjectMeta` for V1ObjectMeta), the fields whose Go type has its own JSON decoder or encoding (Quantity, the
// []byte maps of Secret and ConfigMap), and the named types Go prints in "of type v1.PullPolicy" (the common ones of
// the served kinds, from k8s.io/api's types.go; others print as their underlying type).

/** The Go type name of a generated model: V1ObjectMeta → ObjectMeta, CoreV1Event → Event, V1beta1X → X. */
export function goStructName(model: string): string {
  const m = /^(?:[A-Z][a-z]+)*V\d+(?:(?:alpha|beta)\d+)?(?=[A-Z])/.exec(model);
  return m ? model.slice(m[0].length) : model;
}

type Special = 'quantity' | 'quantityMap' | 'bytesMap';

// resource.Quantity and map[ResourceName]resource.Quantity fields, which the models flatten to strings
const specials: Readonly<Record<string, Readonly<Record<string, Special>>>> = {
  V1ResourceRequirements: { limits: 'quantityMap', requests: 'quantityMap' },
  V1VolumeResourceRequirements: { limits: 'quantityMap', requests: 'quantityMap' },
  V1PodSpec: { overhead: 'quantityMap' },
  V1ContainerStatus: { allocatedResources: 'quantityMap' },
  V1PodStatus: { allocatedResources: 'quantityMap' },
  V1PersistentVolumeClaimStatus: { allocatedResources: 'quantityMap', capacity: 'quantityMap' },
  V1PersistentVolumeClaimSpec: {},
  V1EmptyDirVolumeSource: { sizeLimit: 'quantity' },
  V1ResourceFieldSelector: { divisor: 'quantity' },
  V1Secret: { data: 'bytesMap' },
  V1ConfigMap: { binaryData: 'bytesMap' },
};

export function specialField(model: string, field: string): Special | undefined {
  return specials[model]?.[field];
}

// Named Go types of common fields (k8s.io/api core/v1 and apps/v1 types.go).
const named: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  V1ResourceRequirements: { limits: 'v1.ResourceList', requests: 'v1.ResourceList' },
  V1VolumeResourceRequirements: { limits: 'v1.ResourceList', requests: 'v1.ResourceList' },
  V1PodSpec: { overhead: 'v1.ResourceList', restartPolicy: 'v1.RestartPolicy', dnsPolicy: 'v1.DNSPolicy', preemptionPolicy: 'v1.PreemptionPolicy' },
  V1Container: { imagePullPolicy: 'v1.PullPolicy', terminationMessagePolicy: 'v1.TerminationMessagePolicy', restartPolicy: 'v1.ContainerRestartPolicy' },
  V1ContainerPort: { protocol: 'v1.Protocol' },
  V1ServicePort: { protocol: 'v1.Protocol' },
  V1ServiceSpec: { type: 'v1.ServiceType', sessionAffinity: 'v1.ServiceAffinity', externalTrafficPolicy: 'v1.ServiceExternalTrafficPolicy', internalTrafficPolicy: 'v1.ServiceInternalTrafficPolicy', ipFamilies: '[]v1.IPFamily', ipFamilyPolicy: 'v1.IPFamilyPolicy' },
  V1Secret: { type: 'v1.SecretType' },
  V1NamespaceSpec: { finalizers: '[]v1.FinalizerName' },
  V1NamespaceStatus: { phase: 'v1.NamespacePhase' },
  V1PodStatus: { phase: 'v1.PodPhase', qosClass: 'v1.PodQOSClass' },
  V1DeploymentStrategy: { type: 'v1.DeploymentStrategyType' },
  V1Capabilities: { add: '[]v1.Capability', drop: '[]v1.Capability' },
  V1ObjectMeta: { uid: 'types.UID' },
  V1OwnerReference: { uid: 'types.UID' },
  V1ManagedFieldsEntry: { operation: 'v1.ManagedFieldsOperationType' },
  V1PodCondition: { type: 'v1.PodConditionType', status: 'v1.ConditionStatus' },
  V1NamespaceCondition: { type: 'v1.NamespaceConditionType', status: 'v1.ConditionStatus' },
  V1DeploymentCondition: { type: 'v1.DeploymentConditionType', status: 'v1.ConditionStatus' },
};

export function namedGoType(model: string, field: string): string | undefined {
  return named[model]?.[field];
}
