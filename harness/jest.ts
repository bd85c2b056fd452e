// Test-framework glue: `const env = useApiServer({...})` at the top of a suite starts the server in beforeAll and
// stops it in afterAll, which the framework runs whether the tests passed or failed; the getters read the running
// handle. Jest's (and vitest's, with `globals: true`) hooks are found as globals; vitest without globals and node's
// own runner (node:test) pass theirs as the last argument.
import type { ApiConstructor, ApiType, KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServerHandle, type ApiServerOptions } from './apiserver-process.js';
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from './webhook-server.js';

export interface ApiServerEnv {
  /** The running server; throws outside the suite's lifetime. */
  readonly server: ApiServerHandle;
  /** The admin KubeConfig of the running server. */
  readonly kubeConfig: KubeConfig;
  /** `env.client(k8s.CoreV1Api)`, with `k8s` from this package: a client of the running server as its admin. */
  client<T extends ApiType>(api: ApiConstructor<T>): T;
}

export interface WebhookEnv {
  readonly server: WebhookServer;
  url(path?: string): string;
  readonly caBundle: string;
}

export interface UseWebhookServerOptions extends WebhookServerOptions {
  /** Clear the recorded reviews and restore the default handler before each test (default false). */
  resetBeforeEach?: boolean;
}

/** The hooks of jest and vitest (`import { beforeAll, afterAll, beforeEach } from 'vitest'`): timeouts in ms. */
export interface JestStyleHooks {
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  afterAll(fn: () => Promise<void>, timeout?: number): void;
  /** Needed only by useWebhookServer({ resetBeforeEach: true }). */
  beforeEach?(fn: () => void, timeout?: number): void;
}

/** The hooks of node's test runner (`import { before, after, beforeEach } from 'node:test'`): timeouts in options. */
export interface NodeTestHooks {
  before(fn: () => Promise<void>, options?: { timeout?: number }): void;
  after(fn: () => Promise<void>, options?: { timeout?: number }): void;
  /** Needed only by useWebhookServer({ resetBeforeEach: true }). */
  beforeEach?(fn: () => void, options?: { timeout?: number }): void;
}

export type TestHooks = JestStyleHooks | NodeTestHooks;

/** One shape for both kinds of hooks. */
interface Hooks {
  beforeAll(fn: () => Promise<void>, timeoutMs: number): void;
  afterAll(fn: () => Promise<void>, timeoutMs: number): void;
  beforeEach?(fn: () => void): void;
}

function adaptHooks(h: TestHooks): Hooks {
  if ('before' in h) {
    const each = h.beforeEach;
    return {
      beforeAll: (fn, timeout) => h.before(fn, { timeout }),
      afterAll: (fn, timeout) => h.after(fn, { timeout }),
      ...(each ? { beforeEach: (fn: () => void) => each(fn) } : {}),
    };
  }
  const each = h.beforeEach;
  return {
    beforeAll: (fn, timeout) => h.beforeAll(fn, timeout),
    afterAll: (fn, timeout) => h.afterAll(fn, timeout),
    ...(each ? { beforeEach: (fn: () => void) => each(fn) } : {}),
  };
}

/**
 * The given hooks, else jest's (or vitest's with `globals: true`), which are globals in the test file's realm.
 * Without either the helper cannot work: say how to pass them.
 */
function resolveHooks(helper: string, given: TestHooks | undefined): Hooks {
  if (given) return adaptHooks(given);
  const g = globalThis as Partial<JestStyleHooks>;
  if (typeof g.beforeAll !== 'function' || typeof g.afterAll !== 'function') {
    throw new Error(
      `${helper}() needs the test framework's hooks: in jest (or vitest with globals: true) call it at the top level or in a describe block; ` +
        `otherwise pass them, e.g. ${helper}(options, { beforeAll, afterAll }) from 'vitest', or ${helper}(options, { before, after }) from 'node:test'`,
    );
  }
  return adaptHooks(g as JestStyleHooks);
}

/**
 * The error a getter throws when there is no running server: the start's own error when the start failed (jest
 * and vitest still run the tests after a failed beforeAll; each must show why, not a second, misleading error).
 */
function notRunning(what: string, startError: unknown): Error {
  if (startError === undefined) return new Error(`the ${what} is only available inside tests (after beforeAll)`);
  const message = startError instanceof Error ? startError.message : String(startError);
  return new Error(`the ${what} did not start: ${message}`, { cause: startError });
}

/** Starts the apiserver (and its etcd) before the suite's tests and removes everything after them. */
export function useApiServer(opts: ApiServerOptions = {}, testHooks?: TestHooks): ApiServerEnv {
  const hooks = resolveHooks('useApiServer', testHooks);
  let server: ApiServerHandle | undefined;
  let starting: Promise<ApiServerHandle> | undefined;
  let startError: unknown;
  // etcd start + server start + readiness, with room to spare.
  const startTimeout = (opts.readyTimeoutMs ?? 30_000) + 30_000;
  hooks.beforeAll(async () => {
    startError = undefined;
    starting = startApiServer(opts);
    try {
      server = await starting;
    } catch (err) {
      startError = err;
      throw err;
    }
  }, startTimeout);
  hooks.afterAll(async () => {
    // If beforeAll timed out, the start may still be under way: wait for it so that what it starts is stopped too.
    const s = server ?? (await starting?.catch(() => undefined));
    server = undefined;
    starting = undefined;
    await s?.cleanup();
  }, 30_000);
  const running = (): ApiServerHandle => {
    if (!server) throw notRunning('apiserver of useApiServer()', startError);
    return server;
  };
  return {
    get server() {
      return running();
    },
    get kubeConfig() {
      return running().kubeConfig();
    },
    client<T extends ApiType>(api: ApiConstructor<T>): T {
      return running().client(api);
    },
  };
}

/** Starts a test webhook server before the suite's tests and closes it after them. */
export function useWebhookServer(opts: UseWebhookServerOptions = {}, testHooks?: TestHooks): WebhookEnv {
  const hooks = resolveHooks('useWebhookServer', testHooks);
  let server: WebhookServer | undefined;
  let starting: Promise<WebhookServer> | undefined;
  let startError: unknown;
  hooks.beforeAll(async () => {
    startError = undefined;
    starting = startWebhookServer(opts);
    try {
      server = await starting;
    } catch (err) {
      startError = err;
      throw err;
    }
  }, 30_000);
  hooks.afterAll(async () => {
    const s = server ?? (await starting?.catch(() => undefined));
    server = undefined;
    starting = undefined;
    await s?.close();
  }, 30_000);
  if (opts.resetBeforeEach) {
    if (!hooks.beforeEach) throw new Error('useWebhookServer({ resetBeforeEach: true }) needs a beforeEach hook among the hooks passed');
    hooks.beforeEach(() => server?.reset());
  }
  const running = (): WebhookServer => {
    if (!server) throw notRunning('webhook server of useWebhookServer()', startError);
    return server;
  };
  return {
    get server() {
      return running();
    },
    url(path?: string): string {
      return running().url(path);
    },
    get caBundle() {
      return running().caBundle;
    },
  };
}
