// `npm run build`, after tsc: bundles the apiserver entry (server/main.ts and everything it imports, node_modules
// included) into <outDir>/server/main.js, replacing tsc's copy, so that `node dist/server/main.js` and `kah serve`
// load a handful of files instead of some 500. Node 20 has no module compile cache: resolving, reading and
// compiling each module cost more than running them. Lazy `import()`s stay lazy, as chunks in <outDir>/server/chunks/.
// It also bundles the library (harness/index.ts) as CommonJS into <outDir>/cjs/index.cjs, for test runners that
// load modules with require() (jest without --experimental-vm-modules): client-node, ESM-only, is bundled into it.
// Each bundle is skipped when its inputs have not changed since it was made (scripts/build-stamp.mjs).
// usage: node scripts/bundle.mjs [outDir] [--analyze] [--force]   (outDir defaults to dist)
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { upToDate, writeStamp } from './build-stamp.mjs';
import { dynamicCommonJsImports } from './esbuild-dynamic-cjs.mjs';
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
const buildInputs = ['package.json', 'package-lock.json', 'tsconfig.json', ...['bundle.mjs', 'build-stamp.mjs', 'esbuild-dynamic-cjs.mjs', 'esbuild-etcd-protos.mjs', 'esbuild-package-dirname.mjs'].map((f) => `scripts/${f}`)];
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
  if (!force && (await upToDate(root, stamp))) {
    process.stdout.write(`${rel(serverOut)}/main.js is up to date\n`);
    return;
  }
  // Chunk names carry content hashes: clear the previous build's, so that stale ones do not pile up.
  await rm(path.join(serverOut, 'chunks'), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'server/main.ts' },
    outdir: serverOut,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    external,
    // Mapped back to the TypeScript sources (shipped in the package) with `node --enable-source-maps` (not on by
    // default: reading the maps adds ~30 ms to every start). Without it, stack traces name main.js lines, which
    // carry `// server/…ts` markers.
    sourcemap: 'linked',
    // Bundled CommonJS packages (express, prom-client, yaml, etcd3) call require() for node's built-ins; ESM has no require.
    banner: { js: "import { createRequire as __kahCreateRequire } from 'node:module'; const require = __kahCreateRequire(import.meta.url);" },
    plugins: [dynamicCommonJsImports(root), precompiledEtcdProtos(root, etcdDefinitionModule), packageDirname(usesDirname)],
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  if (analyze) {
    const { analyzeMetafile } = await import('esbuild');
    process.stderr.write(await analyzeMetafile(result.metafile));
  }
  await writeStamp(root, stamp, result.metafile, [...buildInputs, rel(etcdDefinitionModule)]);
  const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.js'));
  process.stdout.write(`bundled server/main.ts into ${rel(serverOut)}/main.js (+${outputs.length - 1} lazy chunks, ${kib(outputs.reduce((s, [, o]) => s + o.bytes, 0))})\n`);
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
