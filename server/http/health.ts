// /livez, /readyz and /healthz with named checks, in kube-apiserver's text format ("[+]ping ok"), as its healthz
// handlers write it (k8s.io/apiserver/pkg/server/healthz): `exclude` skips checks ("[+]etcd excluded: ok") and warns
// of names no check has, one check's own path answers "ok" or "internal server error: <reason>".
// One deviation, on purpose for a test tool: a failed check prints its reason instead of "reason withheld".
import { Router, type Request, type Response } from 'express';
import { goQuote } from '../options/go-strconv.js';
import { sendBody } from './responses.js';

/** text/plain, as express's res.type('text/plain').send(text) labels it */
const sendText = (res: Response, code: number, text: string): void => sendBody(res, code, 'text/plain; charset=utf-8', text);

export interface HealthCheck {
  name: string;
  /** resolves when healthy; rejects (or throws) with the reason otherwise */
  check(): Promise<void> | void;
}

export interface HealthResult {
  name: string;
  /** why the check failed */
  error?: string;
  /** named in the request's `exclude`: not run */
  excluded?: true;
}

export class HealthChecks {
  private readonly healthz: HealthCheck[] = [];
  private readonly livez: HealthCheck[] = [];
  private readonly readyz: HealthCheck[] = [];
  private readonly beforeFirstReady: Array<() => void> = [];

  /**
   * Runs `fn` once, synchronously, just before /readyz or /healthz first answers 200 with every check run: whoever
   * waits for readiness (and may kill the server next) cannot stop it (server/main-loader.ts writes its code cache so).
   */
  onFirstReady(fn: () => void): void {
    this.beforeFirstReady.push(fn);
  }

  /** Whether something still waits for the first readiness (onFirstReady). */
  get awaitingFirstReady(): boolean {
    return this.beforeFirstReady.length > 0;
  }

  /** Called by the endpoints when every readiness check passed, none excluded. */
  passedReadiness(): void {
    for (const fn of this.beforeFirstReady.splice(0)) fn();
  }

  /**
   * A check of /healthz, /livez and /readyz: kube's AddHealthChecks, and its AddBootSequenceHealthChecks (the post-start
   * hooks), whose --livez-grace-period this server accepts and ignores (its default, 0, is what it does).
   */
  addHealthCheck(c: HealthCheck): void {
    this.healthz.push(c);
    this.livez.push(c);
    this.readyz.push(c);
  }

  /** A check of /readyz only: kube's AddReadyzChecks ("etcd-readiness", "informer-sync", "shutdown"). */
  addReadyzCheck(c: HealthCheck): void {
    this.readyz.push(c);
  }

  /** Whether the checks /readyz has and /healthz has not pass (a /healthz 200 then means ready too). */
  async readyzOnlyChecksPass(): Promise<boolean> {
    const own = this.readyz.filter((c) => !this.healthz.includes(c));
    const results = await Promise.allSettled(own.map(async (c) => c.check()));
    return results.every((r) => r.status === 'fulfilled');
  }

  checksFor(endpoint: 'livez' | 'readyz' | 'healthz'): HealthCheck[] {
    return endpoint === 'livez' ? this.livez : endpoint === 'readyz' ? this.readyz : this.healthz;
  }

  /**
   * Runs every check of an endpoint but the excluded ones (reported as such, in their place); used by the endpoint
   * and by callers that wait for readiness.
   */
  async run(endpoint: 'livez' | 'readyz' | 'healthz', exclude: ReadonlySet<string> = new Set()): Promise<HealthResult[]> {
    return Promise.all(
      this.checksFor(endpoint).map(async (c): Promise<HealthResult> => {
        if (exclude.has(c.name)) return { name: c.name, excluded: true };
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

/** An informer as kube's informer-sync check sees it: its type's name and whether its first list is in. */
export interface SyncingInformer {
  typeName: string;
  hasSynced(): boolean;
}

/**
 * kube's "informer-sync" readyz check (healthz.NewInformerSyncHealthz over the shared informer factory): it fails
 * while an informer has not synced, naming them as Go's %v prints a []string.
 */
export function informerSyncCheck(informers: () => Iterable<SyncingInformer>): HealthCheck {
  return {
    name: 'informer-sync',
    check: () => {
      const notStarted = [...informers()].filter((i) => !i.hasSynced()).map((i) => i.typeName);
      if (notStarted.length > 0) throw new Error(`${notStarted.length} informers not started yet: [${notStarted.join(' ')}]`);
    },
  };
}

/**
 * The query's `exclude` values and whether it names `verbose`, read straight from the URL: req.query would load the
 * app's extended query parser (qs, ≈ 4 ms) for the first /readyz of every start; for these plain keys both read the same.
 */
function healthQuery(req: Request): { exclude: Set<string>; verbose: boolean } {
  const q = req.originalUrl.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : req.originalUrl.slice(q + 1));
  return { exclude: new Set(params.getAll('exclude')), verbose: params.has('verbose') };
}

export function healthRouter(checks: HealthChecks): Router {
  const router = Router();
  for (const endpoint of ['livez', 'readyz', 'healthz'] as const) {
    router.get(`/${endpoint}`, async (req: Request, res: Response) => {
      const query = healthQuery(req);
      const results = await checks.run(endpoint, query.exclude);
      const failed = results.some((r) => r.error !== undefined);
      const verbose = query.verbose;
      // in this order, as before (sendText sets the same Content-Type again)
      res.setHeader('Content-Type', 'text/plain; charset=utf-8').setHeader('X-Content-Type-Options', 'nosniff');
      // the first 200 that means ready: /readyz's, or /healthz's when /readyz's own checks pass as well
      if (!failed && query.exclude.size === 0 && checks.awaitingFirstReady && (endpoint === 'readyz' || (endpoint === 'healthz' && (await checks.readyzOnlyChecksPass())))) {
        checks.passedReadiness();
      }
      if (!failed && !verbose) {
        sendText(res, 200, 'ok');
        return;
      }
      const lines = results.map((r) => (r.excluded ? `[+]${r.name} excluded: ok` : r.error === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.error}`));
      const known = new Set(results.map((r) => r.name));
      const unknown = [...query.exclude].filter((n) => !known.has(n)).sort();
      if (unknown.length > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${unknown.map(goQuote).join(',')}`);
      lines.push(`${endpoint} check ${failed ? 'failed' : 'passed'}`);
      sendText(res, failed ? 500 : 200, lines.join('\n') + '\n');
    });
    // kube's check names have slashes (/readyz/poststarthook/rbac/bootstrap-roles): the rest of the path is the name
    router.get(`/${endpoint}/*check`, async (req: Request, res: Response) => {
      const segments = (req.params as Record<string, string | string[]>)['check'];
      const name = Array.isArray(segments) ? segments.join('/') : String(segments ?? '');
      const c = checks.checksFor(endpoint).find((x) => x.name === name);
      if (!c) {
        // net/http's NotFound (http.Error)
        res.setHeader('Content-Type', 'text/plain; charset=utf-8').setHeader('X-Content-Type-Options', 'nosniff');
        sendText(res, 404, '404 page not found\n');
        return;
      }
      try {
        await c.check();
        sendText(res, 200, 'ok');
      } catch (err) {
        // kube's adaptCheckToHandler: http.Error with the check's error
        res.setHeader('Content-Type', 'text/plain; charset=utf-8').setHeader('X-Content-Type-Options', 'nosniff');
        sendText(res, 500, `internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    });
  }
  return router;
}

