// Go's %#v of the internal apiextensions types kube prints as bad values of CRD validation errors
// (`spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{…}: must have exactly one
// version marked as storage version`). Validation runs on the internal CRD, and converting a v1 spec to it
// moves the per-version schema, subresources, printer columns and selectable fields up to the spec when all
// versions agree on them, so those print as nil in every version then.
import type { CustomResourceColumnDefinition, CustomResourceDefinitionVersion } from '../api/apiextensions.js';
import { GoStructValue } from '../api/field.js';
import { goQuote } from '../options/go-strconv.js';

/** Pointers print as their address in Go; any address is as good as kube's (it differs on every request). */
const GO_POINTER = '0xc000000000';

type HoistedField = 'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields';
const hoistable: HoistedField[] = ['schema', 'subresources', 'additionalPrinterColumns', 'selectableFields'];

/** apiequality.Semantic.DeepEqual on JSON values: map order does not matter, and an empty list is a nil one. */
function semanticKey(v: unknown): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.length === 0 ? null : x.map(norm);
    if (x !== null && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(x).sort()) out[k] = norm((x as Record<string, unknown>)[k]);
      return out;
    }
    return x ?? null;
  };
  return JSON.stringify(norm(v)) ?? 'null';
}

/** The per-version fields the v1 → internal conversion moves to the spec (all versions agree on them). */
function hoistedFields(versions: readonly CustomResourceDefinitionVersion[]): Set<HoistedField> {
  const out = new Set<HoistedField>();
  if (versions.length === 0) return out;
  for (const f of hoistable) {
    const first = semanticKey(versions[0]![f]);
    if (versions.every((v) => semanticKey(v[f]) === first)) out.add(f);
  }
  return out;
}

const pointer = (type: string, v: unknown): string => `(*${type})(${v === undefined || v === null ? 'nil' : GO_POINTER})`;

function goSlice<T>(type: string, items: readonly T[] | undefined | null, render: (t: T) => string): string {
  if (items === undefined || items === null) return `[]${type}(nil)`;
  return `[]${type}{${items.map(render).join(', ')}}`;
}

const goColumn = (c: CustomResourceColumnDefinition): string =>
  `apiextensions.CustomResourceColumnDefinition{Name:${goQuote(c.name ?? '')}, Type:${goQuote(c.type ?? '')}, Format:${goQuote(c.format ?? '')}, ` +
  `Description:${goQuote(c.description ?? '')}, Priority:${c.priority ?? 0}, JSONPath:${goQuote(c.jsonPath ?? '')}}`;

const goSelectableField = (f: { jsonPath?: string }): string => `apiextensions.SelectableField{JSONPath:${goQuote(f.jsonPath ?? '')}}`;

function goVersionText(v: CustomResourceDefinitionVersion, hoisted: ReadonlySet<HoistedField>): string {
  return (
    `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name ?? '')}, Served:${v.served === true}, Storage:${v.storage === true}, ` +
    `Deprecated:${v.deprecated === true}, DeprecationWarning:${pointer('string', v.deprecationWarning)}, ` +
    `Schema:${pointer('apiextensions.CustomResourceValidation', hoisted.has('schema') ? undefined : v.schema)}, ` +
    `Subresources:${pointer('apiextensions.CustomResourceSubresources', hoisted.has('subresources') ? undefined : v.subresources)}, ` +
    `AdditionalPrinterColumns:${goSlice('apiextensions.CustomResourceColumnDefinition', hoisted.has('additionalPrinterColumns') ? undefined : v.additionalPrinterColumns, goColumn)}, ` +
    `SelectableFields:${goSlice('apiextensions.SelectableField', hoisted.has('selectableFields') ? undefined : v.selectableFields, goSelectableField)}}`
  );
}

/** spec.versions as kube prints it; undefined (absent in the request) is a nil slice. */
export function goVersions(versions: readonly CustomResourceDefinitionVersion[] | undefined): GoStructValue {
  const hoisted = hoistedFields(versions ?? []);
  return new GoStructValue(goSlice('apiextensions.CustomResourceDefinitionVersion', versions, (v) => goVersionText(v, hoisted)));
}

/** One version of spec.versions as kube prints it (the storedVersions errors). */
export function goVersion(version: CustomResourceDefinitionVersion, all: readonly CustomResourceDefinitionVersion[]): GoStructValue {
  return new GoStructValue(goVersionText(version, hoistedFields(all)));
}

/** A []string as Go's %#v prints it; undefined is a nil slice. */
export function goStrings(items: readonly string[] | undefined): GoStructValue {
  return new GoStructValue(goSlice('string', items, (s) => goQuote(s)));
}
