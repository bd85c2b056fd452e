// resource.Quantity as validation needs it: a value to compare (kube's Quantity.Cmp). Request bodies are already
// checked for quantity syntax by strict decoding; a string that still does not parse compares as undefined.
// Values are JS numbers: exact for every quantity below 2^53 in its smallest unit, which covers real manifests.

const binary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const syntax = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eE][+-]?[0-9]+|[a-zA-Z]*)$/;

/** The numeric value of a quantity ("500m" → 0.5, "1Gi" → 1073741824), undefined when it is not one. */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = syntax.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const suffix = m[2]!;
  if (/^[eE]/.test(suffix)) return n * 10 ** Number(suffix.slice(1));
  const mult = binary[suffix] ?? decimal[suffix];
  return mult === undefined ? undefined : n * mult;
}

/** Quantity.Cmp: -1, 0 or 1; undefined when either side is not a quantity. */
export function compareQuantities(a: unknown, b: unknown): number | undefined {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (x === undefined || y === undefined) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** kube's Quantity.String() for a value as sent: the text itself (canonicalisation is not reproduced). */
export function quantityString(q: unknown): string {
  return typeof q === 'string' ? q : typeof q === 'number' ? String(q) : '0';
}
