// The 403 kube-apiserver writes when authorization does not allow a request
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go).
import { StatusError, qualifiedResource } from '../api/errors.js';
import type { StatusDetails } from '../api/types.js';
import { goQuote } from '../options/go-strconv.js';
import type { AuthorizationAttributes } from './types.js';

/** "Avoid emitting errors that look like valid HTML. Quotes are okay." */
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * `User "bob" cannot create resource "pods" in API group "" in the namespace "default"`,
 * `… at the cluster scope`, `resource "pods/status"`, or `User "bob" cannot get path "/metrics"`.
 */
export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const q = goQuote;
  const user = attrs.user.username ?? '';
  if (!attrs.resourceRequest) return sanitize(`User ${q(user)} cannot ${attrs.verb} path ${q(attrs.path ?? '')}`);
  let resource = attrs.resource ?? '';
  if (attrs.subresource) resource = `${resource}/${attrs.subresource}`;
  const group = attrs.apiGroup ?? '';
  if (attrs.namespace) return sanitize(`User ${q(user)} cannot ${attrs.verb} resource ${q(resource)} in API group ${q(group)} in the namespace ${q(attrs.namespace)}`);
  return sanitize(`User ${q(user)} cannot ${attrs.verb} resource ${q(resource)} in API group ${q(group)} at the cluster scope`);
}

/**
 * The full 403 Status: `pods "web" is forbidden: User … : <reason>` for resources (the subresource shows in
 * the message, not in the group-resource), `forbidden: User … cannot get path "/metrics"` with empty details
 * for non-resource paths.
 */
export function forbiddenError(attrs: AuthorizationAttributes, reason: string): StatusError {
  const msg = forbiddenMessage(attrs);
  const why = reason ? `${msg}: ${reason}` : msg;
  const resource = attrs.resource ?? '';
  const group = attrs.apiGroup ?? '';
  if (resource === '' && group === '') return new StatusError(403, 'Forbidden', `forbidden: ${why}`, {});
  // apierrors.NewForbidden: `%s %q is forbidden: %v`, or `%s is forbidden: %v` without a name; the name is
  // Go-quoted, which matters for names a client chose freely (impersonated users and groups).
  const name = attrs.name ?? '';
  const qualified = qualifiedResource({ group, resource });
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  details.kind = resource;
  return new StatusError(403, 'Forbidden', name ? `${qualified} ${goQuote(name)} is forbidden: ${why}` : `${qualified} is forbidden: ${why}`, details);
}
