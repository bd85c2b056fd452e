// kube's descriptions and required fields of client-node's generated models, read from their .d.ts files: the
// OpenAPI generator writes each definition's and each property's `description` as a JSDoc comment, and makes a
// property optional (`'name'?:`) unless kube's schema lists it in `required`. The .js models carry neither.
// Read lazily (the OpenAPI documents are built on first request), one small file per model.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface FieldDoc {
  readonly description?: string;
  readonly required: boolean;
}

export interface ModelDoc {
  readonly description?: string;
  readonly fields: ReadonlyMap<string, FieldDoc>;
}

let modelsDir: string | undefined;

/** client-node's dist/gen/models, resolved as node resolves the package (it is external to the server bundle). */
function clientNodeModelsDir(): string {
  modelsDir ??= path.join(path.dirname(createRequire(import.meta.url).resolve('@kubernetes/client-node')), 'gen', 'models');
  return modelsDir;
}

/** A JSDoc comment's text: the ` * ` margins dropped, the generator's `\'` and `\"` escapes undone. */
function commentText(raw: string): string | undefined {
  const text = raw
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, '').trimEnd())
    .join('\n')
    .trim()
    .replace(/\\(['"\\])/g, '$1');
  return text === '' ? undefined : text;
}

// a comment that does not run past its own end, then what it documents
const CLASS = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export declare class /;
const PROPERTY = /(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?'([^']+)'(\?)?:/g;

/** Parses one generated model's declaration file. */
export function parseModelDeclaration(source: string): ModelDoc {
  const cls = CLASS.exec(source);
  const body = cls ? source.slice(cls.index + cls[0].length) : source;
  const fields = new Map<string, FieldDoc>();
  for (const m of body.matchAll(PROPERTY)) {
    const description = m[1] === undefined ? undefined : commentText(m[1]);
    fields.set(m[2]!, { ...(description ? { description } : {}), required: m[3] === undefined });
  }
  const description = cls ? commentText(cls[1]!) : undefined;
  return { ...(description ? { description } : {}), fields };
}

/** The docs of one model (`V1Container`); undefined when client-node has no such model. */
export async function readModelDoc(model: string): Promise<ModelDoc | undefined> {
  // model names come from the generated type maps (identifiers), never from requests
  if (!/^[A-Za-z0-9]+$/.test(model)) return undefined;
  try {
    return parseModelDeclaration(await readFile(path.join(clientNodeModelsDir(), `${model}.d.ts`), 'utf8'));
  } catch {
    return undefined;
  }
}
