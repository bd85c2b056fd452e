// StaticManifestController: one plugin's staticManifestsDir kept loaded (KEP-5793 "File Watching and Dynamic
// Reloading"). The initial load decides startup (its errors go back to the caller, which fails the process); then
// the directory is watched (fs.watch, debounced) with a polling fallback, every check hashes the files and does
// nothing when the hash is the one applied, a valid change swaps one frozen snapshot, an invalid one is logged and
// counted and the previous snapshot stays. Removing every file is a valid change to no configurations.
//
// Environment (documented in README.md next to this file):
//   KAH_MANIFEST_POLL_INTERVAL   polling interval, a Go duration ("500ms", "2s", "1m") or milliseconds; default 1m
//   KAH_MANIFEST_LOAD_DELAY_MS   fault injection: delay the initial load (and so the port opening) by this many milliseconds; default 0
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { KubeObject } from '../../api/types.js';
import type { Logger } from '../../log.js';
import { hashManifestFiles } from './hash.js';
import { loadManifestFiles, readManifestDir } from './load.js';
import { readManifestDirSync } from './read-dir.js';
import { formatManifestError, type ManifestError } from './manifest-error.js';
import { apiServerIdentity, manifestReloadMetrics, type ManifestReloadMetrics } from './metrics.js';
import { manifestPlugins, type ManifestKindHandlers, type ManifestPlugin } from './plugins.js';

/** kube's defaultReloadInterval. */
export const defaultManifestPollIntervalMs = 60_000;
/** Quiet time after a file event before the directory is read: an editor's or kubelet's burst becomes one check. */
export const defaultManifestDebounceMs = 20;
/** A burst that never goes quiet is still checked this often. */
const maxDebounceMs = 250;

export const manifestPollIntervalEnv = 'KAH_MANIFEST_POLL_INTERVAL';
export const manifestLoadDelayEnv = 'KAH_MANIFEST_LOAD_DELAY_MS';

/** One plugin's loaded configuration: immutable, replaced as a whole. */
export interface ManifestSnapshot {
  /** 0 before the initial load, then increasing with every applied change */
  readonly generation: number;
  /** deep-frozen; webhook configurations, or policies then bindings, each sorted by name */
  readonly objects: readonly KubeObject[];
  /** the content hash of the files that produced it ("" for none) */
  readonly hash: string;
}

export type ManifestLoadOutcome = { ok: true; snapshot: ManifestSnapshot } | { ok: false; errors: ManifestError[]; /** the loader's error as kube words it */ kubeError: string };

export type ManifestReloadOutcome =
  | { status: 'unchanged' }
  | { status: 'reloaded'; snapshot: ManifestSnapshot }
  | { status: 'failed'; errors: ManifestError[]; kubeError: string };

export interface StaticManifestControllerOptions {
  plugin: ManifestPlugin;
  /** the plugin's staticManifestsDir, absolute */
  dir: string;
  log: Pick<Logger, 'info' | 'error'>;
  /** where the reload metrics are registered; none when absent */
  registry?: Registry;
  /** the apiserver identity behind apiserver_id_hash; default apiServerIdentity(os.hostname()) */
  apiServerId?: string;
  /** defaulting and REST validation per kind (see plugins.ts); default: the shared webhook and policy validators, without CEL */
  handlers?: ManifestKindHandlers;
  /** polling fallback; default $KAH_MANIFEST_POLL_INTERVAL, else 1 minute */
  pollIntervalMs?: number;
  /** fault injection: the initial load waits this long; default $KAH_MANIFEST_LOAD_DELAY_MS, else 0 */
  loadDelayMs?: number;
  /** quiet time after a file event; default 20 ms */
  debounceMs?: number;
  /** watch the directory with fs.watch (default true); false leaves only polling */
  watch?: boolean;
  /** the environment the defaults are read from; default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

// ---- environment -------------------------------------------------------------------------------------------

const goDurationUnits: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration ("1m30s", "250ms") or a bare number of milliseconds, in milliseconds. */
export function parseDurationMs(text: string): number | undefined {
  const s = text.trim();
  if (/^\d+$/u.test(s)) return Number(s);
  if (!/^(?:\d+(?:\.\d*)?(?:ns|us|µs|ms|s|m|h))+$/u.test(s)) return undefined;
  let total = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d*)?)(ns|us|µs|ms|s|m|h)/gu)) total += Number(m[1]) * goDurationUnits[m[2]!]!;
  return total;
}

export interface ManifestControllerEnv {
  pollIntervalMs?: number;
  loadDelayMs?: number;
  /** one per variable set to something unusable */
  errors: string[];
}

/** KAH_MANIFEST_POLL_INTERVAL and KAH_MANIFEST_LOAD_DELAY_MS, checked. */
export function parseManifestControllerEnv(env: Readonly<Record<string, string | undefined>>): ManifestControllerEnv {
  const errors: string[] = [];
  const out: { pollIntervalMs?: number; loadDelayMs?: number } = {};
  const poll = env[manifestPollIntervalEnv];
  if (poll !== undefined && poll !== '') {
    const ms = parseDurationMs(poll);
    if (ms === undefined || ms <= 0) errors.push(`${manifestPollIntervalEnv}=${poll}: must be a positive duration ("500ms", "2s", "1m") or a number of milliseconds`);
    else out.pollIntervalMs = ms;
  }
  const delay = env[manifestLoadDelayEnv];
  if (delay !== undefined && delay !== '') {
    if (!/^\d+$/u.test(delay.trim())) errors.push(`${manifestLoadDelayEnv}=${delay}: must be a number of milliseconds`);
    else out.loadDelayMs = Number(delay.trim());
  }
  return { ...out, errors };
}

// ---- the controller ----------------------------------------------------------------------------------------

const emptySnapshot: ManifestSnapshot = Object.freeze({ generation: 0, objects: Object.freeze([]), hash: '' });

function countsOf(plugin: ManifestPlugin, objects: readonly KubeObject[]): Record<string, number> {
  const spec = manifestPlugins[plugin];
  if (spec.family === 'webhook') {
    const webhooks = objects.reduce((n, o) => n + (Array.isArray(o['webhooks']) ? o['webhooks'].length : 0), 0);
    return { configurations: objects.length, webhooks };
  }
  return { policies: objects.filter((o) => o.kind === spec.policyKind).length, bindings: objects.filter((o) => o.kind === spec.bindingKind).length };
}

export class StaticManifestController {
  readonly plugin: ManifestPlugin;
  readonly dir: string;
  readonly pollIntervalMs: number;
  readonly loadDelayMs: number;
  private readonly apiServerId: string;
  private readonly metrics?: ManifestReloadMetrics;
  private current: ManifestSnapshot = emptySnapshot;
  /** the hash of the files behind `current`: an equal hash needs no reload */
  private appliedHash?: string;
  private synced = false;
  private started = false;
  /** whether a watch was ever set up: the first one is followed by a blocking check */
  private watchedBefore = false;
  /** the next check reads the directory blocking (readManifestDirSync) */
  private blockingCheckDue = false;
  private stopped = false;
  private readonly listeners = new Set<(s: ManifestSnapshot) => void>();
  // checks run one at a time; events during a check queue one more
  private chain: Promise<unknown> = Promise.resolve();
  private queued?: Promise<ManifestReloadOutcome>;
  private watcher?: FSWatcher;
  private watchedIno?: number;
  private pollTimer?: NodeJS.Timeout;
  private debounceTimer?: NodeJS.Timeout;
  private burstStartedAt = 0;

  constructor(private readonly opts: StaticManifestControllerOptions) {
    this.plugin = opts.plugin;
    this.dir = opts.dir;
    const env = parseManifestControllerEnv(opts.env ?? process.env);
    // A mistyped test knob would otherwise silently mean "one minute": refuse it, unless an option overrides it.
    const used = env.errors.filter(
      (e) => (opts.pollIntervalMs === undefined && e.startsWith(manifestPollIntervalEnv)) || (opts.loadDelayMs === undefined && e.startsWith(manifestLoadDelayEnv)),
    );
    if (used.length > 0) throw new Error(used.join('; '));
    this.pollIntervalMs = opts.pollIntervalMs ?? env.pollIntervalMs ?? defaultManifestPollIntervalMs;
    this.loadDelayMs = opts.loadDelayMs ?? env.loadDelayMs ?? 0;
    this.apiServerId = opts.apiServerId ?? apiServerIdentity(hostname());
    if (opts.registry) this.metrics = manifestReloadMetrics(opts.registry);
  }

  snapshot(): ManifestSnapshot {
    return this.current;
  }

  /** false until the initial load succeeded */
  hasSynced(): boolean {
    return this.synced;
  }

  /** true while fs.watch follows the directory (false: polling only, e.g. the directory is gone) */
  watching(): boolean {
    return this.watcher !== undefined;
  }

  /** Called after every applied change with the new snapshot; returns the unsubscribe function. */
  subscribe(listener: (s: ManifestSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private get family(): 'webhook' | 'policy' {
    return manifestPlugins[this.plugin].family;
  }

  /**
   * The startup load (LoadInitial): after the injected delay, reads and validates the directory. On success the
   * snapshot is in place, hasSynced() turns true, the success metric is recorded and the "Loaded N …" line logged;
   * on failure nothing changes and the errors are the caller's to print before exiting.
   */
  async loadInitial(): Promise<ManifestLoadOutcome> {
    if (this.loadDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.loadDelayMs));
    // before the port opens: nothing waits on the event loop, and blocking reads cost far less CPU
    const read = readManifestDirSync(this.dir);
    if (!read.ok) return { ok: false, errors: [read.error], kubeError: read.error.reason };
    const result = loadManifestFiles(read.files, this.plugin, this.opts.handlers ? { handlers: this.opts.handlers } : {});
    if (!result.ok) return { ok: false, errors: result.errors, kubeError: result.kubeError };
    const snapshot = this.swap(result.objects, result.hash);
    this.synced = true;
    this.metrics?.recordSuccess(this.plugin, this.apiServerId, result.hash);
    const counts = countsOf(this.plugin, result.objects);
    const n = this.family === 'webhook' ? counts['configurations'] : counts['policies'];
    const noun = this.family === 'webhook' ? 'webhook' : 'admission policy';
    this.opts.log.info(`Loaded ${n} manifest-based ${noun} configurations`, { plugin: this.plugin, dir: this.dir, hash: result.hash, ...counts });
    return { ok: true, snapshot };
  }

  /** Starts watching and polling. The initial load must have succeeded. */
  start(): void {
    if (!this.synced) throw new Error(`StaticManifestController(${this.plugin}).start() before a successful loadInitial()`);
    if (this.started || this.stopped) return;
    this.started = true;
    if (this.opts.watch ?? true) void this.ensureWatcher();
    this.pollTimer = setInterval(() => {
      if (this.opts.watch ?? true) void this.ensureWatcher();
      void this.checkForChanges();
    }, this.pollIntervalMs);
    this.pollTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.closeWatcher();
  }

  /**
   * Checks the directory now (what a file event or a poll tick does): reads it, compares the hash, and applies a
   * valid change. Checks never overlap; a request during a check is served by one more check after it.
   */
  checkForChanges(): Promise<ManifestReloadOutcome> {
    if (this.queued) return this.queued;
    const next = this.chain.then(() => {
      this.queued = undefined;
      const blocking = this.blockingCheckDue;
      this.blockingCheckDue = false;
      return this.check(blocking);
    });
    this.queued = next;
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async check(blocking = false): Promise<ManifestReloadOutcome> {
    if (this.stopped) return { status: 'unchanged' };
    try {
      const read = blocking ? readManifestDirSync(this.dir) : await readManifestDir(this.dir);
      if (!read.ok) return this.fail([read.error], read.error.reason);
      const hash = hashManifestFiles(read.files);
      if (hash === this.appliedHash) return { status: 'unchanged' };
      const result = loadManifestFiles(read.files, this.plugin, this.opts.handlers ? { handlers: this.opts.handlers } : {});
      if (!result.ok) return this.fail(result.errors, result.kubeError, hash);
      if (this.stopped) return { status: 'unchanged' };
      const snapshot = this.swap(result.objects, result.hash);
      this.metrics?.recordSuccess(this.plugin, this.apiServerId, result.hash);
      const message = this.family === 'webhook' ? 'reloaded admission manifest config' : 'reloaded manifest config';
      this.opts.log.info(message, { plugin: this.plugin, dir: this.dir, hash: result.hash, ...countsOf(this.plugin, result.objects) });
      return { status: 'reloaded', snapshot };
    } catch (err) {
      // a bug, not a bad file: still a failed reload that keeps the snapshot in force
      const reason = `internal error: ${(err as Error).message}`;
      return this.fail([{ file: this.dir, reason }], reason);
    }
  }

  // kube records a failure for every check of an invalid directory (the hash is only remembered on success).
  // `attempted` is the hash of the files that failed (when they could be read): the harness's reload wait
  // (harness/manifest-reload.ts) tells from it that the content it wrote is the one refused.
  private fail(errors: ManifestError[], kubeError: string, attempted?: string): ManifestReloadOutcome {
    if (this.stopped) return { status: 'failed', errors, kubeError };
    this.metrics?.recordFailure(this.plugin, this.apiServerId);
    const message = this.family === 'webhook' ? 'reloading admission manifest config' : 'reloading manifest config';
    this.opts.log.error(message, {
      plugin: this.plugin,
      dir: this.dir,
      err: kubeError,
      errors: errors.map(formatManifestError),
      ...(attempted !== undefined ? { attempted } : {}),
      keeping: this.current.hash,
    });
    return { status: 'failed', errors, kubeError };
  }

  private swap(objects: readonly KubeObject[], hash: string): ManifestSnapshot {
    const snapshot: ManifestSnapshot = Object.freeze({ generation: this.current.generation + 1, objects, hash });
    this.current = snapshot;
    this.appliedHash = hash;
    for (const l of this.listeners) l(snapshot);
    return snapshot;
  }

  // ---- watching ------------------------------------------------------------------------------------------

  /** Watches the directory, again if it was replaced (new inode) or the watch ended; a missing one waits for a poll. */
  private async ensureWatcher(): Promise<void> {
    let ino: number;
    try {
      ino = (await stat(this.dir)).ino;
    } catch {
      this.closeWatcher();
      return;
    }
    if (this.stopped || (this.watcher && this.watchedIno === ino)) return;
    this.closeWatcher();
    try {
      const w = watch(this.dir, { persistent: false }, () => this.onFileEvent());
      w.on('error', (err) => {
        this.opts.log.info('manifest directory watch ended; polling until it can be watched again', { plugin: this.plugin, dir: this.dir, error: err.message });
        if (this.watcher === w) this.closeWatcher();
      });
      this.watcher = w;
      this.watchedIno = ino;
      // something may have changed between the last check and the new watch. The first such check, right after
      // the initial load, reads the directory blocking, as that load did: the server is still starting (on etcd
      // its bootstrap writes are under way), and 200 small files read through promises are ≈ 20–40 ms of its
      // main thread's CPU against a few ms blocking.
      if (this.appliedHash !== undefined) {
        if (!this.watchedBefore) this.blockingCheckDue = true;
        this.onFileEvent();
      }
      this.watchedBefore = true;
    } catch (err) {
      this.opts.log.info('cannot watch manifest directory; polling only', { plugin: this.plugin, dir: this.dir, error: (err as Error).message });
    }
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedIno = undefined;
  }

  private onFileEvent(): void {
    if (this.stopped) return;
    const now = Date.now();
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    else this.burstStartedAt = now;
    const wait = Math.max(0, Math.min(this.opts.debounceMs ?? defaultManifestDebounceMs, this.burstStartedAt + maxDebounceMs - now));
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      void this.checkForChanges();
    }, wait);
    this.debounceTimer.unref();
  }
}
