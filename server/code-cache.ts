// A V8 code cache for the server bundle, in the spirit of Node 22's module compile cache (module.enableCompileCache,
// which Node 20 lacks): compiling the 6 MB bundle is most of what importing it costs, and V8 can skip that given the
// code it produced last time. Unlike Node 22, the cache is taken as the server first reports ready
// (script.createCachedData() then holds every function the start compiled lazily, not just the top level), so a start
// with it compiles almost nothing.
//
// One file per bundle path, in a directory per Node version, architecture and V8 flags (as Node 22 keys its cache),
// holding a header (the bundle's length and SHA-256, a CRC-32, the code paths of the starts it holds) and V8's data.
// A missing, corrupt, stale or rejected file means a normal compile and a new file; every write is a temp file
// renamed into place, so concurrently starting servers never read a half-written one.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { debuglog } from 'node:util';
import { cachedDataVersionTag } from 'node:v8';
import { crc32 } from 'node:zlib';
import { makeDirsSync } from './make-dirs.js';

/** NODE_DEBUG=kah_compile_cache prints what the cache did (read, accepted, rejected, written) on stderr. */
export const debugCompileCache = debuglog('kah_compile_cache');

const magic = 'KAHCC2\n\0';
// magic, bundle length (u32), bundle SHA-256 (32 bytes), CRC-32 of everything after it (u32), then the length of the
// list of code paths the data covers (u16), that list (ASCII, one per line) and V8's data
const crcAt = magic.length + 4 + 32;
const hashAt = magic.length + 4;
const coversLengthAt = crcAt + 4;
const fixedHeaderBytes = coversLengthAt + 2;

export interface CodeCacheLocation {
  /** the cache file for this bundle under this runtime */
  file: string;
}

export type CacheDirResult = { dir: string } | { disabled: string };

const truthy = (v: string | undefined): boolean => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/**
 * Where the cache lives: $KAH_COMPILE_CACHE_DIR, else a per-user directory under the OS temp dir (dist/ may be a
 * read-only installed package). KAH_DISABLE_COMPILE_CACHE=1 (or Node's own NODE_DISABLE_COMPILE_CACHE=1) turns it off.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv): CacheDirResult {
  if (truthy(env['KAH_DISABLE_COMPILE_CACHE']) || truthy(env['NODE_DISABLE_COMPILE_CACHE'])) return { disabled: 'disabled by the environment' };
  const given = env['KAH_COMPILE_CACHE_DIR'];
  if (given) return { dir: path.resolve(given) };
  const uid = process.getuid?.();
  return { dir: path.join(os.tmpdir(), uid === undefined ? 'kah-compile-cache' : `kah-compile-cache-${uid}`) };
}

/**
 * The directory for this runtime: V8 rejects data made by another V8 version, with other V8 flags or on other CPU
 * features, and two such runtimes sharing one file would replace each other's on every start. V8's own tag for
 * exactly that (node flags that V8 does not see, such as -e or --cpu-prof, leave it alone).
 */
export function runtimeKey(): string {
  return `${process.version}-${process.arch}-${cachedDataVersionTag().toString(16)}`;
}

/**
 * Creates the cache directory. Code read from it runs in this process, so under a shared temp dir it must be ours
 * and writable by nobody else (another user could otherwise plant data); when it is not, the cache stays off.
 */
function ensureOwnDir(dir: string): string | undefined {
  makeDirsSync(dir, 0o700);
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const s = lstatSync(dir);
  if (!s.isDirectory()) return `${dir} is not a directory`;
  if (s.uid !== uid) return `${dir} belongs to another user`;
  if (s.mode & 0o022) return `${dir} is writable by other users`;
  return undefined;
}

export function locateCodeCache(bundleFile: string, env: NodeJS.ProcessEnv): CodeCacheLocation | { disabled: string } {
  const where = compileCacheDir(env);
  if ('disabled' in where) return where;
  const dir = path.join(where.dir, runtimeKey());
  try {
    const problem = ensureOwnDir(where.dir) ?? ensureOwnDir(dir);
    if (problem) return { disabled: problem };
  } catch (err) {
    return { disabled: `cannot use ${where.dir}: ${(err as Error).message}` };
  }
  const name = createHash('sha256').update(path.resolve(bundleFile)).digest('hex').slice(0, 16);
  return { file: path.join(dir, `${path.basename(bundleFile)}-${name}${cacheSuffix}`) };
}

/**
 * The bundle's identity in the header: the SHA-256 of its content, computed when it was built (hashing 6 MB at every
 * start would cost milliseconds; mtimes are no help, npm gives every installed file the same one), and its length.
 */
export interface BundleIdentity {
  length: number;
  /** hex SHA-256 */
  sha256: string;
}

/**
 * V8's data from a cache file and the code paths of the starts it holds (see main-loader.ts), or why there is none
 * (missing, corrupt, made for another bundle).
 */
export function readCodeCache(file: string, bundle: BundleIdentity): { data: Buffer; covers: string[] } | { miss: string } {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    return { miss: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no cache yet' : (err as Error).message };
  }
  if (buf.length <= fixedHeaderBytes || buf.toString('latin1', 0, magic.length) !== magic) return { miss: 'not a cache file' };
  if (buf.readUInt32LE(magic.length) !== bundle.length || buf.toString('hex', hashAt, hashAt + 32) !== bundle.sha256) return { miss: 'made for another bundle' };
  // V8 trusts the data it is given (it checks versions and flags, not every byte): a torn or damaged file must not reach it
  if (crc32(buf.subarray(coversLengthAt)) !== buf.readUInt32LE(crcAt)) return { miss: 'corrupt' };
  const dataAt = fixedHeaderBytes + buf.readUInt16LE(coversLengthAt);
  if (dataAt >= buf.length) return { miss: 'corrupt' };
  const covers = buf.toString('latin1', fixedHeaderBytes, dataAt);
  return { data: buf.subarray(dataAt), covers: covers === '' ? [] : covers.split('\n') };
}

/**
 * Writes the cache atomically: a temp file beside it, renamed over it. Synchronous, so that it is done before the
 * server answers anything. Temp files a killed writer left (older than a minute) go first; caches of the same bundle
 * name at other locations beyond the newest few go after (see pruneOtherLocations).
 */
export function writeCodeCache(file: string, bundle: BundleIdentity, data: Buffer, covers: readonly string[] = []): void {
  const coversBytes = Buffer.from(covers.join('\n'), 'latin1');
  const header = Buffer.alloc(fixedHeaderBytes + coversBytes.length);
  header.write(magic, 0, 'latin1');
  header.writeUInt32LE(bundle.length, magic.length);
  header.write(bundle.sha256, hashAt, 32, 'hex');
  header.writeUInt16LE(coversBytes.length, coversLengthAt);
  coversBytes.copy(header, fixedHeaderBytes);
  header.writeUInt32LE(crc32(data, crc32(header.subarray(coversLengthAt))), crcAt);
  removeStaleTempFiles(file);
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}${tempSuffix}`;
  try {
    writeFileSync(tmp, Buffer.concat([header, data]), { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  pruneOtherLocations(file);
}

/** How many caches of one bundle name (one per install location) a runtime's directory keeps. */
export const cachesKeptPerBundleName = 8;

/**
 * A cache file is named by its bundle's location, so every install (a throwaway project, a CI checkout) leaves one of
 * 2–3 MB. Once a new one is written, the oldest written of the same bundle name beyond cachesKeptPerBundleName go: an
 * install whose cache went merely writes it again on its next start.
 */
function pruneOtherLocations(file: string): void {
  const dir = path.dirname(file);
  const own = path.basename(file);
  const dash = own.lastIndexOf('-');
  if (dash < 0) return; // not named by locateCodeCache: no siblings to tell apart
  const prefix = own.slice(0, dash + 1);
  const others: Array<{ name: string; mtimeMs: number }> = [];
  for (const name of readdirSync(dir)) {
    if (name === own || !name.startsWith(prefix) || !name.endsWith(cacheSuffix)) continue;
    try {
      others.push({ name, mtimeMs: statSync(path.join(dir, name)).mtimeMs });
    } catch {
      // removed meanwhile by another writer
    }
  }
  others.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { name } of others.slice(cachesKeptPerBundleName - 1)) rmSync(path.join(dir, name), { force: true });
}

const tempSuffix = '.tmp';
const cacheSuffix = '.v8cache';
const staleTempMs = 60_000;

function removeStaleTempFiles(file: string): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix) || !name.endsWith(tempSuffix)) continue;
    const tmp = path.join(dir, name);
    try {
      if (Date.now() - statSync(tmp).mtimeMs > staleTempMs) rmSync(tmp, { force: true });
    } catch {
      // another writer renamed or removed it meanwhile
    }
  }
}
