// Which method each path of a served resource answers, as kube-apiserver's installer registers them
// (k8s.io/apiserver/pkg/endpoints/installer.go registerResourceHandlers): a route exists only where the REST
// storage behind the path implements the interface (rest.Getter, rest.Updater, rest.Patcher = Getter+Updater,
// rest.GracefulDeleter, …). go-restful then answers a path without any route with 404, and a path whose routes
// are for other methods with 405; kube's serviceErrorHandler turns both into NewGenericServerResponse's Status.
import type { ResourceInfo, Verb } from '../registry/resource.js';
import { extraSubresource, extraSubresourcesOf } from './subresources/table.js';

/**
 * The interfaces of each subresource's REST storage in kube: every StatusREST and ScaleREST is a Getter and an
 * Updater (so a Patcher too); namespaces' FinalizeREST is an Updater only (pkg/registry/core/namespace/storage).
 * None lists, watches, creates or deletes.
 */
export const subresourceStorageVerbs: Readonly<Record<'status' | 'scale' | 'finalize' | 'approval', readonly Verb[]>> = {
  status: ['get', 'patch', 'update'],
  // certificatesigningrequests' ApprovalREST: a Getter and an Updater
  approval: ['get', 'patch', 'update'],
  scale: ['get', 'patch', 'update'],
  finalize: ['update'],
};

/** The subresources a served resource has, with the verbs their storage implements (from the catalogue). */
export function subresourcesOf(info: ResourceInfo): ReadonlyMap<string, readonly Verb[]> {
  const subs = new Map<string, readonly Verb[]>();
  if (info.virtual) return subs;
  if (info.subresources.status) subs.set('status', subresourceStorageVerbs.status);
  if (info.subresources.scale) subs.set('scale', subresourceStorageVerbs.scale);
  if (info.subresources.approval) subs.set('approval', subresourceStorageVerbs.approval);
  if (info.group === '' && info.resource === 'namespaces') subs.set('finalize', subresourceStorageVerbs.finalize);
  for (const extra of extraSubresourcesOf(info.group, info.version, info.resource)) subs.set(extra.subresource, extra.verbs);
  return subs;
}

export interface RouteRequest {
  /** the HTTP method */
  method: string;
  name: string;
  subresource: string;
  /** the deprecated /watch/ path prefix (installer's MethodWatch and MethodWatchList routes) */
  watchPrefix: boolean;
  /** ?watch=true: a list route serves a watch with it; a get route ignores it */
  watchParam: boolean;
  /** a namespaced resource addressed without /namespaces/<ns>: only the list across namespaces lives there */
  allNamespaces?: boolean;
  /** path segments after the subresource (pods/x/proxy/a/b): only a connecter with a subpath has routes there */
  subpath?: boolean;
}

/** connect: the route is a rest.Connecter's (kube's MethodConnect action), served by ConnectResource */
export type Route = { ok: true; verb: Verb; connect?: boolean } | { ok: false; code: 404 | 405 };

/** The action verb of each method, as the installer names connect routes and RequestInfo reads methods. */
const methodVerbs: Readonly<Record<string, Verb>> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete', OPTIONS: 'get' };

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The routes at one path: which verb each method is served as. */
type PathRoutes = Partial<Record<Method, Verb>>;

function pathRoutes(req: RouteRequest, verbs: readonly Verb[], isSubresource: boolean): PathRoutes {
  const has = (v: Verb): boolean => verbs.includes(v);
  const routes: PathRoutes = {};
  const add = (m: Method, v: Verb, when: boolean): void => {
    if (when && routes[m] === undefined) routes[m] = v;
  };
  if (req.allNamespaces) {
    // The installer adds only MethodList (and the deprecated watch list) at /<resource> of a namespaced resource.
    if (req.name !== '' || isSubresource) return routes;
    if (req.watchPrefix) add('GET', 'watch', has('watch') && has('list'));
    else add('GET', req.watchParam ? 'watch' : 'list', has('list'));
    return routes;
  }
  if (req.watchPrefix) {
    // watch/<resource> needs a watcher and a lister; watch/<resource>/<name> a watcher. Subresources have none
    // here: the installer registers them only for storages that watch, and none of kube's subresources do.
    if (req.name === '') add('GET', 'watch', has('watch') && has('list') && !isSubresource);
    else add('GET', 'watch', has('watch'));
    return routes;
  }
  if (req.name === '' || isSubresource) {
    // The collection path; for a subresource, its path is both the resource and the item path.
    add('GET', req.watchParam && !isSubresource ? 'watch' : 'list', has('list'));
    add('POST', 'create', has('create'));
    add('DELETE', 'deletecollection', has('deletecollection'));
  }
  if (req.name !== '') {
    // A named GET is handlers.GetResource, which ignores ?watch.
    add('GET', 'get', has('get'));
    add('PUT', 'update', has('update'));
    add('PATCH', 'patch', has('patch'));
    add('DELETE', 'delete', has('delete'));
  }
  return routes;
}

/** Routes a resource request like go-restful over kube's registered routes. */
export function routeOf(info: ResourceInfo, req: RouteRequest): Route {
  let verbs: readonly Verb[] = info.verbs;
  const isSubresource = req.subresource !== '';
  if (isSubresource && !info.virtual) {
    const connect = extraSubresource(info.group, info.version, info.resource, req.subresource)?.connect;
    if (connect) {
      // The installer registers a connecter at <name>/<sub> and, with a subpath, at <name>/<sub>/{path:*}.
      if (req.name === '' || req.watchPrefix || req.allNamespaces || (req.subpath && !connect.subpath)) return { ok: false, code: 404 };
      const method = req.method.toUpperCase();
      if (!connect.methods.includes(method)) return { ok: false, code: 405 };
      return { ok: true, verb: methodVerbs[method]!, connect: true };
    }
  }
  if (req.subpath) return { ok: false, code: 404 };
  if (isSubresource) {
    const sub = subresourcesOf(info).get(req.subresource);
    if (!sub) return { ok: false, code: 404 };
    verbs = sub;
  }
  const routes = pathRoutes(req, verbs, isSubresource);
  const method = (req.method.toUpperCase() === 'HEAD' ? 'GET' : req.method.toUpperCase()) as Method;
  const verb = routes[method];
  if (verb !== undefined) return { ok: true, verb };
  return { ok: false, code: Object.keys(routes).length === 0 ? 404 : 405 };
}
