// The registry strategy of customresourcedefinitions (apiextensions-apiserver's registry/customresourcedefinition):
// v1 defaults and storedVersions, validation on create and update, and DELETE that only marks the CRD — adding
// the customresourcecleanup finalizer and the Terminating condition — so the finalizer controller can delete
// every custom resource before the CRD goes.
import type { CustomResourceDefinition } from '../api/apiextensions.js';
import type { KubeObject } from '../api/types.js';
import type { Strategy } from '../registry/resource.js';
import { setCondition } from './conditions.js';
import { applyCustomResourceDefinitionDefaults } from './crd-defaults.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, type CrdValidationDeps } from './crd-validation.js';

export const customResourceCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

const asCrd = (obj: KubeObject): CustomResourceDefinition => obj as unknown as CustomResourceDefinition;

export function customResourceDefinitionStrategy(deps: CrdValidationDeps = {}): Strategy {
  return {
    applyDefaults(obj) {
      applyCustomResourceDefinitionDefaults(asCrd(obj));
    },
    validate(obj) {
      return validateCustomResourceDefinition(asCrd(obj), deps);
    },
    validateUpdate(obj, old) {
      return validateCustomResourceDefinitionUpdate(asCrd(obj), asCrd(old), deps);
    },
    gracefulDelete(obj) {
      // registry/customresourcedefinition/etcd.go Delete: the first DELETE adds the finalizer and the condition.
      const meta = (obj.metadata ??= {});
      const finalizers = meta.finalizers ?? [];
      const alreadyTerminating = (asCrd(obj).status?.conditions ?? []).some((c) => c.type === 'Terminating');
      if (alreadyTerminating) return;
      if (!finalizers.includes(customResourceCleanupFinalizer)) meta.finalizers = [...finalizers, customResourceCleanupFinalizer];
      setCondition(asCrd(obj), {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      });
    },
  };
}
