// API discovery as kube-apiserver serves it (k8s.io/apiserver/pkg/endpoints/discovery): /version, the
// unaggregated documents (/api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>) and aggregated
// discovery (apidiscovery.k8s.io/v2, KEP-3352) on /api and /apis when the Accept header asks for it.
// Every document is built from the ResourceIndex at request time, so resources added later (CRDs) show up
// without a restart; aggregated documents carry an ETag so clients revalidate cheaply.
import { extraSubresourcesOf } from './subresources/table.js';
import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { StatusError } from '../api/errors.js';
import { apiVersionOf } from '../api/types.js';
import type { JsonObject } from '../api/types.js';
import { loadProtobufCodec, sendBody, writeError } from '../http/responses.js';
import { negotiateOutput, protobufMediaType } from '../http/protobuf/negotiate.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo, Verb } from '../registry/resource.js';
import { kubernetesMajor, kubernetesMinor } from '../version.js';

/** The Kubernetes release whose API this server mirrors; server/version.ts is the one place that names it. */
export const mirroredKubernetesVersion = { major: kubernetesMajor, minor: kubernetesMinor, gitVersion: `v${kubernetesMajor}.${kubernetesMinor}.0` } as const;

// ---------------------------------------------------------------------------------------------------------
// Types of k8s.io/apimachinery/pkg/version and meta/v1 discovery, with their JSON field names.

/** version.Info (k8s.io/apimachinery/pkg/version). */
export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** metav1.APIVersions, served at /api (without apiVersion, as kube-apiserver has since 1.1). */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

/** metav1.APIResource: one resource or subresource ("pods/status") of a group version. */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  /** only set when the response kind lives in another group version (deployments/scale → autoscaling/v1) */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  /** absent on /api/v1, present on /apis/<group>/<version>, as kube-apiserver serves them */
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/** apidiscovery.k8s.io/v2 (and the identical v2beta1) aggregated discovery types. */
export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface DiscoveryGroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: DiscoveryGroupVersionKind;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: DiscoveryGroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

// ---------------------------------------------------------------------------------------------------------
// Documents: pure functions of the index.

export interface VersionOptions {
  gitVersion: string;
  gitCommit?: string;
  gitTreeState?: string;
  buildDate?: string;
}

const processStart = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Go's GOARCH names, which clients expect in version.Info.platform ("linux/amd64"). */
function goArch(arch: string): string {
  return ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch] ?? arch;
}

export function versionInfo(opts: VersionOptions): VersionInfo {
  // major/minor follow gitVersion when it is a Kubernetes-style version, so the two never disagree.
  const m = /^v(\d+)\.(\d+)\./.exec(opts.gitVersion);
  const major = m ? m[1]! : mirroredKubernetesVersion.major;
  const minor = m ? m[2]! : mirroredKubernetesVersion.minor;
  return {
    major,
    minor,
    emulationMajor: major,
    emulationMinor: minor,
    minCompatibilityMajor: major,
    minCompatibilityMinor: String(Math.max(0, Number(minor) - 1)),
    gitVersion: opts.gitVersion,
    gitCommit: opts.gitCommit ?? '0000000000000000000000000000000000000000',
    gitTreeState: opts.gitTreeState ?? 'clean',
    buildDate: opts.buildDate ?? processStart,
    // Not a Go binary: say what actually runs, in the fields clients only print.
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${goArch(process.arch)}`,
  };
}

/** discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>"). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const subresourceVerbs: Verb[] = ['get', 'patch', 'update'];

function sortedVerbs(verbs: readonly string[]): string[] {
  return [...new Set(verbs)].sort();
}

/** The subresources a resource serves, sorted by name; group/version are set only when the response kind is not the parent's GV. */
function subresourcesOf(r: ResourceInfo): Array<{ name: string; group?: string; version?: string; kind: string; verbs?: readonly string[] }> {
  const subs: Array<{ name: string; group?: string; version?: string; kind: string; verbs?: readonly string[] }> = [];
  // pods/exec, pods/eviction (policy/v1 Eviction), serviceaccounts/token (authentication.k8s.io/v1 TokenRequest), …
  for (const x of extraSubresourcesOf(r.group, r.version, r.resource)) {
    const sameGV = x.kind.group === r.group && x.kind.version === r.version;
    subs.push({ name: x.subresource, ...(sameGV ? {} : { group: x.kind.group, version: x.kind.version }), kind: x.kind.kind, verbs: x.verbs });
  }
  // autoscaling/v1 Scale is what every scale subresource answers with, whatever the parent's group.
  if (r.subresources.scale) subs.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale' });
  if (r.subresources.status) subs.push({ name: 'status', kind: r.kind });
  if (r.subresources.approval) subs.push({ name: 'approval', kind: r.kind });
  return subs.sort((a, b) => a.name.localeCompare(b.name));
}

function apiResourcesOf(r: ResourceInfo): APIResource[] {
  const main: APIResource = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: sortedVerbs(r.verbs) };
  if (r.shortNames.length) main.shortNames = [...r.shortNames];
  if (r.categories.length) main.categories = [...r.categories];
  // Virtual resources are never stored, so kube-apiserver gives them no storage version hash. The hash is of
  // the version objects are stored in (a CRD's storage version for every served version), so that clients
  // see when a resource's storage changes.
  if (!r.virtual) main.storageVersionHash = storageVersionHash(r.group, r.storageVersion ?? r.version, r.kind);
  const subs = subresourcesOf(r).map<APIResource>((s) => {
    const e: APIResource = { name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: sortedVerbs(s.verbs ?? subresourceVerbs) };
    if (s.group !== undefined) e.group = s.group;
    if (s.version !== undefined) e.version = s.version;
    return e;
  });
  return [main, ...subs];
}

/** /api: the legacy group's versions. */
export function apiVersions(index: ResourceIndex, serverAddress: string): APIVersions {
  const core = index.groups().find((g) => g.group === '');
  return { kind: 'APIVersions', versions: core ? [...core.versions] : [], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroupOf(group: string, versions: readonly string[]): APIGroup {
  const vs = versions.map((v) => ({ groupVersion: apiVersionOf(group, v), version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0]! };
}

/** /apis: every named group, versions in preference order. */
export function apiGroupList(index: ResourceIndex): APIGroupList {
  const groups = index.groups().filter((g) => g.group !== '' && g.versions.length > 0);
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => apiGroupOf(g.group, g.versions)) };
}

/** /apis/<group>, or undefined when the group is not served. */
export function apiGroup(index: ResourceIndex, group: string): APIGroup | undefined {
  const g = index.groups().find((x) => x.group === group && group !== '');
  return g && g.versions.length ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(g.group, g.versions) } : undefined;
}

/** /api/v1 or /apis/<group>/<version>, or undefined when nothing is served there. */
export function apiResourceList(index: ResourceIndex, group: string, version: string): APIResourceList | undefined {
  const rs = index.inGroupVersion(group, version);
  if (rs.length === 0) return undefined;
  const resources = rs.flatMap(apiResourcesOf).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const list: APIResourceList = { kind: 'APIResourceList', groupVersion: apiVersionOf(group, version), resources };
  return group === '' ? list : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: list.groupVersion, resources };
}

function resourceDiscoveryOf(r: ResourceInfo): APIResourceDiscovery {
  // responseKind group/version stay empty for the parent's own GV, as kube-apiserver converts them from APIResource.
  const d: APIResourceDiscovery = {
    resource: r.resource,
    responseKind: { group: '', version: '', kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: sortedVerbs(r.verbs),
  };
  if (r.shortNames.length) d.shortNames = [...r.shortNames];
  if (r.categories.length) d.categories = [...r.categories];
  const subs = subresourcesOf(r);
  if (subs.length) {
    d.subresources = subs.map((s) => ({ subresource: s.name, responseKind: { group: s.group ?? '', version: s.version ?? '', kind: s.kind }, verbs: sortedVerbs(s.verbs ?? subresourceVerbs) }));
  }
  return d;
}

/** The aggregated document for /api (scope "api": the core group only) or /apis (every named group). */
export function aggregatedDiscovery(index: ResourceIndex, scope: 'api' | 'apis', version: AggregatedDiscoveryVersion = 'v2'): APIGroupDiscoveryList {
  const groups = index.groups().filter((g) => (scope === 'api' ? g.group === '' : g.group !== ''));
  const items = groups.map<APIGroupDiscovery>((g) => ({
    metadata: g.group === '' ? { creationTimestamp: null } : { name: g.group, creationTimestamp: null },
    versions: g.versions.map((v) => ({
      version: v,
      resources: index
        .inGroupVersion(g.group, v)
        .map(resourceDiscoveryOf)
        .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)),
      freshness: 'Current',
    })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

// ---------------------------------------------------------------------------------------------------------
// Content negotiation.

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

/** Parses an Accept header into media ranges, highest q first (stable for equal q, as goautoneg orders them). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [];
  const ranges: MediaRange[] = [];
  for (const clause of header.split(',')) {
    const [full, ...paramParts] = clause.split(';').map((s) => s.trim());
    if (!full) continue;
    const slash = full.indexOf('/');
    const type = (slash < 0 ? full : full.slice(0, slash)).toLowerCase();
    const subtype = (slash < 0 ? '*' : full.slice(slash + 1)).toLowerCase();
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim().toLowerCase();
      const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
      else params[k] = v;
    }
    if (q > 0) ranges.push({ type, subtype, params, q });
  }
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map(({ r }) => r);
}

/** Whether a media range admits plain JSON (application/json, application/*, *∕*) with no profile parameters. */
export function acceptsPlainJSON(r: MediaRange): boolean {
  const typeOk = r.type === '*' || (r.type === 'application' && (r.subtype === '*' || r.subtype === 'json'));
  return typeOk && r.params['g'] === undefined && r.params['v'] === undefined && r.params['as'] === undefined;
}

export type DiscoveryFormat = { kind: 'legacy' } | { kind: 'aggregated'; version: AggregatedDiscoveryVersion };

export const aggregatedContentType = (v: AggregatedDiscoveryVersion): string => `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;

/**
 * Picks the discovery format for /api and /apis from the Accept header: the first acceptable range wins, so
 * client-go's "v2, v2beta1, application/json" gets v2. No Accept header means legacy JSON; undefined means
 * nothing we serve was acceptable (406).
 */
export function negotiateDiscovery(accept: string | undefined, allowAggregated: boolean): DiscoveryFormat | undefined {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { kind: 'legacy' };
  for (const r of ranges) {
    if (allowAggregated && r.type === 'application' && r.subtype === 'json' && r.params['g'] === 'apidiscovery.k8s.io' && r.params['as'] === 'APIGroupDiscoveryList') {
      const v = r.params['v'];
      if (v === 'v2' || v === 'v2beta1') return { kind: 'aggregated', version: v };
      continue;
    }
    if (acceptsPlainJSON(r)) return { kind: 'legacy' };
  }
  return undefined;
}

/** sha512 of the body in upper-case hex, as kube-apiserver computes discovery and OpenAPI ETags. */
export function contentHash(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

// ---------------------------------------------------------------------------------------------------------
// HTTP.

export const notFoundError = (): StatusError => new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});


function sendJSON(res: Response, body: object): void {
  sendBody(res, 200, 'application/json', JSON.stringify(body));
}

/**
 * An unaggregated discovery document (APIVersions, APIGroupList, APIGroup, APIResourceList): kube's discovery
 * handlers write it with WriteObjectNegotiated through the server's codecs and DefaultEndpointRestrictions
 * (k8s.io/apiserver/pkg/endpoints/discovery/{legacy,root,group,version}.go), so a client preferring protobuf gets
 * the metav1 message in kube's envelope (these types have protobuf messages in meta/v1/generated.proto), and an
 * Accept nothing matches is a 406 listing the codecs' media types.
 */
function sendDiscoveryObject(req: Request, res: Response, body: { kind?: string; apiVersion?: string }): void {
  const n = negotiateOutput(req.headers.accept, { protobufObjects: true });
  if (!n.ok) return writeError(res, new StatusError(406, 'NotAcceptable', n.message, {}));
  if (n.mediaType !== protobufMediaType) return sendJSON(res, body);
  // the envelope names the unversioned kinds under v1 (metav1.AddToGroupVersion registers them there)
  const envelope = { apiVersion: 'v1', ...body } as unknown as JsonObject;
  loadProtobufCodec().then(
    (codec) => {
      const bytes = codec.encodeKubernetesProtobuf(envelope);
      if (!bytes) return sendJSON(res, body);
      res.status(200).setHeader('Content-Type', protobufMediaType);
      res.end(bytes);
    },
    (err: unknown) => writeError(res, err),
  );
}

/** The address clients reach this server on, for serverAddressByClientCIDRs. */
function serverAddressOf(req: Request): string {
  const addr = req.socket.localAddress ?? '127.0.0.1';
  const host = addr.startsWith('::ffff:') ? addr.slice(7) : addr;
  return `${host.includes(':') ? `[${host}]` : host}:${req.socket.localPort ?? 0}`;
}

/**
 * Serves an aggregated document like aggregated.ServeHTTPWithETag: ETag (quoted hash), Vary: Accept,
 * Cache-Control: public, and 304 when If-None-Match carries the current ETag.
 */
function serveAggregated(req: Request, res: Response, doc: APIGroupDiscoveryList, version: AggregatedDiscoveryVersion): void {
  const body = JSON.stringify(doc);
  const etag = JSON.stringify(contentHash(body));
  res.setHeader('ETag', etag);
  res.setHeader('Vary', 'Accept');
  res.setHeader('Cache-Control', 'public');
  if (req.headers['if-none-match'] === etag) {
    res.status(304).end();
    return;
  }
  sendBody(res, 200, aggregatedContentType(version), body);
}

export interface DiscoveryOptions extends Partial<VersionOptions> {
  gitVersion: string;
}

/** Mounts /version, /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>. Other paths fall through. */
export function discoveryRouter(index: ResourceIndex, opts: DiscoveryOptions): Router {
  const router = Router();
  const version = versionInfo(opts);

  router.get('/version', (_req, res) => sendJSON(res, version));

  router.get('/api', (req, res) => {
    const format = negotiateDiscovery(req.headers.accept, true);
    if (format?.kind === 'aggregated') return serveAggregated(req, res, aggregatedDiscovery(index, 'api', format.version), format.version);
    // anything else is the unaggregated handler's to negotiate (aggregated.WrappedHandler)
    res.setHeader('Vary', 'Accept');
    sendDiscoveryObject(req, res, apiVersions(index, serverAddressOf(req)));
  });

  router.get('/apis', (req, res) => {
    const format = negotiateDiscovery(req.headers.accept, true);
    if (format?.kind === 'aggregated') return serveAggregated(req, res, aggregatedDiscovery(index, 'apis', format.version), format.version);
    res.setHeader('Vary', 'Accept');
    sendDiscoveryObject(req, res, apiGroupList(index));
  });

  router.get('/api/:version', (req, res) => {
    const list = apiResourceList(index, '', req.params.version);
    if (!list) return writeError(res, notFoundError());
    sendDiscoveryObject(req, res, list);
  });

  router.get('/apis/:group', (req, res) => {
    const g = apiGroup(index, req.params.group);
    if (!g) return writeError(res, notFoundError());
    sendDiscoveryObject(req, res, g);
  });

  router.get('/apis/:group/:version', (req, res) => {
    const list = apiResourceList(index, req.params.group, req.params.version);
    if (!list) return writeError(res, notFoundError());
    sendDiscoveryObject(req, res, list);
  });

  return router;
}
