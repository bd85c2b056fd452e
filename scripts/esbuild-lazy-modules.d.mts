// Types of esbuild-lazy-modules.mjs, for the TypeScript test that checks it.
import type { Plugin } from 'esbuild';
export function lazyModules(root: string, names: string[]): Plugin;
