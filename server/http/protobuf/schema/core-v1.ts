// k8s.io/api core/v1 subset: Namespace, ConfigMap, Secret, ServiceAccount, Service, Pod and the pod template
// pieces Deployments embed. Field numbers from core/v1/generated.proto (fields added after 1.26 checked against
// the protobuf struct tags in core/v1/types.go of 1.31/1.32); GoJSON rules from the json tags in types.go.
// A field this subset leaves out is not dropped silently: the decoder rejects it unless it is a zero value.
import type { IType } from 'protobufjs';
import {
  apimachinery,
  inline,
  map,
  message,
  optional,
  pointer,
  repeated,
  required,
  struct,
  type MessageFields,
} from './descriptor.js';

const { ObjectMeta, Time, LabelSelector, Condition, Quantity, IntOrString } = apimachinery;

// EphemeralContainerCommon must mirror Container field for field (types.go says so), numbers included.
const containerFields: MessageFields = {
  name: required(1, 'string'),
  image: optional(2, 'string'),
  command: repeated(3, 'string'),
  args: repeated(4, 'string'),
  workingDir: optional(5, 'string'),
  ports: repeated(6, 'ContainerPort'),
  envFrom: repeated(19, 'EnvFromSource'),
  env: repeated(7, 'EnvVar'),
  resources: struct(8, 'ResourceRequirements'),
  resizePolicy: repeated(23, 'ContainerResizePolicy'),
  restartPolicy: pointer(24, 'string'),
  volumeMounts: repeated(9, 'VolumeMount'),
  volumeDevices: repeated(21, 'VolumeDevice'),
  livenessProbe: pointer(10, 'Probe'),
  readinessProbe: pointer(11, 'Probe'),
  startupProbe: pointer(22, 'Probe'),
  lifecycle: pointer(12, 'Lifecycle'),
  terminationMessagePath: optional(13, 'string'),
  terminationMessagePolicy: optional(20, 'string'),
  imagePullPolicy: optional(14, 'string'),
  securityContext: pointer(15, 'SecurityContext'),
  stdin: optional(16, 'bool'),
  stdinOnce: optional(17, 'bool'),
  tty: optional(18, 'bool'),
};

export const coreV1Package = 'k8s.io.api.core.v1';
export const coreV1Types: Record<string, IType> = {
  // --- Namespace ---
  Namespace: message({
    metadata: struct(1, ObjectMeta),
    spec: struct(2, 'NamespaceSpec'),
    status: struct(3, 'NamespaceStatus'),
  }),
  NamespaceSpec: message({
    finalizers: repeated(1, 'string'),
  }),
  NamespaceStatus: message({
    phase: optional(1, 'string'),
    conditions: repeated(2, 'NamespaceCondition'),
  }),
  NamespaceCondition: message({
    type: required(1, 'string'),
    status: required(2, 'string'),
    lastTransitionTime: struct(4, Time),
    reason: optional(5, 'string'),
    message: optional(6, 'string'),
  }),

  // --- ConfigMap, Secret ---
  ConfigMap: message({
    metadata: struct(1, ObjectMeta),
    immutable: pointer(4, 'bool'),
    data: map(2, 'string'),
    binaryData: map(3, 'bytes'),
  }),
  Secret: message({
    metadata: struct(1, ObjectMeta),
    immutable: pointer(5, 'bool'),
    data: map(2, 'bytes'),
    stringData: map(4, 'string'),
    type: optional(3, 'string'),
  }),

  // --- ServiceAccount ---
  ServiceAccount: message({
    metadata: struct(1, ObjectMeta),
    secrets: repeated(2, 'ObjectReference'),
    imagePullSecrets: repeated(3, 'LocalObjectReference'),
    automountServiceAccountToken: pointer(4, 'bool'),
  }),
  ObjectReference: message({
    kind: optional(1, 'string'),
    namespace: optional(2, 'string'),
    name: optional(3, 'string'),
    uid: optional(4, 'string'),
    apiVersion: optional(5, 'string'),
    resourceVersion: optional(6, 'string'),
    fieldPath: optional(7, 'string'),
  }),
  LocalObjectReference: message({
    name: optional(1, 'string'),
  }),

  // --- Service ---
  Service: message({
    metadata: struct(1, ObjectMeta),
    spec: struct(2, 'ServiceSpec'),
    status: struct(3, 'ServiceStatus'),
  }),
  ServiceSpec: message({
    ports: repeated(1, 'ServicePort'),
    selector: map(2, 'string'),
    clusterIP: optional(3, 'string'),
    clusterIPs: repeated(18, 'string'),
    type: optional(4, 'string'),
    externalIPs: repeated(5, 'string'),
    sessionAffinity: optional(7, 'string'),
    loadBalancerIP: optional(8, 'string'),
    loadBalancerSourceRanges: repeated(9, 'string'),
    externalName: optional(10, 'string'),
    externalTrafficPolicy: optional(11, 'string'),
    healthCheckNodePort: optional(12, 'int32'),
    publishNotReadyAddresses: optional(13, 'bool'),
    sessionAffinityConfig: pointer(14, 'SessionAffinityConfig'),
    // 15 (ipFamily) and 16 (topologyKeys) are tombstoned.
    ipFamilies: repeated(19, 'string'),
    ipFamilyPolicy: pointer(17, 'string'),
    allocateLoadBalancerNodePorts: pointer(20, 'bool'),
    loadBalancerClass: pointer(21, 'string'),
    internalTrafficPolicy: pointer(22, 'string'),
    trafficDistribution: pointer(23, 'string'),
  }),
  ServicePort: message({
    name: optional(1, 'string'),
    protocol: optional(2, 'string'),
    appProtocol: pointer(6, 'string'),
    port: required(3, 'int32'),
    // A non-pointer IntOrString: written as 0 when unset, as Go does.
    targetPort: struct(4, IntOrString),
    nodePort: optional(5, 'int32'),
  }),
  SessionAffinityConfig: message({
    clientIP: pointer(1, 'ClientIPConfig'),
  }),
  ClientIPConfig: message({
    timeoutSeconds: pointer(1, 'int32'),
  }),
  ServiceStatus: message({
    loadBalancer: struct(1, 'LoadBalancerStatus'),
    conditions: repeated(2, Condition),
  }),
  LoadBalancerStatus: message({
    ingress: repeated(1, 'LoadBalancerIngress'),
  }),
  LoadBalancerIngress: message({
    ip: optional(1, 'string'),
    hostname: optional(2, 'string'),
    ipMode: pointer(3, 'string'),
    ports: repeated(4, 'PortStatus'),
  }),
  PortStatus: message({
    port: required(1, 'int32'),
    protocol: required(2, 'string'),
    error: pointer(3, 'string'),
  }),

  // --- Pod ---
  Pod: message({
    metadata: struct(1, ObjectMeta),
    spec: struct(2, 'PodSpec'),
    status: struct(3, 'PodStatus'),
  }),
  PodTemplateSpec: message({
    metadata: struct(1, ObjectMeta),
    spec: struct(2, 'PodSpec'),
  }),
  PodSpec: message({
    volumes: repeated(1, 'Volume'),
    initContainers: repeated(20, 'Container'),
    containers: repeated(2, 'Container'),
    ephemeralContainers: repeated(34, 'EphemeralContainer'),
    restartPolicy: optional(3, 'string'),
    terminationGracePeriodSeconds: pointer(4, 'int64'),
    activeDeadlineSeconds: pointer(5, 'int64'),
    dnsPolicy: optional(6, 'string'),
    nodeSelector: map(7, 'string'),
    serviceAccountName: optional(8, 'string'),
    serviceAccount: optional(9, 'string'),
    automountServiceAccountToken: pointer(21, 'bool'),
    nodeName: optional(10, 'string'),
    hostNetwork: optional(11, 'bool'),
    hostPID: optional(12, 'bool'),
    hostIPC: optional(13, 'bool'),
    shareProcessNamespace: pointer(27, 'bool'),
    securityContext: pointer(14, 'PodSecurityContext'),
    imagePullSecrets: repeated(15, 'LocalObjectReference'),
    hostname: optional(16, 'string'),
    subdomain: optional(17, 'string'),
    affinity: pointer(18, 'Affinity'),
    schedulerName: optional(19, 'string'),
    tolerations: repeated(22, 'Toleration'),
    hostAliases: repeated(23, 'HostAlias'),
    priorityClassName: optional(24, 'string'),
    priority: pointer(25, 'int32'),
    dnsConfig: pointer(26, 'PodDNSConfig'),
    readinessGates: repeated(28, 'PodReadinessGate'),
    runtimeClassName: pointer(29, 'string'),
    enableServiceLinks: pointer(30, 'bool'),
    preemptionPolicy: pointer(31, 'string'),
    overhead: map(32, Quantity),
    topologySpreadConstraints: repeated(33, 'TopologySpreadConstraint'),
    setHostnameAsFQDN: pointer(35, 'bool'),
    os: pointer(36, 'PodOS'),
    hostUsers: pointer(37, 'bool'),
    schedulingGates: repeated(38, 'PodSchedulingGate'),
    resourceClaims: repeated(39, 'PodResourceClaim'),
    resources: pointer(40, 'ResourceRequirements'),
  }),
  // Kubelet-written fields (container statuses, resize, hostIPs, …) are not in the subset: clients create pods
  // with an empty status, and anything non-zero there is rejected rather than dropped.
  PodStatus: message({
    phase: optional(1, 'string'),
    conditions: repeated(2, 'PodCondition'),
    message: optional(3, 'string'),
    reason: optional(4, 'string'),
    nominatedNodeName: optional(11, 'string'),
    hostIP: optional(5, 'string'),
    podIP: optional(6, 'string'),
    podIPs: repeated(12, 'PodIP'),
    startTime: pointer(7, Time),
    qosClass: optional(9, 'string'),
  }),
  PodCondition: message({
    type: required(1, 'string'),
    status: required(2, 'string'),
    lastProbeTime: struct(3, Time),
    lastTransitionTime: struct(4, Time),
    reason: optional(5, 'string'),
    message: optional(6, 'string'),
  }),
  PodIP: message({
    ip: optional(1, 'string'),
  }),
  PodOS: message({
    name: required(1, 'string'),
  }),
  PodSchedulingGate: message({
    name: required(1, 'string'),
  }),
  PodResourceClaim: message({
    name: required(1, 'string'),
    // 2 was the ClaimSource removed in 1.31.
    resourceClaimName: pointer(3, 'string'),
    resourceClaimTemplateName: pointer(4, 'string'),
  }),
  PodReadinessGate: message({
    conditionType: required(1, 'string'),
  }),
  PodDNSConfig: message({
    nameservers: repeated(1, 'string'),
    searches: repeated(2, 'string'),
    options: repeated(3, 'PodDNSConfigOption'),
  }),
  PodDNSConfigOption: message({
    name: optional(1, 'string'),
    value: pointer(2, 'string'),
  }),
  HostAlias: message({
    ip: optional(1, 'string'),
    hostnames: repeated(2, 'string'),
  }),
  Toleration: message({
    key: optional(1, 'string'),
    operator: optional(2, 'string'),
    value: optional(3, 'string'),
    effect: optional(4, 'string'),
    tolerationSeconds: pointer(5, 'int64'),
  }),
  TopologySpreadConstraint: message({
    maxSkew: required(1, 'int32'),
    topologyKey: required(2, 'string'),
    whenUnsatisfiable: required(3, 'string'),
    labelSelector: pointer(4, LabelSelector),
    minDomains: pointer(5, 'int32'),
    nodeAffinityPolicy: pointer(6, 'string'),
    nodeTaintsPolicy: pointer(7, 'string'),
    matchLabelKeys: repeated(8, 'string'),
  }),

  // --- Containers ---
  Container: message(containerFields),
  EphemeralContainer: message({
    ephemeralContainerCommon: inline(1, 'EphemeralContainerCommon'),
    targetContainerName: optional(2, 'string'),
  }),
  EphemeralContainerCommon: message(containerFields),
  ContainerPort: message({
    name: optional(1, 'string'),
    hostPort: optional(2, 'int32'),
    containerPort: required(3, 'int32'),
    protocol: optional(4, 'string'),
    hostIP: optional(5, 'string'),
  }),
  ContainerResizePolicy: message({
    resourceName: required(1, 'string'),
    restartPolicy: required(2, 'string'),
  }),
  EnvVar: message({
    name: required(1, 'string'),
    value: optional(2, 'string'),
    valueFrom: pointer(3, 'EnvVarSource'),
  }),
  EnvVarSource: message({
    fieldRef: pointer(1, 'ObjectFieldSelector'),
    resourceFieldRef: pointer(2, 'ResourceFieldSelector'),
    configMapKeyRef: pointer(3, 'ConfigMapKeySelector'),
    secretKeyRef: pointer(4, 'SecretKeySelector'),
  }),
  EnvFromSource: message({
    prefix: optional(1, 'string'),
    configMapRef: pointer(2, 'ConfigMapEnvSource'),
    secretRef: pointer(3, 'SecretEnvSource'),
  }),
  ConfigMapEnvSource: message({
    localObjectReference: inline(1, 'LocalObjectReference'),
    optional: pointer(2, 'bool'),
  }),
  SecretEnvSource: message({
    localObjectReference: inline(1, 'LocalObjectReference'),
    optional: pointer(2, 'bool'),
  }),
  ConfigMapKeySelector: message({
    localObjectReference: inline(1, 'LocalObjectReference'),
    key: required(2, 'string'),
    optional: pointer(3, 'bool'),
  }),
  SecretKeySelector: message({
    localObjectReference: inline(1, 'LocalObjectReference'),
    key: required(2, 'string'),
    optional: pointer(3, 'bool'),
  }),
  ObjectFieldSelector: message({
    apiVersion: optional(1, 'string'),
    fieldPath: required(2, 'string'),
  }),
  ResourceFieldSelector: message({
    containerName: optional(1, 'string'),
    resource: required(2, 'string'),
    // A non-pointer Quantity: Go writes "0" when unset.
    divisor: struct(3, Quantity),
  }),
  ResourceRequirements: message({
    limits: map(1, Quantity),
    requests: map(2, Quantity),
    claims: repeated(3, 'ResourceClaim'),
  }),
  ResourceClaim: message({
    name: required(1, 'string'),
    request: optional(2, 'string'),
  }),
  VolumeMount: message({
    name: required(1, 'string'),
    readOnly: optional(2, 'bool'),
    recursiveReadOnly: pointer(7, 'string'),
    mountPath: required(3, 'string'),
    subPath: optional(4, 'string'),
    mountPropagation: pointer(5, 'string'),
    subPathExpr: optional(6, 'string'),
  }),
  VolumeDevice: message({
    name: required(1, 'string'),
    devicePath: required(2, 'string'),
  }),

  // --- Probes and lifecycle hooks ---
  Probe: message({
    handler: inline(1, 'ProbeHandler'),
    initialDelaySeconds: optional(2, 'int32'),
    timeoutSeconds: optional(3, 'int32'),
    periodSeconds: optional(4, 'int32'),
    successThreshold: optional(5, 'int32'),
    failureThreshold: optional(6, 'int32'),
    terminationGracePeriodSeconds: pointer(7, 'int64'),
  }),
  ProbeHandler: message({
    exec: pointer(1, 'ExecAction'),
    httpGet: pointer(2, 'HTTPGetAction'),
    tcpSocket: pointer(3, 'TCPSocketAction'),
    grpc: pointer(4, 'GRPCAction'),
  }),
  ExecAction: message({
    command: repeated(1, 'string'),
  }),
  HTTPGetAction: message({
    path: optional(1, 'string'),
    port: struct(2, IntOrString),
    host: optional(3, 'string'),
    scheme: optional(4, 'string'),
    httpHeaders: repeated(5, 'HTTPHeader'),
  }),
  HTTPHeader: message({
    name: required(1, 'string'),
    value: required(2, 'string'),
  }),
  TCPSocketAction: message({
    port: struct(1, IntOrString),
    host: optional(2, 'string'),
  }),
  GRPCAction: message({
    port: required(1, 'int32'),
    service: pointer(2, 'string'),
  }),
  Lifecycle: message({
    postStart: pointer(1, 'LifecycleHandler'),
    preStop: pointer(2, 'LifecycleHandler'),
  }),
  LifecycleHandler: message({
    exec: pointer(1, 'ExecAction'),
    httpGet: pointer(2, 'HTTPGetAction'),
    tcpSocket: pointer(3, 'TCPSocketAction'),
    sleep: pointer(4, 'SleepAction'),
  }),
  SleepAction: message({
    seconds: required(1, 'int64'),
  }),

  // --- Security contexts ---
  SecurityContext: message({
    capabilities: pointer(1, 'Capabilities'),
    privileged: pointer(2, 'bool'),
    seLinuxOptions: pointer(3, 'SELinuxOptions'),
    windowsOptions: pointer(10, 'WindowsSecurityContextOptions'),
    runAsUser: pointer(4, 'int64'),
    runAsGroup: pointer(8, 'int64'),
    runAsNonRoot: pointer(5, 'bool'),
    readOnlyRootFilesystem: pointer(6, 'bool'),
    allowPrivilegeEscalation: pointer(7, 'bool'),
    procMount: pointer(9, 'string'),
    seccompProfile: pointer(11, 'SeccompProfile'),
    appArmorProfile: pointer(12, 'AppArmorProfile'),
  }),
  PodSecurityContext: message({
    seLinuxOptions: pointer(1, 'SELinuxOptions'),
    windowsOptions: pointer(8, 'WindowsSecurityContextOptions'),
    runAsUser: pointer(2, 'int64'),
    runAsGroup: pointer(6, 'int64'),
    runAsNonRoot: pointer(3, 'bool'),
    supplementalGroups: repeated(4, 'int64'),
    supplementalGroupsPolicy: pointer(12, 'string'),
    fsGroup: pointer(5, 'int64'),
    sysctls: repeated(7, 'Sysctl'),
    fsGroupChangePolicy: pointer(9, 'string'),
    seccompProfile: pointer(10, 'SeccompProfile'),
    appArmorProfile: pointer(11, 'AppArmorProfile'),
    seLinuxChangePolicy: pointer(13, 'string'),
  }),
  Capabilities: message({
    add: repeated(1, 'string'),
    drop: repeated(2, 'string'),
  }),
  SELinuxOptions: message({
    user: optional(1, 'string'),
    role: optional(2, 'string'),
    type: optional(3, 'string'),
    level: optional(4, 'string'),
  }),
  SeccompProfile: message({
    type: required(1, 'string'),
    localhostProfile: pointer(2, 'string'),
  }),
  AppArmorProfile: message({
    type: required(1, 'string'),
    localhostProfile: pointer(2, 'string'),
  }),
  WindowsSecurityContextOptions: message({
    gmsaCredentialSpecName: pointer(1, 'string'),
    gmsaCredentialSpec: pointer(2, 'string'),
    runAsUserName: pointer(3, 'string'),
    hostProcess: pointer(4, 'bool'),
  }),
  Sysctl: message({
    name: required(1, 'string'),
    value: required(2, 'string'),
  }),

  // --- Volumes (the common sources; the rest are rejected if used) ---
  Volume: message({
    name: required(1, 'string'),
    volumeSource: inline(2, 'VolumeSource'),
  }),
  VolumeSource: message({
    hostPath: pointer(1, 'HostPathVolumeSource'),
    emptyDir: pointer(2, 'EmptyDirVolumeSource'),
    secret: pointer(6, 'SecretVolumeSource'),
    nfs: pointer(7, 'NFSVolumeSource'),
    persistentVolumeClaim: pointer(10, 'PersistentVolumeClaimVolumeSource'),
    downwardAPI: pointer(16, 'DownwardAPIVolumeSource'),
    configMap: pointer(19, 'ConfigMapVolumeSource'),
    projected: pointer(26, 'ProjectedVolumeSource'),
    csi: pointer(28, 'CSIVolumeSource'),
    image: pointer(30, 'ImageVolumeSource'),
  }),
  HostPathVolumeSource: message({
    path: required(1, 'string'),
    type: pointer(2, 'string'),
  }),
  EmptyDirVolumeSource: message({
    medium: optional(1, 'string'),
    sizeLimit: pointer(2, Quantity),
  }),
  SecretVolumeSource: message({
    secretName: optional(1, 'string'),
    items: repeated(2, 'KeyToPath'),
    defaultMode: pointer(3, 'int32'),
    optional: pointer(4, 'bool'),
  }),
  NFSVolumeSource: message({
    server: required(1, 'string'),
    path: required(2, 'string'),
    readOnly: optional(3, 'bool'),
  }),
  PersistentVolumeClaimVolumeSource: message({
    claimName: required(1, 'string'),
    readOnly: optional(2, 'bool'),
  }),
  DownwardAPIVolumeSource: message({
    items: repeated(1, 'DownwardAPIVolumeFile'),
    defaultMode: pointer(2, 'int32'),
  }),
  DownwardAPIVolumeFile: message({
    path: required(1, 'string'),
    fieldRef: pointer(2, 'ObjectFieldSelector'),
    resourceFieldRef: pointer(3, 'ResourceFieldSelector'),
    mode: pointer(4, 'int32'),
  }),
  ConfigMapVolumeSource: message({
    localObjectReference: inline(1, 'LocalObjectReference'),
    items: repeated(2, 'KeyToPath'),
    defaultMode: pointer(3, 'int32'),
    optional: pointer(4, 'bool'),
  }),
  KeyToPath: message({
    key: required(1, 'string'),
    path: required(2, 'string'),
    mode: pointer(3, 'int32'),
  }),
  ProjectedVolumeSource: message({
    sources: repeated(1, 'VolumeProjection'),
    defaultMode: pointer(2, 'int32'),
  }),
  VolumeProjection: message({
    secret: pointer(1, 'SecretProjection'),
    downwardAPI: pointer(2, 'DownwardAPIProjection'),
    configMap: pointer(3, 'ConfigMapProjection'),
    serviceAccountToken: pointer(4, 'ServiceAccountTokenProjection'),
  }),
  SecretProjection: message({
    localObjectReference: inline(1, 'LocalObjectReference'),
    items: repeated(2, 'KeyToPath'),
    optional: pointer(4, 'bool'),
  }),
  ConfigMapProjection: message({
    localObjectReference: inline(1, 'LocalObjectReference'),
    items: repeated(2, 'KeyToPath'),
    optional: pointer(4, 'bool'),
  }),
  DownwardAPIProjection: message({
    items: repeated(1, 'DownwardAPIVolumeFile'),
  }),
  ServiceAccountTokenProjection: message({
    audience: optional(1, 'string'),
    expirationSeconds: pointer(2, 'int64'),
    path: required(3, 'string'),
  }),
  CSIVolumeSource: message({
    driver: required(1, 'string'),
    readOnly: pointer(2, 'bool'),
    fsType: pointer(3, 'string'),
    volumeAttributes: map(4, 'string'),
    nodePublishSecretRef: pointer(5, 'LocalObjectReference'),
  }),
  ImageVolumeSource: message({
    reference: optional(1, 'string'),
    pullPolicy: optional(2, 'string'),
  }),

  // --- Scheduling ---
  Affinity: message({
    nodeAffinity: pointer(1, 'NodeAffinity'),
    podAffinity: pointer(2, 'PodAffinity'),
    podAntiAffinity: pointer(3, 'PodAntiAffinity'),
  }),
  NodeAffinity: message({
    requiredDuringSchedulingIgnoredDuringExecution: pointer(1, 'NodeSelector'),
    preferredDuringSchedulingIgnoredDuringExecution: repeated(2, 'PreferredSchedulingTerm'),
  }),
  NodeSelector: message({
    nodeSelectorTerms: repeated(1, 'NodeSelectorTerm'),
  }),
  NodeSelectorTerm: message({
    matchExpressions: repeated(1, 'NodeSelectorRequirement'),
    matchFields: repeated(2, 'NodeSelectorRequirement'),
  }),
  NodeSelectorRequirement: message({
    key: required(1, 'string'),
    operator: required(2, 'string'),
    values: repeated(3, 'string'),
  }),
  PreferredSchedulingTerm: message({
    weight: required(1, 'int32'),
    preference: struct(2, 'NodeSelectorTerm'),
  }),
  PodAffinity: message({
    requiredDuringSchedulingIgnoredDuringExecution: repeated(1, 'PodAffinityTerm'),
    preferredDuringSchedulingIgnoredDuringExecution: repeated(2, 'WeightedPodAffinityTerm'),
  }),
  PodAntiAffinity: message({
    requiredDuringSchedulingIgnoredDuringExecution: repeated(1, 'PodAffinityTerm'),
    preferredDuringSchedulingIgnoredDuringExecution: repeated(2, 'WeightedPodAffinityTerm'),
  }),
  PodAffinityTerm: message({
    labelSelector: pointer(1, LabelSelector),
    namespaces: repeated(2, 'string'),
    topologyKey: required(3, 'string'),
    namespaceSelector: pointer(4, LabelSelector),
    matchLabelKeys: repeated(5, 'string'),
    mismatchLabelKeys: repeated(6, 'string'),
  }),
  WeightedPodAffinityTerm: message({
    weight: required(1, 'int32'),
    podAffinityTerm: struct(2, 'PodAffinityTerm'),
  }),
};
