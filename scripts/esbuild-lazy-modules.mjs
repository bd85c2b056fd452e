// An esbuild plugin that makes some bundled CommonJS packages load on their first use instead of when a module that
// requires them loads. mime-types builds its lookup tables from mime-db's 2,500 types as it loads (≈ 8 ms of every
// start, required by express, body-parser, type-is, accepts and send), yet nothing a server answers before it is ready
// needs it: health, discovery and API answers set their Content-Type directly (server/http/responses.ts), and express's
// res.type()/res.set(), which ask mime-types for the charset, serve /metrics and the like. A package listed here is
// replaced by a proxy: its own code runs when a property of its exports is first read, and every read goes to its
// real exports.
const namespace = 'kah-lazy-module';

/**
 * @param {string} root the directory the proxies resolve the real packages from
 * @param {string[]} names bare package names, required as a whole (no subpaths)
 */
export function lazyModules(root, names) {
  const filter = new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
  return {
    name: 'lazy-modules',
    /** @param {import('esbuild').PluginBuild} build */
    setup(build) {
      if (names.length === 0) return;
      // the proxy's own require of the package (marked) resolves as usual
      build.onResolve({ filter }, (args) => (args.pluginData?.lazyReal ? undefined : { path: args.path, namespace }));
      build.onLoad({ filter: /.*/, namespace }, async (args) => {
        const real = await build.resolve(args.path, { resolveDir: root, kind: 'require-call', pluginData: { lazyReal: true } });
        if (real.errors.length > 0) return { errors: real.errors };
        return {
          contents:
            `let real;\n` +
            `const load = () => (real ??= require(${JSON.stringify(real.path)}));\n` +
            `module.exports = new Proxy({}, {\n` +
            `  get: (_, key) => load()[key],\n` +
            `  has: (_, key) => key in load(),\n` +
            `  ownKeys: () => Reflect.ownKeys(load()),\n` +
            `  getOwnPropertyDescriptor: (_, key) => { const d = Reflect.getOwnPropertyDescriptor(load(), key); return d && { ...d, configurable: true }; },\n` +
            `});\n`,
          loader: 'js',
          resolveDir: root,
        };
      });
    },
  };
}
