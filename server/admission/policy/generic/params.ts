// kube's generic.CollectParams: the parameter objects one (policy, binding) pair is evaluated with. No paramKind,
// or no paramRef: one evaluation with params null. A paramRef name: that object; a selector: every object it
// selects, each evaluated on its own. Nothing found: no evaluation under parameterNotFoundAction Allow, a
// configuration error under Deny.
import type { ParamKind, ParamRef } from '../../../api/admissionregistration.js';
import type { KubeObject } from '../../../api/types.js';
import { labelSelectorAsSelector } from '../../../registry/selectors/label-selector.js';
import type { ParamLookup, ParamResource } from './types.js';

export type CollectedParams = { ok: true; params: ReadonlyArray<KubeObject | null> } | { ok: false; error: string };

export const paramsNotFoundMessage = 'no params found for policy binding with `Deny` parameterNotFoundAction';

const byNamespaceAndName = (a: KubeObject, b: KubeObject): number => {
  const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** One evaluation with null params: the answer for every policy without a paramKind or binding without a paramRef. */
const nullParams: CollectedParams = Object.freeze({ ok: true, params: Object.freeze([null]) });

/**
 * `resource` is the paramKind's resolved resource (the hook carries a configuration error instead when it could
 * not be resolved); `namespace` is the request's. Without params to look up the answer is synchronous.
 */
export function collectParams(
  paramKind: ParamKind | undefined,
  resource: ParamResource | undefined,
  paramRef: ParamRef | undefined,
  namespace: string,
  lookup: Pick<ParamLookup, 'get' | 'list'>,
): CollectedParams | Promise<CollectedParams> {
  // without a paramKind any paramRef is ignored; without a paramRef the policy runs with null params
  if (!paramKind || !paramRef) return nullParams;
  return lookUpParams(paramKind, resource, paramRef, namespace, lookup);
}

async function lookUpParams(
  paramKind: ParamKind,
  resource: ParamResource | undefined,
  paramRef: ParamRef,
  namespace: string,
  lookup: Pick<ParamLookup, 'get' | 'list'>,
): Promise<CollectedParams> {
  if (!resource) return { ok: false, error: `paramKind kind \`${paramKind.apiVersion ?? ''}, Kind=${paramKind.kind ?? ''}\` not known` };

  let paramsNamespace = '';
  if (resource.namespaced) {
    paramsNamespace = paramRef.namespace ? paramRef.namespace : namespace;
    // a binding without paramRef.namespace can only serve namespaced requests
    if (!paramsNamespace) return { ok: false, error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  } else if (paramRef.namespace) {
    return { ok: false, error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  }

  let params: KubeObject[];
  if (paramRef.name) {
    // validation makes them exclusive; kube checks again
    if (paramRef.selector) return { ok: false, error: 'paramRef.name and paramRef.selector are mutually exclusive' };
    const param = await lookup.get(resource, paramsNamespace, paramRef.name);
    params = param ? [param] : [];
  } else if (paramRef.selector) {
    const selector = labelSelectorAsSelector(paramRef.selector);
    if (!selector.ok) return { ok: false, error: selector.message };
    params = [...(await lookup.list(resource, paramsNamespace, selector.selector))].sort(byNamespaceAndName);
  } else {
    return { ok: false, error: 'one of name or selector must be provided' };
  }

  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') return { ok: false, error: paramsNotFoundMessage };
  return { ok: true, params };
}
