// Jest glue: `const env = useApiServer({...})` at the top of a suite starts the server in beforeAll and stops it in
// afterAll, which jest runs whether the tests passed or failed; the getters read the running handle.
import type { ApiConstructor, ApiType, KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServerHandle, type ApiServerOptions } from './apiserver-process.js';
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from './webhook-server.js';

export interface ApiServerEnv {
  /** The running server; throws outside the suite's lifetime. */
  readonly server: ApiServerHandle;
  /** The admin KubeConfig of the running server. */
  readonly kubeConfig: KubeConfig;
  /** `env.client(CoreV1Api)` */
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

interface JestHooks {
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  afterAll(fn: () => Promise<void>, timeout?: number): void;
  beforeEach(fn: () => void, timeout?: number): void;
}

/** Jest's hooks are globals in the test file's realm; outside jest they are missing and the helper cannot work. */
function jestHooks(helper: string): JestHooks {
  const g = globalThis as Partial<JestHooks>;
  if (typeof g.beforeAll !== 'function' || typeof g.afterAll !== 'function' || typeof g.beforeEach !== 'function') {
    throw new Error(`${helper}() must be called in a jest test file (at the top level or in a describe block)`);
  }
  return g as JestHooks;
}

/** Starts the apiserver (and its etcd) before the suite's tests and removes everything after them. */
export function useApiServer(opts: ApiServerOptions = {}): ApiServerEnv {
  const hooks = jestHooks('useApiServer');
  let server: ApiServerHandle | undefined;
  let starting: Promise<ApiServerHandle> | undefined;
  // etcd start + server start + readiness, with room to spare.
  const startTimeout = (opts.readyTimeoutMs ?? 30_000) + 30_000;
  hooks.beforeAll(async () => {
    starting = startApiServer(opts);
    server = await starting;
  }, startTimeout);
  hooks.afterAll(async () => {
    // If beforeAll timed out, the start may still be under way: wait for it so that what it starts is stopped too.
    const s = server ?? (await starting?.catch(() => undefined));
    server = undefined;
    starting = undefined;
    await s?.cleanup();
  }, 30_000);
  const running = (): ApiServerHandle => {
    if (!server) throw new Error('the apiserver of useApiServer() is only available inside tests (after beforeAll)');
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
export function useWebhookServer(opts: UseWebhookServerOptions = {}): WebhookEnv {
  const hooks = jestHooks('useWebhookServer');
  let server: WebhookServer | undefined;
  let starting: Promise<WebhookServer> | undefined;
  hooks.beforeAll(async () => {
    starting = startWebhookServer(opts);
    server = await starting;
  }, 30_000);
  hooks.afterAll(async () => {
    const s = server ?? (await starting?.catch(() => undefined));
    server = undefined;
    starting = undefined;
    await s?.close();
  });
  if (opts.resetBeforeEach) hooks.beforeEach(() => server?.reset());
  const running = (): WebhookServer => {
    if (!server) throw new Error('the webhook server of useWebhookServer() is only available inside tests (after beforeAll)');
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
