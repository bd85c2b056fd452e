// Scenario files from disk: every YAML document of a file is one scenario; directories are walked for .yaml/.yml
// files, and there YAML files that hold no scenario (manifests used by `file:` steps) are left alone.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import type { Scenario, ScenarioProblem } from './scenario-types.js';
import { looksLikeScenario, validateScenario } from './validate-scenario.js';

/** A problem in a file: which file, which document (0-based), which field. */
export interface FileProblem extends ScenarioProblem {
  file: string;
  document: number;
  /** How many documents the file has (the document is named only when there are several). */
  documents: number;
}

export interface LoadResult {
  scenarios: Scenario[];
  problems: FileProblem[];
}

/** `file (document 2): steps[3].apply: exactly one of manifest or file`; the document is left out for single-document files. */
export function formatFileProblem(p: FileProblem): string {
  const where = p.documents > 1 ? `${p.file} (document ${p.document + 1})` : p.file;
  return p.path === '' ? `${where}: ${p.message}` : `${where}: ${p.path}: ${p.message}`;
}

/** Parses text holding one or more scenario documents. `fromDirectory` skips text with no scenario in it. Pure. */
export function parseScenarioText(text: string, file: string, opts: { fromDirectory?: boolean } = {}): LoadResult {
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true });
  const problems: FileProblem[] = [];
  const values: unknown[] = [];
  const documents = docs.length;
  docs.forEach((doc, i) => {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) problems.push({ file, document: i, documents, path: '', message: `invalid YAML: ${e.message.split('\n')[0]}` });
      values.push(undefined);
    } else values.push(doc.toJS());
  });
  // Empty documents (a trailing `---`) are not scenarios.
  const present = values.map((v, i) => ({ v, i })).filter(({ v, i }) => v !== null && v !== undefined || problems.some((p) => p.document === i));
  if (opts.fromDirectory && problems.length === 0 && !present.some(({ v }) => looksLikeScenario(v))) return { scenarios: [], problems: [] };
  if (present.length === 0 && problems.length === 0) problems.push({ file, document: 0, documents, path: '', message: 'holds no scenario' });
  const scenarios: Scenario[] = [];
  for (const { v, i } of present) {
    if (v === undefined) continue;
    const r = validateScenario(v, { file, document: i, dir: path.dirname(path.resolve(file)) });
    if (r.ok) scenarios.push(r.scenario);
    else for (const p of r.problems) problems.push({ file, document: i, documents, ...p });
  }
  const names = new Map<string, number>();
  for (const s of scenarios) {
    const first = names.get(s.name);
    if (first !== undefined) problems.push({ file, document: s.source.document, documents, path: 'name', message: `duplicate scenario name ${JSON.stringify(s.name)} (also document ${first + 1})` });
    else names.set(s.name, s.source.document);
  }
  return { scenarios, problems };
}

/** Loads every scenario of one file. */
export async function loadScenarioFile(file: string, opts: { fromDirectory?: boolean } = {}): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    return { scenarios: [], problems: [{ file, document: 0, documents: 1, path: '', message: `cannot read: ${(err as Error).message}` }] };
  }
  return parseScenarioText(text, file, opts);
}

async function yamlFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await yamlFilesUnder(p)));
    else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Files and directories (walked, in name order) → every scenario, with all problems of all files. */
export async function loadScenarioPaths(paths: readonly string[]): Promise<LoadResult> {
  const result: LoadResult = { scenarios: [], problems: [] };
  for (const p of paths) {
    let isDir: boolean;
    try {
      isDir = (await stat(p)).isDirectory();
    } catch {
      result.problems.push({ file: p, document: 0, documents: 1, path: '', message: 'no such file or directory' });
      continue;
    }
    const files = isDir ? await yamlFilesUnder(p) : [p];
    for (const f of files) {
      const r = await loadScenarioFile(f, { fromDirectory: isDir });
      result.scenarios.push(...r.scenarios);
      result.problems.push(...r.problems);
    }
  }
  return result;
}
