// The content hash of a manifest directory, as kube-apiserver's manifest.LoadFiles computes it: sha256 over each
// loaded file's bytes followed by a NUL, in file name order, printed "sha256:<hex>"; "" when no file has content
// (the value the last_config_info metric then carries). Equal hashes mean a reload has nothing to do.
import { createHash } from 'node:crypto';

export interface ManifestFileContent {
  /** the file's name in the directory (sorting key) */
  readonly name: string;
  readonly data: Uint8Array;
}

/** Code units from which UTF-16 order and UTF-8 byte order can differ (surrogates sort below U+E000–U+FFFF). */
const surrogateOrAbove = /[\ud800-\uffff]/;

/** os.ReadDir's order: file names compared as bytes. */
export function compareFileNames(a: string, b: string): number {
  // UTF-8 byte order is code point order, which UTF-16 comparison matches below U+D800: no encoding needed there
  if (!surrogateOrAbove.test(a) && !surrogateOrAbove.test(b)) return a < b ? -1 : a > b ? 1 : 0;
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
