// What `npm run build` makes dist/server/cert-worker.cjs of: the certificate worker's entry. It runs the worker's
// bundle (dist/server/cert-worker-body.cjs: certs/bundle-worker.ts with selfsigned's x509 stack) with a V8 code cache,
// as server/main-loader.ts runs the server's: compiling that code is about a third of what the worker costs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { debugCompileCache, locateCodeCache, readCodeCache, writeCodeCache, type BundleIdentity } from '../server/code-cache.js';
import type * as WorkerBody from './bundle-worker.js';

/** cert-worker-body.cjs's SHA-256, written in by the build (scripts/bundle.mjs) */
declare const __KAH_CERT_WORKER_BUNDLE_SHA256__: string;

const bodyFile = path.join(__dirname, 'cert-worker-body.cjs');

function loadWorkerBody(): { body: typeof WorkerBody; writeCache: () => void } {
  const bytes = readFileSync(bodyFile);
  const identity: BundleIdentity = { length: bytes.length, sha256: __KAH_CERT_WORKER_BUNDLE_SHA256__ };
  const location = locateCodeCache(bodyFile, process.env);
  let cachedData: Buffer | undefined;
  if ('disabled' in location) debugCompileCache('off: %s', location.disabled);
  else {
    const read = readCodeCache(location.file, identity);
    if ('data' in read) cachedData = read.data;
    else debugCompileCache('%s: %s', location.file, read.miss);
  }
  // the build makes it ASCII, which latin1 decodes as a copy
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${bytes.toString('latin1')}\n})`, {
    filename: bodyFile,
    ...(cachedData ? { cachedData } : {}),
  });
  if (cachedData) debugCompileCache('%s: %s', bodyFile, script.cachedDataRejected ? 'rejected by V8' : 'accepted');
  const needsWrite = !('disabled' in location) && (!cachedData || script.cachedDataRejected === true);
  const module = { exports: {} as typeof WorkerBody };
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(bodyFile), module, bodyFile, path.dirname(bodyFile));
  const writeCache = () => {
    if (!needsWrite || 'disabled' in location) return;
    try {
      // after a generation: the cache then holds every function it compiled
      writeCodeCache(location.file, identity, script.createCachedData());
      debugCompileCache('%s: written', location.file);
    } catch (err) {
      debugCompileCache('%s: not written: %s', location.file, (err as Error).message);
    }
  };
  return { body: module.exports, writeCache };
}

const { body, writeCache } = loadWorkerBody();
body.serveCertRequest(writeCache);
