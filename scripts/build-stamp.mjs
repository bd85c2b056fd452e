// Lets `npm run build` skip an esbuild bundle whose inputs did not change since it was made (a no-op `npm start`),
// as make would, but by content: a `git checkout` that touches files without changing them costs no rebuild.
// A stamp records the content hash of every input (from esbuild's metafile, plus the build's own scripts and
// configuration) and the size and mtime of every output, so that an output replaced since (tsc re-emitting
// dist/server/main.js over the bundle) or deleted forces a rebuild too.
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * @typedef {{ inputs: string[], inputsHash: string, outputs: Record<string, { size: number, mtimeMs: number }> }} Stamp
 */

/** sha256 over each file's path and content, in the given order; undefined when one is missing. */
async function hashFiles(root, files) {
  const h = createHash('sha256');
  for (const f of files) {
    let content;
    try {
      content = await readFile(path.resolve(root, f));
    } catch {
      return undefined;
    }
    h.update(f).update('\0').update(String(content.length)).update('\0').update(content);
  }
  return h.digest('hex');
}

async function outputState(root, files) {
  /** @type {Stamp['outputs']} */
  const out = {};
  for (const f of files) {
    const s = await stat(path.resolve(root, f));
    out[f] = { size: s.size, mtimeMs: s.mtimeMs };
  }
  return out;
}

/** True when the stamp at stampFile says the outputs are what the current inputs would build. */
export async function upToDate(root, stampFile) {
  /** @type {Stamp} */
  let stamp;
  try {
    stamp = JSON.parse(await readFile(stampFile, 'utf8'));
  } catch {
    return false;
  }
  for (const [f, recorded] of Object.entries(stamp.outputs)) {
    try {
      const s = await stat(path.resolve(root, f));
      if (s.size !== recorded.size || s.mtimeMs !== recorded.mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return (await hashFiles(root, stamp.inputs)) === stamp.inputsHash;
}

/**
 * Records a finished build: inputs and outputs are paths relative to root (esbuild's metafile keys are relative
 * to absWorkingDir); extraInputs are files the build depends on that esbuild does not list (its plugins, configs).
 */
export async function writeStamp(root, stampFile, metafile, extraInputs) {
  const inputs = [...new Set([...Object.keys(metafile.inputs).filter((f) => !f.includes(':')), ...extraInputs])].sort();
  const inputsHash = await hashFiles(root, inputs);
  const outputs = await outputState(root, Object.keys(metafile.outputs));
  await mkdir(path.dirname(stampFile), { recursive: true });
  await writeFile(stampFile, JSON.stringify({ inputs, inputsHash, outputs }));
}
