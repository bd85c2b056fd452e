// The customresourcedefinitions resource as the catalogue serves it: cluster-scoped, short names crd/crds,
// category api-extensions, +status, and the columns of kube's default table convertor (NAME, CREATED AT).
import type { CelEnvironment } from '../admission/cel/environment.js';
import type { KubeObject } from '../api/types.js';
import type { ResourceInfo } from '../registry/resource.js';
import { customResourceDefinitionStrategy } from './crd-strategy.js';
import type { CrdValidationDeps } from './crd-validation.js';

export function customResourceDefinitionResource(opts: { cel?: CelEnvironment } = {}): Partial<ResourceInfo> & Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'> {
  return {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: { status: true },
    hasGeneration: true,
    hasStatus: true,
    // rest.NewDefaultTableConvertor: the creation time as RFC 3339, not an age
    printerColumns: [
      {
        name: 'Created At',
        type: 'date',
        description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
        compute: (o: KubeObject) => o.metadata?.creationTimestamp ?? null,
      },
    ],
    strategy: lazilyValidatedStrategy(opts.cel),
  };
}

/**
 * The CRD strategy with its schema, CEL and conversion validators loaded on the first CRD write rather than at
 * startup (they are most of the apiextensions code; a server without CRDs never loads them).
 */
function lazilyValidatedStrategy(cel: CelEnvironment | undefined): ResourceInfo['strategy'] {
  const deps: CrdValidationDeps = {};
  let loading: Promise<void> | undefined;
  return {
    ...customResourceDefinitionStrategy(deps),
    prepare: () =>
      (loading ??= import('./crd-validation-deps.js').then((m) => {
        Object.assign(deps, m.crdValidationDeps(cel));
      })),
  };
}
