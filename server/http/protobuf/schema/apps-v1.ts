// k8s.io/api apps/v1 subset: Deployment and what it embeds. Field numbers from apps/v1/generated.proto,
// GoJSON rules from apps/v1/types.go.
import type { IType } from 'protobufjs';
import { apimachinery, message, optional, pointer, repeated, required, struct } from './descriptor.js';

const { ObjectMeta, Time, LabelSelector, IntOrString } = apimachinery;
const PodTemplateSpec = '.k8s.io.api.core.v1.PodTemplateSpec';

export const appsV1Package = 'k8s.io.api.apps.v1';
export const appsV1Types: Record<string, IType> = {
  Deployment: message({
    metadata: struct(1, ObjectMeta),
    spec: struct(2, 'DeploymentSpec'),
    status: struct(3, 'DeploymentStatus'),
  }),
  DeploymentSpec: message({
    replicas: pointer(1, 'int32'),
    selector: pointer(2, LabelSelector),
    template: struct(3, PodTemplateSpec),
    strategy: struct(4, 'DeploymentStrategy'),
    minReadySeconds: optional(5, 'int32'),
    revisionHistoryLimit: pointer(6, 'int32'),
    paused: optional(7, 'bool'),
    // 8 was the extensions/v1beta1 rollbackTo.
    progressDeadlineSeconds: pointer(9, 'int32'),
  }),
  DeploymentStrategy: message({
    type: optional(1, 'string'),
    rollingUpdate: pointer(2, 'RollingUpdateDeployment'),
  }),
  RollingUpdateDeployment: message({
    maxUnavailable: pointer(1, IntOrString),
    maxSurge: pointer(2, IntOrString),
  }),
  DeploymentStatus: message({
    observedGeneration: optional(1, 'int64'),
    replicas: optional(2, 'int32'),
    updatedReplicas: optional(3, 'int32'),
    readyReplicas: optional(7, 'int32'),
    availableReplicas: optional(4, 'int32'),
    unavailableReplicas: optional(5, 'int32'),
    conditions: repeated(6, 'DeploymentCondition'),
    collisionCount: pointer(8, 'int32'),
  }),
  DeploymentCondition: message({
    type: required(1, 'string'),
    status: required(2, 'string'),
    lastUpdateTime: struct(6, Time),
    lastTransitionTime: struct(7, Time),
    reason: optional(4, 'string'),
    message: optional(5, 'string'),
  }),
};
