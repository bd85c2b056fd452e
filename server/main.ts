// `kah serve` / `node dist/server/main.js`: kube-apiserver flags in, a serving apiserver out.
// Startup failures print one line per problem on stderr and exit 1, with nothing left listening.
import { loadSigningKey, newTokenIssuer, type ServiceAccountTokenIssuer } from './endpoints/subresources/token-request.js';
import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isIP, isIPv6 } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminUser, writeKubeconfigSync } from '../certs/index.js';
import { servingHosts } from '../certs/serving-hosts.js';
import { ensureServingBundleOffThread } from '../certs/bundle-off-thread.js';
import { ApiServer } from './apiserver.js';
import { loadAuthenticator } from './authn/index.js';
import { deferredTokenGetter, ServiceAccountTokenAuthenticator } from './authn/service-account-token.js';
import { newOpenIdMetadata } from './serviceaccount/openid-metadata.js';
import { loadPublicKeyFiles, staticPublicKeys, toServiceAccountKeys, type PublicKeysGetter } from './serviceaccount/public-keys.js';
import { loadAuthorizer } from './authz/index.js';
import { answerVirtualResource } from './endpoints/virtual-resources.js';
import { newLogger, type Logger } from './log.js';
import { parseManifestControllerEnv } from './admission/manifest/controller.js';
import { manifestPluginNames, type ManifestPlugin } from './admission/manifest/plugins.js';
import { prefetchManifestDirs } from './admission/manifest/prefetch.js';
import { waitForEtcdConnection } from './storage/etcd-preflight.js';
import { serviceResolverFor } from './admission/webhook/client.js';
import { formatCoverageSummary } from './admission/coverage/summary-table.js';
import { loadAdmissionConfiguration, parseServerOptions, serverOptionsUsage, type AdmissionConfig, type ServerOptions } from './options/index.js';
import type { Storage } from './storage/interface.js';
import { MemoryStorage } from './storage/memory.js';

export class StartupError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** The etcd client (gRPC, protobuf) loads only for the etcd3 backend: memory storage starts without it. */
async function buildStorage(o: ServerOptions, log: Logger): Promise<Storage> {
  if (o.etcd.storageBackend === 'memory') return new MemoryStorage();
  let waiting = false;
  const onRetry = (): void => {
    if (!waiting) log.info('waiting for etcd connection', { etcdServers: o.etcd.servers });
    waiting = true;
  };
  // kube-apiserver waits for etcd to accept connections before it builds its storage; the client's modules load meanwhile
  const [{ Etcd3Storage }] = await Promise.all([
    import('./storage/etcd3.js'),
    waitForEtcdConnection(o.etcd.servers, { onRetry }).catch((err: Error) => {
      throw new StartupError([err.message]);
    }),
  ]);
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
 * kube-apiserver serves <cert-dir>/apiserver.crt and apiserver.key when they are there (MaybeDefaultWithSelfSignedCerts
 * generates them only when missing); controller-runtime's envtest writes them, signed by its own CA, before it starts
 * the server. A pair this server did not generate (no ca.crt beside it) is served as is, and the generated CA and
 * admin certificate go to a subdirectory instead, leaving the given files untouched.
 */
function givenServingPair(o: ServerOptions): { certFile: string; keyFile: string; bundleDir: string } | undefined {
  const dir = o.secureServing.certDir;
  const certFile = path.join(dir, 'apiserver.crt');
  const keyFile = path.join(dir, 'apiserver.key');
  if (o.secureServing.certFile || !existsSync(certFile) || !existsSync(keyFile) || existsSync(path.join(dir, 'ca.crt'))) return undefined;
  return { certFile, keyFile, bundleDir: path.join(dir, 'kah') };
}

/** The certificates a start serves with, and the generated bundle (its CA, the admin's client certificate). */
async function servingMaterial(o: ServerOptions, log: Logger, given: ReturnType<typeof givenServingPair>) {
  // A fresh --cert-dir's certificates are generated on a worker thread (certs/bundle-off-thread.ts), which
  // server/main-loader.ts started before the server bundle loaded.
  const ensured = await ensureServingBundleOffThread(given?.bundleDir ?? o.secureServing.certDir, {
    hosts: servingHosts(o.secureServing.bindAddress, o.externalHostname),
  });
  if (!ensured.ok) throw new StartupError([ensured.error]);
  const bundle = ensured.bundle;
  if (bundle.generated.length) log.info('generated certificates', { dir: bundle.dir, generated: bundle.generated, reasons: bundle.reasons });
  if (given) log.info('serving the certificate found in --cert-dir', { cert: given.certFile, key: given.keyFile });
  const certPem = (await readOptional(o.secureServing.certFile ?? given?.certFile)) ?? bundle.serving.cert;
  const keyPem = (await readOptional(o.secureServing.keyFile ?? given?.keyFile)) ?? bundle.serving.key;
  // The admin client certificate is signed by the generated CA, so that CA authenticates clients unless
  // --client-ca-file names another one.
  const clientCaPem = (await readOptional(o.authentication.clientCAFile)) ?? bundle.ca.cert;
  return { bundle, tls: { certPem, keyPem, clientCaPem, rootCaPem: bundle.ca.cert } };
}

type ServingMaterial = Awaited<ReturnType<typeof servingMaterial>>;

/**
 * Everything a start reads or generates before it can serve: admission configuration, certificates (still being
 * generated when this resolves: `material`), authn/authz. A problem is reported in the order the steps had when the
 * certificates were awaited first: admission configuration, certificates, service-account keys, authn/authz.
 */
async function prepareServing(o: ServerOptions, log: Logger) {
  const admissionConfig = await loadAdmissionConfig(o);
  // parsed while the certificates are generated; loaded (from these parses) before the port opens
  const prefetched = prefetchManifestDirs(Object.values(staticManifestDirs(admissionConfig))).catch(() => undefined);
  const given = givenServingPair(o);
  const material = servingMaterial(o, log, given);
  // awaited by whoever needs it; a failure before then must not count as an unhandled rejection meanwhile
  material.catch(() => undefined);
  // a problem found while the certificates are generated waits for them: theirs is reported first
  const afterMaterial = async (err: unknown): Promise<never> => {
    await material;
    throw err;
  };
  // ensureServingBundle's directory: the bundle's dir once generated
  const bundleDir = path.resolve(given?.bundleDir ?? o.secureServing.certDir);
  let serviceAccounts: ReturnType<typeof serviceAccountAuthentication>;
  try {
    serviceAccounts = serviceAccountAuthentication(o, bundleDir);
  } catch (err) {
    return afterMaterial(err);
  }
  const authnResult = await loadAuthenticator({
    clientCertificates: true,
    tokenAuthFile: o.authentication.tokenAuthFile,
    anonymous: o.authentication.anonymous,
    apiAudiences: o.authentication.apiAudiences,
    serviceAccountTokens: serviceAccounts.authenticator,
  });
  const authzResult = await loadAuthorizer({ modes: o.authorization.modes, policyFile: o.authorization.policyFile });
  const problems = [...(authnResult.ok ? [] : authnResult.errors), ...(authzResult.ok ? [] : authzResult.errors)];
  if (!authnResult.ok || !authzResult.ok) return afterMaterial(new StartupError(problems));
  // logged after the certificates' lines, as before
  void material.then(() => {
    for (const w of [...authnResult.warnings, ...authzResult.warnings]) log.info('configuration warning', { warning: w });
  }, () => undefined);
  const authn = authnResult.authenticator;
  const authz = authzResult.authorizer;
  await prefetched;
  return { admissionConfig, material, afterMaterial, authn, authz, serviceAccounts };
}

/**
 * The service-account token machinery kube-apiserver builds from its flags: the signing key (read at startup when
 * given, generated in --cert-dir on first use otherwise), the verifying keys (--service-account-key-file, defaulting
 * to the signing key as kube's options completion does), the authenticator, and issuer discovery.
 */
function serviceAccountAuthentication(o: ServerOptions, certDir: string) {
  const a = o.authentication;
  const issuer = newTokenIssuer(a.serviceAccountIssuers[0] ?? '', a.apiAudiences, signingKeyLoader(a.serviceAccountSigningKeyFile, certDir));
  let keys: PublicKeysGetter;
  if (a.serviceAccountKeyFiles.length) {
    const loaded = loadPublicKeyFiles(a.serviceAccountKeyFiles);
    if (!loaded.ok) throw new StartupError(loaded.errors);
    keys = staticPublicKeys(() => loaded.keys);
  } else {
    keys = staticPublicKeys(() => toServiceAccountKeys([issuer.key]));
  }
  const objects = deferredTokenGetter();
  const authenticator = new ServiceAccountTokenAuthenticator({
    issuers: a.serviceAccountIssuers,
    keys,
    implicitAudiences: a.apiAudiences,
    ...(a.serviceAccountLookup ? { getter: objects.getter } : {}),
  });
  return { issuer, keys, authenticator, bindObjects: objects.bind };
}

/** kube's ExternalAddress: the advertise address (else the bind address, else loopback) and the secure port. */
function externalHost(o: ServerOptions): string {
  const bind = o.secureServing.bindAddress;
  const host = o.advertiseAddress ?? (bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind);
  return isIP(host) === 6 ? `[${host}]` : host;
}

function openIdMetadataFor(o: ServerOptions, issuer: ServiceAccountTokenIssuer, keys: PublicKeysGetter, port: () => number, log: Logger) {
  const r = newOpenIdMetadata(issuer.issuer, o.authentication.serviceAccountJwksUri ?? '', () => `${externalHost(o)}:${port()}`, keys);
  // kube-apiserver logs the reason and serves no discovery endpoints
  if (!r.ok) {
    log.info('not serving service account issuer discovery', { error: r.error });
    return undefined;
  }
  return r.metadata;
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
  const storageBuilt = buildStorage(o, log);
  // awaited below; a failure before then must not count as an unhandled rejection meanwhile
  storageBuilt.catch(() => undefined);
  const prepared = await prepareServing(o, log).catch(async (err: unknown) => {
    await storageBuilt.then(
      (s) => s.close(),
      () => undefined,
    );
    throw err;
  });
  const { admissionConfig, material, afterMaterial, authn, authz, serviceAccounts } = prepared;
  let listeningPort = o.secureServing.port;
  const openIdMetadata = openIdMetadataFor(o, serviceAccounts.issuer, serviceAccounts.keys, () => listeningPort, log);
  const serviceResolver = serviceResolverFor(o.admission.serviceResolver);
  const storage = await storageBuilt.catch(afterMaterial);
  // The server is built while the certificates are generated (on the worker thread) and listens once they are there.
  let materialFailure: { error: unknown } | undefined;
  let resolvedMaterial: ServingMaterial | undefined;
  const tls = material.then(
    (m: ServingMaterial) => {
      resolvedMaterial = m;
      return m.tls;
    },
    (error: unknown) => {
      materialFailure = { error };
      throw error;
    },
  );
  // ApiServer.start awaits it; until then a failure must not count as an unhandled rejection
  tls.catch(() => undefined);
  const server = await ApiServer.start({
    bindAddress: o.secureServing.bindAddress,
    port: o.secureServing.port,
    tls,
    // The kubeconfig is in place before the server can answer anything: whoever waits for /readyz 200 may read it.
    ...(o.writeKubeconfig ? { onListening: (port: number) => writeServerKubeconfig(o, resolvedMaterial!.bundle, port) } : {}),
    storage,
    etcdPrefix: o.etcd.prefix,
    // 0: the default, as kube's newETCD3HealthCheck and newETCD3ReadyCheck read it
    ...(o.etcd.healthcheckTimeoutMs !== 0 ? { etcdHealthcheckTimeoutMs: o.etcd.healthcheckTimeoutMs } : {}),
    ...(o.etcd.readycheckTimeoutMs !== 0 ? { etcdReadycheckTimeoutMs: o.etcd.readycheckTimeoutMs } : {}),
    authn,
    authz,
    ...(authz.rbac ? { rbac: authz.rbac } : {}),
    virtual: (info, body, req) => answerVirtualResource(info, body, req, { authn, authz }),
    log,
    auditLogPath: o.audit.logPath,
    serviceAccountTokens: serviceAccounts.issuer,
    bindServiceAccountTokenGetter: serviceAccounts.bindObjects,
    ...(openIdMetadata ? { openIdMetadata } : {}),
    featureGates: o.featureGates,
    staticManifests: staticManifestDirs(admissionConfig),
    ...(o.admissionCoverage ? { admissionCoverageFile: path.resolve(o.admissionCoverage) } : {}),
    admission: {
      plugins: o.admission.plugins,
      validatingWebhookClient: { serviceResolver, kubeconfigPath: admissionConfig?.plugins.ValidatingAdmissionWebhook?.kubeConfigFile },
      mutatingWebhookClient: { serviceResolver, kubeconfigPath: admissionConfig?.plugins.MutatingAdmissionWebhook?.kubeConfigFile },
    },
  }).catch(async (err: NodeJS.ErrnoException) => {
    await storage.close();
    // the certificates' own error, exactly as it was reported when they were awaited before the server was built
    if (materialFailure && err === materialFailure.error) throw err;
    const listening = err.syscall === 'listen';
    throw new StartupError([listening ? `failed to listen on ${o.secureServing.bindAddress}:${o.secureServing.port}: ${err.message}` : err.message]);
  });
  const loaded = await server.manifestsLoaded;
  if (!loaded.ok) {
    // The port never opened (static manifests load before it, as kube loads them during plugin initialization):
    // nothing was admitted; stop, report, exit 1.
    await server.shutdown();
    throw new StartupError(loaded.errors);
  }
  listeningPort = server.port;
  const { bundle } = await material;
  // kubeconfigs and clients need a name the serving certificate covers.
  const serverUrl = server.url.replace('https://0.0.0.0:', 'https://127.0.0.1:');
  log.info('Serving securely', { url: serverUrl, kubeconfig: o.writeKubeconfig ?? null, certDir: bundle.dir });
  const staticManifests = Object.keys(staticManifestDirs(admissionConfig)).length > 0;
  codePathsOfStarts.set(server, [`storage:${o.etcd.storageBackend}`, ...(staticManifests ? ['static-manifests'] : [])]);
  return server;
}

const codePathsOfStarts = new WeakMap<ApiServer, readonly string[]>();

/**
 * The parts of the server whose code a start ran before it listened that other starts may not run: its storage
 * backend (etcd3: the etcd client, gRPC and protobufjs, ≈ 0.6 MB of V8's code cache) and static manifests (the
 * YAML reader, strict decoding, the CEL parser, checker and compiler, webhook configuration validation, ≈ 0.2 MB).
 * The code cache (server/main-loader.ts) records them and is written again when a start took a path it does not
 * hold. Without the static manifests' functions in it, every start with manifests compiled them lazily: 100 + 100
 * manifests with certificates present, 30 alternated starts, 302 → 279 ms of main-thread CPU to ready; a plain
 * memory start with the larger cache is unchanged (memory + etcd3's 2.0 MB against memory's 1.8 MB: 208 / 206 ms).
 */
export function startCodePaths(server: ApiServer): readonly string[] {
  return codePathsOfStarts.get(server) ?? [];
}

/** --write-kubeconfig's file: the admin client certificate, for the URL this server answers on. */
function writeServerKubeconfig(o: ServerOptions, bundle: ServingMaterial['bundle'], port: number): void {
  const file = o.writeKubeconfig!;
  const server = o.externalHostname ? `https://${isIPv6(o.externalHostname) ? `[${o.externalHostname}]` : o.externalHostname}:${port}` : ApiServer.urlFor(o.secureServing.bindAddress, port);
  try {
    writeKubeconfigSync(file, { server, caPem: bundle.ca.cert, user: adminUser, clientCertPem: bundle.admin.cert, clientKeyPem: bundle.admin.key });
  } catch (err) {
    throw new Error(`unable to write the --write-kubeconfig file ${file}: ${(err as Error).message}`);
  }
}

/**
 * The CLI entry: parses flags, starts, and handles SIGTERM/SIGINT with a graceful shutdown. Resolves with the server
 * once it listens (undefined when it does not serve: bad flags, --help).
 */
export async function runServer(argv: string[]): Promise<ApiServer | undefined> {
  const parsed = parseServerOptions(argv);
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`Error: ${e}\n`);
    process.exitCode = 1;
    return undefined;
  }
  if (parsed.options.help) {
    // the envtest launcher (kah envtest-assets) runs this as kube-apiserver
    process.stdout.write(serverOptionsUsage(process.env['KAH_COMMAND_PATH'] || 'kah serve'));
    return undefined;
  }
  for (const w of parsed.warnings) process.stderr.write(`Warning: ${w}\n`);
  // The handlers are in place before the start: a SIGTERM sent the moment "Serving securely" is read (or earlier)
  // must not meet the default action, which kills the process with no shutdown; kube-apiserver also handles the
  // signal from its first line. Before the server exists there is nothing to drain: the process ends at once. They are
  // installed before the first await: server/main-loader.ts's handlers, which cover the load of this bundle, step aside then.
  let server: ApiServer | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(JSON.stringify({ ts: new Date().toISOString(), level: 'info', msg: 'shutting down', signal }) + '\n');
    if (!server) process.exit(0);
    const serving = server;
    serving.shutdown().then(
      () => {
        // the end of a run: the summary table (the file has every detail)
        const report = serving.admissionCoverageReport();
        if (report) process.stderr.write(formatCoverageSummary(report));
        process.exit(0);
      },
      (err: Error) => {
        process.stderr.write(`Error: shutdown: ${err.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  try {
    server = await startFromOptions(parsed.options);
  } catch (err) {
    const problems = err instanceof StartupError ? err.problems : [(err as Error).stack ?? String(err)];
    for (const p of problems) process.stderr.write(`Error: ${p}\n`);
    process.exit(1);
  }
  process.on('unhandledRejection', (reason) => {
    // A bug, not a crash: log it loudly and keep serving.
    process.stderr.write(`Error: unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}\n`);
  });
  return server;
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
