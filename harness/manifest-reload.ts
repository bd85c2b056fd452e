// Deterministic reload waits for static admission manifests (KEP-5793): write files into a plugin's
// staticManifestsDir and return only once the server has put exactly that directory content in force. The server
// reports the hash of the configuration in force as kube-apiserver does, in
// apiserver_manifest_admission_config_controller_last_config_info{hash,plugin}; the hash is computed here from the
// files the same way (manifest.LoadFiles: sha256 over each loaded file's bytes and a NUL, in name order), so equal
// hashes mean "this content is loaded", whatever reloads (the startup load, other writes) happened before. Counting
// automatic_reloads_total instead races with the startup load and with bursts of writes.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hashManifestFiles } from '../server/admission/manifest/hash.js';
import { readManifestDir } from '../server/admission/manifest/read-dir.js';
import type { ApiServerHandle, StaticManifestPlugin } from './apiserver-process.js';

/** File name (in the directory) → new content, or null to remove the file. */
export type ManifestFileChanges = Readonly<Record<string, string | Uint8Array | null>>;

export interface ManifestWaitOptions {
  /** how long the server may take to load the content (default 10 s) */
  timeoutMs?: number;
  /** how often /metrics is read (default 20 ms) */
  pollMs?: number;
}

export interface ManifestsInForce {
  plugin: StaticManifestPlugin;
  dir: string;
  /** the directory hash now in force ("" for a directory without manifest files) */
  hash: string;
}

/** The server refused the content, or did not load it in time. */
export class ManifestReloadError extends Error {
  constructor(
    message: string,
    readonly plugin: StaticManifestPlugin,
    readonly dir: string,
    /** the hash of the content that was to be loaded */
    readonly expectedHash: string,
    /** the file the server's loader failed on, when it named one */
    readonly file?: string,
    /** the server's error, as kube's loader words it */
    readonly serverError?: string,
  ) {
    super(message);
    this.name = 'ManifestReloadError';
  }
}

const configInfo = 'apiserver_manifest_admission_config_controller_last_config_info{';

/** The hash the server reports for `plugin` in its /metrics text, or undefined when it reports none. */
export function hashInForce(metricsText: string, plugin: StaticManifestPlugin): string | undefined {
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(configInfo) || !line.includes(`plugin="${plugin}"`)) continue;
    const m = /[{,]hash="([^"]*)"/u.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** The hash the server will report once `dir` is loaded: the same files, read the same way, as the server reads them. */
export async function manifestDirHash(dir: string): Promise<string> {
  const read = await readManifestDir(dir);
  if (!read.ok) throw new Error(read.error.reason);
  return hashManifestFiles(read.files);
}

/** The file kube's loader names in its error ("error loading <file>: …", "failed to read file \"<file>\"", …). */
export function fileOfLoaderError(err: string): string | undefined {
  const loading = /^error loading (.+?): /u.exec(err);
  if (loading) return loading[1];
  const quoted = /^failed to (?:read|split YAML documents in) file "((?:[^"\\]|\\.)*)"/u.exec(err);
  return quoted ? JSON.parse(`"${quoted[1]}"`) as string : undefined;
}

interface ReloadFailure {
  err: string;
}

/** A failed reload the server logged after `from` (a stdout offset) for this plugin and exactly this content. */
function failureFor(stdout: string, from: number, plugin: StaticManifestPlugin, hash: string): ReloadFailure | undefined {
  // stdout keeps only its last megabytes: an offset past its end means it was trimmed since
  for (const line of stdout.slice(from <= stdout.length ? from : 0).split('\n')) {
    if (!line.startsWith('{') || !line.includes('"level":"error"')) continue;
    let entry: { plugin?: unknown; attempted?: unknown; err?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.plugin === plugin && entry.attempted === hash && typeof entry.err === 'string') return { err: entry.err };
  }
  return undefined;
}

/**
 * Waits until the server has `dir`'s current content in force for `plugin` (the reported hash equals the one
 * computed from the files). Fails at once, naming the file, when the server refused exactly this content; fails
 * after the timeout otherwise, saying what it last saw. `logFrom` is the stdout offset from which refusals count.
 */
export async function waitForManifestsInForce(
  server: ApiServerHandle,
  plugin: StaticManifestPlugin,
  dir: string,
  opts: ManifestWaitOptions & { logFrom?: number } = {},
): Promise<ManifestsInForce> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const pollMs = opts.pollMs ?? 20;
  const expected = await manifestDirHash(dir);
  const from = opts.logFrom ?? 0;
  const deadline = Date.now() + timeoutMs;
  let seen: string | undefined;
  for (;;) {
    const metrics = await server.request('/metrics');
    seen = metrics.status === 200 ? hashInForce(metrics.body, plugin) : undefined;
    if (seen === expected) return { plugin, dir, hash: expected };
    const failure = failureFor(server.stdout(), from, plugin, expected);
    if (failure) {
      const file = fileOfLoaderError(failure.err);
      throw new ManifestReloadError(
        `the apiserver refused the ${plugin} manifests in ${dir}${file ? ` (${file} failed to load)` : ''}: ${failure.err}`,
        plugin,
        dir,
        expected,
        file,
        failure.err,
      );
    }
    if (Date.now() >= deadline) {
      throw new ManifestReloadError(
        `the apiserver did not put the ${plugin} manifests in ${dir} in force within ${timeoutMs} ms: expected hash ${JSON.stringify(expected)}, it reports ${seen === undefined ? 'none' : JSON.stringify(seen)}`,
        plugin,
        dir,
        expected,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * Writes (atomically: a temporary name without a manifest extension, then a rename) or removes the files, then waits
 * as waitForManifestsInForce does. Resolves with the hash in force; rejects with a ManifestReloadError naming the
 * file the server failed to load, or after the timeout.
 */
export async function writeManifestsAndWait(
  server: ApiServerHandle,
  plugin: StaticManifestPlugin,
  dir: string,
  changes: ManifestFileChanges,
  opts: ManifestWaitOptions = {},
): Promise<ManifestsInForce> {
  const logFrom = server.stdout().length;
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(changes)) {
    const target = path.resolve(dir, name);
    if (path.dirname(target) !== path.resolve(dir)) throw new Error(`${name}: a manifest file name, not a path`);
    if (content === null) {
      await rm(target, { force: true });
      continue;
    }
    const tmp = path.join(dir, `.${name}.kah-tmp-${process.pid}`);
    await writeFile(tmp, content);
    await rename(tmp, target);
  }
  return waitForManifestsInForce(server, plugin, dir, { ...opts, logFrom });
}
