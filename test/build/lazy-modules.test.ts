// scripts/esbuild-lazy-modules.mjs: a package it is given runs its own code when a property of its exports is first
// read, not when a module requires it; reads then go to its real exports (mime-types, whose load-time tables cost
// every start ≈ 8 ms, is made lazy so).
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
import { lazyModules } from '../../scripts/esbuild-lazy-modules.mjs';

describe('lazyModules (esbuild plugin)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kah-lazy-'));
    await mkdir(path.join(dir, 'node_modules', 'heavy'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', 'heavy', 'package.json'), JSON.stringify({ name: 'heavy', main: 'index.js' }));
    await writeFile(path.join(dir, 'node_modules', 'heavy', 'index.js'), 'globalThis.heavyLoads = (globalThis.heavyLoads || 0) + 1;\nexports.answer = 42;\nexports.twice = (n) => n * 2;\n');
    await writeFile(path.join(dir, 'entry.js'), "const heavy = require('heavy');\nmodule.exports = { heavy };\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the package on the first read of its exports, once, and answers every read from its real exports', async () => {
    const out = await build({ absWorkingDir: dir, entryPoints: ['entry.js'], bundle: true, format: 'cjs', platform: 'node', write: false, plugins: [lazyModules(dir, ['heavy'])], logLevel: 'silent' });
    const sandbox = { module: { exports: {} as { heavy: { answer: number; twice(n: number): number } } }, heavyLoads: 0 };
    vm.runInNewContext(out.outputFiles[0]!.text, sandbox);
    expect(sandbox.heavyLoads).toBe(0);
    const { heavy } = sandbox.module.exports;
    expect(heavy.answer).toBe(42);
    expect(sandbox.heavyLoads).toBe(1);
    expect(heavy.twice(4)).toBe(8);
    expect('answer' in heavy).toBe(true);
    expect(Object.keys(heavy).sort()).toEqual(['answer', 'twice']);
    expect(sandbox.heavyLoads).toBe(1);
  });

  it('leaves a package it was not given as it was', async () => {
    const out = await build({ absWorkingDir: dir, entryPoints: ['entry.js'], bundle: true, format: 'cjs', platform: 'node', write: false, plugins: [lazyModules(dir, [])], logLevel: 'silent' });
    const sandbox = { module: { exports: {} }, heavyLoads: 0 };
    vm.runInNewContext(out.outputFiles[0]!.text, sandbox);
    expect(sandbox.heavyLoads).toBe(1);
  });
});
