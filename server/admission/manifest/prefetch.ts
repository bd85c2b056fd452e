// Static manifests read and parsed ahead of their load: startup starts this as soon as the admission configuration
// names the directories, so the YAML parsing (most of a large directory's load) runs while the main thread would
// otherwise wait for the serving certificates (generated on the crypto thread pool). The load itself still happens
// where kube-apiserver does it, while the admission plugins are built, before the port opens: it takes each parsed
// document from here by its exact text, once, and parses whatever it does not find (a file changed meanwhile).
import { splitYamlDocuments, parseDocument, type ParsedDocument } from './decode.js';
import { readManifestDirSync } from './read-dir.js';

const parsedByText = new Map<string, ParsedDocument>();

/** Reads and parses every document of `dirs`, yielding between files; problems are left for the load to find. */
export async function prefetchManifestDirs(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    // the caller starts the certificate generation right after this returns its promise: let it go first
    await new Promise((resolve) => setImmediate(resolve));
    const read = readManifestDirSync(dir);
    if (!read.ok) continue;
    for (const f of read.files) {
      const split = splitYamlDocuments(f.data.toString('utf8'));
      if (!split.ok) continue;
      for (const doc of split.docs) if (!parsedByText.has(doc)) parsedByText.set(doc, parseDocument(doc));
      // let the certificate callbacks and file reads go on between files
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** The prefetched parse of exactly this document text, handed out once. */
export function takePrefetchedDocument(text: string): ParsedDocument | undefined {
  const parsed = parsedByText.get(text);
  if (parsed) parsedByText.delete(text);
  return parsed;
}
