// x-kubernetes-validations[].fieldPath: kube's ValidFieldPath (schema/cel/validation.go) — a JSON path of `.name`
// and `['key']` accessors that must exist in the schema; it becomes the path of the rule's error.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { FieldPath } from '../../api/field.js';
import { additionalPropertiesSchema } from './schema-nodes.js';

export type FieldPathResult = { ok: true; path: FieldPath; schema: JSONSchemaProps } | { ok: false; error: string };

/** Splits like kube's scanner: `.`, `[`, `]` are tokens; a token starting with `'` runs to the next unescaped `'`. */
function tokens(jsonPath: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    const c = jsonPath[i]!;
    if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
      continue;
    }
    let j = i;
    if (c === "'") {
      j = i + 1;
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== '\\')) j++;
      j = Math.min(j + 1, jsonPath.length);
    } else {
      while (j < jsonPath.length && !'.[]'.includes(jsonPath[j]!)) j++;
    }
    out.push(jsonPath.slice(i, j));
    i = j;
  }
  return out;
}

const singleQuoteEscapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeSingleQuote(s: string): { ok: true; value: string } | { ok: false; error: string } {
  let error: string | undefined;
  const value = s.replace(/\\./g, (m) => {
    const r = singleQuoteEscapes[m[1]!];
    if (r === undefined) error ??= `invalid escape char ${m}`;
    return r ?? '';
  });
  return error === undefined ? { ok: true, value } : { ok: false, error };
}

export function validFieldPath(jsonPath: string, root: JSONSchemaProps): FieldPathResult {
  let path = FieldPath.root('');
  let schema = root;
  const step = (name: string): string | undefined => {
    if (schema.properties !== undefined) {
      path = path.child(name);
      const prop = schema.properties[name];
      if (!prop) return 'does not refer to a valid field';
      schema = prop;
      return undefined;
    }
    const additional = additionalPropertiesSchema(schema);
    if (additional) {
      path = path.key(name);
      schema = additional;
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  const toks = tokens(jsonPath);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!;
    if (tok === '[') {
      const quoted = toks[++i];
      if (quoted === undefined) return { ok: false, error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { ok: false, error: `expected single quoted string but got ${quoted}` };
      }
      const unescaped = unescapeSingleQuote(quoted.slice(1, -1));
      if (!unescaped.ok) return { ok: false, error: `invalid string literal: ${unescaped.error}` };
      const err = step(unescaped.value);
      if (err) return { ok: false, error: err };
      const close = toks[++i];
      if (close === undefined) return { ok: false, error: 'unexpected end of JSON path' };
      if (close !== ']') return { ok: false, error: `expected ] but got ${close}` };
    } else if (tok === '.') {
      const name = toks[++i];
      if (name === undefined) return { ok: false, error: 'unexpected end of JSON path' };
      const err = step(name);
      if (err) return { ok: false, error: err };
    } else {
      return { ok: false, error: `expected [ or . but got: ${tok}` };
    }
  }
  return { ok: true, path, schema };
}
