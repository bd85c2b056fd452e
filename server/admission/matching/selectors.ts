// kube's webhook/predicates/namespace and predicates/object matchers: a webhook's namespaceSelector and
// objectSelector, with the errors kube-apiserver answers when they cannot be evaluated.
import type { KubeObject } from '../../api/types.js';
import { goQuote } from '../../options/go-strconv.js';
import { labelSelectorAsSelector, nothing, type LabelSelectorLike, type Selector } from '../../registry/selectors/label-selector.js';
import { isQualifiedName, isValidLabelValue } from '../../registry/validation/name.js';
import type { AdmissionAttributes } from '../attributes.js';

/** The Status kube-apiserver answers when a webhook's selectors cannot be evaluated for a request. */
export interface WebhookMatchError {
  code: 404 | 500;
  reason: 'NotFound' | 'InternalError';
  /** the Status message, as the client sees it */
  message: string;
}

export type PredicateResult = { matches: boolean; error?: undefined } | { matches: false; error: WebhookMatchError };

/** apierrors.NewInternalError(err) */
export function internalMatchError(detail: string): WebhookMatchError {
  return { code: 500, reason: 'InternalError', message: `Internal error occurred: ${detail}` };
}

export type WebhookSelectorParse = { ok: true; selector: Selector } | { ok: false; message: string };

/** Go's %#v of a []string, as field errors print a slice of values. */
function goStringSlice(values: readonly string[] | null): string {
  return values === null ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
}

// labels.NewRequirement's checks for the operators a metav1.LabelSelector can produce, with its field paths
// (the path is nil there, so "key", "values", "values[0][key]") and its aggregate rendering.
function requirementErrors(key: string, op: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Equals', values: readonly string[] | null): string[] {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  const n = values?.length ?? 0;
  if ((op === 'In' || op === 'NotIn') && n === 0) errs.push(`values: Invalid value: ${goStringSlice(values)}: for 'in', 'notin' operators, values set can't be empty`);
  if ((op === 'Exists' || op === 'DoesNotExist') && n !== 0) errs.push(`values: Invalid value: ${goStringSlice(values)}: values set must be empty for exists and does not exist`);
  (values ?? []).forEach((v, i) => {
    const vErrs = isValidLabelValue(v);
    if (vErrs.length) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${vErrs.join('; ')}`);
  });
  return [...new Set(errs)];
}

/**
 * metav1.LabelSelectorAsSelector as the webhook accessors call it (GetParsedNamespaceSelector /
 * GetParsedObjectSelector): a nil selector selects nothing, an empty one everything, and every requirement goes
 * through labels.NewRequirement, whose first failure is the error. v1 defaulting sets both selectors to {}, so
 * the nil case only arises for configurations that skipped defaulting.
 */
export function parseWebhookSelector(sel: LabelSelectorLike | null | undefined): WebhookSelectorParse {
  if (sel === null || sel === undefined) return { ok: true, selector: nothing() };
  // Configuration from the admission sources is deep-frozen: its selectors are parsed once, as kube's webhook
  // accessors parse theirs once (sync.Once), instead of on every request each policy or webhook is matched against.
  if (!isFrozenSelector(sel)) return parseSelector(sel);
  let parsed = parsedFrozenSelectors.get(sel);
  if (parsed === undefined) {
    parsed = parseSelector(sel);
    parsedFrozenSelectors.set(sel, parsed);
  }
  return parsed;
}

const parsedFrozenSelectors = new WeakMap<LabelSelectorLike, WebhookSelectorParse>();

/** The selector and everything in it that parsing reads cannot change. */
function isFrozenSelector(sel: LabelSelectorLike): boolean {
  if (!Object.isFrozen(sel)) return false;
  if (sel.matchLabels != null && !Object.isFrozen(sel.matchLabels)) return false;
  const exprs: unknown = sel.matchExpressions;
  if (exprs == null) return true;
  if (!Object.isFrozen(exprs)) return false;
  return (exprs as unknown[]).every((e) => e === null || typeof e !== 'object' || (Object.isFrozen(e) && ((e as { values?: unknown }).values == null || Object.isFrozen((e as { values?: unknown }).values))));
}

function parseSelector(sel: LabelSelectorLike): WebhookSelectorParse {
  // Go ranges over matchLabels in random order; sorting makes the reported error deterministic.
  for (const k of Object.keys(sel.matchLabels ?? {}).sort()) {
    const errs = requirementErrors(k, 'Equals', [String(sel.matchLabels![k])]);
    if (errs.length) return { ok: false, message: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` };
  }
  for (const raw of sel.matchExpressions ?? []) {
    const expr = (raw ?? {}) as { key?: unknown; operator?: unknown; values?: unknown };
    const op = String(expr.operator ?? '');
    if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') return { ok: false, message: `${goQuote(op)} is not a valid label selector operator` };
    // append([]string(nil), expr.Values...) keeps an empty list nil
    const values = Array.isArray(expr.values) && expr.values.length > 0 ? expr.values.map(String) : null;
    const errs = requirementErrors(String(expr.key ?? ''), op, values);
    if (errs.length) return { ok: false, message: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` };
  }
  const converted = labelSelectorAsSelector(sel);
  return converted.ok ? { ok: true, selector: converted.selector } : { ok: false, message: converted.message };
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> {
  return obj?.metadata?.labels ?? {};
}

/**
 * namespace.Matcher.MatchNamespaceSelector. Cluster-scoped requests other than namespaces are never exempted;
 * a Namespace being created or updated is matched on its own new labels (the stored namespace is not there yet
 * or is stale); anything else on the labels of its namespace, which the caller looked up (`namespaceLabels`,
 * for a Namespace object its own stored labels). A namespace that does not exist is kube's 404.
 * kube compares the resource name only here ("namespaces" of any group), unlike the rules' scope check.
 */
export function matchNamespaceSelector(
  selector: LabelSelectorLike | null | undefined,
  attrs: Pick<AdmissionAttributes, 'resource' | 'subresource' | 'operation' | 'namespace' | 'name' | 'object'>,
  namespaceLabels: Record<string, string> | undefined,
): PredicateResult {
  const isNamespace = attrs.resource.resource === 'namespaces';
  if (attrs.namespace === '' && !isNamespace) return { matches: true };
  const parsed = parseWebhookSelector(selector);
  if (!parsed.ok) return { matches: false, error: internalMatchError(parsed.message) };
  if (parsed.selector.empty()) return { matches: true };
  if (isNamespace && attrs.subresource === '' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    if (!attrs.object) return { matches: false, error: internalMatchError('object does not implement the Object interfaces') };
    return { matches: parsed.selector.matches(labelsOf(attrs.object)) };
  }
  if (namespaceLabels === undefined) {
    // a Namespace object's own name is its attrs.namespace (as in kube); attrs.name is the fallback for callers
    // that leave it out
    const name = attrs.namespace !== '' ? attrs.namespace : attrs.name;
    return { matches: false, error: { code: 404, reason: 'NotFound', message: `namespaces ${goQuote(name)} not found` } };
  }
  return { matches: parsed.selector.matches(namespaceLabels) };
}

/** object.Matcher.MatchObjectSelector: the new object or the old one (UPDATE, DELETE) must match. */
export function matchObjectSelector(selector: LabelSelectorLike | null | undefined, attrs: Pick<AdmissionAttributes, 'object' | 'oldObject'>): PredicateResult {
  const parsed = parseWebhookSelector(selector);
  if (!parsed.ok) return { matches: false, error: internalMatchError(parsed.message) };
  if (parsed.selector.empty()) return { matches: true };
  const matchObject = (obj: KubeObject | undefined): boolean => obj !== undefined && obj !== null && parsed.selector.matches(labelsOf(obj));
  return { matches: matchObject(attrs.object) || matchObject(attrs.oldObject) };
}
