// What `npm run build` makes dist/server/main.cjs of: it runs the server bundle (dist/server/server.cjs, CommonJS so
// that vm.Script can run it) with V8's code cache for it (server/code-cache.ts), and exports the entry's API. The
// cache is written as the server first reports ready, when it was missing, unusable or made by starts on another
// storage backend; any problem with it only costs the compile it would have saved. The harness starts servers with
// `node dist/server/main.cjs` (a CommonJS entry starts ≈ 7 ms of CPU sooner than an ESM one); dist/server/main.js
// (server/main-esm.ts) is the same for `node dist/server/main.js`, `kah serve` and importers.
import { isAscii } from 'node:buffer';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { readFileSync } from 'node:fs';
import { prewarmCertWorker } from '../certs/cert-worker-prewarm.js';
import { certWorkerEnabled } from '../certs/cert-worker-switch.js';
import { debugCompileCache, locateCodeCache, readCodeCache, writeCodeCache, type BundleIdentity } from './code-cache.js';
import type * as ServerMain from './main.js';

type ServerModule = typeof ServerMain;

/** server.cjs's SHA-256, written in by the build (scripts/bundle.mjs) */
declare const __KAH_SERVER_BUNDLE_SHA256__: string;
const serverBundleSha256 = __KAH_SERVER_BUNDLE_SHA256__;

// the build defines import.meta.url as this file's URL (it is CommonJS)
const loaderFile = fileURLToPath(import.meta.url);
const bundleFile = path.join(path.dirname(loaderFile), 'server.cjs');

/**
 * Given the code paths this start took, the write of a new cache (run by runServer as the server first reports
 * ready), or undefined when the cache this start used already holds them.
 */
let cacheWriter: ((codePaths: readonly string[]) => (() => void) | undefined) | undefined;

function loadServerBundle(): ServerModule {
  const require = createRequire(bundleFile);
  // Stack traces through source maps need node's own loader, which registers the bundle's map (vm.Script's code is
  // not mapped on Node 20); such a run is for debugging, and goes without the cache.
  if (process.sourceMapsEnabled) {
    debugCompileCache('source maps enabled: loading %s with require()', bundleFile);
    return require(bundleFile) as ServerModule;
  }
  const bytes = readFileSync(bundleFile);
  // the build makes it ASCII (scripts/bundle.mjs), which latin1 decodes as a copy; UTF-8 decoding costs ≈ 25 ms
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const location = locateCodeCache(bundleFile, process.env);
  const identity: BundleIdentity = { length: bytes.length, sha256: serverBundleSha256 };
  let cachedData: Buffer | undefined;
  let covers: string[] | undefined;
  if ('disabled' in location) {
    debugCompileCache('off: %s', location.disabled);
  } else {
    const read = readCodeCache(location.file, identity);
    if ('data' in read) ({ data: cachedData, covers } = read);
    else debugCompileCache('%s: %s', location.file, read.miss);
  }
  // node's CommonJS wrapper, so that the bundle sees what require() would give it, plus the import() it uses for
  // the packages left outside it (server/import-external.ts: vm's own dynamic-import hook is lost in cached code)
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __kahImport) { ${source}\n})`, {
    filename: bundleFile,
    ...(cachedData ? { cachedData } : {}),
  });
  if (cachedData) debugCompileCache('%s: %s', (location as { file: string }).file, script.cachedDataRejected ? 'rejected by V8' : 'accepted');
  if (!('disabled' in location)) {
    const held = cachedData && !script.cachedDataRejected ? covers : undefined;
    cacheWriter = (codePaths) => {
      const added = held ? codePaths.filter((p) => !held.includes(p)) : [...codePaths];
      if (held && added.length === 0) return undefined;
      return () => {
        // V8's data for the script holds what it took from the cache read as well as what this start compiled
        const data = script.createCachedData();
        try {
          writeCodeCache(location.file, identity, data, [...(held ?? []), ...added]);
          if (held) debugCompileCache('%s: extended with %s (%d bytes)', location.file, added.join(', '), data.length);
          else debugCompileCache('%s: written (%d bytes)', location.file, data.length);
        } catch (err) {
          debugCompileCache('%s: not written: %s', location.file, (err as Error).message);
        }
      };
    };
  }
  const module = { exports: {} as ServerModule };
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string, importExternal: (specifier: string) => Promise<unknown>) => void;
  // this module's import() resolves bare specifiers from dist/server/, as one in server.cjs would
  wrapper.call(module.exports, module.exports, require, module, bundleFile, path.dirname(bundleFile), (specifier) => import(specifier));
  return module.exports;
}

const startedAsServer = process.argv[1] !== undefined && ['main.cjs', 'main.js'].some((f) => path.resolve(process.argv[1]!) === path.join(path.dirname(loaderFile), f));

/**
 * A server start handles SIGTERM and SIGINT from here on, not only once runServer (server/main.ts) has installed its
 * handlers: without a listener the signal's default action kills the process at once (an exit by the signal, not 0),
 * which a signal sent while the server bundle loads (≈ 100 ms) met. A signal that arrives during the bundle's
 * synchronous load is handled once it has loaded, by runServer's handlers (installed in the same tick): "shutting
 * down", exit 0, as for any signal before the server exists.
 */
function stopBeforeServerLoaded(signal: NodeJS.Signals): void {
  process.stdout.write(JSON.stringify({ ts: new Date().toISOString(), level: 'info', msg: 'shutting down', signal }) + '\n');
  process.exit(0);
}
if (startedAsServer) {
  process.on('SIGTERM', stopBeforeServerLoaded);
  process.on('SIGINT', stopBeforeServerLoaded);
}

// A server start (`node dist/server/main.cjs` or main.js) with a fresh --cert-dir starts its certificate worker now
// (unless KAH_CERT_WORKER=0), so that it loads its x509 code on the other core while this thread loads the server bundle.
if (startedAsServer && certWorkerEnabled()) prewarmCertWorker(path.join(path.dirname(loaderFile), 'cert-worker.cjs'), process.argv.slice(2));

const server = loadServerBundle();

export const { StartupError, loadAdmissionConfig, staticManifestDirs, startFromOptions, startCodePaths } = server;

/** When no /readyz or /healthz has answered 200 this long after the server listens, the cache is written anyway. */
const cacheWriteFallbackMs = 2000;

/**
 * server/main.ts's runServer. When this start needs a new code cache, it is written synchronously just before the
 * server first answers /readyz (or /healthz) with 200: whoever waits for readiness (and then perhaps kills the server)
 * cannot stop a start from leaving its cache, and it holds everything the start compiled up to there, the bootstrap
 * writes' completions and the readiness check included (a restart on etcd ≈ 5–10 ms sooner than with a cache taken
 * when the server listened). A server nobody asks writes it 2 s after it listens. A cache written by starts on other
 * code paths (memory storage, where this one runs on etcd) is written again with this start's functions added
 * (≈ 20 ms, once per code path): the cache of a bundle is not decided by whichever start came first.
 */
export async function runServer(argv: string[]): Promise<Awaited<ReturnType<ServerModule['runServer']>>> {
  const running = server.runServer(argv);
  // Its own signal handlers are in place by now (before its first await): removed only now, this one leaves no moment
  // without a listener, in which node would stop watching the signal and lose one already received.
  process.off('SIGTERM', stopBeforeServerLoaded);
  process.off('SIGINT', stopBeforeServerLoaded);
  const started = await running;
  const write = started ? cacheWriter?.(server.startCodePaths(started)) : undefined;
  cacheWriter = undefined;
  if (started && write) {
    let pending = true;
    const writeOnce = (): void => {
      if (!pending) return;
      pending = false;
      clearTimeout(fallback);
      write();
    };
    started.health.onFirstReady(writeOnce);
    // a server nobody asks whether it is ready (kubectl against `kah serve`) writes it all the same
    const fallback = setTimeout(writeOnce, cacheWriteFallbackMs);
    fallback.unref();
  }
  return started;
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === loaderFile;
if (invokedDirectly) void runServer(process.argv.slice(2));
