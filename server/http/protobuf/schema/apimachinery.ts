// k8s.io/apimachinery messages: the runtime.Unknown envelope, IntOrString, Quantity and the meta/v1 subset.
// Field numbers and names from apimachinery's pkg/runtime, pkg/util/intstr, pkg/api/resource and
// pkg/apis/meta/v1 generated.proto; the GoJSON rule of each field from the json tags in the matching types.go.
import type { IType } from 'protobufjs';
import { map, message, optional, pointer, repeated, required, struct } from './descriptor.js';

export const runtimePackage = 'k8s.io.apimachinery.pkg.runtime';
export const runtimeTypes: Record<string, IType> = {
  // runtime.TypeMeta numbers apiVersion before kind; meta/v1's TypeMeta is the other way round.
  TypeMeta: message({
    apiVersion: optional(1, 'string'),
    kind: optional(2, 'string'),
  }),
  Unknown: message({
    typeMeta: struct(1, 'TypeMeta'),
    raw: optional(2, 'bytes'),
    contentEncoding: optional(3, 'string'),
    contentType: optional(4, 'string'),
  }),
};

export const intstrPackage = 'k8s.io.apimachinery.pkg.util.intstr';
export const intstrTypes: Record<string, IType> = {
  // type 0 is Int, 1 is String; JSON carries only the live member.
  IntOrString: message({
    type: optional(1, 'int64'),
    intVal: optional(2, 'int32'),
    strVal: optional(3, 'string'),
  }),
};

export const resourcePackage = 'k8s.io.apimachinery.pkg.api.resource';
export const resourceTypes: Record<string, IType> = {
  Quantity: message({
    string: optional(1, 'string'),
  }),
};

export const metaV1Package = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const metaV1Types: Record<string, IType> = {
  ObjectMeta: message({
    name: optional(1, 'string'),
    generateName: optional(2, 'string'),
    namespace: optional(3, 'string'),
    selfLink: optional(4, 'string'),
    uid: optional(5, 'string'),
    resourceVersion: optional(6, 'string'),
    generation: optional(7, 'int64'),
    // A non-pointer metav1.Time: written as null when zero, as kubectl's JSON bodies show.
    creationTimestamp: struct(8, 'Time'),
    deletionTimestamp: pointer(9, 'Time'),
    deletionGracePeriodSeconds: pointer(10, 'int64'),
    labels: map(11, 'string'),
    annotations: map(12, 'string'),
    ownerReferences: repeated(13, 'OwnerReference'),
    finalizers: repeated(14, 'string'),
    // 15 was clusterName, removed in 1.25; 16 was the alpha initializers.
    managedFields: repeated(17, 'ManagedFieldsEntry'),
  }),
  OwnerReference: message({
    apiVersion: required(5, 'string'),
    kind: required(1, 'string'),
    name: required(3, 'string'),
    uid: required(4, 'string'),
    controller: pointer(6, 'bool'),
    blockOwnerDeletion: pointer(7, 'bool'),
  }),
  ManagedFieldsEntry: message({
    manager: optional(1, 'string'),
    operation: optional(2, 'string'),
    apiVersion: optional(3, 'string'),
    time: pointer(4, 'Time'),
    // 5 was the pre-1.16 "fields".
    fieldsType: optional(6, 'string'),
    fieldsV1: pointer(7, 'FieldsV1'),
    subresource: optional(8, 'string'),
  }),
  FieldsV1: message({
    Raw: optional(1, 'bytes'),
  }),
  Time: message({
    seconds: optional(1, 'int64'),
    nanos: optional(2, 'int32'),
  }),
  MicroTime: message({
    seconds: optional(1, 'int64'),
    nanos: optional(2, 'int32'),
  }),
  LabelSelector: message({
    matchLabels: map(1, 'string'),
    matchExpressions: repeated(2, 'LabelSelectorRequirement'),
  }),
  LabelSelectorRequirement: message({
    key: required(1, 'string'),
    operator: required(2, 'string'),
    values: repeated(3, 'string'),
  }),
  Condition: message({
    type: required(1, 'string'),
    status: required(2, 'string'),
    observedGeneration: optional(3, 'int64'),
    lastTransitionTime: struct(4, 'Time'),
    reason: required(5, 'string'),
    message: required(6, 'string'),
  }),
};
