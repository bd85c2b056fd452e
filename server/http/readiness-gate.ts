// Until the static admission configuration is loaded, resource requests are not admitted without it (KEP-5793
// readiness): they wait a bounded time for the load, then get 503 with Retry-After. Health, discovery and other
// non-resource requests pass, so clients and /readyz keep working.
import type { NextFunction, Request, Response } from 'express';
import { errors } from '../api/errors.js';
import type { RequestInfo } from './request-info.js';
import { writeError } from './responses.js';

export interface ReadinessGateOptions {
  ready(): boolean;
  /** settles when loading ends (successfully or not) */
  loaded: Promise<unknown>;
  /** how long a request may wait (default 10 s, the time kube's admission plugins wait for their sources) */
  waitMs?: number;
}

export function readinessGate(opts: ReadinessGateOptions) {
  const waitMs = opts.waitMs ?? 10_000;
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const ri = res.locals['requestInfo'] as RequestInfo;
    if (!ri.isResourceRequest || opts.ready()) return next();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([opts.loaded, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    if (opts.ready()) return next();
    writeError(res, errors.serviceUnavailable('the admission configuration from static manifests is not loaded yet; retry later', 1));
  };
}
