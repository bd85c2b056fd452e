// The server bundle's V8 code cache (server/code-cache.ts, server/main-loader.ts): written as a start first reports ready,
// accepted by the next start, and never trusted when it is corrupt, made for another bundle, or switched off. What
// the cache did is read from the loader's NODE_DEBUG=kah_compile_cache lines, not from timings.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachesKeptPerBundleName, compileCacheDir, locateCodeCache, readCodeCache, writeCodeCache, type BundleIdentity } from '../../server/code-cache.js';
import { startEtcd } from '../../harness/etcd-process.js';
import { writeStaticAdmission } from '../../bench/static-manifests.js';
import { eventually } from '../support/eventually.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const builtServer = path.join(repoRoot, 'dist', 'server');

describe('code cache files', () => {
  let dir: string;
  const bundle: BundleIdentity = { length: 1234, sha256: 'ab'.repeat(32) };
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kah-code-cache-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back what was written for the same bundle', async () => {
    const file = path.join(dir, 'x.v8cache');
    writeCodeCache(file, bundle, Buffer.from('v8 data'));
    expect(readCodeCache(file, bundle)).toEqual({ data: Buffer.from('v8 data'), covers: [] });
    expect(await readdir(dir)).toEqual(['x.v8cache']);
    writeCodeCache(file, bundle, Buffer.from('more v8 data'), ['storage:memory', 'storage:etcd3']);
    expect(readCodeCache(file, bundle)).toEqual({ data: Buffer.from('more v8 data'), covers: ['storage:memory', 'storage:etcd3'] });
  });

  it('misses when the list of code paths it covers is damaged, not only its data', async () => {
    const file = path.join(dir, 'x.v8cache');
    writeCodeCache(file, bundle, Buffer.from('v8 data'), ['storage:memory']);
    const bytes = await readFile(file);
    const at = bytes.indexOf('storage:memory');
    bytes[at] = 'S'.charCodeAt(0);
    await writeFile(file, bytes);
    expect(readCodeCache(file, bundle)).toEqual({ miss: 'corrupt' });
    // the list's length pointing past the end of the file
    const long = await readFile(file);
    long.writeUInt16LE(0xffff, at - 2);
    await writeFile(file, long);
    expect(readCodeCache(file, bundle)).toEqual({ miss: 'corrupt' });
  });

  it('does not read a cache file of the previous format', async () => {
    const file = path.join(dir, 'x.v8cache');
    writeCodeCache(file, bundle, Buffer.from('v8 data'));
    const bytes = await readFile(file);
    bytes.write('KAHCC1', 0, 'latin1');
    await writeFile(file, bytes);
    expect(readCodeCache(file, bundle)).toEqual({ miss: 'not a cache file' });
  });

  it('keeps the newest caches of a bundle name written at other locations, and no more', async () => {
    // one cache per install location, as locateCodeCache names them; older ones written first
    const others = Array.from({ length: 10 }, (_, i) => `server.cjs-${String(i).padStart(16, '0')}.v8cache`);
    for (const [i, name] of others.entries()) {
      await writeFile(path.join(dir, name), 'old cache');
      const t = new Date(Date.now() - (others.length - i) * 60_000);
      await utimes(path.join(dir, name), t, t);
    }
    await writeFile(path.join(dir, 'cert-worker-body.cjs-0000000000000000.v8cache'), 'another bundle');
    writeCodeCache(path.join(dir, 'server.cjs-ffffffffffffffff.v8cache'), bundle, Buffer.from('v8 data'));
    expect((await readdir(dir)).sort()).toEqual(
      ['cert-worker-body.cjs-0000000000000000.v8cache', ...others.slice(10 - (cachesKeptPerBundleName - 1)), 'server.cjs-ffffffffffffffff.v8cache'].sort(),
    );
  });

  it('misses when there is no file, or it was made for another bundle, or it is damaged', async () => {
    const file = path.join(dir, 'x.v8cache');
    expect(readCodeCache(file, bundle)).toEqual({ miss: 'no cache yet' });
    writeCodeCache(file, bundle, Buffer.from('v8 data'));
    expect(readCodeCache(file, { ...bundle, sha256: 'cd'.repeat(32) })).toEqual({ miss: 'made for another bundle' });
    expect(readCodeCache(file, { ...bundle, length: 1235 })).toEqual({ miss: 'made for another bundle' });
    const bytes = await readFile(file);
    bytes[bytes.length - 1] ^= 0xff;
    await writeFile(file, bytes);
    expect(readCodeCache(file, bundle)).toEqual({ miss: 'corrupt' });
    await writeFile(file, 'not a cache');
    expect(readCodeCache(file, bundle)).toEqual({ miss: 'not a cache file' });
  });

  it.each([['KAH_DISABLE_COMPILE_CACHE'], ['NODE_DISABLE_COMPILE_CACHE']])('is off with %s=1', (name) => {
    expect(compileCacheDir({ [name]: '1' })).toEqual({ disabled: 'disabled by the environment' });
    expect(compileCacheDir({ [name]: '0', KAH_COMPILE_CACHE_DIR: dir })).toEqual({ dir });
  });

  it('lives in a per-user directory under the temp dir unless KAH_COMPILE_CACHE_DIR says where', () => {
    const uid = process.getuid?.();
    expect(compileCacheDir({})).toEqual({ dir: path.join(tmpdir(), uid === undefined ? 'kah-compile-cache' : `kah-compile-cache-${uid}`) });
    expect(compileCacheDir({ KAH_COMPILE_CACHE_DIR: dir })).toEqual({ dir });
  });

  it('creates missing directories, and is off (not failing the start) where it cannot', async () => {
    expect(locateCodeCache('/x/server.cjs', { KAH_COMPILE_CACHE_DIR: path.join(dir, 'a', 'b') })).toEqual({ file: expect.stringContaining(path.join(dir, 'a', 'b') + path.sep) });
    await writeFile(path.join(dir, 'file'), '');
    expect(locateCodeCache('/x/server.cjs', { KAH_COMPILE_CACHE_DIR: path.join(dir, 'file', 'sub') })).toEqual({ disabled: expect.stringContaining(`cannot use ${path.join(dir, 'file', 'sub')}`) });
  });

  it('is not used from a directory other users can write to (they could plant code)', async () => {
    if (process.getuid === undefined) return;
    const shared = path.join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
    const located = locateCodeCache('/x/server.cjs', { KAH_COMPILE_CACHE_DIR: shared });
    expect(located).toEqual({ disabled: `${shared} is writable by other users` });
    await chmod(shared, 0o700);
    expect(locateCodeCache('/x/server.cjs', { KAH_COMPILE_CACHE_DIR: shared })).toEqual({ file: expect.stringContaining(`${shared}${path.sep}`) });
  });
});

/** One `node <serverDir>/<entry>` start with the loader's debug lines on stderr; stopped by the test. */
class Start {
  readonly child: ChildProcess;
  stderr = '';
  stdout = '';
  constructor(
    serverDir: string,
    private readonly certDir: string,
    env: NodeJS.ProcessEnv,
    entry: string,
    storageArgs: readonly string[],
  ) {
    this.child = spawn(process.execPath, [path.join(serverDir, entry), '--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, ...storageArgs], {
      env: { ...process.env, NODE_DEBUG: 'kah_compile_cache', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (d: string) => (this.stderr += d));
  }
  /** Resolves once /readyz answers 200 (as the admin user, whose certificate the start generated). */
  async ready(): Promise<void> {
    const url = await eventually(() => {
      const m = /"msg":"Serving securely".*?"url":"([^"]+)"/.exec(this.stdout);
      expect(m).not.toBeNull();
      return m![1]!;
    }, 30_000);
    const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(this.certDir, f))));
    await eventually(async () => {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        https.get(`${url}/readyz`, { ca, cert, key }, (res) => {
          res.resume();
          resolve(res.statusCode);
        }).on('error', reject);
      });
      expect(status).toBe(200);
    }, 30_000);
  }
  /** the loader's lines about the cache file, without the "KAH_COMPILE_CACHE <pid>: <file>: " prefix */
  get cacheLines(): string[] {
    return [...this.stderr.matchAll(/^KAH_COMPILE_CACHE \d+: (?:[^\n]*\.v8cache: |)([^\n]*)$/gm)].map((m) => m[1]!.replace(/ \(\d+ bytes\)$/, ''));
  }
  async until(line: string): Promise<void> {
    await eventually(() => expect(this.cacheLines).toContain(line), 30_000);
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }
}

describe('the server started with the code cache', () => {
  let work: string;
  let cacheDir: string;
  let serverDir: string;
  const starts: Start[] = [];
  // main.cjs is what the harness starts; main.js is its ESM face (`node dist/server/main.js`, `kah serve`)
  const start = (env: NodeJS.ProcessEnv = {}, entry = 'main.cjs', storageArgs: readonly string[] = ['--storage-backend=memory']): Start => {
    const s = new Start(serverDir, path.join(work, `certs-${starts.length}`), { KAH_COMPILE_CACHE_DIR: cacheDir, ...env }, entry, storageArgs);
    starts.push(s);
    return s;
  };
  const cacheFiles = async (): Promise<string[]> => {
    const [runtime] = await readdir(cacheDir).catch(() => []);
    return runtime ? (await readdir(path.join(cacheDir, runtime))).map((f) => path.join(cacheDir, runtime, f)) : [];
  };

  beforeEach(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'kah-code-cache-start-'));
    cacheDir = path.join(work, 'cache');
    // a copy of the built loader and bundle, inside dist/ (so that packages resolve), that a test may change
    serverDir = await mkdtemp(path.join(repoRoot, 'dist', '.code-cache-test-'));
    for (const f of ['main.js', 'main.cjs', 'server.cjs']) await cp(path.join(builtServer, f), path.join(serverDir, f));
  });
  afterEach(async () => {
    await Promise.all(starts.splice(0).map((s) => s.stop()));
    await rm(work, { recursive: true, force: true });
    await rm(serverDir, { recursive: true, force: true });
  });

  it('writes the cache before the first start answers /readyz with 200, and the next start uses it', async () => {
    const first = start();
    await first.ready();
    // no wait for it: the file was in place before the server answered /readyz with 200
    expect(await cacheFiles()).toHaveLength(1);
    await first.until('written');
    expect(first.cacheLines).toEqual(['no cache yet', 'written']);
    await first.stop();
    const [file] = await cacheFiles();
    const written = await readFile(file!);
    const second = start();
    await second.ready();
    // ready, and nothing written: the cache it used was good
    expect(second.cacheLines).toEqual(['accepted']);
    expect(await cacheFiles()).toEqual([file]);
    expect((await readFile(file!)).equals(written)).toBe(true);
    await second.stop();
    // the ESM entry runs the same loader
    const third = start({}, 'main.js');
    await third.ready();
    expect(third.cacheLines).toEqual(['accepted']);
  }, 90_000);

  it('is written 2 s after the server listens when nobody asks whether it is ready', async () => {
    const first = start();
    await eventually(() => expect(first.stdout).toContain('"msg":"Serving securely"'), 30_000);
    expect(first.cacheLines).toEqual(['no cache yet']);
    await first.until('written');
    expect(await cacheFiles()).toHaveLength(1);
  }, 90_000);

  /**
   * A first start on memory writes the cache; a second start that takes `codePath` (with `args`) extends it, in place
   * before its first answer as a first write is; later starts of either kind accept it and write nothing.
   */
  async function extendedBy(args: readonly string[], codePath: string): Promise<void> {
    const first = start();
    await first.until('written');
    await first.stop();
    const [file] = await cacheFiles();
    const plain = await readFile(file!);
    const second = start({}, 'main.cjs', args);
    await second.ready();
    expect(second.cacheLines).toEqual(['accepted', `extended with ${codePath}`]);
    await second.stop();
    const extended = await readFile(file!);
    // V8's data for the script keeps what came from the file it read: the first start's functions are still there
    expect(extended.length).toBeGreaterThan(plain.length);
    // the header's list of the code paths it holds
    expect(extended.subarray(0, 200).toString('latin1')).toContain(`storage:memory\n${codePath}`);
    for (const [nextArgs, label] of [[args, codePath], [['--storage-backend=memory'], 'memory']] as const) {
      const next = start({}, 'main.cjs', nextArgs);
      await next.ready();
      expect({ label, lines: next.cacheLines }).toEqual({ label, lines: ['accepted'] });
      await next.stop();
    }
    expect((await readFile(file!)).equals(extended)).toBe(true);
  }

  it('is written again, with the functions of both, when a start runs on another storage backend than those it holds', async () => {
    const etcd = await startEtcd();
    try {
      await extendedBy(['--etcd-servers', etcd.endpoint, '--etcd-prefix', `/code-cache-${path.basename(work)}`], 'storage:etcd3');
    } finally {
      await etcd.cleanup();
    }
  }, 90_000);

  it('is written again, with their functions, when a start loads static manifests the cache does not hold', async () => {
    await extendedBy(['--storage-backend=memory', ...(await writeStaticAdmission(path.join(work, 'manifests'), 2, 2))], 'static-manifests');
  }, 90_000);

  it('survives first starts racing to write it: each replaces the file whole, and the next start uses it', async () => {
    // a temp file a killed writer left a while ago goes; a fresh one may be another writer's and stays
    await mkdir(cacheDir, { recursive: true });
    const racing = [start(), start(), start()];
    await Promise.all(racing.map((s) => s.until('written')));
    await Promise.all(racing.map((s) => s.stop()));
    const [cacheFile] = await cacheFiles();
    const stale = `${cacheFile}.1.old.tmp`;
    const fresh = `${cacheFile}.2.new.tmp`;
    await writeFile(stale, 'partial');
    await writeFile(fresh, 'partial');
    const longAgo = new Date(Date.now() - 10 * 60_000);
    await utimes(stale, longAgo, longAgo);
    await rm(cacheFile!);
    const rewriter = start();
    await rewriter.until('written');
    expect((await cacheFiles()).sort()).toEqual([cacheFile, fresh].sort());
    await rm(fresh);
    const files = await cacheFiles();
    expect(files.map((f) => path.basename(f))).toEqual([expect.stringMatching(/^server\.cjs-[0-9a-f]{16}\.v8cache$/)]);
    const next = start();
    await next.until('accepted');
  }, 90_000);

  it('ignores a corrupt cache file and replaces it', async () => {
    const first = start();
    await first.until('written');
    await first.stop();
    const [file] = await cacheFiles();
    const bytes = await readFile(file!);
    for (let i = bytes.length - 4096; i < bytes.length; i += 7) bytes[i] ^= 0x5a;
    await writeFile(file!, bytes);
    const second = start();
    await second.until('written');
    expect(second.cacheLines).toEqual(['corrupt', 'written']);
    await second.stop();
    const third = start();
    await third.until('accepted');
  }, 90_000);

  it('does not use the cache of another build of the bundle', async () => {
    const first = start();
    await first.until('written');
    await first.stop();
    // a rebuild: new bundle content, and the loader built with its hash
    const bundleFile = path.join(serverDir, 'server.cjs');
    const oldBundle = await readFile(bundleFile);
    const newBundle = Buffer.concat([oldBundle, Buffer.from('\n// rebuilt\n')]);
    await writeFile(bundleFile, newBundle);
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
    const loader = await readFile(path.join(serverDir, 'main.cjs'), 'utf8');
    expect(loader).toContain(sha(oldBundle));
    await writeFile(path.join(serverDir, 'main.cjs'), loader.replace(sha(oldBundle), sha(newBundle)));
    const second = start();
    await second.until('written');
    expect(second.cacheLines).toEqual(['made for another bundle', 'written']);
  }, 90_000);

  it('is neither read nor written with KAH_DISABLE_COMPILE_CACHE=1', async () => {
    const first = start({ KAH_DISABLE_COMPILE_CACHE: '1' });
    await first.ready();
    expect(first.cacheLines).toEqual(['off: disabled by the environment']);
    expect(await cacheFiles()).toEqual([]);
    await first.stop();
    const second = start();
    await second.until('written');
    await second.stop();
    const third = start({ KAH_DISABLE_COMPILE_CACHE: '1' });
    await third.ready();
    expect(third.cacheLines).toEqual(['off: disabled by the environment']);
  }, 90_000);

  it('loads the bundle with require() under --enable-source-maps, so that stack traces name the TypeScript sources', async () => {
    const r = spawn(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', [
        `const m = await import(${JSON.stringify(path.join(builtServer, 'main.js'))});`,
        // a StartupError thrown inside the bundle
        `await m.loadAdmissionConfig({ admission: { configFile: '/nonexistent/admission.yaml', plugins: [] }, featureGates: {} }).catch((e) => console.log(e.stack));`,
      ].join('\n')], {
      env: { ...process.env, NODE_DEBUG: 'kah_compile_cache', KAH_COMPILE_CACHE_DIR: cacheDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    r.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    r.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise((resolve) => r.on('exit', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/at \S*loadAdmissionConfig \([^)]*\/server\/main\.ts:\d+:\d+\)/);
    expect(out).toContain('source maps enabled: loading');
  }, 30_000);
});
