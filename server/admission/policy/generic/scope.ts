// kube's generic.Plugin.Dispatch, before any policy is looked at: the virtual auth/authz review resources are
// never seen by policies; the policy resources themselves (VAP, VAPB, MAP, MAPB) only by static (manifest)
// policies, so that an API policy cannot lock the cluster out of fixing it; and a request waits (bounded) for the
// sources' first load.
import { errors, type GroupResource } from '../../../api/errors.js';
import type { KubeObject } from '../../../api/types.js';
import type { AdmissionAttributes } from '../../attributes.js';
import { excludedVirtualResources, isExcludedVirtualResource } from '../../matching/excluded.js';

/** generic.admissionResources: skipped by API-based policies, evaluated by static ones. */
export const policyConfigurationResources: readonly GroupResource[] = Object.freeze(
  ['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'].map((resource) =>
    Object.freeze({ group: 'admissionregistration.k8s.io', resource }),
  ),
);

export function isPolicyConfigurationResource(gr: GroupResource): boolean {
  return policyConfigurationResources.some((r) => r.group === gr.group && r.resource === gr.resource);
}

export type PolicyScope =
  /** not for policies at all */
  | 'none'
  /** the policy resources: static policies only */
  | 'static'
  | 'all';

/** Which policies may see a request. Unlike webhooks, policies skip the virtual resources whatever the gates say. */
export function policyScopeOf(attrs: AdmissionAttributes, excluded: readonly GroupResource[] = excludedVirtualResources): PolicyScope {
  const gr = { group: attrs.resource.group, resource: attrs.resource.resource };
  if (isExcludedVirtualResource(gr, excluded)) return 'none';
  if (isPolicyConfigurationResource(gr)) return 'static';
  return 'all';
}

// admission.Handler.WaitForReady and admission.NewForbidden, shared with the webhook plugins
export { forbiddenFor, waitUntilSynced } from '../../wait-until-synced.js';

/**
 * The request's namespace, looked up at most once per request (kube's namespace lister): for the selectors'
 * labels and for `namespaceObject`.
 */
export class RequestNamespace {
  private fetched?: Promise<KubeObject | undefined>;
  /** the request's namespace once its lookup answered: every later binding reads it without a microtask */
  private found?: { namespace: KubeObject | undefined };

  constructor(
    private readonly attrs: AdmissionAttributes,
    private readonly getNamespace: (name: string) => Promise<KubeObject | undefined>,
  ) {}

  /** The namespace; the request's own is looked up once, and is answered synchronously after that. */
  get(name: string): KubeObject | undefined | Promise<KubeObject | undefined> {
    if (name !== this.attrs.namespace) return this.getNamespace(name);
    if (this.found) return this.found.namespace;
    this.fetched ??= this.getNamespace(name).then((namespace) => {
      this.found = { namespace };
      return namespace;
    });
    return this.fetched;
  }

  /**
   * namespace.Matcher.GetNamespaceLabels: a Namespace being deleted is matched on its stored labels, anything
   * else on its namespace's. (A Namespace being created or updated is matched on its own new labels by the
   * selector code itself.)
   */
  async labels(): Promise<Record<string, string> | undefined> {
    const a = this.attrs;
    if (a.resource.group === '' && a.resource.resource === 'namespaces' && a.subresource === '' && a.operation === 'DELETE' && a.oldObject) return a.oldObject.metadata?.labels ?? {};
    const name = a.namespace || (a.resource.resource === 'namespaces' ? a.name : '');
    const ns = await this.get(name);
    return ns ? (ns.metadata?.labels ?? {}) : undefined;
  }
}
