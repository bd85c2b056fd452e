// The content hash of a manifest directory, as kube-apiserver's manifest.LoadFiles computes it: sha256 over each
// loaded file's bytes followed by a NUL, in file name order, printed "sha256:<hex>"; "" when no file has content
// (the value the last_config_info metric then carries). Equal hashes mean a reload has nothing to do.
import { createHash } from 'node:crypto';

export interface ManifestFileContent {
  /** the file's name in the directory (sorting key) */
  readonly name: string;
  readonly data: Uint8Array;
}

/** os.ReadDir's order: file names compared as bytes. */
export function compareFileNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function hashManifestFiles(files: readonly ManifestFileContent[]): string {
  const withData = files.filter((f) => f.data.length > 0).sort((a, b) => compareFileNames(a.name, b.name));
  if (withData.length === 0) return '';
  const h = createHash('sha256');
  for (const f of withData) {
    h.update(f.data);
    h.update(Buffer.from([0]));
  }
  return `sha256:${h.digest('hex')}`;
}
