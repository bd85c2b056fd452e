// Reading one staticManifestsDir as kube-apiserver's manifest.LoadFiles does (its reading part): which files, in which
// order. Apart from the loader so that the harness can compute the directory hash the server will report
// (hashManifestFiles) without loading the validators.
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

/**
 * manifest.LoadFiles' reading part: direct children that are not directories, with a .yaml, .yml or .json
 * extension (any case), in name order; empty files are left out. Symbolic links are followed when read.
 */
export async function readManifestDir(dir: string): Promise<ReadManifestDirResult> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    return { ok: false, error: { file: dir, reason: `failed to read manifest directory ${goQuote(dir)}: ${goPathErrorMessage(err, dir)}` } };
  }
  const names = entries
    .filter((e) => !e.isDirectory() && manifestExtensions.has(goExt(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort(compareFileNames);
  // All files are read at once (a directory of 100 manifests is 100 sequential thread-pool round trips
  // otherwise); the outcome is still taken in name order, so the first unreadable file is the one reported.
  const reads = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      try {
        return { ok: true as const, file: { name, path, data: await readFile(path) } };
      } catch (err) {
        return { ok: false as const, error: { file: path, reason: `failed to read file ${goQuote(path)}: ${goPathErrorMessage(err, path)}` } };
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

