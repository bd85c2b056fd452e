// Field selectors as k8s.io/apimachinery/pkg/fields parses them (`a=b,c==d,e!=f`, with `\,` `\=` `\\`
// escapes in values), the field labels each kind supports (the scheme's field label conversion funcs),
// and the selectable field set of an object (the registries' ToSelectableFields / GetAttrs).
import { StatusError, errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  /** unescaped */
  readonly value: string;
}

/** A field set: missing fields read as "", as fields.Set.Get does. */
export type Fields = Readonly<Record<string, string>>;

export interface FieldSelector {
  /** AND of all requirements, in kube's (sorted term) order */
  readonly requirements: readonly FieldRequirement[];
  matches(fields: Fields): boolean;
  empty(): boolean;
  /** The value the selector requires for `field` with = or ==, if it does (a watch on one name, say). */
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

export type FieldSelectorParse = { ok: true; selector: FieldSelector } | { ok: false; message: string };

/** The group and kind a field selector is converted for; a ResourceInfo fits. */
export interface FieldSelectorTarget {
  group: string;
  kind: string;
  namespaced: boolean;
}

function makeSelector(requirements: FieldRequirement[]): FieldSelector {
  const reqs = Object.freeze([...requirements]);
  const get = (fields: Fields, f: string) => (Object.prototype.hasOwnProperty.call(fields, f) ? fields[f]! : '');
  return Object.freeze({
    requirements: reqs,
    matches: (fields: Fields) => reqs.every((r) => (r.operator === '!=' ? get(fields, r.field) !== r.value : get(fields, r.field) === r.value)),
    empty: () => reqs.length === 0,
    requiresExactMatch: (field: string) => reqs.find((r) => r.field === field && r.operator !== '!=')?.value,
    toString: () => reqs.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(','),
  });
}

/** fields.Everything() */
export function everythingFields(): FieldSelector {
  return makeSelector([]);
}

/** fields.EscapeValue: `\`, `,` and `=` are escaped with a backslash. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** fields.UnescapeValue, with kube's error messages. */
export function unescapeFieldValue(s: string): { ok: true; value: string } | { ok: false; message: string } {
  if (!/[\\,=]/.test(s)) return { ok: true, value: s };
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') return { ok: false, message: `invalid field selector: invalid escape sequence: \\${c}` };
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    // Go prints the rune with %v, that is as its code point number.
    else if (c === ',' || c === '=') return { ok: false, message: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}` };
    else out += c;
  }
  if (inSlash) return { ok: false, message: 'invalid field selector: invalid escape sequence: \\' };
  return { ok: true, value: out };
}

// splitTerms: commas split terms unless escaped; the backslash stays in the term.
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

// splitTerm: the first operator wins; "!=" and "==" are tried before "=" at each position.
const termOperators: FieldOperator[] = ['!=', '==', '='];
function splitTerm(term: string): { lhs: string; op: FieldOperator; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

// Go's sort.Strings: byte order, which for UTF-16 strings of BMP characters is code unit order.
const byteOrder = (a: string, b: string): number => {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return Buffer.compare(ba, bb);
};

/** fields.ParseSelector: the selector, or the message kube returns for it. */
export function parseFieldSelector(selector: string): FieldSelectorParse {
  const parts = splitTerms(selector).sort(byteOrder);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) return { ok: false, message: `invalid selector: '${selector}'; can't understand '${part}'` };
    const v = unescapeFieldValue(t.rhs);
    if (!v.ok) return v;
    reqs.push(Object.freeze({ field: t.lhs, operator: t.op, value: v.value }));
  }
  return { ok: true, selector: makeSelector(reqs) };
}

// ---- the fields each kind can be selected by ------------------------------------------------------

const metaFields = ['metadata.name', 'metadata.namespace'];

// pkg/apis/core/v1/conversion.go: kinds with their own field label conversion func, and the labels they accept.
const supportedByKind: Record<string, readonly string[]> = {
  '/Pod': [
    ...metaFields,
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.podIPs',
    'status.nominatedNodeName',
  ],
  '/Node': ['metadata.name', 'spec.unschedulable'],
  '/ReplicationController': [...metaFields, 'status.replicas'],
  '/Event': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
    ...metaFields,
  ],
  // Namespaces have no metadata.namespace: their conversion func accepts only these two.
  '/Namespace': ['status.phase', 'metadata.name'],
  '/Secret': ['type', ...metaFields],
  '/Service': [...metaFields, 'spec.clusterIP', 'spec.type'],
  // pkg/apis/batch/v1/conversion.go
  'batch/Job': [...metaFields, 'status.successful'],
};

// Kinds whose conversion func words its refusal in its own way (pkg/apis/<group>/v1/conversion.go).
const unsupportedMessageByKind: Record<string, (label: string) => string> = {
  'batch/Job': (label) => `field label ${JSON.stringify(label)} not supported for batchv1.Job`,
};

// "spec.host" is what v1 clients from before spec.nodeName send; kube renames it.
const renamedByKind: Record<string, Record<string, string>> = { '/Pod': { 'spec.host': 'spec.nodeName' } };

/** The field labels a kind accepts in a field selector. */
export function supportedFieldLabels(target: Pick<FieldSelectorTarget, 'group' | 'kind'>): readonly string[] {
  return ownLabels(`${target.group}/${target.kind}`) ?? metaFields;
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const ownLabels = (key: string): readonly string[] | undefined => (hasOwn(supportedByKind, key) ? supportedByKind[key] : undefined);
const renamed = (key: string, field: string): string | undefined =>
  hasOwn(renamedByKind, key) && hasOwn(renamedByKind[key]!, field) ? renamedByKind[key]![field] : undefined;

/**
 * The scheme's ConvertFieldLabel for every requirement, in order: an unsupported field is the error kube
 * answers with (`field label not supported: foo` for kinds with their own conversion, the
 * DefaultMetaV1FieldSelectorConversion message for the rest).
 */
export function convertFieldSelector(target: Pick<FieldSelectorTarget, 'group' | 'kind'>, selector: FieldSelector): FieldSelectorParse {
  const key = `${target.group}/${target.kind}`;
  const own = ownLabels(key);
  const reqs: FieldRequirement[] = [];
  for (const r of selector.requirements) {
    const newName = renamed(key, r.field);
    if (newName) {
      reqs.push(Object.freeze({ ...r, field: newName }));
      continue;
    }
    if (own) {
      if (!own.includes(r.field)) return { ok: false, message: hasOwn(unsupportedMessageByKind, key) ? unsupportedMessageByKind[key]!(r.field) : `field label not supported: ${r.field}` };
    } else if (!metaFields.includes(r.field)) {
      return { ok: false, message: `${JSON.stringify(r.field)} is not a known field selector: only "metadata.name", "metadata.namespace"` };
    }
    reqs.push(r);
  }
  return { ok: true, selector: makeSelector(reqs) };
}

/**
 * The ?fieldSelector= query parameter for a resource: parsed, then converted for its kind. Both failures
 * are the 400 BadRequest kube-apiserver answers with.
 * @throws StatusError (400 BadRequest)
 */
export function parseFieldSelectorQuery(target: Pick<FieldSelectorTarget, 'group' | 'kind'>, raw: string | undefined): FieldSelector {
  const parsed = parseFieldSelector(raw ?? '');
  if (!parsed.ok) throw fieldSelectorBadRequest(parsed.message);
  const converted = convertFieldSelector(target, parsed.selector);
  if (!converted.ok) throw fieldSelectorBadRequest(converted.message);
  return converted.selector;
}

/** The 400 BadRequest for a field selector that does not parse or names an unsupported field. */
export function fieldSelectorBadRequest(message: string): StatusError {
  return errors.badRequest(message);
}

// ---- the selectable fields of an object -----------------------------------------------------------

const at = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined), o);
const str = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * The field set an object is matched against: metadata.name (and metadata.namespace for namespaced kinds,
 * "" otherwise), plus the kind's own selectable fields, read from the v1 shape of the object.
 */
export function fieldsOf(target: FieldSelectorTarget, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': str(obj.metadata?.name),
    'metadata.namespace': target.namespaced ? str(obj.metadata?.namespace) : '',
  };
  // registry/batch/job JobToSelectableFields: status.successful is strconv.Itoa(status.succeeded)
  if (target.group === 'batch' && target.kind === 'Job') fields['status.successful'] = str(at(obj, 'status', 'succeeded') ?? 0);
  if (target.group !== '') return fields;
  switch (target.kind) {
    case 'Pod': {
      const podIPs = at(obj, 'status', 'podIPs');
      // kube reads status.podIPs[0]; status.podIP is the same address when both are set
      const first = Array.isArray(podIPs) && podIPs.length > 0 ? at(podIPs[0], 'ip') : at(obj, 'status', 'podIP');
      Object.assign(fields, {
        'spec.nodeName': str(at(obj, 'spec', 'nodeName')),
        'spec.restartPolicy': str(at(obj, 'spec', 'restartPolicy')),
        'spec.schedulerName': str(at(obj, 'spec', 'schedulerName')),
        'spec.serviceAccountName': str(at(obj, 'spec', 'serviceAccountName')),
        'spec.hostNetwork': at(obj, 'spec', 'hostNetwork') === true ? 'true' : 'false',
        'status.phase': str(at(obj, 'status', 'phase')),
        'status.podIP': str(first),
        'status.nominatedNodeName': str(at(obj, 'status', 'nominatedNodeName')),
      });
      break;
    }
    case 'Secret':
      fields['type'] = str(obj['type']);
      break;
    case 'Namespace':
      delete fields['metadata.namespace'];
      fields['status.phase'] = str(at(obj, 'status', 'phase'));
      break;
    case 'Service':
      fields['spec.clusterIP'] = str(at(obj, 'spec', 'clusterIP'));
      fields['spec.type'] = str(at(obj, 'spec', 'type'));
      break;
    case 'ReplicationController':
      fields['status.replicas'] = str(at(obj, 'status', 'replicas') ?? 0);
      break;
    case 'Node':
      fields['spec.unschedulable'] = at(obj, 'spec', 'unschedulable') === true ? 'true' : 'false';
      break;
    case 'Event': {
      // registry/core/event: "source" is source.component, or reportingComponent when that is empty
      const component = str(at(obj, 'source', 'component'));
      Object.assign(fields, {
        'involvedObject.kind': str(at(obj, 'involvedObject', 'kind')),
        'involvedObject.namespace': str(at(obj, 'involvedObject', 'namespace')),
        'involvedObject.name': str(at(obj, 'involvedObject', 'name')),
        'involvedObject.uid': str(at(obj, 'involvedObject', 'uid')),
        'involvedObject.apiVersion': str(at(obj, 'involvedObject', 'apiVersion')),
        'involvedObject.resourceVersion': str(at(obj, 'involvedObject', 'resourceVersion')),
        'involvedObject.fieldPath': str(at(obj, 'involvedObject', 'fieldPath')),
        reason: str(obj['reason']),
        reportingComponent: str(obj['reportingComponent']),
        source: component !== '' ? component : str(obj['reportingComponent']),
        type: str(obj['type']),
      });
      break;
    }
  }
  return fields;
}

/** Whether an object matches a (converted) field selector. */
export function matchesFieldSelector(target: FieldSelectorTarget, selector: FieldSelector, obj: KubeObject): boolean {
  return selector.empty() || selector.matches(fieldsOf(target, obj));
}
