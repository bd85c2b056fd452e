// Fields kube-apiserver 1.36 serves that @kubernetes/client-node 1.4's generated models (kube 1.34's OpenAPI) do not
// have. Strict field validation would reject them as unknown, and CEL type checking would not see them, so they are
// added to the models here. Checked against kube 1.36's API types (kubernetes-client/python's models generated from
// kube 1.36) for the kinds this server serves: PodSpec, Container, PodStatus, ContainerStatus, security contexts,
// volumes and projections, env sources, ServiceSpec, DeploymentSpec/Status.
import type { Attribute } from './client-node-models.js';

const field = (baseName: string, type: string, format = ''): Attribute => ({ baseName, type, format });

/** Fields to add to a generated model, by model name. */
export const fieldsMissingFromModels: Readonly<Record<string, readonly Attribute[]>> = {
  // 1.36: PodSpec.schedulingGroup (KEP-4671 workload-aware scheduling)
  V1PodSpec: [field('schedulingGroup', 'V1PodSchedulingGroup')],
  // 1.35/1.36: pod-level allocated resources and resources (KEP-2837), node-allocatable DRA claim statuses
  V1PodStatus: [
    field('allocatedResources', '{ [key: string]: string; }'),
    field('resources', 'V1ResourceRequirements'),
    // its elements are kubelet-written status; left open rather than guessed
    field('nodeAllocatableResourceClaimStatuses', 'Array<object>'),
  ],
  // 1.35: PodCertificateProjection.userAnnotations (KEP-4317)
  V1PodCertificateProjection: [field('userAnnotations', '{ [key: string]: string; }')],
};

/** Models the generated code does not have at all, referenced from the fields above. */
export const modelsMissingFromClientNode: Readonly<Record<string, readonly Attribute[]>> = {
  V1PodSchedulingGroup: [field('podGroupName', 'string')],
};
