// An esbuild plugin that keeps `await import('some-commonjs-package')` working inside a code-split bundle.
// Node gives such an import the package's named exports (found by its CommonJS lexer) next to `default`; esbuild,
// when the package becomes a chunk of its own, exports `default` only, so `const { parseAllDocuments } = await
// import('yaml')` would be undefined. Each dynamically imported bare package is routed through a small ESM
// module that re-exports, by name, exactly what node's own import of it offers.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const namespace = 'kah-dynamic-package';
const identifier = /^[A-Za-z_$][\w$]*$/;

/** @param {string} root the directory packages are resolved from */
export function dynamicCommonJsImports(root) {
  const require = createRequire(`${root}/`);
  return {
    name: 'dynamic-commonjs-imports',
    /** @param {import('esbuild').PluginBuild} build */
    setup(build) {
      const external = new Set(build.initialOptions.external ?? []);
      const isExternal = (spec) => [...external].some((e) => e === spec || (e.endsWith('/*') && spec.startsWith(e.slice(0, -1))));
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind !== 'dynamic-import' || args.path.startsWith('node:') || isExternal(args.path)) return undefined;
        // .mjs: esbuild then imports the package with node's interop (`default` is module.exports).
        return { path: `${args.path}.mjs`, namespace, pluginData: args.path };
      });
      build.onLoad({ filter: /.*/, namespace }, async (args) => {
        // The same module node would load (the "node" and "import" conditions): its names are the contract.
        const ns = await import(pathToFileURL(require.resolve(args.pluginData)).href);
        const names = Object.keys(ns).filter((n) => n !== 'default' && identifier.test(n));
        const lines = [`import * as m from ${JSON.stringify(args.pluginData)};`, ...names.map((n) => `export const ${n} = m.${n};`)];
        if ('default' in ns) lines.push('export default m.default;');
        return { contents: lines.join('\n'), loader: 'js', resolveDir: root };
      });
    },
  };
}
