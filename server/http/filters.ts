// The filter chain in front of every handler, in kube-apiserver's order: request info, metrics, authentication,
// (audit and impersonation, in their own modules), authorization. Each filter is small and takes its dependencies as arguments.
import type { NextFunction, Request, Response } from 'express';
import type { TLSSocket } from 'node:tls';
import { errors } from '../api/errors.js';
import type { UserInfo } from '../api/types.js';
import type { Authenticator } from '../authn/index.js';
import { clientCertFromSocket } from '../authn/index.js';
import type { Authorizer } from '../authz/index.js';
import { forbiddenError, forbiddenMessage } from '../authz/index.js';
import type { ApiserverMetrics } from '../metrics/registry.js';
import { metricsDryRun, requestQuery, requestTimeout } from '../endpoints/query-options.js';
import { monotonicNow, requestDeadline } from '../endpoints/request-deadline.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { addWarnings, writeError } from './responses.js';

export function requestInfoFilter() {
  return (req: Request, res: Response, next: NextFunction): void => {
    // kube's request info reads req.URL.Query(): Go's url.Values (requestQuery, parsed once per request), not
    // express's nested "extended" parse. express 5's req.query getter is left lazy: only a few non-resource routes
    // read it, and pinning it here cost a qs parse and a defineProperty (which turns the request object into a
    // slow dictionary for every later property access) on every request.
    res.locals['requestInfo'] = parseRequestInfo(req.method, req.path, requestQuery(req));
    next();
  };
}

const longRunningVerbs = new Set(['watch', 'proxy']);
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/**
 * kube's WithRequestDeadline (filters/request_deadline.go), before authentication: a `timeout` query parameter that
 * time.ParseDuration refuses is a 400 on every request but the long-running ones (watch, proxy, exec, …), which
 * never read it. The deadline is left in res.locals.requestDeadline (request-deadline.ts): the write handlers
 * answer 504 when it passes and admission webhooks are called with what is left of it.
 */
export function requestDeadlineFilter() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const ri = res.locals['requestInfo'] as RequestInfo;
    const longRunning = ri.isResourceRequest && (longRunningVerbs.has(ri.verb) || longRunningSubresources.has(ri.subresource));
    if (!longRunning) {
      const timeout = requestTimeout(requestQuery(req));
      if (!timeout.ok) {
        writeError(res, errors.badRequest(timeout.error));
        return;
      }
      res.locals['requestDeadline'] = requestDeadline(monotonicNow(), timeout.value);
    }
    next();
  };
}

/** kube's metrics verb: the HTTP method, with GET of a collection as LIST and watches as WATCH. */
function metricsVerb(req: Request, ri: RequestInfo): string {
  if (ri.verb === 'watch') return 'WATCH';
  if (ri.verb === 'list') return 'LIST';
  return req.method.toUpperCase();
}

function metricsScope(ri: RequestInfo): string {
  if (!ri.isResourceRequest) return '';
  if (ri.name) return 'resource';
  if (ri.namespace) return 'namespace';
  return 'cluster';
}

export function metricsFilter(metrics: ApiserverMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ri = res.locals['requestInfo'] as RequestInfo;
      const labels = {
        verb: metricsVerb(req, ri),
        dry_run: metricsDryRun(requestQuery(req)),
        group: ri.apiGroup,
        version: ri.apiVersion,
        resource: ri.resource,
        subresource: ri.subresource,
        scope: metricsScope(ri),
        component: 'apiserver',
      };
      metrics.requestTotal.inc({ ...labels, code: String(res.statusCode) });
      if (ri.verb !== 'watch') metrics.requestDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}

/** The client certificate cannot change within a TLS connection: read it once per socket (keep-alive clients). */
const peerCertificates = new WeakMap<object, ReturnType<typeof clientCertFromSocket>>();
function peerCertificate(socket: TLSSocket): ReturnType<typeof clientCertFromSocket> {
  if (!peerCertificates.has(socket)) peerCertificates.set(socket, clientCertFromSocket(socket));
  return peerCertificates.get(socket);
}

export function authenticationFilter(authn: Authenticator) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const result = await authn.authenticate({ headers: req.headers, clientCert: peerCertificate(req.socket as TLSSocket) });
    addWarnings(res, result.warnings);
    if (!result.ok) {
      writeError(res, result.status);
      return;
    }
    res.locals['user'] = result.user;
    next();
  };
}

/** Paths kube's bootstrap RBAC opens to everyone (system:public-info-viewer), kept open under every mode here. */
const publicInfoPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);
function isPublicInfo(path: string): boolean {
  return publicInfoPaths.has(path) || /^\/(healthz|livez|readyz)\//.test(path);
}

export interface AuthorizationFilterOptions {
  /**
   * RBAC is among the modes: its bootstrap policy (system:public-info-viewer, system:discovery, system:monitoring)
   * decides the health and version paths, as in kube (`/readyz/etcd` is then system:monitoring's), instead of the
   * shortcut that keeps them open under the other modes.
   */
  rbacDecidesPublicInfo?: boolean;
}

export function authorizationFilter(authz: Authorizer, opts: AuthorizationFilterOptions = {}) {
  const publicInfoShortcut = !opts.rbacDecidesPublicInfo;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const ri = res.locals['requestInfo'] as RequestInfo;
    const user = res.locals['user'] as UserInfo;
    if (publicInfoShortcut && !ri.isResourceRequest && isPublicInfo(req.path)) return next();
    const attrs = {
      user,
      verb: ri.verb,
      namespace: ri.namespace,
      apiGroup: ri.apiGroup,
      apiVersion: ri.apiVersion,
      resource: ri.resource,
      subresource: ri.subresource,
      name: ri.name,
      resourceRequest: ri.isResourceRequest,
      path: req.path,
    };
    const decision = await authz.authorize(attrs);
    if (decision.decision === 'Allow') return next();
    const why = forbiddenMessage(attrs) + (decision.reason ? `: ${decision.reason}` : '');
    if (ri.isResourceRequest) {
      // kube: the subresource shows in the message ("pods/status"), not in the Status' group-resource.
      writeError(res, errors.forbidden({ group: ri.apiGroup, resource: ri.resource }, ri.name, why));
    } else writeError(res, forbiddenError(attrs, decision.reason));
  };
}
