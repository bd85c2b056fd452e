// `kah serve` / `node dist/server/main.js`: kube-apiserver flags in, a serving apiserver out.
// Startup failures print one line per problem on stderr and exit 1, with nothing left listening.
import { loadSigningKey, newTokenIssuer } from './endpoints/subresources/token-request.js';
import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminUser, defaultServingHosts, ensureServingBundle, writeKubeconfig } from '../certs/index.js';
import { ApiServer } from './apiserver.js';
import { loadAuthenticator } from './authn/index.js';
import { loadAuthorizer } from './authz/index.js';
import { answerVirtualResource } from './endpoints/virtual-resources.js';
import { newLogger, type Logger } from './log.js';
import { parseManifestControllerEnv } from './admission/manifest/controller.js';
import { manifestPluginNames, type ManifestPlugin } from './admission/manifest/plugins.js';
import { prefetchManifestDirs } from './admission/manifest/prefetch.js';
import { serviceResolverFor } from './admission/webhook/client.js';
import { loadAdmissionConfiguration, parseServerOptions, serverOptionsUsage, type AdmissionConfig, type ServerOptions } from './options/index.js';
import type { Storage } from './storage/interface.js';
import { MemoryStorage } from './storage/memory.js';

export class StartupError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** The etcd client (gRPC, protobuf) loads only for the etcd3 backend: memory storage starts without it. */
async function buildStorage(o: ServerOptions): Promise<Storage> {
  if (o.etcd.storageBackend === 'memory') return new MemoryStorage();
  const { Etcd3Storage } = await import('./storage/etcd3.js');
  return new Etcd3Storage({ endpoints: o.etcd.servers });
}

async function readOptional(file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new StartupError([`unable to read ${file}: ${(err as Error).message}`]);
  }
}

export function staticManifestDirs(cfg: AdmissionConfig | undefined): Partial<Record<ManifestPlugin, string>> {
  const dirs: Partial<Record<ManifestPlugin, string>> = {};
  for (const plugin of manifestPluginNames) {
    const dir = cfg?.plugins[plugin]?.staticManifestsDir;
    if (dir) dirs[plugin] = dir;
  }
  return dirs;
}

/** --admission-control-config-file, fully validated before anything listens. */
export async function loadAdmissionConfig(o: ServerOptions): Promise<AdmissionConfig | undefined> {
  if (!o.admission.configFile) return undefined;
  const result = await loadAdmissionConfiguration(o.admission.configFile, o.featureGates, { enabledPlugins: o.admission.plugins });
  if (!result.ok) throw new StartupError(result.errors);
  const env = parseManifestControllerEnv(process.env);
  if (env.errors.length) throw new StartupError(env.errors);
  return result.config;
}

/**
 * Names the generated serving certificate covers: loopback, the host name (a compose service's `hostname`), the
 * bind address, and the in-cluster names kube-apiserver's self-signed certificate carries.
 */
function servingHosts(bindAddress: string): string[] {
  const hosts = new Set([...defaultServingHosts, os.hostname(), 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']);
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::') hosts.add(bindAddress);
  return [...hosts].filter(Boolean);
}

/** Everything a start reads or generates before it can serve: admission configuration, certificates, authn/authz. */
async function prepareServing(o: ServerOptions, log: Logger) {
  const admissionConfig = await loadAdmissionConfig(o);
  // parsed while the certificates are generated; loaded (from these parses) before the port opens
  const prefetched = prefetchManifestDirs(Object.values(staticManifestDirs(admissionConfig))).catch(() => undefined);
  const ensured = await ensureServingBundle(o.secureServing.certDir, { hosts: servingHosts(o.secureServing.bindAddress) });
  if (!ensured.ok) throw new StartupError([ensured.error]);
  const bundle = ensured.bundle;
  if (bundle.generated.length) log.info('generated certificates', { dir: bundle.dir, generated: bundle.generated, reasons: bundle.reasons });
  const certPem = (await readOptional(o.secureServing.certFile)) ?? bundle.serving.cert;
  const keyPem = (await readOptional(o.secureServing.keyFile)) ?? bundle.serving.key;
  // The admin client certificate is signed by the generated CA, so that CA authenticates clients unless
  // --client-ca-file names another one.
  const clientCaPem = (await readOptional(o.authentication.clientCAFile)) ?? bundle.ca.cert;
  const authnResult = await loadAuthenticator({ clientCertificates: true, tokenAuthFile: o.authentication.tokenAuthFile, anonymous: o.authentication.anonymous });
  const authzResult = await loadAuthorizer({ modes: o.authorization.modes, policyFile: o.authorization.policyFile });
  const problems = [...(authnResult.ok ? [] : authnResult.errors), ...(authzResult.ok ? [] : authzResult.errors)];
  if (!authnResult.ok || !authzResult.ok) throw new StartupError(problems);
  for (const w of [...authnResult.warnings, ...authzResult.warnings]) log.info('configuration warning', { warning: w });
  const authn = authnResult.authenticator;
  const authz = authzResult.authorizer;
  await prefetched;
  return { admissionConfig, bundle, certPem, keyPem, clientCaPem, authn, authz };
}

/** Builds and starts the server; resolves with it once it listens. Throws StartupError for bad configuration. */
export async function startFromOptions(o: ServerOptions): Promise<ApiServer> {
  const log = newLogger(o.verbosity);
  log.info('starting kube-admission-harness apiserver', {
    bindAddress: o.secureServing.bindAddress,
    securePort: o.secureServing.port,
    storageBackend: o.etcd.storageBackend,
    etcdServers: o.etcd.servers,
    authorizationModes: o.authorization.modes,
    admissionPlugins: o.admission.plugins,
  });
  // The etcd client's modules (gRPC, protobufjs: ≈ 80 ms) load while the configuration is read and the
  // certificates are generated, much of which waits on files and the crypto thread pool.
  const storageBuilt = buildStorage(o);
  // awaited below; a failure before then must not count as an unhandled rejection meanwhile
  storageBuilt.catch(() => undefined);
  const prepared = await prepareServing(o, log).catch(async (err: unknown) => {
    await storageBuilt.then(
      (s) => s.close(),
      () => undefined,
    );
    throw err;
  });
  const { admissionConfig, bundle, certPem, keyPem, clientCaPem, authn, authz } = prepared;
  const serviceResolver = serviceResolverFor(o.admission.serviceResolver);
  const storage = await storageBuilt;
  const server = await ApiServer.start({
    bindAddress: o.secureServing.bindAddress,
    port: o.secureServing.port,
    tls: { certPem, keyPem, clientCaPem },
    rootCaPem: bundle.ca.cert,
    storage,
    etcdPrefix: o.etcd.prefix,
    authn,
    authz,
    virtual: (info, body, req) => answerVirtualResource(info, body, req, { authn, authz }),
    log,
    auditLogPath: o.audit.logPath,
    serviceAccountTokens: newTokenIssuer(o.authentication.serviceAccountIssuers[0] ?? '', o.authentication.apiAudiences, signingKeyLoader(o.authentication.serviceAccountSigningKeyFile, bundle.dir)),
    featureGates: o.featureGates,
    staticManifests: staticManifestDirs(admissionConfig),
    admission: {
      plugins: o.admission.plugins,
      validatingWebhookClient: { serviceResolver, kubeconfigPath: admissionConfig?.plugins.ValidatingAdmissionWebhook?.kubeConfigFile },
      mutatingWebhookClient: { serviceResolver, kubeconfigPath: admissionConfig?.plugins.MutatingAdmissionWebhook?.kubeConfigFile },
    },
  }).catch(async (err: NodeJS.ErrnoException) => {
    await storage.close();
    const listening = err.syscall === 'listen';
    throw new StartupError([listening ? `failed to listen on ${o.secureServing.bindAddress}:${o.secureServing.port}: ${err.message}` : err.message]);
  });
  const loaded = await server.manifestsLoaded;
  if (!loaded.ok) {
    // Nothing was admitted without them (the readiness gate held every resource request): stop, report, exit 1.
    await server.shutdown();
    throw new StartupError(loaded.errors);
  }
  // kubeconfigs and clients need a name the serving certificate covers.
  const serverUrl = server.url.replace('https://0.0.0.0:', 'https://127.0.0.1:');
  if (o.writeKubeconfig) {
    await writeKubeconfig(o.writeKubeconfig, { server: serverUrl, caPem: bundle.ca.cert, user: adminUser, clientCertPem: bundle.admin.cert, clientKeyPem: bundle.admin.key });
  }
  log.info('Serving securely', { url: serverUrl, kubeconfig: o.writeKubeconfig ?? null, certDir: bundle.dir });
  return server;
}

/** The CLI entry: parses flags, starts, and handles SIGTERM/SIGINT with a graceful shutdown. */
export async function runServer(argv: string[]): Promise<void> {
  const parsed = parseServerOptions(argv);
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`Error: ${e}\n`);
    process.exitCode = 1;
    return;
  }
  if (parsed.options.help) {
    process.stdout.write(serverOptionsUsage('kah serve'));
    return;
  }
  for (const w of parsed.warnings) process.stderr.write(`Warning: ${w}\n`);
  let server: ApiServer;
  try {
    server = await startFromOptions(parsed.options);
  } catch (err) {
    const problems = err instanceof StartupError ? err.problems : [(err as Error).stack ?? String(err)];
    for (const p of problems) process.stderr.write(`Error: ${p}\n`);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(JSON.stringify({ ts: new Date().toISOString(), level: 'info', msg: 'shutting down', signal }) + '\n');
    server.shutdown().then(
      () => process.exit(0),
      (err: Error) => {
        process.stderr.write(`Error: shutdown: ${err.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('unhandledRejection', (reason) => {
    // A bug, not a crash: log it loudly and keep serving.
    process.stderr.write(`Error: unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}\n`);
  });
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) void runServer(process.argv.slice(2));

/**
 * --service-account-signing-key-file is read at startup, so a bad file fails the start as in kube-apiserver; the key
 * generated in --cert-dir when the flag is unset is read or made on the first TokenRequest.
 */
function signingKeyLoader(file: string | undefined, certDir: string): () => KeyObject {
  if (file) {
    const key = loadSigningKey(file, certDir);
    return () => key;
  }
  return () => loadSigningKey(undefined, certDir);
}
