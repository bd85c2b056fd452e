// Defaulting of apiextensions.k8s.io/v1 CustomResourceDefinitions (apis/apiextensions/v1/defaults.go) and the
// storedVersions bookkeeping of the CRD strategy's PrepareForCreate/PrepareForUpdate.
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../api/apiextensions.js';

export function storageVersionOf(crd: Pick<CustomResourceDefinition, 'spec'>): CustomResourceDefinitionVersion | undefined {
  return (crd.spec?.versions ?? []).find((v) => v.storage);
}

/** SetDefaults_CustomResourceDefinition + SetDefaults_CustomResourceDefinitionSpec + SetDefaults_ServiceReference. */
export function applyCustomResourceDefinitionDefaults(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  const names = spec.names;
  if (names && typeof names === 'object') {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  if (!spec.conversion) spec.conversion = { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && service.port === undefined) service.port = 443;
  // The storage version is always among storedVersions: set on create, appended when it changes.
  const storage = storageVersionOf(crd);
  if (storage) {
    const status = (crd.status ??= {});
    const stored = (status.storedVersions ??= []);
    if (!stored.includes(storage.name)) stored.push(storage.name);
  }
}
