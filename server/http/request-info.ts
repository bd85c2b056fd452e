// Parses a request path the way kube-apiserver's RequestInfoFactory does (k8s.io/apiserver/pkg/endpoints/request),
// so authorization, admission, metrics and audit all see the same {verb, group, version, namespace, resource, …}.

export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'proxy' | string;

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** lower-case kube verb: get, list, watch, create, update, patch, delete, deletecollection; for non-resource requests the lower-case HTTP method */
  verb: RequestVerb;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

const namespaceSubresources = new Set(['status', 'finalize']);

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/').map((p) => decodeURIComponent(p));
}

/** query: the parsed query string (watch=true turns list into watch, as in kube). */
export function parseRequestInfo(method: string, path: string, query: Record<string, unknown>): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  let parts = splitPath(path);
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[0]!;
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 1) return info; // /apis
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts.length < 1) return info; // /api or /apis/<group>
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  if (parts.length < 1) return info; // discovery of a group version

  info.isResourceRequest = true;
  switch (method.toUpperCase()) {
    case 'POST': info.verb = 'create'; break;
    case 'GET': case 'HEAD': info.verb = 'get'; break;
    case 'PUT': info.verb = 'update'; break;
    case 'PATCH': info.verb = 'patch'; break;
    case 'DELETE': info.verb = 'delete'; break;
    default: info.verb = ''; break;
  }
  // Deprecated /watch/ prefix and /proxy/ style paths: the first segment is the verb.
  if (parts[0] === 'watch' || parts[0] === 'proxy') {
    if (parts[0] === 'watch' || info.verb === 'get') info.verb = parts[0];
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      // /namespaces/<name> and /namespaces/<name>/{status,finalize} address the namespace object itself.
      if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts;
  if (parts.length >= 3) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;
  // As in kube, /namespaces/foo keeps namespace=foo (the namespace addresses itself); handlers of
  // cluster-scoped resources ignore it.

  // Collection verbs: GET without a name is list (or watch), DELETE without a name is deletecollection.
  if (info.name === '' && info.verb === 'get') info.verb = 'list';
  if (info.verb === 'list' && isTrue(query['watch'])) info.verb = 'watch';
  if (info.verb === 'get' && isTrue(query['watch'])) {
    // kube: a watch on a single object is expressed as a list with fieldSelector=metadata.name, but the old
    // /watch/…/name form is accepted too.
    info.verb = 'watch';
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

function isTrue(v: unknown): boolean {
  return v === 'true' || v === '1' || v === true;
}
