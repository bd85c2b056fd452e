// Reading one staticManifestsDir as kube-apiserver's manifest.LoadFiles does (its reading part): which files, in which
// order. Apart from the loader so that the harness can compute the directory hash the server will report
// (hashManifestFiles) without loading the validators.
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { goPathErrorMessage } from '../../options/go-fs-errors.js';
import { goQuote } from '../../options/go-strconv.js';
import { compareFileNames } from './hash.js';
import type { ManifestError } from './manifest-error.js';

export interface ManifestFile {
  /** the name in the directory */
  readonly name: string;
  /** the directory joined with the name */
  readonly path: string;
  readonly data: Buffer;
}

export type ReadManifestDirResult = { ok: true; files: ManifestFile[] } | { ok: false; error: ManifestError };

const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

/** Go's filepath.Ext: from the last dot of the name, so ".yaml" alone has the extension ".yaml". */
function goExt(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

function listDirError(dir: string, err: unknown): ReadManifestDirResult {
  return { ok: false, error: { file: dir, reason: `failed to read manifest directory ${goQuote(dir)}: ${goPathErrorMessage(err, dir)}` } };
}

function readFileError(path: string, err: unknown): ManifestError {
  return { file: path, reason: `failed to read file ${goQuote(path)}: ${goPathErrorMessage(err, path)}` };
}

/** The manifest files of a listing, in name order. */
function manifestNames(entries: readonly Dirent[]): string[] {
  return entries
    .filter((e) => !e.isDirectory() && manifestExtensions.has(goExt(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort(compareFileNames);
}

/**
 * manifest.LoadFiles' reading part: direct children that are not directories, with a .yaml, .yml or .json
 * extension (any case), in name order; empty files are left out. Symbolic links are followed when read.
 */
export async function readManifestDir(dir: string): Promise<ReadManifestDirResult> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    return listDirError(dir, err);
  }
  const names = manifestNames(entries);
  // All files are read at once (a directory of 100 manifests is 100 sequential thread-pool round trips
  // otherwise); the outcome is still taken in name order, so the first unreadable file is the one reported.
  const reads = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      try {
        return { ok: true as const, file: { name, path, data: await readFile(path) } };
      } catch (err) {
        return { ok: false as const, error: readFileError(path, err) };
      }
    }),
  );
  const files: ManifestFile[] = [];
  for (const r of reads) {
    if (!r.ok) return { ok: false, error: r.error };
    if (r.file.data.length > 0) files.push(r.file);
  }
  return { ok: true, files };
}

/**
 * readManifestDir, blocking: for startup, before the port opens, where nothing waits on the event loop. A promise
 * readFile is four thread-pool round trips (open, fstat, read, close), which for 200 small manifests cost ≈ 40 ms
 * of main-thread CPU at startup against a few ms for these calls (issue #19).
 */
export function readManifestDirSync(dir: string): ReadManifestDirResult {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    return listDirError(dir, err);
  }
  const files: ManifestFile[] = [];
  for (const name of manifestNames(entries)) {
    const path = join(dir, name);
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (err) {
      return { ok: false, error: readFileError(path, err) };
    }
    if (data.length > 0) files.push({ name, path, data });
  }
  return { ok: true, files };
}
