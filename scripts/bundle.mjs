// `npm run build`, after tsc: bundles the apiserver entry (server/main.ts and everything it imports, node_modules
// included) as CommonJS into <outDir>/server/server.cjs, the loader that runs it (server/main-loader.ts) into
// <outDir>/server/main.cjs, and its ESM face (server/main-esm.ts) into <outDir>/server/main.js, replacing tsc's
// copy, so that a server start loads a few files instead of some 500. Node 20 has no module compile cache:
// resolving, reading and compiling each module cost more than running them; the loader gives V8 a code cache of
// the bundle instead (server/code-cache.ts).
// It also bundles the library (harness/index.ts) as CommonJS into <outDir>/cjs/index.cjs, for test runners that
// load modules with require() (jest without --experimental-vm-modules): client-node, ESM-only, is bundled into it.
// Each bundle is skipped when its inputs have not changed since it was made (scripts/build-stamp.mjs).
// usage: node scripts/bundle.mjs [outDir] [--analyze] [--force]   (outDir defaults to dist)
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { upToDate, writeStamp } from './build-stamp.mjs';
import { precompiledEtcdProtos } from './esbuild-etcd-protos.mjs';
import { lazyModules } from './esbuild-lazy-modules.mjs';
import { packageDirname } from './esbuild-package-dirname.mjs';

// A package that ships an ES module build (package.json `module`) is bundled from it, not from its CommonJS `main`:
// esbuild then hoists its modules into one scope, where a CommonJS build's `exports` objects are built and their
// re-exports copied property by property (`__copyProps`) as it loads. selfsigned's @peculiar x509 stack re-exports
// through many levels: the certificate worker loaded it in ≈ 20 ms and now in ≈ 9 (its bundle 795 → 631 KB). A
// package with an `exports` map still gets the build its conditions name. test/build/bundled-module-builds.test.ts
// checks that no package is bundled from two builds.
const esModuleBuildsFirst = ['module', 'main'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const analyze = args.includes('--analyze');
const force = args.includes('--force') || analyze;
const outDir = path.resolve(root, args.find((a) => !a.startsWith('--')) ?? 'dist');
const serverOut = path.join(outDir, 'server');
const stampDir = path.join(outDir, '.bundle-stamps');
// What every bundle depends on besides its sources: a change to any of these rebuilds.
const buildInputs = ['package.json', 'package-lock.json', 'tsconfig.json', ...['bundle.mjs', 'build-stamp.mjs', 'esbuild-etcd-protos.mjs', 'esbuild-lazy-modules.mjs', 'esbuild-package-dirname.mjs'].map((f) => `scripts/${f}`)];
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
const rel = (f) => path.relative(root, f);

// client-node's models are imported by a computed path (`…/models/${name}.js`), which a bundler cannot follow;
// they load when a kind's strict field validation first runs, long after startup.
const external = ['@kubernetes/client-node'];
// etcd3 (with gRPC and protobufjs: ~100 ms of module loading on an etcd start) reads its .proto file beside itself;
// precompiledEtcdProtos (before packageDirname: the first onLoad wins) compiles it at build time instead.
const usesDirname = ['etcd3', '@grpc/grpc-js', '@grpc/proto-loader'];
// packages whose load-time work the server never needs before it first uses them (scripts/esbuild-lazy-modules.mjs)
const lazyPackages = ['mime-types', 'qs'];
// tsc has built the definition module into outDir by now; the plugin runs its compile step at build time.
const etcdDefinitionModule = path.join(outDir, 'server', 'storage', 'etcd-package-definition.js');

async function bundleServer() {
  const stamp = path.join(stampDir, 'server.json');
  const bundleFile = path.join(serverOut, 'server.cjs');
  if (!force && (await upToDate(root, stamp))) {
    process.stdout.write(`${rel(bundleFile)} is up to date\n`);
    return;
  }
  // the code-split ESM build this one replaced left chunks here
  await rm(path.join(serverOut, 'chunks'), { recursive: true, force: true });
  const server = await build({
    absWorkingDir: root,
    entryPoints: ['server/main.ts'],
    outfile: bundleFile,
    bundle: true,
    // CommonJS (one file, no chunks): the form vm.Script runs, so that main.js can hand V8 its code cache. Lazy
    // import()s of bundled modules stay lazy (esbuild runs a module's body on its first import); the bytes of those
    // modules are compiled lazily by V8 and cost little.
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    mainFields: esModuleBuildsFirst,
    external,
    // the modules that use it (createRequire, "am I the entry?") get the bundle's own URL
    define: { 'import.meta.url': '__kahBundleUrl' },
    banner: { js: "const __kahBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    // Mapped back to the TypeScript sources (shipped in the package) with `node --enable-source-maps` (not on by
    // default: reading the maps adds ~30 ms to every start; main.js then loads the bundle with require(), as node
    // maps only what its own loader loaded). Without it, stack traces name server.cjs lines, which carry
    // `// server/…ts` markers.
    sourcemap: 'linked',
    plugins: [precompiledEtcdProtos(root, etcdDefinitionModule), lazyModules(root, lazyPackages), packageDirname(usesDirname)],
    // packageDirname's require.resolve() of a bundled package is meant to run: it finds the installed package's files
    logOverride: { 'require-resolve-not-external': 'silent' },
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  const bundleSha256 = await asciiOnly(bundleFile);
  // main.cjs runs server.cjs with V8's code cache and exports its API (server/main-loader.ts); main.js is its ESM
  // face (server/main-esm.ts). Both import main.ts for its types only: the server itself is in server.cjs.
  const typesOnly = (...files) => files.map((f) => onlyTypesFrom(path.join(root, 'server', f)));
  const loaderOptions = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', tsconfig: 'tsconfig.json', sourcemap: 'linked', metafile: true, logLevel: 'warning', legalComments: 'none' };
  const loader = await build({
    ...loaderOptions,
    entryPoints: ['server/main-loader.ts'],
    outfile: path.join(serverOut, 'main.cjs'),
    format: 'cjs',
    define: { __KAH_SERVER_BUNDLE_SHA256__: JSON.stringify(bundleSha256), 'import.meta.url': '__kahLoaderUrl' },
    banner: { js: "const __kahLoaderUrl = require('node:url').pathToFileURL(__filename).href;" },
    plugins: typesOnly('main.ts'),
  });
  const esm = await build({
    ...loaderOptions,
    entryPoints: ['server/main-esm.ts'],
    outfile: path.join(serverOut, 'main.js'),
    format: 'esm',
    plugins: typesOnly('main.ts', 'main-loader.ts'),
  });
  // A fresh start generates its certificates on a worker thread (certs/bundle-off-thread.ts): cert-worker.cjs
  // (certs/cert-worker-loader.ts) runs cert-worker-body.cjs (the certificate code and selfsigned's x509 stack, not
  // the server) with its V8 code cache, as main.cjs runs server.cjs.
  const certWorkerBodyFile = path.join(serverOut, 'cert-worker-body.cjs');
  const certWorkerBody = await build({ ...loaderOptions, entryPoints: ['certs/bundle-worker.ts'], outfile: certWorkerBodyFile, format: 'cjs', mainFields: esModuleBuildsFirst });
  const certWorkerSha256 = await asciiOnly(certWorkerBodyFile);
  const certWorker = await build({
    ...loaderOptions,
    entryPoints: ['certs/cert-worker-loader.ts'],
    outfile: path.join(serverOut, 'cert-worker.cjs'),
    format: 'cjs',
    define: { __KAH_CERT_WORKER_BUNDLE_SHA256__: JSON.stringify(certWorkerSha256) },
    plugins: [onlyTypesFrom(path.join(root, 'certs', 'bundle-worker.ts'))],
  });
  if (analyze) {
    const { analyzeMetafile } = await import('esbuild');
    process.stderr.write(await analyzeMetafile(server.metafile));
  }
  const parts = [server, loader, esm, certWorkerBody, certWorker];
  const metafile = { inputs: Object.assign({}, ...parts.map((p) => p.metafile.inputs)), outputs: Object.assign({}, ...parts.map((p) => p.metafile.outputs)) };
  await writeStamp(root, stamp, metafile, [...buildInputs, rel(etcdDefinitionModule)]);
  const bytes = Object.entries(server.metafile.outputs).filter(([f]) => f.endsWith('.cjs')).reduce((s, [, o]) => s + o.bytes, 0);
  process.stdout.write(`bundled server/main.ts into ${rel(bundleFile)} (${kib(bytes)}), started by ${rel(serverOut)}/main.cjs and main.js\n`);
}

/**
 * Makes the bundle ASCII and returns its SHA-256 (the code cache's key, checked at run time without hashing 6 MB
 * again). The loader decodes ASCII as latin1, a copy (≈ 3 ms), where UTF-8 decoding of the bundle costs ≈ 25 ms.
 * esbuild escapes non-ASCII characters in strings and identifiers but leaves them in regular expressions and
 * comments; there `\uXXXX` (one per UTF-16 unit) means the same character. After a backslash it would not, so that
 * fails the build.
 */
async function asciiOnly(file) {
  const text = await readFile(file, 'utf8');
  const escapedAfterBackslash = /\\[^\x00-\x7f]/.exec(text);
  if (escapedAfterBackslash) throw new Error(`${rel(file)}: a non-ASCII character after a backslash at ${escapedAfterBackslash.index}; cannot make the bundle ASCII`);
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) await writeFile(file, ascii);
  return createHash('sha256').update(ascii).digest('hex');
}

/** Fails the build if a loader's bundle would contain the given module (an import of it that is not type-only). */
function onlyTypesFrom(file) {
  return {
    name: 'only-types-from',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path === file) return { errors: [{ text: `${rel(file)} must be imported for types only here` }] };
        return undefined;
      });
    },
  };
}

async function bundleLibraryCommonJs() {
  const stamp = path.join(stampDir, 'cjs.json');
  const outfile = path.join(outDir, 'cjs', 'index.cjs');
  if (!force && (await upToDate(root, stamp))) {
    process.stdout.write(`${rel(outfile)} is up to date\n`);
    return;
  }
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['harness/index.ts'],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    // packageRoot() finds the package (and dist/server/main.js) from its own module's URL.
    define: { 'import.meta.url': '__kahModuleUrl' },
    // The map names the shipped harness sources; client-node's own lines are not worth ~15 MB of sourcesContent.
    sourcesContent: false,
    // Every jest test file evaluates the bundle anew; whitespace and syntax minifying halve it (names stay, for traces).
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: "const __kahModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  await writeStamp(root, stamp, result.metafile, buildInputs);
  process.stdout.write(`bundled harness/index.ts as CommonJS into ${rel(outfile)} (${kib(Object.values(result.metafile.outputs).reduce((s, o) => s + o.bytes, 0))})\n`);
}

await bundleServer();
await bundleLibraryCommonJs();
