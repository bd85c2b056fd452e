// Names and namespaces from the URL as kube-apiserver's registry meets them. Its store builds the etcd key from them
// (k8s.io/apiserver/pkg/registry/generic/registry/store.go NamespaceKeyFunc / NoNamespaceKeyFunc) and refuses a name
// that cannot be a path segment with 400 `Name parameter invalid: "..": may not be '..'`; a namespace goes into the
// key unchecked, so an object under a namespace no Namespace object can have is simply not found. This store checks
// both segments of every key and would fail such a request as an internal error: the answers are given here first.
import { errors, StatusError } from '../api/errors.js';
import { goQuote } from '../options/go-strconv.js';
import { isValidPathSegmentName } from '../registry/validation/name.js';
import type { RequestInfo } from './request-info.js';

/** Whether the resource lives in namespaces (undefined: not served, the handler answers 404 itself). */
export type NamespacedLookup = (ri: RequestInfo) => boolean | undefined;

/** kube's answer to a request whose URL name or namespace cannot be a key segment, or undefined when both can. */
export function pathSegmentError(ri: RequestInfo, namespaced: NamespacedLookup): StatusError | undefined {
  if (!ri.isResourceRequest) return undefined;
  // An empty name: kube has no PUT or PATCH route on a collection, and go-restful's 405 goes through the server's
  // serviceErrorHandler as NewGenericServerResponse(405, ...).
  if (ri.name === '' && (ri.verb === 'update' || ri.verb === 'patch') && namespaced(ri) !== undefined) {
    return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  }
  if (ri.name !== '') {
    const msgs = isValidPathSegmentName(ri.name);
    if (msgs.length > 0) return errors.badRequest(`Name parameter invalid: ${goQuote(ri.name)}: ${msgs.join(';')}`);
  }
  if (ri.namespace === '' || ri.resource === 'namespaces' || isValidPathSegmentName(ri.namespace).length === 0) return undefined;
  if (namespaced(ri) !== true) return undefined;
  // Nothing can exist in such a namespace: a named object is not found in storage; anything else meets the
  // namespace itself, which NamespaceLifecycle (create) or the namespace lookup does not find.
  if (ri.name !== '') return errors.notFound({ group: ri.apiGroup, resource: ri.resource }, ri.name);
  return errors.notFound({ group: '', resource: 'namespaces' }, ri.namespace);
}
