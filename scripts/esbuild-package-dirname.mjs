// An esbuild plugin for bundled CommonJS packages that find data files beside their own modules
// (etcd3 reads `${__dirname}/../proto/rpc.proto`): `__dirname` becomes the module's directory inside the
// installed package, found at run time from wherever the bundle is (the package ships its files, not the bundle).
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** @param {string[]} packages package names whose files may use __dirname */
export function packageDirname(packages) {
  const escaped = packages.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  const filter = new RegExp(`[\\\\/]node_modules[\\\\/](${escaped.join('|')})[\\\\/].*\\.js$`);
  return {
    name: 'package-dirname',
    /** @param {import('esbuild').PluginBuild} build */
    setup(build) {
      build.onLoad({ filter }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!/\b__dirname\b/.test(source)) return undefined;
        const pkg = packages.find((p) => args.path.includes(`${path.sep}node_modules${path.sep}${p.split('/').join(path.sep)}${path.sep}`));
        const marker = `/node_modules/${pkg}/`;
        const pkgRoot = args.path.slice(0, args.path.lastIndexOf(marker) + marker.length);
        const within = path.relative(pkgRoot, path.dirname(args.path)).split(path.sep).join('/');
        // Evaluated where __dirname was used (etcd3: at load; grpc-js: only for channelz/orca, never here).
        const dirname =
          `(() => { const main = require.resolve(${JSON.stringify(pkg)}); ` +
          `return main.slice(0, main.lastIndexOf(${JSON.stringify(marker)}) + ${marker.length}) + ${JSON.stringify(within)}; })()`;
        return { contents: source.replace(/\b__dirname\b/g, dirname), loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
