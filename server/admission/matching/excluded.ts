// The requests some or all admission webhooks never see, as kube-apiserver decides them.
import type { GroupVersionKind } from '../../api/types.js';
import type { GroupResource } from '../../api/errors.js';

/**
 * rules.IsExemptAdmissionConfigurationResource: the admission configuration kinds themselves. REST-registered
 * (source 'api') webhooks are never called for them, so that a broken webhook cannot lock the cluster out of
 * fixing it; static (manifest) webhooks are (KEP-5793: that is how they protect the REST-based ones). kube
 * decides by the request's kind, so every subresource of these objects (e.g. a policy's status) is exempt too.
 */
export const exemptAdmissionConfigurationKinds: readonly string[] = Object.freeze([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

export function isExemptAdmissionConfigurationResource(kind: GroupVersionKind): boolean {
  return kind.group === 'admissionregistration.k8s.io' && exemptAdmissionConfigurationKinds.includes(kind.kind);
}

/**
 * kube's pkg/kubeapiserver/admission/exclusion.Excluded(): the non-persisted authentication/authorization review
 * resources that admission webhooks skip when ExcludeAdmissionWebhookVirtualResources is on (the same set
 * ValidatingAdmissionPolicy and MutatingAdmissionPolicy always skip). Intercepting them may break the cluster.
 */
export const excludedVirtualResources: readonly GroupResource[] = Object.freeze([
  { group: 'authentication.k8s.io', resource: 'selfsubjectreviews' },
  { group: 'authentication.k8s.io', resource: 'tokenreviews' },
  { group: 'authorization.k8s.io', resource: 'localsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews' },
  { group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
].map((gr) => Object.freeze(gr)));

/**
 * exclusion's filter.ShouldHandle, negated: the decision uses the request's group and resource only — every
 * version is excluded ("putting different versions into different category is almost always a mistake") and so
 * is every subresource, since the subresource is not part of the GroupResource.
 */
export function isExcludedVirtualResource(resource: GroupResource, excluded: readonly GroupResource[] = excludedVirtualResources): boolean {
  return excluded.some((gr) => gr.group === resource.group && gr.resource === resource.resource);
}
