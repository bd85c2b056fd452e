// /livez, /readyz and /healthz with named checks, in kube-apiserver's text format ("[+]ping ok").
// One deviation, on purpose for a test tool: a failed check prints its reason instead of "reason withheld".
import { Router, type Request, type Response } from 'express';
import { sendBody } from './responses.js';

/** text/plain, as express's res.type('text/plain').send(text) labels it */
const sendText = (res: Response, code: number, text: string): void => sendBody(res, code, 'text/plain; charset=utf-8', text);

export interface HealthCheck {
  name: string;
  /** resolves when healthy; rejects (or throws) with the reason otherwise */
  check(): Promise<void> | void;
}

export class HealthChecks {
  private readonly live: HealthCheck[] = [];
  private readonly ready: HealthCheck[] = [];

  /** A liveness check also counts for readiness, as in kube. */
  addLive(c: HealthCheck): void {
    this.live.push(c);
    this.ready.push(c);
  }

  addReady(c: HealthCheck): void {
    this.ready.push(c);
  }

  checksFor(endpoint: 'livez' | 'readyz' | 'healthz'): HealthCheck[] {
    return endpoint === 'livez' ? this.live : this.ready;
  }

  /** Runs every check of an endpoint; used by the endpoint and by callers that log readiness changes. */
  async run(endpoint: 'livez' | 'readyz' | 'healthz', exclude: Set<string> = new Set()): Promise<Array<{ name: string; error?: string }>> {
    const checks = this.checksFor(endpoint).filter((c) => !exclude.has(c.name));
    return Promise.all(
      checks.map(async (c) => {
        try {
          await c.check();
          return { name: c.name };
        } catch (err) {
          return { name: c.name, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
  }
}

function asList(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

export function healthRouter(checks: HealthChecks): Router {
  const router = Router();
  for (const endpoint of ['livez', 'readyz', 'healthz'] as const) {
    router.get(`/${endpoint}`, async (req: Request, res: Response) => {
      const results = await checks.run(endpoint, new Set(asList(req.query['exclude'])));
      const failed = results.some((r) => r.error !== undefined);
      const verbose = req.query['verbose'] !== undefined;
      // in this order, as before (sendText sets the same Content-Type again)
      res.setHeader('Content-Type', 'text/plain; charset=utf-8').setHeader('X-Content-Type-Options', 'nosniff');
      if (!failed && !verbose) {
        sendText(res, 200, 'ok');
        return;
      }
      const lines = results.map((r) => (r.error === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.error}`));
      lines.push(`${endpoint} check ${failed ? 'failed' : 'passed'}`);
      sendText(res, failed ? 500 : 200, lines.join('\n') + '\n');
    });
    // kube's check names have slashes (/readyz/poststarthook/rbac/bootstrap-roles): the rest of the path is the name
    router.get(`/${endpoint}/*check`, async (req: Request, res: Response) => {
      const segments = (req.params as Record<string, string | string[]>)['check'];
      const name = Array.isArray(segments) ? segments.join('/') : String(segments ?? '');
      const c = checks.checksFor(endpoint).find((x) => x.name === name);
      if (!c) {
        sendText(res, 404, '404 page not found\n');
        return;
      }
      try {
        await c.check();
        sendText(res, 200, 'ok');
      } catch (err) {
        sendText(res, 500, `[-]${c.name} failed: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    });
  }
  return router;
}

