// NamespaceLifecycle (plugin/pkg/admission/namespace/lifecycle): no new content in a namespace that does not
// exist or is terminating, and the immortal namespaces cannot be deleted.
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';

/** kube-apiserver's immortal namespaces. */
export const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

/** Reviews the authorizer answers in any namespace, existing or not (kube's accessReviewResources). */
const accessReviewResources = new Set(['authorization.k8s.io/localsubjectaccessreviews']);

export interface NamespaceLifecycleDeps {
  /** the stored Namespace, or undefined when it does not exist */
  getNamespace(name: string): Promise<KubeObject | undefined>;
  /** whether the resource is namespaced */
  isNamespaced(group: string, resource: string): boolean;
}

export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';
  constructor(private readonly deps: NamespaceLifecycleDeps) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE' || op === 'DELETE';
  }

  // kube implements Admit: as the first plugin it rejects before any webhook is called.
  async admit(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    if (group === '' && resource === 'namespaces') {
      if (attrs.operation === 'DELETE' && immortalNamespaces.has(attrs.name)) {
        throw errors.forbidden({ group: '', resource: 'namespaces' }, attrs.name, 'this namespace may not be deleted');
      }
      return;
    }
    if (attrs.operation !== 'CREATE' || !attrs.namespace || !this.deps.isNamespaced(group, resource)) return;
    if (accessReviewResources.has(`${group}/${resource}`)) return;
    const ns = await this.deps.getNamespace(attrs.namespace);
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
    if ((ns['status'] as { phase?: string } | undefined)?.phase === 'Terminating') {
      const err = errors.forbidden({ group, resource }, attrs.name, `unable to create new content in namespace ${attrs.namespace} because it is being terminated`);
      err.status.details = { ...err.status.details, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' }] };
      throw err;
    }
  }
}
