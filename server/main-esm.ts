// What `npm run build` makes dist/server/main.js of: the ESM face of the server entry (`node dist/server/main.js`,
// `kah serve`, `import … from 'dist/server/main.js'`), which loads dist/server/main.cjs (server/main-loader.ts: the
// server bundle run with its V8 code cache) and re-exports its API.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Loader from './main-loader.js';

const loader = createRequire(import.meta.url)('./main.cjs') as typeof Loader;

export const { StartupError, loadAdmissionConfig, staticManifestDirs, startFromOptions, runServer } = loader;

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) void runServer(process.argv.slice(2));
