// scripts/bundle.mjs bundles a package from its ES module build (package.json `module`) where it has one: what each
// bundle holds of a package is read from esbuild's `// node_modules/…` markers, one per bundled file. Two builds of one
// package in a bundle would be two copies of its state and classes (instanceof across them fails), so no package
// may be bundled from both.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bundles = ['server.cjs', 'cert-worker-body.cjs'].map((f) => path.join(repoRoot, 'dist', 'server', f));

interface PackageJson {
  main?: string;
  module?: string;
  exports?: unknown;
}

/** package directory (relative to the repo) → the files of it the bundle holds (relative to the package) */
function bundledFiles(bundle: string): Map<string, string[]> {
  const byPackage = new Map<string, string[]>();
  for (const [, file] of readFileSync(bundle, 'latin1').matchAll(/^\/\/ (node_modules\/\S+)$/gm)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\/(.+)$/.exec(file!);
    if (!m) continue;
    const list = byPackage.get(m[1]!) ?? [];
    list.push(m[2]!);
    byPackage.set(m[1]!, list);
  }
  return byPackage;
}

const normalize = (p: string): string => path.posix.normalize(p.replace(/^\.\//, ''));
const topDir = (p: string): string => normalize(p).split('/')[0]!;

/** the file a condition of the root export names, when the `exports` map has one */
function rootExport(exports: unknown, condition: 'import' | 'require'): string | undefined {
  const root = typeof exports === 'object' && exports !== null && '.' in exports ? (exports as Record<string, unknown>)['.'] : exports;
  if (typeof root !== 'object' || root === null) return undefined;
  const value = (root as Record<string, unknown>)[condition];
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)['default'] === 'string') return (value as Record<string, string>)['default'];
  return undefined;
}

describe('the bundles take packages from their ES module builds', () => {
  it.each(bundles.map((b) => [path.basename(b), b]))('%s takes each package that has an ES module build from it, never from its CommonJS main, nor from two builds', (_name, bundle) => {
    const problems: string[] = [];
    let checked = 0;
    for (const [dir, files] of bundledFiles(bundle)) {
      const pkg = JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')) as PackageJson;
      const held = new Set(files.map(normalize));
      if (pkg.exports !== undefined) {
        const esm = rootExport(pkg.exports, 'import');
        const cjs = rootExport(pkg.exports, 'require');
        if (esm && cjs && topDir(esm) !== topDir(cjs) && held.has(normalize(esm)) && held.has(normalize(cjs))) problems.push(`${dir}: both ${esm} and ${cjs}`);
        continue;
      }
      if (!pkg.module || !pkg.main) continue;
      checked++;
      const main = normalize(pkg.main.endsWith('.js') || pkg.main.endsWith('.cjs') ? pkg.main : `${pkg.main}.js`);
      if (normalize(pkg.module) !== main && held.has(main)) problems.push(`${dir}: its CommonJS main ${pkg.main} (it has the ES module build ${pkg.module})`);
    }
    expect(checked).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it("bundles selfsigned's x509 stack from its ES module builds in the certificate worker", () => {
    const held = bundledFiles(bundles[1]!);
    expect(held.get('node_modules/@peculiar/x509')).toEqual(['build/x509.es.js']);
    for (const pkg of ['@peculiar/asn1-schema', '@peculiar/asn1-x509']) {
      const files = held.get(`node_modules/${pkg}`) ?? [];
      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((f) => !f.startsWith('build/es2015/'))).toEqual([]);
    }
  });
});
