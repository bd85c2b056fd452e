// Parses a request path the way kube-apiserver's RequestInfoFactory does (k8s.io/apiserver/pkg/endpoints/request),
// so authorization, admission, metrics and audit all see the same {verb, group, version, namespace, resource, …}.
import { decodeListOptions, sliceToBool, urlValuesFrom, type UrlValues } from '../endpoints/query-options.js';
import { parseFieldSelector } from '../registry/selectors/field-selector.js';
import { parseLabelSelector } from '../registry/selectors/label-selector.js';

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

/**
 * A request path whose percent-escapes Go's url.Parse refuses ("%", "%zz"): Go's net/http answers such a request
 * line itself, 400 "400 Bad Request" in plain text, before any kube handler runs.
 */
export class MalformedRequestPathError extends Error {
  constructor(readonly path: string) {
    super(`invalid URL escape in ${JSON.stringify(path)}`);
    this.name = 'MalformedRequestPathError';
  }
}

const hexValue = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);

/**
 * req.URL.Path as Go's url.Parse makes it: every %XX becomes its byte, whatever the bytes spell (`%c0%ae` is not
 * UTF-8 and still a path; its bytes read as U+FFFD here, as Go's JSON writes them), and `%2F` becomes a `/` that
 * then splits the path, as in kube's splitPath over the decoded path.
 */
export function unescapeRequestPath(path: string): string {
  if (!path.includes('%')) return path;
  const bytes = Buffer.from(path, 'utf8');
  const out = Buffer.alloc(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c !== 0x25) {
      out[n++] = c;
      continue;
    }
    const hi = i + 2 < bytes.length ? hexValue(bytes[i + 1]!) : -1;
    const lo = hi >= 0 ? hexValue(bytes[i + 2]!) : -1;
    if (hi < 0 || lo < 0) throw new MalformedRequestPathError(path);
    out[n++] = hi * 16 + lo;
    i += 2;
  }
  return out.subarray(0, n).toString('utf8');
}

function splitPath(path: string): string[] {
  const trimmed = unescapeRequestPath(path).replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/**
 * query: the request's query values (Go's url.Values, or a parsed {key: value | values} object).
 * @throws MalformedRequestPathError for a path Go's url parsing refuses
 */
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

  // kube: only a GET without a name is a list or a watch, decided by ListOptions as the parameter codec decodes the
  // query (watch=True, yes or an empty value are all true); a named GET stays a get, ?watch or not.
  if (info.name === '' && info.verb === 'get') collectionVerbAndName(info, urlValuesFrom(query));
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

/**
 * requestinfo.go for a collection GET: the verb is watch when ListOptions.Watch, else list; a field selector that
 * requires metadata.name=<name> names the request (so authorization and audit see the object), when the whole
 * ListOptions decodes and the name is a valid path segment. Should ListOptions not decode, only `watch` is read.
 */
function collectionVerbAndName(info: RequestInfo, values: UrlValues): void {
  const opts = decodeListOptions(values);
  const labels = opts.ok ? parseLabelSelector(opts.value.labelSelector) : undefined;
  const fields = opts.ok ? parseFieldSelector(opts.value.fieldSelector) : undefined;
  if (!opts.ok || !labels?.ok || !fields?.ok) {
    info.verb = sliceToBool(values['watch']) ? 'watch' : 'list';
    return;
  }
  info.verb = opts.value.watch ? 'watch' : 'list';
  const name = fields.selector.requiresExactMatch('metadata.name');
  if (name !== undefined && isPathSegmentName(name)) info.name = name;
}

/** k8s.io/apimachinery/pkg/api/validation/path IsPathSegmentName: not "." or "..", no "/" or "%". */
function isPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}
