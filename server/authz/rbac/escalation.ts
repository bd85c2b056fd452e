// kube's privilege-escalation prevention on RBAC writes (pkg/registry/rbac/{role,clusterrole,rolebinding,
// clusterrolebinding}/policybased/storage.go, pkg/registry/rbac/escalation_check.go): a role may be written by
// system:masters, by whoever may `escalate` it, or by someone already holding every rule it grants (a clusterrole's
// aggregationRule needs full authority); a binding by system:masters, by whoever may `bind` the referenced role,
// or by someone already holding the rules of that role. Runs before admission, as kube's storage wrappers do.
import { StatusError, errors } from '../../api/errors.js';
import type { KubeObject, ObjectMeta, UserInfo } from '../../api/types.js';
import { systemPrivilegedGroup } from '../../authn/types.js';
import { goQuote } from '../../options/go-strconv.js';
import type { Authorizer } from '../types.js';
import { escalationMessage } from './escalation-rules.js';
import type { RbacResource } from './policy-cache.js';
import type { RbacRuleResolver } from './rule-resolver.js';
import { rbacGroup, type PolicyRule, type RbacBinding, type RbacRole } from './types.js';

/** "*" on every resource of every group and on every non-resource URL. */
const fullAuthority: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export interface RbacWrite {
  resource: RbacResource;
  user: UserInfo;
  /** the URL's namespace ('' for cluster-scoped) */
  namespace: string;
  /** the name in the URL ('' on create, as kube's RequestInfo has it) */
  requestName: string;
  obj: KubeObject;
  /** the stored object, on update */
  old?: KubeObject;
}

export interface EscalationCheckDeps {
  /** the whole authorizer chain, as kube passes its authorizer to the RBAC storage */
  authorizer: Authorizer;
  resolver: RbacRuleResolver;
}

/** EscalationAllowed: system:masters may always write RBAC objects. */
const escalationAllowed = (user: UserInfo): boolean => (user.groups ?? []).includes(systemPrivilegedGroup);

const metaOf = (o: KubeObject): ObjectMeta => (o.metadata ?? {}) as ObjectMeta;

/** IsOnlyMutatingGCFields: the update touches only ownerReferences and finalizers (what the garbage collector writes). */
function onlyGarbageCollectionFields(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject): KubeObject => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _rv, managedFields: _m, ...meta } = metaOf(o);
    return { ...o, metadata: meta };
  };
  return canonicalJson(strip(obj)) === canonicalJson(strip(old));
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const hasAggregationRule = (o: KubeObject | undefined): boolean => ((o as RbacRole | undefined)?.aggregationRule?.clusterRoleSelectors ?? []).length > 0;

/** apierrors.NewForbidden(rbac.Resource(resource), name, err) */
function forbidden(resource: RbacResource, name: string, message: string): StatusError {
  const qualified = `${resource}.${rbacGroup}`;
  const details = { name, group: rbacGroup, kind: resource };
  return new StatusError(403, 'Forbidden', name ? `${qualified} ${goQuote(name)} is forbidden: ${message}` : `${qualified} is forbidden: ${message}`, name ? details : { group: rbacGroup, kind: resource });
}

export class RbacEscalationCheck {
  constructor(private readonly deps: EscalationCheckDeps) {}

  /** undefined when the write may proceed, else the 403 (or the 404 of a binding's missing role) kube answers. */
  check(w: RbacWrite): StatusError | undefined {
    if (escalationAllowed(w.user)) return undefined;
    return w.resource === 'roles' || w.resource === 'clusterroles' ? this.checkRole(w) : this.checkBinding(w);
  }

  /** ConfirmNoEscalation: the user's own rules in the namespace (cluster-wide for '') cover `rules`. */
  private confirmNoEscalation(w: RbacWrite, rules: readonly PolicyRule[]): string | undefined {
    const owner = this.deps.resolver.rulesFor(w.user, w.namespace);
    return escalationMessage(w.user, owner.rules, rules, owner.errors);
  }

  private checkRole(w: RbacWrite): StatusError | undefined {
    // RoleEscalationAuthorized: the escalate verb on this role (the request's name: '' on create)
    const escalate = this.deps.authorizer.authorize({
      user: w.user,
      verb: 'escalate',
      apiGroup: rbacGroup,
      apiVersion: '*',
      resource: w.resource,
      name: w.requestName,
      namespace: w.namespace,
      resourceRequest: true,
    });
    if (escalate.decision === 'Allow') return undefined;
    if (w.old && onlyGarbageCollectionFields(w.obj, w.old)) return undefined;
    const name = metaOf(w.obj).name ?? '';
    const missing = this.confirmNoEscalation(w, (w.obj as RbacRole).rules ?? []);
    if (missing) return forbidden(w.resource, name, missing);
    // an aggregationRule can gather anything (and keep a role from being tightened): it needs "*" on everything
    if (w.resource === 'clusterroles' && (hasAggregationRule(w.obj) || hasAggregationRule(w.old))) {
      if (this.confirmNoEscalation(w, fullAuthority)) return forbidden(w.resource, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
    return undefined;
  }

  private checkBinding(w: RbacWrite): StatusError | undefined {
    if (w.old && onlyGarbageCollectionFields(w.obj, w.old)) return undefined;
    const binding = w.obj as RbacBinding;
    const ref = binding.roleRef ?? { apiGroup: '', kind: '', name: '' };
    // BindingAuthorized: the bind verb on the referenced role, in the binding's namespace ('' for a clusterrolebinding)
    if (ref.kind === 'Role' || ref.kind === 'ClusterRole') {
      const bind = this.deps.authorizer.authorize({
        user: w.user,
        verb: 'bind',
        apiGroup: ref.apiGroup,
        resource: ref.kind === 'Role' ? 'roles' : 'clusterroles',
        name: ref.name,
        namespace: w.namespace,
        resourceRequest: true,
      });
      if (bind.decision === 'Allow') return undefined;
    }
    // GetRoleReferenceRules through the registry: a missing role is the registry's 404
    const resolved = this.deps.resolver.roleReferenceRules(ref, w.namespace);
    if ('error' in resolved) {
      if (ref.kind === 'Role') return errors.notFound({ group: rbacGroup, resource: 'roles' }, ref.name);
      if (ref.kind === 'ClusterRole') return errors.notFound({ group: rbacGroup, resource: 'clusterroles' }, ref.name);
      return new StatusError(500, 'InternalError', `Internal error occurred: ${resolved.error}`, { causes: [{ message: resolved.error }] });
    }
    const missing = this.confirmNoEscalation(w, resolved.rules);
    return missing ? forbidden(w.resource, metaOf(w.obj).name ?? '', missing) : undefined;
  }
}
