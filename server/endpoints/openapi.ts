// OpenAPI documents as kube-apiserver serves them (k8s.io/kube-openapi handler and handler3): /openapi/v3 (a
// root listing one document per group version, each URL carrying a content hash), /openapi/v3/api/v1,
// /openapi/v3/apis/<group>/<version>, and /openapi/v2 as JSON.
//
// What is described, and what is not:
// - Paths and operations are exact: every verb a resource serves becomes the operation kube-apiserver
//   installs (read, list, create, replace, patch, delete, deletecollection, watch, and the status and scale
//   subresources), with the query parameters it accepts, so kubectl's QueryParamVerifierV3 finds
//   `fieldValidation` (and `dryRun`, `fieldManager`) on PATCH and uses server-side field validation.
// - Schemas are full (./openapi/definitions.ts, ./openapi/kind-schemas.ts): every built-in kind and every type it
//   reaches, field by field, named as kube names them, from the type description strict field validation uses;
//   custom resources from their CRD's schema. So `kubectl explain` works at any depth, and PATCH advertises
//   application/strategic-merge-patch+json where kube has patch tags (kubectl reads them from these schemas).
// - Documents are built on the first request (the models load then, not at startup) and kept until the set of
//   served resources changes; each is served with a strong ETag, and the v3 root pins each URL to its hash.
// - /openapi/v2 is served as JSON only. client-go asks for protobuf there; the 406 it gets makes it give up on
//   v2 quietly (it only uses v2 when v3 is missing), so no protobuf encoder is needed.
import { Router, type Request, type Response } from 'express';
import { StatusError } from '../api/errors.js';
import type { JsonObject, JsonValue } from '../api/types.js';
import { writeError } from '../http/responses.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import { definitionName } from '../api/openapi/definition-names.js';
import { acceptsPlainJSON, contentHash, mirroredKubernetesVersion, notFoundError, parseAccept } from './discovery.js';
import { sendBody } from '../http/responses.js';
import { v2Style, v3Style, type BuiltinDefinitions, type SchemaStyle } from './openapi/definitions.js';
import { builtinDefinitions, documentSchemas, meta } from './openapi/kind-schemas.js';
import { strategicMergeSchemaFor } from './patch/smp-schema.js';

// ---------------------------------------------------------------------------------------------------------
// Names

export { definitionName };

const scaleDefinition = definitionName('autoscaling', 'v1', 'Scale');

/** "admissionregistration.k8s.io" → "Admissionregistration", "" → "Core", "stable.example.com" → "StableExampleCom". */
function groupIdentifier(group: string): string {
  if (group === '') return 'Core';
  const base = group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  return base
    .split(/[.-]/)
    .filter(Boolean)
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('');
}

function tagOf(group: string, version: string): string {
  const id = groupIdentifier(group);
  return `${id[0]!.toLowerCase()}${id.slice(1)}_${version}`;
}

const capitalize = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

const gvkExtension = (group: string, version: string, kind: string): JsonObject => ({ group, kind, version });

// ---------------------------------------------------------------------------------------------------------
// Operations, as a format-neutral model rendered to v3 or v2.

type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'watch' | 'watchlist';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  description: string;
  type: 'string' | 'integer' | 'boolean';
  required?: boolean;
}

interface OperationSpec {
  method: Method;
  path: string;
  operationId: string;
  description: string;
  action: Action;
  gvk: { group: string; version: string; kind: string };
  tag: string;
  params: ParamSpec[];
  /** the request body schema and the media types it is accepted in */
  body?: { schema: string; contentTypes: string[] };
  responses: Array<{ code: '200' | '201' | '202'; description: string; schema: string }>;
  watch?: boolean;
}

interface PathSpec {
  path: string;
  params: ParamSpec[];
  operations: OperationSpec[];
}

const q = (name: string, type: ParamSpec['type'], description: string): ParamSpec => ({ name, in: 'query', type, description });

const pathParams = {
  name: (kind: string): ParamSpec => ({ name: 'name', in: 'path', type: 'string', required: true, description: `name of the ${kind}` }),
  namespace: { name: 'namespace', in: 'path', type: 'string', required: true, description: 'object name and auth scope, such as for teams and projects' } as ParamSpec,
  pretty: q('pretty', 'string', "If 'true', then the output is pretty printed."),
};

const dryRun = q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. The only valid value is "All": all dry run stages are processed.');
const fieldManager = q('fieldManager', 'string', 'A name associated with the actor or entity that is making these changes; at most 128 printable characters.');
const fieldValidation = q(
  'fieldValidation',
  'string',
  'How the server treats unknown or duplicate fields in the request body: Ignore (drop them silently), Warn (drop them and send a warning header for each; the default), or Strict (fail the request with BadRequest listing them).',
);
const force = q('force', 'boolean', 'Force "Apply" requests: re-acquire fields owned by other managers. Must be unset for non-apply patch requests.');
const writeParams = [dryRun, fieldManager, fieldValidation];

const listParams: ParamSpec[] = [
  q('allowWatchBookmarks', 'boolean', 'Requests watch events with type "BOOKMARK". Ignored unless watch is set.'),
  q('continue', 'string', 'The continue token from a previous list call with the same query, to get the next page.'),
  q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  q('limit', 'integer', 'The maximum number of responses to return; more may be fetched with the returned continue token.'),
  q('resourceVersion', 'string', 'Constrains which resource versions a request may be served from.'),
  q('resourceVersionMatch', 'string', 'How resourceVersion is applied to list calls: NotOlderThan or Exact.'),
  q('sendInitialEvents', 'boolean', 'With watch and resourceVersionMatch=NotOlderThan, starts the watch with synthetic ADDED events for the current state.'),
  q('timeoutSeconds', 'integer', 'Timeout for the list/watch call, regardless of activity.'),
  q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
];

const deleteParams: ParamSpec[] = [
  dryRun,
  q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted; zero means delete immediately.'),
  q('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean', 'If set, an object whose stored form cannot be read is deleted anyway (unsafe).'),
  q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependent objects should be orphaned.'),
  q('propagationPolicy', 'string', 'Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
];

/** The patch media types a resource accepts: strategic merge patch only where kube has patch tags (not custom resources). */
function patchContentTypesOf(r: ResourceInfo): string[] {
  const types = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
  if (!r.openAPIV3Schema && strategicMergeSchemaFor(r)) types.push('application/strategic-merge-patch+json');
  return types;
}

function resourcePaths(r: ResourceInfo): PathSpec[] {
  const prefix = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const G = groupIdentifier(r.group);
  const V = capitalize(r.version);
  const ns = r.namespaced ? 'Namespaced' : '';
  const kindDef = definitionName(r.group, r.version, r.kind);
  const listDef = definitionName(r.group, r.version, r.listKind);
  const status = meta('Status');
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const tag = tagOf(r.group, r.version);
  const has = (v: string): boolean => (r.verbs as string[]).includes(v);
  const op = (o: Omit<OperationSpec, 'gvk' | 'tag'> & Partial<Pick<OperationSpec, 'gvk'>>): OperationSpec => ({ gvk, tag, ...o });

  const collectionPath = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
  const itemPath = `${collectionPath}/{name}`;
  const scopeParams = r.namespaced ? [pathParams.namespace, pathParams.pretty] : [pathParams.pretty];
  const itemParams = [pathParams.name(r.kind), ...scopeParams];
  const objectResponses = (codes: Array<'200' | '201' | '202'>, schema = kindDef): OperationSpec['responses'] =>
    codes.map((code) => ({ code, description: code === '200' ? 'OK' : code === '201' ? 'Created' : 'Accepted', schema }));
  const paths: PathSpec[] = [];

  const collectionOps: OperationSpec[] = [];
  if (has('list')) collectionOps.push(op({ method: 'get', path: collectionPath, action: 'list', operationId: `list${G}${V}${ns}${r.kind}`, description: `list or watch objects of kind ${r.kind}`, params: listParams, responses: objectResponses(['200'], listDef) }));
  if (has('create')) {
    collectionOps.push(
      op({
        method: 'post',
        path: collectionPath,
        action: 'post',
        operationId: `create${G}${V}${ns}${r.kind}`,
        description: `create a ${r.kind}`,
        params: writeParams,
        body: { schema: kindDef, contentTypes: ['*/*'] },
        responses: objectResponses(['200', '201', '202']),
      }),
    );
  }
  if (has('deletecollection')) {
    collectionOps.push(
      op({
        method: 'delete',
        path: collectionPath,
        action: 'deletecollection',
        operationId: `delete${G}${V}Collection${ns}${r.kind}`,
        description: `delete collection of ${r.kind}`,
        params: [...deleteParams, ...listParams.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks')],
        body: { schema: meta('DeleteOptions'), contentTypes: ['*/*'] },
        responses: objectResponses(['200'], status),
      }),
    );
  }
  if (collectionOps.length) paths.push({ path: collectionPath, params: scopeParams, operations: collectionOps });

  const itemOps: OperationSpec[] = [];
  if (has('get')) itemOps.push(op({ method: 'get', path: itemPath, action: 'get', operationId: `read${G}${V}${ns}${r.kind}`, description: `read the specified ${r.kind}`, params: [], responses: objectResponses(['200']) }));
  if (has('update')) {
    itemOps.push(op({ method: 'put', path: itemPath, action: 'put', operationId: `replace${G}${V}${ns}${r.kind}`, description: `replace the specified ${r.kind}`, params: writeParams, body: { schema: kindDef, contentTypes: ['*/*'] }, responses: objectResponses(['200', '201']) }));
  }
  if (has('patch')) {
    itemOps.push(
      op({
        method: 'patch',
        path: itemPath,
        action: 'patch',
        operationId: `patch${G}${V}${ns}${r.kind}`,
        description: `partially update the specified ${r.kind}`,
        params: [...writeParams, force],
        body: { schema: meta('Patch'), contentTypes: patchContentTypesOf(r) },
        responses: objectResponses(['200', '201']),
      }),
    );
  }
  if (has('delete')) {
    itemOps.push(
      op({
        method: 'delete',
        path: itemPath,
        action: 'delete',
        operationId: `delete${G}${V}${ns}${r.kind}`,
        description: `delete a ${r.kind}`,
        params: deleteParams,
        body: { schema: meta('DeleteOptions'), contentTypes: ['*/*'] },
        responses: objectResponses(['200', '202'], status),
      }),
    );
  }
  if (itemOps.length) paths.push({ path: itemPath, params: itemParams, operations: itemOps });

  if (r.namespaced && has('list')) {
    const p = `${prefix}/${r.resource}`;
    paths.push({
      path: p,
      params: [pathParams.pretty],
      operations: [op({ method: 'get', path: p, action: 'list', operationId: `list${G}${V}${r.kind}ForAllNamespaces`, description: `list or watch objects of kind ${r.kind}`, params: listParams, responses: objectResponses(['200'], listDef) })],
    });
  }

  if (has('watch')) {
    const watchDef = meta('WatchEvent');
    const w = (path: string, params: ParamSpec[], action: 'watch' | 'watchlist', operationId: string, description: string): PathSpec => ({
      path,
      params: [...params, ...listParams],
      operations: [op({ method: 'get', path, action, operationId, description, params: [], responses: objectResponses(['200'], watchDef), watch: true })],
    });
    const wprefix = r.namespaced ? `${prefix}/watch/namespaces/{namespace}/${r.resource}` : `${prefix}/watch/${r.resource}`;
    const scopeOnly = r.namespaced ? [pathParams.namespace] : [];
    paths.push(w(wprefix, scopeOnly, 'watchlist', `watch${G}${V}${ns}${r.kind}List`, `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`));
    paths.push(w(`${wprefix}/{name}`, [pathParams.name(r.kind), ...scopeOnly], 'watch', `watch${G}${V}${ns}${r.kind}`, `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`));
    if (r.namespaced) {
      paths.push(w(`${prefix}/watch/${r.resource}`, [], 'watchlist', `watch${G}${V}${r.kind}ListForAllNamespaces`, `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`));
    }
  }

  const subresource = (name: 'status' | 'scale', schema: string, subGvk: OperationSpec['gvk'], what: string): PathSpec => {
    const path = `${itemPath}/${name}`;
    const Sub = capitalize(name);
    return {
      path,
      params: itemParams,
      operations: [
        op({ method: 'get', path, action: 'get', gvk: subGvk, operationId: `read${G}${V}${ns}${r.kind}${Sub}`, description: `read ${what} of the specified ${r.kind}`, params: [], responses: objectResponses(['200'], schema) }),
        op({ method: 'put', path, action: 'put', gvk: subGvk, operationId: `replace${G}${V}${ns}${r.kind}${Sub}`, description: `replace ${what} of the specified ${r.kind}`, params: writeParams, body: { schema, contentTypes: ['*/*'] }, responses: objectResponses(['200', '201'], schema) }),
        op({ method: 'patch', path, action: 'patch', gvk: subGvk, operationId: `patch${G}${V}${ns}${r.kind}${Sub}`, description: `partially update ${what} of the specified ${r.kind}`, params: [...writeParams, force], body: { schema: meta('Patch'), contentTypes: patchContentTypesOf(r) }, responses: objectResponses(['200', '201'], schema) }),
      ],
    };
  };
  if (r.subresources.scale) paths.push(subresource('scale', scaleDefinition, { group: 'autoscaling', version: 'v1', kind: 'Scale' }, 'scale'));
  if (r.subresources.status) paths.push(subresource('status', kindDef, gvk, 'status'));
  return paths;
}

/** The resources and schemas one document covers, with paths sorted as kube-openapi emits them. */
function documentParts(s: SchemaStyle, defs: BuiltinDefinitions, resources: readonly ResourceInfo[], gv: { group: string; version: string }): { paths: PathSpec[]; schemas: Record<string, JsonObject> } {
  const paths = resources.flatMap(resourcePaths).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { paths, schemas: documentSchemas(s, defs, resources, gv) };
}

function operationExtensions(o: OperationSpec): JsonObject {
  return { 'x-kubernetes-action': o.action, 'x-kubernetes-group-version-kind': gvkExtension(o.gvk.group, o.gvk.version, o.gvk.kind) };
}

const unauthorized: JsonObject = { description: 'Unauthorized' };

function responseMediaTypes(o: OperationSpec): string[] {
  return o.watch || o.action === 'list' ? ['application/json', 'application/json;stream=watch'] : ['application/json'];
}

// ---------------------------------------------------------------------------------------------------------
// OpenAPI v3

export interface OpenAPIV3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, JsonObject>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject> };
  security: JsonObject[];
}

const bearerToken: JsonObject = { type: 'apiKey', in: 'header', name: 'authorization', description: 'Bearer Token authentication' };

function v3Parameter(p: ParamSpec): JsonObject {
  const o: JsonObject = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) o['required'] = true;
  return o;
}

function v3Operation(o: OperationSpec): JsonObject {
  const responses: JsonObject = {};
  for (const r of o.responses) {
    const content: JsonObject = {};
    for (const mt of responseMediaTypes(o)) content[mt] = { schema: v3Style.ref(r.schema) };
    responses[r.code] = { description: r.description, content };
  }
  responses['401'] = unauthorized;
  const op: JsonObject = { tags: [o.tag], description: o.description, operationId: o.operationId };
  // Inline, never $ref: QueryParamVerifierV3 reads parameter names off the PATCH operation itself.
  if (o.params.length) op['parameters'] = o.params.map(v3Parameter);
  if (o.body) {
    const content: JsonObject = {};
    for (const mt of o.body.contentTypes) content[mt] = { schema: v3Style.ref(o.body.schema) };
    op['requestBody'] = { content, required: o.method !== 'delete' };
  }
  op['responses'] = responses;
  return { ...op, ...operationExtensions(o) };
}

/** The OpenAPI v3 document of one group version, or undefined when nothing is served there. */
export function openAPIV3Document(index: ResourceIndex, defs: BuiltinDefinitions, group: string, version: string): OpenAPIV3Document | undefined {
  const resources = index.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  const { paths, schemas } = documentParts(v3Style, defs, resources, { group, version });
  const out: Record<string, JsonObject> = {};
  for (const p of paths) {
    const item: JsonObject = {};
    for (const o of p.operations) item[o.method] = v3Operation(o);
    item['parameters'] = p.params.map(v3Parameter);
    out[p.path] = item;
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: mirroredKubernetesVersion.gitVersion },
    paths: out,
    components: { schemas, securitySchemes: { BearerToken: bearerToken } },
    security: [{ BearerToken: [] }],
  };
}

/** "api/v1", "apis/apps/v1": the keys of the v3 root, as openapi3.GroupVersionToAPIPath makes them. */
export function v3PathKey(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

export interface OpenAPIV3Root {
  paths: Record<string, { serverRelativeURL: string }>;
}

interface RenderedDocument {
  body: string;
  hash: string;
}

/** Renders documents and remembers them until the index changes (its generation moves). */
class DocumentCache {
  private generation = -1;
  private docs = new Map<string, RenderedDocument | undefined>();
  constructor(private readonly index: ResourceIndex) {}

  private sync(): void {
    if (this.generation !== this.index.generation) {
      this.docs.clear();
      this.generation = this.index.generation;
    }
  }

  get(key: string, render: () => object | undefined): RenderedDocument | undefined {
    this.sync();
    if (!this.docs.has(key)) {
      const doc = render();
      const body = doc === undefined ? undefined : JSON.stringify(doc);
      this.docs.set(key, body === undefined ? undefined : { body, hash: contentHash(body) });
    }
    return this.docs.get(key);
  }

  v3(defs: BuiltinDefinitions, group: string, version: string): RenderedDocument | undefined {
    return this.get(`v3:${group}/${version}`, () => openAPIV3Document(this.index, defs, group, version));
  }
}

function serverRelativeURL(key: string, hash: string): string {
  return `/openapi/v3/${key}?hash=${hash}`;
}

/** The /openapi/v3 root: one entry per served group version, its URL pinned to the document's hash. */
export function openAPIV3Root(index: ResourceIndex, hashOf: (group: string, version: string) => string | undefined): OpenAPIV3Root {
  const paths: OpenAPIV3Root['paths'] = {};
  for (const g of index.groups()) {
    for (const v of g.versions) {
      const hash = hashOf(g.group, v);
      if (hash !== undefined) paths[v3PathKey(g.group, v)] = { serverRelativeURL: serverRelativeURL(v3PathKey(g.group, v), hash) };
    }
  }
  return { paths };
}

// ---------------------------------------------------------------------------------------------------------
// OpenAPI v2 (Swagger 2.0)

export interface SwaggerV2Document {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, JsonObject>;
  definitions: Record<string, JsonObject>;
  securityDefinitions: Record<string, JsonObject>;
  security: JsonObject[];
}

function v2Parameter(p: ParamSpec): JsonObject {
  const o: JsonObject = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) o['required'] = true;
  return o;
}

function v2Operation(o: OperationSpec): JsonObject {
  const responses: JsonObject = {};
  for (const r of o.responses) responses[r.code] = { description: r.description, schema: v2Style.ref(r.schema) };
  responses['401'] = unauthorized;
  const params: JsonValue[] = [];
  if (o.body) params.push({ name: 'body', in: 'body', required: o.method !== 'delete', schema: v2Style.ref(o.body.schema) });
  params.push(...o.params.map(v2Parameter));
  const op: JsonObject = {
    description: o.description,
    consumes: o.body ? o.body.contentTypes : ['*/*'],
    produces: responseMediaTypes(o),
    schemes: ['https'],
    tags: [o.tag],
    operationId: o.operationId,
  };
  if (params.length) op['parameters'] = params;
  op['responses'] = responses;
  return { ...op, ...operationExtensions(o) };
}

/** The single Swagger 2.0 document covering every served group version. */
export function swaggerV2Document(index: ResourceIndex, defs: BuiltinDefinitions): SwaggerV2Document {
  const paths: Record<string, JsonObject> = {};
  let definitions: Record<string, JsonObject> = {};
  for (const g of index.groups()) {
    for (const v of g.versions) {
      const parts = documentParts(v2Style, defs, index.inGroupVersion(g.group, v), { group: g.group, version: v });
      for (const p of parts.paths) {
        const item: JsonObject = {};
        for (const o of p.operations) item[o.method] = v2Operation(o);
        item['parameters'] = p.params.map(v2Parameter);
        paths[p.path] = item;
      }
      for (const [name, schema] of Object.entries(parts.schemas)) {
        // Shared meta types appear once; their GVK lists accumulate every group version, as in kube's v2 document.
        const existing = definitions[name];
        const gvks = existing?.['x-kubernetes-group-version-kind'];
        const more = schema['x-kubernetes-group-version-kind'];
        if (existing && Array.isArray(gvks) && Array.isArray(more)) {
          const seen = new Set(gvks.map((x) => JSON.stringify(x)));
          existing['x-kubernetes-group-version-kind'] = [...gvks, ...more.filter((x) => !seen.has(JSON.stringify(x)))];
        } else if (!existing) {
          definitions[name] = schema;
        }
      }
    }
  }
  const sortedPaths: Record<string, JsonObject> = {};
  for (const k of Object.keys(paths).sort()) sortedPaths[k] = paths[k]!;
  const sortedDefs: Record<string, JsonObject> = {};
  for (const k of Object.keys(definitions).sort()) sortedDefs[k] = definitions[k]!;
  definitions = sortedDefs;
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: mirroredKubernetesVersion.gitVersion },
    paths: sortedPaths,
    definitions,
    securityDefinitions: { BearerToken: bearerToken },
    security: [{ BearerToken: [] }],
  };
}

// ---------------------------------------------------------------------------------------------------------
// HTTP

function notAcceptable(): StatusError {
  return new StatusError(406, 'NotAcceptable', 'only the following media types are accepted: application/json', {});
}

/** JSON is what we serve; protobuf-only requests (client-go's v2 and v3 protobuf clients) get 406. */
function acceptsJSON(req: Request): boolean {
  const ranges = parseAccept(req.headers.accept);
  return ranges.length === 0 || ranges.some(acceptsPlainJSON);
}

/** http.ServeContent with a strong ETag: 304 on a matching If-None-Match, otherwise the JSON body. */
function serveWithETag(req: Request, res: Response, doc: RenderedDocument): void {
  const etag = JSON.stringify(doc.hash);
  res.setHeader('ETag', etag);
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    res.status(304).end();
    return;
  }
  sendBody(res, 200, 'application/json', doc.body);
}

/** Mounts /openapi/v2, /openapi/v3, /openapi/v3/api/<version>, /openapi/v3/apis/<group>/<version>. */
export function openapiRouter(index: ResourceIndex): Router {
  const router = Router();
  const cache = new DocumentCache(index);

  router.get('/openapi/v3', async (req, res) => {
    const defs = await builtinDefinitions();
    const root = cache.get('v3:root', () => openAPIV3Root(index, (g, v) => cache.v3(defs, g, v)?.hash));
    serveWithETag(req, res, root!);
  });

  const serveGroupVersion = async (req: Request, res: Response, group: string, version: string): Promise<void> => {
    res.setHeader('Vary', 'Accept');
    const defs = await builtinDefinitions();
    const doc = cache.v3(defs, group, version);
    if (!doc) return writeError(res, notFoundError());
    if (!acceptsJSON(req)) return writeError(res, notAcceptable());
    const hash = typeof req.query['hash'] === 'string' ? req.query['hash'] : undefined;
    if (hash !== undefined && hash !== '') {
      // A stale hash means the client holds an old root: send it to the current document (handler3 does the same).
      if (hash !== doc.hash) {
        res.redirect(301, serverRelativeURL(v3PathKey(group, version), doc.hash));
        return;
      }
      // A hashed URL names exactly one document, so clients may cache it for good.
      res.setHeader('Cache-Control', 'public, immutable');
      res.setHeader('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
    }
    serveWithETag(req, res, doc);
  };

  router.get('/openapi/v3/api/:version', (req, res) => serveGroupVersion(req, res, '', req.params.version));
  router.get('/openapi/v3/apis/:group/:version', (req, res) => serveGroupVersion(req, res, req.params.group, req.params.version));

  router.get('/openapi/v2', async (req, res) => {
    res.setHeader('Vary', 'Accept');
    if (!acceptsJSON(req)) return writeError(res, notAcceptable());
    const defs = await builtinDefinitions();
    serveWithETag(req, res, cache.get('v2', () => swaggerV2Document(index, defs))!);
  });

  return router;
}
