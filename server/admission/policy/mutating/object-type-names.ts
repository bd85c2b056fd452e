// kube's ObjectVal.CheckTypeNamesMatchFieldPathNames (apiserver/pkg/cel/mutation/dynamic/objects.go): the `Object…`
// initializers of a mutation's result must be named after the field path from the root Object type, so that
// `Object{spec: Object.spec{selector: Object.spec.wrong{}}}` is refused. kube compiles Object types without schema
// information, so this is checked after evaluation, by the patchers, as "type mismatch: …". Lists and maps are
// unnamed and keep their parent's path; a value not built as an Object type (a JSONPatch, data read from `object`)
// is not looked into.
import { objectTypeNameOf } from '../../cel/index.js';

const isObjectTypeName = (name: string): boolean => name === 'Object' || name.startsWith('Object.');

/** The mismatches below `value`, whose expected type name is `path` joined with dots. */
function mismatches(value: unknown, path: readonly string[]): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v) => mismatches(v, path));
  const name = objectTypeNameOf(value);
  const entries = Object.entries(value as Record<string, unknown>);
  // a CEL map literal: its values are at the map's own path
  if (name === undefined) return entries.flatMap(([, v]) => mismatches(v, path));
  if (!isObjectTypeName(name)) return [];
  const expected = path.join('.');
  const errs = name === expected ? [] : [`unexpected type name ${JSON.stringify(name)}, expected ${JSON.stringify(expected)}, which matches field name path from root Object type`];
  for (const [k, v] of entries) errs.push(...mismatches(v, [...path, k]));
  return errs;
}

/**
 * "type mismatch: <errors joined by newlines>" when an Object value of a mutation's result is misnamed, else
 * undefined. Values that are not Object initializers are not checked.
 */
export function objectTypeMismatch(value: unknown): string | undefined {
  const root = objectTypeNameOf(value);
  if (root === undefined || !isObjectTypeName(root)) return undefined;
  const errs = mismatches(value, [root]);
  return errs.length > 0 ? `type mismatch: ${errs.join('\n')}` : undefined;
}
