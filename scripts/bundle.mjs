// `npm run build`, after tsc: bundles the apiserver entry (server/main.ts and everything it imports, node_modules
// included) as CommonJS into <outDir>/server/server.cjs, and the loader that runs it (server/main-loader.ts) into
// <outDir>/server/main.js, replacing tsc's copy, so that `node dist/server/main.js` and `kah serve` load three files
// instead of some 500. Node 20 has no module compile cache: resolving, reading and compiling each module cost more
// than running them; the loader gives V8 a code cache of the bundle instead (server/code-cache.ts).
// It also bundles the library (harness/index.ts) as CommonJS into <outDir>/cjs/index.cjs, for test runners that
// load modules with require() (jest without --experimental-vm-modules): client-node, ESM-only, is bundled into it.
// Each bundle is skipped when its inputs have not changed since it was made (scripts/build-stamp.mjs).
// usage: node scripts/bundle.mjs [outDir] [--analyze] [--force]   (outDir defaults to dist)
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { upToDate, writeStamp } from './build-stamp.mjs';
import { precompiledEtcdProtos } from './esbuild-etcd-protos.mjs';
import { packageDirname } from './esbuild-package-dirname.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const analyze = args.includes('--analyze');
const force = args.includes('--force') || analyze;
const outDir = path.resolve(root, args.find((a) => !a.startsWith('--')) ?? 'dist');
const serverOut = path.join(outDir, 'server');
const stampDir = path.join(outDir, '.bundle-stamps');
// What every bundle depends on besides its sources: a change to any of these rebuilds.
const buildInputs = ['package.json', 'package-lock.json', 'tsconfig.json', ...['bundle.mjs', 'build-stamp.mjs', 'esbuild-etcd-protos.mjs', 'esbuild-package-dirname.mjs'].map((f) => `scripts/${f}`)];
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
const rel = (f) => path.relative(root, f);

// client-node's models are imported by a computed path (`…/models/${name}.js`), which a bundler cannot follow;
// they load when a kind's strict field validation first runs, long after startup.
const external = ['@kubernetes/client-node'];
// etcd3 (with gRPC and protobufjs: ~100 ms of module loading on an etcd start) reads its .proto file beside itself;
// precompiledEtcdProtos (before packageDirname: the first onLoad wins) compiles it at build time instead.
const usesDirname = ['etcd3', '@grpc/grpc-js', '@grpc/proto-loader'];
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
    external,
    // the modules that use it (createRequire, "am I the entry?") get the bundle's own URL
    define: { 'import.meta.url': '__kahBundleUrl' },
    banner: { js: "const __kahBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    // Mapped back to the TypeScript sources (shipped in the package) with `node --enable-source-maps` (not on by
    // default: reading the maps adds ~30 ms to every start; main.js then loads the bundle with require(), as node
    // maps only what its own loader loaded). Without it, stack traces name server.cjs lines, which carry
    // `// server/…ts` markers.
    sourcemap: 'linked',
    plugins: [precompiledEtcdProtos(root, etcdDefinitionModule), packageDirname(usesDirname)],
    // packageDirname's require.resolve() of a bundled package is meant to run: it finds the installed package's files
    logOverride: { 'require-resolve-not-external': 'silent' },
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  const bundleSha256 = await sha256Of(bundleFile);
  // main.js: runs server.cjs with V8's code cache and re-exports its API (server/main-loader.ts)
  const loader = await build({
    absWorkingDir: root,
    entryPoints: ['server/main-loader.ts'],
    outfile: path.join(serverOut, 'main.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    define: { __KAH_SERVER_BUNDLE_SHA256__: JSON.stringify(bundleSha256) },
    // the loader imports main.ts for its types only; anything else from the server belongs in server.cjs
    plugins: [onlyTypesFrom(path.join(root, 'server', 'main.ts'))],
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  if (analyze) {
    const { analyzeMetafile } = await import('esbuild');
    process.stderr.write(await analyzeMetafile(server.metafile));
  }
  const metafile = { inputs: { ...server.metafile.inputs, ...loader.metafile.inputs }, outputs: { ...server.metafile.outputs, ...loader.metafile.outputs } };
  await writeStamp(root, stamp, metafile, [...buildInputs, rel(etcdDefinitionModule)]);
  const bytes = Object.entries(server.metafile.outputs).filter(([f]) => f.endsWith('.cjs')).reduce((s, [, o]) => s + o.bytes, 0);
  process.stdout.write(`bundled server/main.ts into ${rel(bundleFile)} (${kib(bytes)}), started by ${rel(serverOut)}/main.js\n`);
}

/** The bundle's SHA-256: the code cache's key, checked at run time without hashing the 6 MB again. */
async function sha256Of(file) {
  return createHash('sha256').update(await readFile(file)).digest('hex');
}

/** Fails the build if the loader's bundle would contain the server module itself (an import that is not type-only). */
function onlyTypesFrom(file) {
  return {
    name: 'only-types-from',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path === file) return { errors: [{ text: `${rel(file)} must be imported for types only by the loader` }] };
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
