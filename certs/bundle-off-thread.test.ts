// ensureServingBundleOffThread: a fresh --cert-dir's certificates made on the worker thread (dist/server/cert-worker.cjs,
// built by `npm run build`) are the ones ensureServingBundle makes in-thread, and any worker failure falls back to
// in-thread generation with its result and errors.
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServingBundle, type ServingBundle, type ServingBundleResult } from './bundle.js';
import { ensureServingBundleOffThread, type OffThreadOptions } from './bundle-off-thread.js';
import { certDirFromArgs, certWorkerHints, likelyFreshCertDir, prewarmCertWorker, takePrewarmedCertWorker } from './cert-worker-prewarm.js';
import { servingHosts } from './serving-hosts.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const builtWorker = path.join(repoRoot, 'dist', 'server', 'cert-worker.cjs');
const hosts = ['localhost', '127.0.0.1', '::1', 'kubernetes.default.svc', '10.0.0.1'];

let dir: string;
beforeAll(() => {
  if (!existsSync(builtWorker)) throw new Error(`${builtWorker} is missing: run npm run build first`);
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kah-cert-worker-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function bundleOf(r: ServingBundleResult): ServingBundle {
  if (!r.ok) throw new Error(r.error);
  return r.bundle;
}

async function offThread(d: string, opts: OffThreadOptions): Promise<{ result: ServingBundleResult; modes: string[] }> {
  const modes: string[] = [];
  const result = await ensureServingBundleOffThread(d, { ...opts, onMode: (m) => modes.push(m) });
  return { result, modes };
}

/** What a client sees of a certificate: everything but its key, serial number, signature and exact times. */
function certContent(pem: string) {
  const c = new X509Certificate(pem);
  return {
    subject: c.subject,
    issuer: c.issuer,
    subjectAltName: c.subjectAltName,
    ca: c.ca,
    // Node's X509Certificate.keyUsage lists the extended key usages
    extKeyUsage: c.keyUsage,
    validityMs: Date.parse(c.validTo) - Date.parse(c.validFrom),
    publicKeyType: c.publicKey.asymmetricKeyType,
    namedCurve: c.publicKey.asymmetricKeyDetails?.namedCurve,
  };
}

function bundleContent(b: ServingBundle) {
  return {
    ca: certContent(b.ca.cert),
    serving: certContent(b.serving.cert),
    admin: certContent(b.admin.cert),
    generated: b.generated,
    reasons: b.reasons.map((r) => r.replace(b.dir, '<dir>')),
  };
}

async function expectConsistent(b: ServingBundle): Promise<void> {
  const ca = new X509Certificate(b.ca.cert);
  for (const leaf of [b.serving.cert, b.admin.cert]) expect(new X509Certificate(leaf).verify(ca.publicKey)).toBe(true);
  expect(ca.verify(ca.publicKey)).toBe(true);
  expect(await readFile(b.paths.caCert, 'utf8')).toBe(b.ca.cert);
  expect(await readFile(b.paths.servingKey, 'utf8')).toBe(b.serving.key);
  expect(await readFile(b.paths.adminCert, 'utf8')).toBe(b.admin.cert);
}

describe('ensureServingBundleOffThread', () => {
  it('generates on the worker the same certificate set as ensureServingBundle in-thread', async () => {
    const { result, modes } = await offThread(path.join(dir, 'worker'), { hosts, workerFile: builtWorker });
    expect(modes).toEqual(['worker']);
    const viaWorker = bundleOf(result);
    const inThread = bundleOf(await ensureServingBundle(path.join(dir, 'in-thread'), { hosts }));
    expect(bundleContent(viaWorker)).toEqual(bundleContent(inThread));
    expect(certContent(viaWorker.serving.cert).subjectAltName).toBe('DNS:localhost, DNS:kubernetes.default.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.0.0.1');
    expect(certContent(viaWorker.admin.cert).subject).toBe('CN=kubernetes-admin\nO=system:masters');
    await expectConsistent(viaWorker);
  });

  it('makes the certificates for the clock it is given on the worker too', async () => {
    const now = new Date('2030-01-02T03:04:05Z');
    const { result, modes } = await offThread(dir, { hosts, now, workerFile: builtWorker });
    expect(modes).toEqual(['worker']);
    for (const pem of [bundleOf(result).ca.cert, bundleOf(result).serving.cert, bundleOf(result).admin.cert]) {
      expect(new Date(new X509Certificate(pem).validFrom)).toEqual(new Date('2030-01-02T02:04:05Z'));
    }
  });

  it('reuses a directory that already has its CA in-thread, without a worker', async () => {
    const first = bundleOf(await ensureServingBundle(dir, { hosts }));
    const { result, modes } = await offThread(dir, { hosts, workerFile: builtWorker });
    expect(modes).toEqual(['in-thread']);
    expect(bundleOf(result).generated).toEqual([]);
    expect(bundleOf(result).ca.cert).toBe(first.ca.cert);
  });

  it('falls back to in-thread generation when the worker fails', async () => {
    const broken = path.join(dir, 'broken-worker.cjs');
    await writeFile(broken, "throw new Error('the worker cannot start');\n");
    const { result, modes } = await offThread(path.join(dir, 'certs'), { hosts, workerFile: broken });
    expect(modes).toEqual(['fallback']);
    const b = bundleOf(result);
    expect(b.generated).toEqual(['ca', 'serving', 'admin']);
    await expectConsistent(b);
  });

  it('generates in-thread when there is no worker script', async () => {
    const { result, modes } = await offThread(dir, { hosts, workerFile: path.join(dir, 'missing.cjs') });
    expect(modes).toEqual(['in-thread']);
    expect(bundleOf(result).generated).toEqual(['ca', 'serving', 'admin']);
  });

  it('reports the error ensureServingBundle reports, from the worker', async () => {
    const notADir = path.join(dir, 'file');
    await writeFile(notADir, 'x');
    const { result, modes } = await offThread(notADir, { hosts, workerFile: builtWorker });
    expect(modes).toEqual(['worker']);
    expect(result).toEqual(await ensureServingBundle(notADir, { hosts }));
    expect(result.ok).toBe(false);
  });
});

describe('the prewarmed certificate worker', () => {
  it.each([
    [['--cert-dir=/a'], '/a'],
    [['--cert-dir', '/b', '--v=2'], '/b'],
    [['--cert-dir=/a', '--cert-dir', '/c'], '/c'],
    [['--secure-port=1'], undefined],
    [['--', '--cert-dir=/a'], undefined],
  ])('finds --cert-dir in %j', (args, want) => {
    expect(certDirFromArgs(args)).toBe(want);
  });

  it('is expected only for a --cert-dir without a CA, in it or in its kah/ subdirectory', async () => {
    expect(likelyFreshCertDir([`--cert-dir=${dir}`])).toBe(true);
    expect(likelyFreshCertDir([])).toBe(false);
    bundleOf(await ensureServingBundle(path.join(dir, 'kah')));
    expect(likelyFreshCertDir([`--cert-dir=${dir}`])).toBe(false);
  });

  it('guesses the serving hosts from --bind-address and --external-hostname, as the server computes them', () => {
    expect(certWorkerHints(['--cert-dir=/a'])).toEqual({});
    expect(certWorkerHints(['--bind-address=127.0.0.2', '--external-hostname', 'kah.test'])).toEqual({ servingHosts: servingHosts('127.0.0.2', 'kah.test') });
    expect(certWorkerHints(['--bind-address', '0.0.0.0']).servingHosts).not.toContain('0.0.0.0');
  });

  it.each([
    ['the hosts it guessed', ['--bind-address=127.0.0.1'], servingHosts('127.0.0.1', undefined)],
    ['other hosts than it guessed', ['--bind-address=127.0.0.1'], hosts],
    ['no guess', [], hosts],
  ])('is taken by the next fresh generation, which gets the certificates in-thread generation makes, for %s', async (_, flags, want) => {
    const certDir = path.join(dir, 'certs');
    prewarmCertWorker(builtWorker, [`--cert-dir=${certDir}`, ...flags]);
    const { result, modes } = await offThread(certDir, { hosts: want, workerFile: builtWorker });
    expect(modes).toEqual(['worker']);
    // it was taken: none is left for another start
    expect(takePrewarmedCertWorker(builtWorker)).toBeUndefined();
    const b = bundleOf(result);
    expect(bundleContent(b)).toEqual(bundleContent(bundleOf(await ensureServingBundle(path.join(dir, 'in-thread'), { hosts: want }))));
    await expectConsistent(b);
  });

  it('is stopped when the directory turns out to have its CA', async () => {
    bundleOf(await ensureServingBundle(dir));
    prewarmCertWorker(builtWorker, [`--cert-dir=${path.join(dir, 'elsewhere')}`]);
    const { modes } = await offThread(dir, { workerFile: builtWorker });
    expect(modes).toEqual(['in-thread']);
    expect(takePrewarmedCertWorker(builtWorker)).toBeUndefined();
    // a later fresh generation starts its own worker
    const { modes: later } = await offThread(path.join(dir, 'fresh'), { workerFile: builtWorker });
    expect(later).toEqual(['worker']);
  });
});

describe('the certificate worker\'s code cache', () => {
  /** One generation on a fresh worker in a child process; its NODE_DEBUG=kah_compile_cache lines. */
  async function generateInChild(cacheDir: string, certDir: string): Promise<string> {
    const script = `
      const { Worker } = require('node:worker_threads');
      const w = new Worker(${JSON.stringify(builtWorker)});
      w.once('message', (m) => { if (!m.result.ok) process.exitCode = 2; });
      w.postMessage({ dir: ${JSON.stringify(certDir)} });`;
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, NODE_DEBUG: 'kah_compile_cache', KAH_COMPILE_CACHE_DIR: cacheDir }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    return stderr;
  }

  it('is written after the first generation and accepted by the next worker', async () => {
    const cacheDir = path.join(dir, 'cache');
    const first = await generateInChild(cacheDir, path.join(dir, 'one'));
    expect(first).toMatch(/cert-worker-body\.cjs-[0-9a-f]+\.v8cache: no cache yet/);
    expect(first).toMatch(/cert-worker-body\.cjs-[0-9a-f]+\.v8cache: written/);
    const second = await generateInChild(cacheDir, path.join(dir, 'two'));
    expect(second).toMatch(/cert-worker-body\.cjs: accepted/);
    expect(second).not.toMatch(/written/);
  });
});
