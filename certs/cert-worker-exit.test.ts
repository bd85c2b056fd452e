// A process must end with its own exit code whenever it ends while a worker thread generates certificates, as the
// certificate worker does (certs/bundle-off-thread.ts): by process.exit, by worker.terminate() then process.exit, or
// by an uncaught exception. Node 20 aborts the process (SIGABRT, "FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal"
// in KeyObjectHandle::Create) when an asynchronous key generation completes on a worker that is being torn down, which
// is why a worker thread makes its keys synchronously (certs/key-pair.ts). The worker here generates the bundle's
// certificates in a loop, with the code the build compiled (dist/certs, `npm run build`), so that every end falls
// while it generates; with selfsigned's own asynchronous key generation 21 of 360 such ends aborted.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const builtBundle = path.join(repoRoot, 'dist', 'certs', 'bundle.js');

type End = 'exit' | 'terminate' | 'throw';
const ends: End[] = ['exit', 'terminate', 'throw'];
/** process.exit(3) in both explicit ends; node exits 1 on an uncaught exception */
const expectedCode: Record<End, number> = { exit: 3, terminate: 3, throw: 1 };

/**
 * The worker: the CA, then the serving and admin certificates, as a fresh --cert-dir gets them; three such bundles at a
 * time, over and over, once a first one has loaded selfsigned (so that the ends fall in generations, not in loading).
 */
const generating = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData).then(async ({ defaultBundleGenerators }) => {
  const generate = defaultBundleGenerators();
  const bundle = async () => {
    const ca = await generate.ca();
    await Promise.all([generate.serving(ca, ['localhost', '127.0.0.1']), generate.admin(ca)]);
  };
  await bundle();
  parentPort.postMessage('generating');
  for (;;) await Promise.all([bundle(), bundle(), bundle()]);
});
`;

/** The process: starts that worker (unreferenced, as server/main-loader.ts does) and ends `delayMs` after it generates. */
const ending = `
const { Worker } = require('node:worker_threads');
const [bundleUrl, end, delayMs, workerCode] = process.argv.slice(1);
const worker = new Worker(workerCode, { eval: true, workerData: bundleUrl });
worker.once('message', () => {
  worker.unref();
  setTimeout(() => {
    if (end === 'terminate') void worker.terminate().then(() => process.exit(3));
    else if (end === 'throw') throw new Error('an uncaught exception while the worker generates');
    else process.exit(3);
  }, Number(delayMs));
});
`;

function endWhileGenerating(end: End, delayMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', ending, pathToFileURL(builtBundle).href, end, String(delayMs), generating], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.once('error', reject);
    p.once('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

beforeAll(() => {
  if (!existsSync(builtBundle)) throw new Error(`${builtBundle} is missing: run npm run build first`);
});

describe('a process that ends while a worker thread generates certificates', () => {
  it('exits with its own code, never by a signal (48 ends, 4 at a time)', async () => {
    const failures: string[] = [];
    for (let i = 0; i < 48; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map(async (k) => {
          const end = ends[(i + k) % ends.length]!;
          // 0–19 ms: within the first rounds, at a different point of a generation each time
          const delayMs = (i + k) % 20;
          const o = await endWhileGenerating(end, delayMs);
          if (o.code !== expectedCode[end] || o.signal !== null) failures.push(`${end} after ${delayMs} ms: code ${o.code}, signal ${o.signal}: ${o.stderr.slice(0, 600)}`);
        }),
      );
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
