// labelSelector and fieldSelector query parameters as one predicate over objects (kube's SelectionPredicate).
import type { KubeObject } from '../api/types.js';
import type { ResourceInfo } from '../registry/resource.js';
import { fieldsOf, parseFieldSelectorQuery } from '../registry/selectors/field-selector.js';
import { parseLabelSelectorQuery } from '../registry/selectors/label-selector.js';

const one = (v: unknown): string | undefined => (v === undefined ? undefined : String(Array.isArray(v) ? v[0] : v));

/** Throws a 400 BadRequest Status for a selector that does not parse or names an unsupported field. */
export function buildListPredicate(info: ResourceInfo, query: Record<string, unknown>): (obj: KubeObject) => boolean {
  const labels = parseLabelSelectorQuery(one(query['labelSelector']));
  const fields = parseFieldSelectorQuery(info, one(query['fieldSelector']));
  if (labels.empty() && fields.empty()) return () => true;
  return (obj) => labels.matches(obj.metadata?.labels) && (fields.empty() || fields.matches(fieldsOf(info, obj)));
}
