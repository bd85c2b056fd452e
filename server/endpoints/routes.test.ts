import { builtinResources } from '../registry/catalogue/index.js';
import type { ResourceInfo } from '../registry/resource.js';
import { routeOf, subresourcesOf, type Route, type RouteRequest } from './routes.js';

// every stored resource but the create-only legacy bindings (its routes are tested on their own below)
const served = builtinResources.filter((r) => !r.virtual && r.resource !== 'bindings');
const virtual = builtinResources.filter((r) => r.virtual);
const byResource = (resource: string): ResourceInfo => builtinResources.find((r) => r.resource === resource)!;

const req = (method: string, name: string, subresource = '', extra: Partial<RouteRequest> = {}): RouteRequest => ({ method, name, subresource, watchPrefix: false, watchParam: false, ...extra });
const ok = (verb: string): Route => ({ ok: true, verb } as Route);
const notFound: Route = { ok: false, code: 404 };
const notAllowed: Route = { ok: false, code: 405 };
const connect = (verb: string): Route => ({ ok: true, verb, connect: true } as Route);

describe('subresourcesOf', () => {
  it('gives status and scale from the catalogue, and finalize to namespaces alone', () => {
    expect([...subresourcesOf(byResource('namespaces')).keys()].sort()).toEqual(['finalize', 'status']);
    expect([...subresourcesOf(byResource('deployments')).keys()].sort()).toEqual(['scale', 'status']);
    expect([...subresourcesOf(byResource('configmaps')).keys()]).toEqual([]);
    expect([...subresourcesOf(byResource('tokenreviews')).keys()]).toEqual([]);
  });
  it("adds kube's pod, service and service account subresources", () => {
    expect([...subresourcesOf(byResource('pods')).keys()].sort()).toEqual(['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'portforward', 'proxy', 'resize', 'status']);
    expect([...subresourcesOf(byResource('services')).keys()].sort()).toEqual(['proxy', 'status']);
    expect([...subresourcesOf(byResource('serviceaccounts')).keys()]).toEqual(['token']);
  });
});

describe('routeOf: the routes kube-apiserver registers', () => {
  // [title, request, expected] for every served resource's main resource
  const mainCases: Array<[string, RouteRequest, Route]> = [
    ['GET on the collection lists', req('GET', ''), ok('list')],
    ['GET ?watch=true on the collection watches', req('GET', '', '', { watchParam: true }), ok('watch')],
    ['POST on the collection creates', req('POST', ''), ok('create')],
    ['DELETE on the collection is deletecollection', req('DELETE', ''), ok('deletecollection')],
    ['PUT on the collection is 405', req('PUT', ''), notAllowed],
    ['PATCH on the collection is 405', req('PATCH', ''), notAllowed],
    ['GET on an item gets', req('GET', 'x'), ok('get')],
    ['HEAD on an item gets', req('HEAD', 'x'), ok('get')],
    ['GET ?watch=true on an item still gets (handlers.GetResource)', req('GET', 'x', '', { watchParam: true }), ok('get')],
    ['PUT on an item updates', req('PUT', 'x'), ok('update')],
    ['PATCH on an item patches', req('PATCH', 'x'), ok('patch')],
    ['DELETE on an item deletes', req('DELETE', 'x'), ok('delete')],
    ['POST on an item is 405', req('POST', 'x'), notAllowed],
    ['GET /watch/ on the collection watches', req('GET', '', '', { watchPrefix: true }), ok('watch')],
    ['GET /watch/ on an item watches', req('GET', 'x', '', { watchPrefix: true }), ok('watch')],
    ['POST /watch/ on the collection is 405', req('POST', '', '', { watchPrefix: true }), notAllowed],
    ['an unknown subresource is 404', req('GET', 'x', 'nope'), notFound],
  ];
  describe.each(served.map((r) => [`${r.group || 'core'}/${r.resource}`, r] as const))('%s', (_t, info) => {
    it.each(mainCases)('%s', (_title, request, expected) => {
      expect(routeOf(info, request)).toEqual(expected);
    });
  });

  // status and scale: StatusREST / ScaleREST are Getter + Updater (Patcher); finalize is an Updater only.
  const subresourceCases: Record<string, Array<[string, Route]>> = {
    status: [['GET', ok('get')], ['PUT', ok('update')], ['PATCH', ok('patch')], ['DELETE', notAllowed], ['POST', notAllowed]],
    scale: [['GET', ok('get')], ['PUT', ok('update')], ['PATCH', ok('patch')], ['DELETE', notAllowed], ['POST', notAllowed]],
    finalize: [['GET', notAllowed], ['PUT', ok('update')], ['PATCH', notAllowed], ['DELETE', notAllowed], ['POST', notAllowed]],
    // certificatesigningrequests/approval: ApprovalREST is a Getter and an Updater, like StatusREST
    approval: [['GET', ok('get')], ['PUT', ok('update')], ['PATCH', ok('patch')], ['DELETE', notAllowed], ['POST', notAllowed]],
    // rest.NamedCreater storages: POST only
    binding: [['GET', notAllowed], ['PUT', notAllowed], ['POST', ok('create')]],
    eviction: [['GET', notAllowed], ['DELETE', notAllowed], ['POST', ok('create')]],
    token: [['GET', notAllowed], ['POST', ok('create')]],
    // EphemeralContainersREST, ResizeREST: Getter + Updater
    ephemeralcontainers: [['GET', ok('get')], ['PUT', ok('update')], ['PATCH', ok('patch')], ['POST', notAllowed], ['DELETE', notAllowed]],
    resize: [['GET', ok('get')], ['PUT', ok('update')], ['PATCH', ok('patch')], ['POST', notAllowed], ['DELETE', notAllowed]],
    // Connecters: their ConnectMethods, each as its action verb (GET get, POST create, …)
    exec: [['GET', connect('get')], ['POST', connect('create')], ['PUT', notAllowed], ['DELETE', notAllowed]],
    attach: [['GET', connect('get')], ['POST', connect('create')], ['PATCH', notAllowed]],
    portforward: [['GET', connect('get')], ['POST', connect('create')], ['PUT', notAllowed]],
    proxy: [['GET', connect('get')], ['HEAD', connect('get')], ['OPTIONS', connect('get')], ['POST', connect('create')], ['PUT', connect('update')], ['PATCH', connect('patch')], ['DELETE', connect('delete')]],
  };
  const subresourceRows = served.flatMap((info) =>
    [...subresourcesOf(info).keys()].flatMap((sub) => subresourceCases[sub]!.map(([method, expected]) => [`${info.resource}/${sub}`, method, info, sub, expected] as const)),
  );
  it('covers status on every resource the catalogue gives one, scale on deployments and finalize on namespaces', () => {
    const covered = new Set(subresourceRows.map(([path]) => path));
    for (const info of served) if (info.subresources.status) expect(covered).toContain(`${info.resource}/status`);
    expect(covered).toContain('deployments/scale');
    expect(covered).toContain('namespaces/finalize');
    expect(covered).toContain('certificatesigningrequests/approval');
  });
  it.each(subresourceRows)('%s %s', (_path, method, info, sub, expected) => {
    expect(routeOf(info, req(method, 'x', sub))).toEqual(expected);
    // ?watch=true changes nothing on a subresource: its GET is a get
    expect(routeOf(info, req(method, 'x', sub, { watchParam: true }))).toEqual(expected);
    // no subresource storage watches: there is no /watch/ route for it
    expect(routeOf(info, req(method, 'x', sub, { watchPrefix: true }))).toEqual(notFound);
    // only a connecter with a subpath (the proxies) has routes below its subresource
    const below = routeOf(info, req(method, 'x', sub, { subpath: true }));
    if (sub === 'proxy') expect(below).toEqual(expected);
    else expect(below).toEqual(notFound);
  });
  it('serves the legacy bindings with POST on the collection only', () => {
    const bindings = byResource('bindings');
    expect(routeOf(bindings, req('POST', ''))).toEqual(ok('create'));
    expect(routeOf(bindings, req('GET', ''))).toEqual(notAllowed);
    expect(routeOf(bindings, req('GET', 'x'))).toEqual(notFound);
  });
  // A namespaced resource without /namespaces/<ns>: only the list (and watch) across all namespaces.
  describe.each(served.filter((r) => r.namespaced).map((r) => [r.resource, r] as const))('%s across all namespaces', (_t, info) => {
    it.each([
      ['GET lists', req('GET', '', '', { allNamespaces: true }), ok('list')],
      ['GET ?watch=true watches', req('GET', '', '', { allNamespaces: true, watchParam: true }), ok('watch')],
      ['GET /watch/ watches', req('GET', '', '', { allNamespaces: true, watchPrefix: true }), ok('watch')],
      ['POST is 405', req('POST', '', '', { allNamespaces: true }), notAllowed],
      ['DELETE is 405', req('DELETE', '', '', { allNamespaces: true }), notAllowed],
      ['GET on an item is 404', req('GET', 'x', '', { allNamespaces: true }), notFound],
      ['DELETE on an item is 404', req('DELETE', 'x', '', { allNamespaces: true }), notFound],
      ['a subresource is 404', req('GET', 'x', 'status', { allNamespaces: true }), notFound],
    ] as Array<[string, RouteRequest, Route]>)('%s', (_title, request, expected) => {
      expect(routeOf(info, request)).toEqual(expected);
    });
  });

  it('answers 404 for status on a resource without one', () => {
    expect(routeOf(byResource('configmaps'), req('GET', 'x', 'status'))).toEqual(notFound);
    expect(routeOf(byResource('pods'), req('PUT', 'x', 'scale'))).toEqual(notFound);
    expect(routeOf(byResource('deployments'), req('PUT', 'x', 'finalize'))).toEqual(notFound);
  });

  // Reviews are Creaters only: one POST route on the collection path, nothing at the item path.
  describe.each(virtual.map((r) => [`${r.group}/${r.resource}`, r] as const))('%s', (_t, info) => {
    it.each([
      ['POST on the collection creates', req('POST', ''), ok('create')],
      ['GET on the collection is 405', req('GET', ''), notAllowed],
      ['DELETE on the collection is 405', req('DELETE', ''), notAllowed],
      ['GET on an item is 404', req('GET', 'x'), notFound],
      ['DELETE on an item is 404', req('DELETE', 'x'), notFound],
      ['GET /watch/ is 404', req('GET', '', '', { watchPrefix: true }), notFound],
      ['a subresource is 404', req('GET', 'x', 'status'), notFound],
    ] as Array<[string, RouteRequest, Route]>)('%s', (_title, request, expected) => {
      expect(routeOf(info, request)).toEqual(expected);
    });
  });
});
