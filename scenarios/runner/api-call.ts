// The API steps (create, apply, update, patch, delete, get) as REST calls: the manifest names apiVersion, kind and
// metadata; the resource and its scope come from the server's discovery document (/api/v1, /apis/<group>/<version>),
// as kubectl's RESTMapper finds them.
import https from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { issueClientCert } from '../../certs/index.js';
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import type { ApiVerb, PatchType } from './scenario-types.js';

export interface ApiCallResult {
  status: number;
  /** The parsed JSON body (a Status on errors), or the raw text when it is not JSON. */
  body: unknown;
  warnings: string[];
}

export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; generateName?: string; [k: string]: unknown };
  [k: string]: unknown;
}

export interface ResourceMapping {
  /** `/api/v1` or `/apis/<group>/<version>` */
  prefix: string;
  resource: string;
  namespaced: boolean;
}

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** Exactly one object with apiVersion, kind and metadata. Pure. */
export function parseManifest(text: string): { ok: true; object: ManifestObject } | { ok: false; error: string } {
  let docs: unknown[];
  try {
    docs = YAML.parseAllDocuments(text).map((d) => {
      if (d.errors.length > 0) throw new Error(d.errors[0]!.message.split('\n')[0]);
      return d.toJS() as unknown;
    }).filter((d) => d !== null && d !== undefined);
  } catch (err) {
    return { ok: false, error: `the manifest is not valid YAML: ${(err as Error).message}` };
  }
  if (docs.length !== 1) return { ok: false, error: `the manifest must hold exactly one object, found ${docs.length}` };
  const o = docs[0] as Partial<ManifestObject>;
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return { ok: false, error: 'the manifest is not an object' };
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') return { ok: false, error: 'the manifest needs apiVersion and kind' };
  if (o.metadata === null || typeof o.metadata !== 'object') return { ok: false, error: 'the manifest needs metadata' };
  return { ok: true, object: o as ManifestObject };
}

/** "ConfigMap/default/x", "Namespace/team-a": how steps are named in progress lines. Pure. */
export function describeObject(o: ManifestObject, namespace: string | undefined): string {
  const name = o.metadata.name ?? (o.metadata.generateName ? `${o.metadata.generateName}*` : '?');
  return namespace ? `${o.kind}/${namespace}/${name}` : `${o.kind}/${name}`;
}

function parseWarnings(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const list = Array.isArray(header) ? header : String(header).split(/,(?=\s*\d{3} )/);
  return list.map((h) => {
    // RFC 7234 warn-text: `299 - "text"` with backslash escapes.
    const m = /^\s*\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(h);
    return m ? m[1]!.replace(/\\(.)/g, '$1') : h.trim();
  });
}

function toResult(status: number, text: string, headers: Record<string, string | string[] | undefined>): ApiCallResult {
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON (a proxy error page, a plain-text 404): keep the text for messages.
  }
  return { status, body, warnings: parseWarnings(headers['warning']) };
}

/** Calls the API as the admin, or as `user` in `groups` with a client certificate from the server's own CA. */
export class ApiClient {
  private readonly discovery = new Map<string, DiscoveredResource[]>();
  private readonly userCerts = new Map<string, { cert: string; key: string }>();

  constructor(private readonly server: ApiServerHandle) {}

  private async userCert(user: string, groups: readonly string[]): Promise<{ cert: string; key: string }> {
    const key = JSON.stringify([user, ...groups]);
    let pair = this.userCerts.get(key);
    if (!pair) {
      // The server trusts client certificates from the CA in its --cert-dir (CN = user, O = groups).
      const ca = { cert: readFileSync(path.join(this.server.certDir, 'ca.crt'), 'utf8'), key: readFileSync(path.join(this.server.certDir, 'ca.key'), 'utf8') };
      pair = await issueClientCert(ca, { user, groups });
      this.userCerts.set(key, pair);
    }
    return pair;
  }

  /** `timeoutMs` (default 10 s) bounds the whole call; a server may hold a request that long before answering. */
  async call(method: string, pathAndQuery: string, opts: { body?: string; contentType?: string; user?: string; groups?: readonly string[]; timeoutMs?: number } = {}): Promise<ApiCallResult> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (opts.body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json';
    if (opts.user === undefined) {
      const res = await this.server.request(pathAndQuery, { method, ...(opts.body !== undefined ? { body: opts.body } : {}), headers, timeoutMs });
      return toResult(res.status, res.body, res.headers);
    }
    const cert = await this.userCert(opts.user, opts.groups ?? []);
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(pathAndQuery, this.server.url),
        { method, headers: { ...headers, ...(opts.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(opts.body)) } : {}) }, ca: this.server.caPem, cert: cert.cert, key: cert.key, agent: false, timeout: timeoutMs },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve(toResult(res.statusCode ?? 0, text, res.headers)));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`request to ${pathAndQuery} timed out`)));
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  /** apiVersion + kind → the resource path, from discovery (asked again when a kind is not found, e.g. a new CRD). */
  async mapping(apiVersion: string, kind: string): Promise<ResourceMapping | { error: string }> {
    const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const find = (): DiscoveredResource | undefined => this.discovery.get(prefix)?.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!find()) {
      const res = await this.server.request(prefix);
      if (res.status !== 200) return { error: `the server does not serve ${apiVersion} (GET ${prefix} answered ${res.status})` };
      const list = res.json<{ resources?: DiscoveredResource[] }>();
      this.discovery.set(prefix, list.resources ?? []);
    }
    const found = find();
    if (!found) return { error: `the server has no kind ${kind} in ${apiVersion}` };
    return { prefix, resource: found.name, namespaced: found.namespaced };
  }
}

export interface ApiStepRequest {
  verb: ApiVerb;
  object: ManifestObject;
  mapping: ResourceMapping;
  namespace: string | undefined;
  dryRun: boolean;
  patchType: PatchType;
  patch?: string;
  user?: string;
  groups: readonly string[];
  /** per HTTP call (default 10 s) */
  timeoutMs?: number;
}

const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** `patch:` as JSON or YAML text → the JSON body to send. */
function patchBody(text: string): string {
  return JSON.stringify(YAML.parse(text));
}

/** Runs one API step; `apply` creates, or replaces what exists (kubectl apply without server-side apply). */
export async function runApiVerb(client: ApiClient, req: ApiStepRequest): Promise<ApiCallResult> {
  const { mapping, object, namespace } = req;
  const collection = `${mapping.prefix}${namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${mapping.resource}`;
  const name = object.metadata.name;
  const item = name === undefined ? undefined : `${collection}/${encodeURIComponent(name)}`;
  const query = req.dryRun ? '?dryRun=All' : '';
  const as = { ...(req.user !== undefined ? { user: req.user } : {}), groups: req.groups, ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}) };
  const body = JSON.stringify(namespace !== undefined ? { ...object, metadata: { ...object.metadata, namespace } } : object);
  const needName = (): string => {
    if (item === undefined) throw new Error(`${req.verb} needs metadata.name in the manifest`);
    return item;
  };
  switch (req.verb) {
    case 'create':
      return client.call('POST', `${collection}${query}`, { body, ...as });
    case 'apply': {
      const existing = await client.call('GET', needName(), as);
      if (existing.status === 404) return client.call('POST', `${collection}${query}`, { body, ...as });
      return client.call('PUT', `${needName()}${query}`, { body, ...as });
    }
    case 'update':
      return client.call('PUT', `${needName()}${query}`, { body, ...as });
    case 'patch': {
      const patch = req.patch !== undefined ? patchBody(req.patch) : body;
      return client.call('PATCH', `${needName()}${query}`, { body: patch, contentType: patchContentTypes[req.patchType], ...as });
    }
    case 'delete':
      return client.call('DELETE', `${needName()}${query}`, as);
    case 'get':
      return client.call('GET', needName(), as);
  }
}
