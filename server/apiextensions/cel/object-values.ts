// Objects with properties as rules see them (kube's unstructuredMap in apiserver/pkg/cel/common/values.go): iteration
// yields the escaped property names (`x__dash__y`, `__namespace__`), and a selected or indexed name is unescaped
// before the lookup, so `self.__namespace__`, `self.namespace`, `self.x__dash__y` and `self['x-y']` all find theirs.
import { CelMap, type CelValue } from '../../admission/cel/engine/values.js';
import { escapeFieldName } from '../../admission/cel/schema-types.js';

/** CEL's reserved words (apiserver/pkg/cel/escaping.go celReservedSymbols). */
const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const SEQUENCES: Readonly<Record<string, string>> = { underscores: '__', dot: '.', dash: '-', slash: '/' };

/**
 * kube's cel.Unescape: the property name of an escaped CEL field name, or undefined when it holds an escape
 * sequence kube does not know (`__foo__`) or a reserved word that is not the whole name (`a__in__b`).
 */
export function unescapeProperty(escaped: string): string | undefined {
  let ok = true;
  const out = escaped.replace(/__[^_]+__/g, (m) => {
    const word = m.slice(2, -2);
    const seq = SEQUENCES[word];
    if (seq !== undefined) return seq;
    if (RESERVED.has(word)) {
      if (m.length !== escaped.length) ok = false;
      return word;
    }
    ok = false;
    return '';
  });
  return ok ? out : undefined;
}

/** The map of an object with properties: entries under their escaped names, looked up by either spelling. */
export class SchemaObjectMap extends CelMap {
  /** Entries keyed by the escaped name of each property CEL can name (others are not visible to rules). */
  static fromProperties(entries: Iterable<readonly [string, CelValue]>): SchemaObjectMap {
    const m = new SchemaObjectMap();
    for (const [property, value] of entries) {
      const name = escapeFieldName(property);
      if (name !== undefined) m.set(name, value);
    }
    return m;
  }

  override get(k: CelValue): CelValue | undefined {
    const direct = super.get(k);
    if (direct !== undefined) return direct;
    const alt = respelled(k);
    return alt === undefined ? undefined : super.get(alt);
  }

  override has(k: CelValue): boolean {
    if (super.has(k)) return true;
    const alt = respelled(k);
    return alt !== undefined && super.has(alt);
  }
}

/** The stored (escaped) spelling of a name written another way, as kube's Find unescapes what it is given. */
function respelled(k: CelValue): string | undefined {
  if (typeof k !== 'string') return undefined;
  const property = unescapeProperty(k);
  if (property === undefined) return undefined;
  const stored = escapeFieldName(property);
  return stored === k ? undefined : stored;
}
