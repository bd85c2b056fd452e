// Creates on the virtual authentication.k8s.io and authorization.k8s.io resources: answered by the same
// authenticator and authorizer that guard every request, never stored.
import type { KubeObject, UserInfo } from '../api/types.js';
import { errors } from '../api/errors.js';
import { answerSelfSubjectReview, answerTokenReview, type Authenticator } from '../authn/index.js';
import {
  answerLocalSubjectAccessReview,
  answerSelfSubjectAccessReview,
  answerSelfSubjectRulesReview,
  answerSubjectAccessReview,
  type BuiltAuthorizer,
} from '../authz/index.js';
import type { RequestInfo } from '../http/request-info.js';
import type { ResourceInfo } from '../registry/resource.js';

export interface VirtualResourceDeps {
  authn: Authenticator;
  authz: BuiltAuthorizer;
}

export async function answerVirtualResource(info: ResourceInfo, body: KubeObject, req: { user: UserInfo; requestInfo: RequestInfo }, deps: VirtualResourceDeps): Promise<KubeObject> {
  const { user } = req;
  const namespace = req.requestInfo.namespace;
  const result = await (async () => {
    switch (info.resource) {
      case 'tokenreviews':
        return answerTokenReview(body, { authenticator: deps.authn, namespace });
      case 'selfsubjectreviews':
        return answerSelfSubjectReview(body, { user });
      case 'subjectaccessreviews':
        return answerSubjectAccessReview(body, { authorizer: deps.authz });
      case 'localsubjectaccessreviews':
        return answerLocalSubjectAccessReview(body, { authorizer: deps.authz, namespace });
      case 'selfsubjectaccessreviews':
        return answerSelfSubjectAccessReview(body, { authorizer: deps.authz, user });
      case 'selfsubjectrulesreviews':
        return answerSelfSubjectRulesReview(body, { resolver: deps.authz, user });
      default:
        return { ok: false as const, error: errors.methodNotSupported({ group: info.group, resource: info.resource }, 'create') };
    }
  })();
  if (!result.ok) throw result.error;
  return result.review as unknown as KubeObject;
}
