// An esbuild plugin that compiles etcd's protos at build time. etcd3's connection-pool.js calls @grpc/proto-loader's
// loadSync on its rpc.proto when it loads (≈ 40 ms of CPU on every etcd-backed start: parsing, resolving, and
// encoding descriptors nothing reads). Here that call is pointed at a module holding the same protos as protobufjs
// JSON, with the service methods as proto-loader describes them (server/storage/etcd-package-definition.ts).
// The build fails if etcd3's source no longer has the expected shape, rather than bundling the slow path silently.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const namespace = 'kah-etcd-protos';
const loaderCall = /\(0, proto_loader_1\.loadSync\)\(`\$\{__dirname\}\/\.\.\/proto\/rpc\.proto`,/;
const loaderRequire = /^const proto_loader_1 = require\("@grpc\/proto-loader"\);$/m;

/**
 * @param {string} root the package root (node_modules and server/ are found from it)
 * @param {string} compiledDefinitionModule tsc's output of server/storage/etcd-package-definition.ts (build time only)
 */
export function precompiledEtcdProtos(root, compiledDefinitionModule) {
  const require = createRequire(`${root}/`);
  const connectionPool = require.resolve('etcd3/lib/connection-pool.js');
  const protoFile = path.join(path.dirname(connectionPool), '..', 'proto', 'rpc.proto');
  return {
    name: 'precompiled-etcd-protos',
    /** @param {import('esbuild').PluginBuild} build */
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]etcd3[\\/]lib[\\/]connection-pool\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!loaderCall.test(source) || !loaderRequire.test(source)) {
          throw new Error(`${args.path}: etcd3 no longer loads rpc.proto as scripts/esbuild-etcd-protos.mjs expects; update the plugin`);
        }
        const contents = source.replace(loaderRequire, '').replace(loaderCall, `require(${JSON.stringify(namespace)}).loadSync("rpc.proto",`);
        if (/\b(__dirname|proto_loader_1)\b/.test(contents)) throw new Error(`${args.path}: more uses of __dirname or proto-loader than scripts/esbuild-etcd-protos.mjs expects`);
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
      build.onResolve({ filter: new RegExp(`^${namespace}$`) }, () => ({ path: namespace, namespace }));
      build.onLoad({ filter: /.*/, namespace }, async () => {
        const { compileEtcdProtos } = await import(pathToFileURL(compiledDefinitionModule).href);
        const loaderRequire = createRequire(require.resolve('@grpc/proto-loader'));
        const { loadProtosWithOptionsSync } = loaderRequire('./util.js');
        const { loadSync } = loaderRequire('@grpc/proto-loader');
        const camelCase = loaderRequire('lodash.camelcase');
        // etcd3's options; only keepCase shapes the compiled protos (the rest is passed again at run time)
        const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
        const reference = loadSync(protoFile, options);
        const compiled = compileEtcdProtos(loadProtosWithOptionsSync(protoFile, options), (service, method) => reference[service][method].options, camelCase);
        const definitionModule = path.join(root, 'server', 'storage', 'etcd-package-definition.ts');
        return {
          contents:
            `import { etcdPackageDefinition } from ${JSON.stringify(definitionModule)};\n` +
            `const compiled = ${JSON.stringify(compiled)};\n` +
            `export function loadSync(_file, options) { return etcdPackageDefinition(compiled, options); }\n`,
          loader: 'js',
          resolveDir: root,
          watchFiles: [protoFile],
        };
      });
    },
  };
}
