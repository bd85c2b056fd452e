// Admission plugin names for --enable-admission-plugins / --disable-admission-plugins, with kube-apiserver's
// recommended order (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins) and its default-on set, so the
// same flags a real cluster uses are accepted here.

/** The plugins this apiserver implements. */
export const implementedAdmissionPlugins = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'ResourceQuota',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
] as const;

export type ImplementedAdmissionPlugin = (typeof implementedAdmissionPlugins)[number];

/**
 * Every plugin kube-apiserver registers, in its recommended order. Those this server does not run are accepted and
 * do nothing, so command lines copied from a cluster (--enable-admission-plugins=NodeRestriction,…,
 * --disable-admission-plugins=ServiceAccount) keep working; none of them affect webhooks or policies.
 */
export const allOrderedAdmissionPlugins = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  // webhook, resourcequota and deny plugins go at the end, as in kube
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
] as const;

/** kube-apiserver's default-on plugins (DefaultOffAdmissionPlugins is everything else). */
const defaultOnAdmissionPlugins: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'DefaultStorageClass',
  'PersistentVolumeClaimResize',
  'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'StorageObjectInUseProtection',
  'Priority',
  'TaintNodesByCondition',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodSecurity',
  'ValidatingAdmissionPolicy',
  'MutatingAdmissionPolicy',
]);

const registered: ReadonlySet<string> = new Set(allOrderedAdmissionPlugins);
const implemented: ReadonlySet<string> = new Set(implementedAdmissionPlugins);

export function isImplementedAdmissionPlugin(name: string): name is ImplementedAdmissionPlugin {
  return implemented.has(name);
}

/** AdmissionOptions.Validate: both-lists conflicts, then unknown names, with kube's texts. */
export function validateAdmissionPluginFlags(enable: readonly string[], disable: readonly string[]): string[] {
  const errs: string[] = [];
  for (const p of enable) if (disable.includes(p)) errs.push(`${p} is defined in both enable-admission-plugins and disable-admission-plugins`);
  for (const p of enable) if (!registered.has(p)) errs.push(`enable-admission-plugins plugin "${p}" is unknown`);
  for (const p of disable) if (!registered.has(p)) errs.push(`disable-admission-plugins plugin "${p}" is unknown`);
  return errs;
}

/** AdmissionOptions.enabledPluginNames: the default-on set plus enabled minus disabled, in the recommended order. */
export function enabledAdmissionPlugins(enable: readonly string[], disable: readonly string[]): string[] {
  const enabled = new Set(enable);
  return allOrderedAdmissionPlugins.filter((p) => enabled.has(p) || (defaultOnAdmissionPlugins.has(p) && !disable.includes(p)));
}
