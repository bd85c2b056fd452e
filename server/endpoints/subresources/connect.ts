// CONNECT subresources (pods/exec, attach, portforward, proxy; services/proxy; nodes/proxy) as kube's
// handlers.ConnectResource serves them (k8s.io/apiserver/pkg/endpoints/handlers/rest.go): the options object is
// decoded from the query (getRequestOptions; a subpath becomes `path`), admission runs with operation CONNECT, the
// options as the object and no old object, then the Connecter dials the kubelet or the backend. This server runs
// no kubelet and proxies to no backend: once admission allows, the answer is the error kube gives when the kubelet
// cannot be dialed (the upgrade-aware proxy's dial failure through the responder: a 500 Status), or before that
// the pod's own checks of pkg/registry/core/pod/strategy.go (streamLocation: container, host).
import type { Request, Response } from 'express';
import { errors, StatusError } from '../../api/errors.js';
import { newReinvocationContext, type AdmissionAttributes } from '../../admission/attributes.js';
import type { KubeObject } from '../../api/types.js';
import type { RequestInfo } from '../../http/request-info.js';
import { writeError } from '../../http/responses.js';
import type { RequestContext } from '../../registry/request-context.js';
import type { ResourceInfo } from '../../registry/resource.js';
import type { ApiContext } from '../api-context.js';
import type { UrlValues } from '../query-options.js';
import type { ConnectSubresource } from './table.js';

/** strconv.ParseBool, as the parameter codec decodes a bool query parameter */
function parseBool(name: string, v: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/**
 * The v1 options object as kube's parameter codec fills it from the query and the webhook receives it: only the
 * fields the query set (they are omitempty), but `command`, which PodExecOptions always carries (no omitempty).
 */
export function connectOptionsFromQuery(kind: string, q: UrlValues, subpath: string | undefined): KubeObject {
  const o: KubeObject = { kind, apiVersion: 'v1' };
  const first = (k: string): string | undefined => q[k]?.[0];
  const bools = (keys: string[]): void => {
    for (const k of keys) {
      const v = first(k);
      if (v !== undefined && parseBool(k, v)) o[k] = true;
    }
  };
  switch (kind) {
    case 'PodExecOptions':
    case 'PodAttachOptions': {
      bools(['stdin', 'stdout', 'stderr', 'tty']);
      const container = first('container');
      if (container) o['container'] = container;
      if (kind === 'PodExecOptions') o['command'] = q['command'] && q['command'].length > 0 ? [...q['command']] : null;
      break;
    }
    case 'PodPortForwardOptions': {
      const ports = (q['ports'] ?? []).map((p) => {
        const n = /^[+-]?\d+$/.test(p) ? Number(p) : NaN;
        if (!Number.isInteger(n) || n < -2147483648 || n > 2147483647) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(p)}: ${Number.isNaN(n) ? 'invalid syntax' : 'value out of range'}`);
        return n;
      });
      if (ports.length > 0) o['ports'] = ports;
      break;
    }
    default: {
      // PodProxyOptions, ServiceProxyOptions, NodeProxyOptions: the subpath wins over a ?path= query
      const path = subpath ?? first('path');
      if (path) o['path'] = path;
    }
  }
  return o;
}

/** getRequestOptions' subpath: the parts after the subresource, with a leading slash and the request's trailing one. */
export function connectSubpath(ri: RequestInfo): string {
  let p = ri.parts.slice(3).join('/');
  if (p.length > 0 && !p.startsWith('/')) p = `/${p}`;
  if (ri.path.endsWith('/') && !p.endsWith('/')) p += '/';
  return p;
}

function containerNames(list: unknown): string {
  return Array.isArray(list) ? list.map((c) => String((c as { name?: unknown }).name ?? '')).join(' ') : '';
}

/** pod.streamLocation's checks before it dials the kubelet: a valid container, and a node to dial. */
function checkPodStream(pod: KubeObject, name: string, container: string | undefined): void {
  const spec = (pod['spec'] ?? {}) as Record<string, unknown>;
  const containers = Array.isArray(spec['containers']) ? (spec['containers'] as Array<{ name?: string }>) : [];
  if (!container) {
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    if (containers.length > 1) {
      let msg = `a container name must be specified for pod ${name}, choose one of: [${containerNames(spec['containers'])}]`;
      const inits = containerNames(spec['initContainers']);
      if (inits) msg += ` or one of the init containers: [${inits}]`;
      throw errors.badRequest(msg);
    }
  } else {
    const all = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((k) => (Array.isArray(spec[k]) ? (spec[k] as Array<{ name?: string }>) : []));
    if (!all.some((c) => c.name === container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  }
  if (!spec['nodeName']) throw errors.badRequest(`pod ${name} does not have a host assigned`);
}

/** What the Connecter answers once admission allowed: the kubelet or the backend cannot be reached here. */
function noBackend(info: ResourceInfo, sub: string, namespace: string, name: string, target: string): StatusError {
  const what = namespace ? `${info.resource}/${sub} of ${namespace}/${name}` : `${info.resource}/${sub} of ${name}`;
  // kube answers a dial failure with the responder's Status: code 500, reason unset (StatusReasonUnknown)
  return new StatusError(500, '', `error dialing backend: this server runs no kubelet and proxies to no backend (${target}): ${what} cannot be served`);
}

/**
 * kube's ensureAuthorizedForVerb (AuthorizePodWebsocketUpgradeCreatePermission, kube #133515): websockets GET
 * exec, attach and portforward, which authorization saw as `get`; the Connecter also requires `create`, so that
 * policies written for SPDY's POST keep holding.
 */
async function ensureAuthorizedForCreate(api: ApiContext, req: Request, ri: RequestInfo, ctx: RequestContext): Promise<void> {
  if (ri.verb === 'create' || !api.authz) return;
  const decision = await api.authz.authorize({
    user: ctx.user,
    verb: 'create',
    namespace: ri.namespace,
    apiGroup: ri.apiGroup,
    apiVersion: ri.apiVersion,
    resource: ri.resource,
    subresource: ri.subresource,
    name: ri.name,
    resourceRequest: true,
    path: req.path,
  });
  if (decision.decision !== 'Allow') throw errors.forbidden({ group: ri.apiGroup, resource: ri.resource }, ri.name, decision.reason);
}

export async function serveConnect(api: ApiContext, req: Request, res: Response, info: ResourceInfo, ri: RequestInfo, ctx: RequestContext, q: UrlValues, connect: ConnectSubresource): Promise<void> {
  // ConnectResource refuses dry runs before anything else
  if (q['dryRun'] !== undefined) throw errors.badRequest('dryRun is not supported');
  const name = ri.name;
  const sub = ri.subresource;
  const options = connectOptionsFromQuery(connect.optionsKind, q, connect.subpath ? connectSubpath(ri) : undefined);
  const attrs = (): AdmissionAttributes => ({
    operation: 'CONNECT',
    // the storage's New() is the options object: admission's kind is the options' kind (core/v1)
    kind: { group: '', version: 'v1', kind: connect.optionsKind },
    resource: { group: info.group, version: info.version, resource: info.resource },
    subresource: sub,
    name,
    namespace: info.namespaced ? ctx.namespace : '',
    object: structuredClone(options),
    oldObject: undefined,
    // kube passes no operation options for CONNECT (the review's `options` is null)
    options: {},
    dryRun: false,
    userInfo: ctx.user,
    annotations: ctx.auditAnnotations,
    warnings: ctx.warnings,
    reinvocation: newReinvocationContext(),
  });
  await api.admission.admit(attrs());
  await api.admission.validate(attrs());
  if (info.resource === 'pods' && (sub === 'exec' || sub === 'attach' || sub === 'portforward')) await ensureAuthorizedForCreate(api, req, ri, ctx);
  // The Connecter reads the object it connects to (pod.getPod, the service, the node).
  const obj = await api.storeFor(info).get(ctx, name);
  let target: string;
  if (info.resource === 'pods') {
    const spec = (obj['spec'] ?? {}) as Record<string, unknown>;
    if (sub === 'exec' || sub === 'attach') checkPodStream(obj, name, typeof options['container'] === 'string' ? options['container'] : undefined);
    else if (sub === 'portforward' && !spec['nodeName']) throw errors.badRequest(`pod ${name} does not have a host assigned`);
    target = spec['nodeName'] ? `node ${JSON.stringify(spec['nodeName'])}` : 'no pod IP';
  } else if (info.resource === 'nodes') target = `node ${JSON.stringify(name)}`;
  else target = `service ${JSON.stringify(name)}`;
  writeError(res, noBackend(info, sub, info.namespaced ? ctx.namespace : '', name, target));
}
