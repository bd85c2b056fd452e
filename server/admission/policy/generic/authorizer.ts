// The `authorizer` CEL variable of one admission request, answered by the server's authorizer: kube's
// caching authorizer (admission/plugin/authorizer), which answers every distinct check of a request once.
import type { UserInfo } from '../../../api/types.js';
import type { Authorizer } from '../../../authz/types.js';
import type { AdmissionAttributes } from '../../attributes.js';
import type { AuthorizerCheck, AuthorizerDecision, CelAuthorizer } from '../../cel/environment.js';

/** A check may name another user (authorizer.serviceAccount(ns, name)); otherwise it is the requester's. */
type CheckWithUser = AuthorizerCheck & { user?: { username: string; groups: string[] } };

const decisions = { Allow: 'allow', Deny: 'deny', NoOpinion: 'noOpinion' } as const;

export function requestAuthorizer(authz: Authorizer, attrs: AdmissionAttributes): CelAuthorizer {
  const cache = new Map<string, AuthorizerDecision>();
  return {
    check(c: CheckWithUser): AuthorizerDecision {
      const user: UserInfo = c.user ? { username: c.user.username, groups: [...c.user.groups] } : attrs.userInfo;
      const key = JSON.stringify([user.username, user.groups ?? [], c.path ?? null, c.verb, c.group, c.version, c.resource, c.subresource, c.namespace, c.name]);
      const hit = cache.get(key);
      if (hit) return hit;
      const d =
        c.path !== undefined
          ? authz.authorize({ user, verb: c.verb, path: c.path, resourceRequest: false })
          : authz.authorize({ user, verb: c.verb, namespace: c.namespace, apiGroup: c.group, apiVersion: c.version || '*', resource: c.resource, subresource: c.subresource, name: c.name, resourceRequest: true });
      const out: AuthorizerDecision = { decision: decisions[d.decision], reason: d.reason, ...(d.evaluationError ? { error: d.evaluationError } : {}) };
      cache.set(key, out);
      return out;
    },
    requestResource: {
      group: attrs.resource.group,
      version: attrs.resource.version,
      resource: attrs.resource.resource,
      subresource: attrs.subresource,
      namespace: attrs.namespace,
      name: attrs.name,
    },
  };
}
