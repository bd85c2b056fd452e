// The express app: filters in kube-apiserver's order (request info, metrics, request deadline, authentication, audit,
// impersonation, authorization), then health, metrics, discovery, OpenAPI and the REST API.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { errors, StatusError } from '../api/errors.js';
import type { Authenticator } from '../authn/index.js';
import type { Authorizer } from '../authz/index.js';
import type { ApiContext } from '../endpoints/api-context.js';
import { discoveryRouter } from '../endpoints/discovery.js';
import { openapiRouter } from '../endpoints/openapi.js';
import { restHandler } from '../endpoints/rest.js';
import { jwksContentType, jwksPath, openIdCacheControl, openIdConfigPath, type OpenIdMetadata } from '../serviceaccount/openid-metadata.js';
import type { ApiserverMetrics } from '../metrics/registry.js';
import { bodyNestingLimit, maxRequestBodyBytes, rawBodyReader } from './body.js';
import { filterChain } from './filter-chain.js';
import { authenticationFilter, authorizationFilter, metricsFilter, requestDeadlineFilter, requestInfoFilter } from './filters.js';
import { healthRouter, type HealthChecks } from './health.js';
import { impersonationFilter } from './impersonation.js';
import { pathSegmentError } from './path-segments.js';
import { MalformedRequestPathError, type RequestInfo } from './request-info.js';
import { writeError, writeGoBadRequest } from './responses.js';

export interface AppDeps {
  api: ApiContext;
  authn: Authenticator;
  authz: Authorizer;
  /** --authorization-mode includes RBAC: its bootstrap policy decides /healthz, /readyz/…, /version (see authorizationFilter) */
  rbacDecidesPublicInfo?: boolean;
  metrics: ApiserverMetrics;
  health: HealthChecks;
  gitVersion: string;
  /**
   * right after authentication, as in kube-apiserver (WithAudit wraps WithImpersonation and WithAuthorization),
   * so that refused impersonations and denied requests are audited too, under the authenticated user
   */
  audit?: RequestHandler;
  /** the admission coverage report as of now (--admission-coverage), served at /debug/admission-coverage */
  admissionCoverage?: () => unknown;
  /** service account issuer discovery, when the issuer allows it */
  openIdMetadata?: OpenIdMetadata;
}

/** routes/openidmetadata.go: the bytes as rendered, kube's content type and cache header (no charset added). */
function serveOpenIdDocument(res: Response, contentType: string, body: string): void {
  res.status(200).setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', openIdCacheControl);
  res.end(Buffer.from(body));
}

export function buildApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // kube-apiserver sends no ETag on resource responses; hashing every body costs CPU (discovery sets its own).
  app.set('etag', false);
  app.set('query parser', 'extended');
  // Resource requests go straight to the REST handler: no health, metrics, discovery or OpenAPI route matches a
  // path that request info parses as a resource (those are at most /apis/<group>/<version>), so routing them
  // through those routers first only costs time.
  const rest = restHandler(deps.api);
  const namespaced = (ri: RequestInfo): boolean | undefined => deps.api.index.lookup(ri.apiGroup, ri.apiVersion, ri.resource)?.namespaced;
  const serveResource: RequestHandler = (req, res, next) => {
    const ri = res.locals['requestInfo'] as RequestInfo;
    if (!ri.isResourceRequest) {
      next();
      return;
    }
    const badSegment = pathSegmentError(ri, namespaced);
    if (badSegment) writeError(res, badSegment);
    else void rest(req, res);
  };
  app.use(
    filterChain([
      requestInfoFilter(),
      metricsFilter(deps.metrics),
      requestDeadlineFilter(),
      authenticationFilter(deps.authn),
      ...(deps.audit ? [deps.audit] : []),
      // kube's DefaultBuildHandlerChain: authentication → audit → impersonation → authorization; the request is
      // authorized (and admitted) as the impersonated user.
      impersonationFilter(deps.authz),
      authorizationFilter(deps.authz, { rbacDecidesPublicInfo: deps.rbacDecidesPublicInfo ?? false }),
      // Bodies are read raw and decoded by the handlers, which know the media type each verb accepts.
      rawBodyReader(express.raw({ type: () => true, limit: maxRequestBodyBytes })),
      bodyNestingLimit(),
      serveResource,
    ]),
  );
  app.use(healthRouter(deps.health));
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  const coverage = deps.admissionCoverage;
  // a non-resource path like /metrics: authenticated and authorized as `get` on it (kube's /debug/* paths are too)
  if (coverage) app.get('/debug/admission-coverage', (_req, res) => void res.type('application/json').send(JSON.stringify(coverage())));
  const openid = deps.openIdMetadata;
  if (openid) {
    app.get(openIdConfigPath, (_req, res) => serveOpenIdDocument(res, 'application/json', openid.config()));
    app.get(jwksPath, (_req, res) => serveOpenIdDocument(res, jwksContentType, openid.keyset()));
  }
  app.use(discoveryRouter(deps.api.index, { gitVersion: deps.gitVersion }));
  app.use(openapiRouter(deps.api.index));
  app.use((req, res) => {
    if (req.path.startsWith('/api')) writeError(res, new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}));
    else res.status(404).type('text/plain').send('404 page not found\n');
  });
  // body-parser failures (size, encoding) as kube's Status errors.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number; message?: string };
    if (err instanceof MalformedRequestPathError) {
      // Go's net/http answers a request line url.Parse refuses before any handler: plain text, connection closed.
      writeGoBadRequest(res);
      return;
    }
    if (err instanceof StatusError) writeError(res, err);
    else if (e?.type === 'entity.too.large') writeError(res, errors.requestEntityTooLarge(maxRequestBodyBytes));
    else if (e?.status && e.status >= 400 && e.status < 500) writeError(res, errors.badRequest(e.message ?? 'bad request'));
    else writeError(res, err);
  });
  return app;
}
