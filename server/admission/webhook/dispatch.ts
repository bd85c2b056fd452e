// What the mutating and validating webhook plugins share: kube's generic.Webhook (readiness, ShouldCallHook with
// namespace labels and matchConditions) and the call itself as both dispatchers make it (dry-run checks, the
// AdmissionReview, the call, response verification, audit annotations, warnings, denials), with kube's error
// values: a call error (ErrCallingWebhook, subject to failurePolicy), a rejection (ErrWebhookRejection), or any
// other error (returned as it is).
import type { WebhookAccessor } from '../../api/admissionregistration.js';
import type { AdmissionResponseStatus } from '../../api/admission.js';
import { StatusError, errors } from '../../api/errors.js';
import type { GroupVersionKind, KubeObject, StatusDetails } from '../../api/types.js';
import type { Logger } from '../../log.js';
import type { AdmissionMetrics, WebhookRejectionErrorType, WebhookStepType } from '../../metrics/admission.js';
import { goQuote } from '../../options/go-strconv.js';
import { isQualifiedName } from '../../registry/validation/name.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { MatchWebhook, WebhookInvocation } from '../matching/types.js';
import type { ConfigurationSource } from '../sources/source.js';
import type { AdmissionCoverageObserver } from '../coverage/recorder.js';
import type { WebhookClient } from './client.js';
import { waitUntilSynced } from '../wait-until-synced.js';
import { createAdmissionObjects, verifyAdmissionResponse, type VerifiedAdmissionResponse } from './review.js';

/** The outcome of a webhook's matchConditions; an error is handled per the webhook's failurePolicy. */
export type MatchConditionsResult = { matches: boolean } | { error: string };

/** Evaluates a webhook's matchConditions (CEL). Only called for webhooks that have some and that matched otherwise. */
export type MatchConditionsEvaluator = (
  accessor: WebhookAccessor,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
) => MatchConditionsResult | Promise<MatchConditionsResult>;

export interface WebhookPluginOptions {
  /** the configurations, in kube's order (static first, then API; by configuration name; webhooks in order) */
  source: ConfigurationSource<WebhookAccessor>;
  matchWebhook: MatchWebhook;
  /**
   * The configurations matchWebhook may select for a request (in order), the others being certain not to match it:
   * a cheap first cut with many configurations in force. Without it every configuration goes to matchWebhook.
   */
  candidates?: (items: readonly WebhookAccessor[], attrs: AdmissionAttributes) => readonly WebhookAccessor[];
  /** labels of a namespace; undefined if it does not exist */
  namespaceLabels: (namespace: string) => Promise<Record<string, string> | undefined>;
  client: WebhookClient;
  metrics: AdmissionMetrics;
  /** the ExcludeAdmissionWebhookVirtualResources feature gate */
  excludeVirtualResources: () => boolean;
  /** matchConditions evaluation; without it matchConditions are ignored (the webhook is called) */
  matchConditions?: MatchConditionsEvaluator;
  logger?: Logger;
  /** how long a request waits for the source's first load before it is refused (kube: 10 s) */
  readyTimeoutMs?: number;
  /**
   * kube's ObjectConvertor for matchPolicy Equivalent: the converter of a resource whose objects exist in several
   * versions (custom resources), or undefined when objects are sent as served (built-in kinds, one version each).
   */
  converterFor?: ObjectConverterFor;
  /** the admission coverage recorder (--admission-coverage); undefined when coverage is off */
  coverage?: AdmissionCoverageObserver;
}

/** Converts one object of the resource to another version of its kind; throws (a StatusError) when that fails. */
export type ObjectConverter = (obj: KubeObject, to: GroupVersionKind) => Promise<KubeObject>;
export type ObjectConverterFor = (resource: { group: string; resource: string }) => ObjectConverter | undefined;

export const admissionOperations: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

// ---------------------------------------------------------------------------------------------------------------
// kube's errors

/**
 * webhookerrors.ToStatusErr: the webhook's Status with the message prefixed, a code below 400 raised to 400, and
 * status Failure. Reason and details are the webhook's own.
 */
export function toStatusErr(webhookName: string, result: AdmissionResponseStatus | undefined): StatusError {
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  let message: string;
  if (r.message) message = `${deniedBy}: ${r.message}`;
  else if (r.reason) message = `${deniedBy}: ${r.reason}`;
  else message = `${deniedBy} without explanation`;
  const err = new StatusError(code, r.reason ?? '', message, r.details as StatusDetails | undefined);
  if (!r.reason) delete err.status.reason;
  if (r.metadata) err.status.metadata = { ...r.metadata };
  return err;
}

/** webhookerrors.NewDryRunUnsupportedErr */
export function dryRunUnsupportedErr(webhookName: string): StatusError {
  return errors.badRequest(`admission webhook ${goQuote(webhookName)} does not support dry run`);
}

/** ErrCallingWebhook.Error() */
export function callingWebhookMessage(webhookName: string, reason: string): string {
  return `failed calling webhook ${goQuote(webhookName)}: ${reason}`;
}

/** The Status a matcher error carries: its message is the Status message kube would send. */
export function matchErrorStatus(message: string): StatusError {
  const internal = /^Internal error occurred: ([\s\S]*)$/.exec(message);
  if (internal) return new StatusError(500, 'InternalError', message, { causes: [{ message: internal[1]! }] });
  const notFound = /^(\S+) "(.*)" not found$/.exec(message);
  if (notFound) {
    const [resource, group] = notFound[1]!.split(/\.(.*)/s);
    const details: StatusDetails = { name: notFound[2]! };
    if (group) details.group = group;
    details.kind = resource!;
    return new StatusError(404, 'NotFound', message, details);
  }
  return new StatusError(500, 'InternalError', message);
}

/** The result of one webhook call, as kube's dispatchers tell them apart. */
export type HookOutcome =
  | { kind: 'allowed'; response: VerifiedAdmissionResponse }
  /** ErrCallingWebhook: `message` is its Error(), `code` its Status code (for metrics) */
  | { kind: 'callError'; message: string; code: number }
  /** ErrWebhookRejection */
  | { kind: 'rejected'; error: StatusError }
  /** any other error, returned as it is */
  | { kind: 'error'; error: StatusError };

// ---------------------------------------------------------------------------------------------------------------
// attributes

/**
 * attributesRecord.AddAnnotation: the key must be "<DNS subdomain>/<name>" (a qualified name) and may not be
 * overwritten with another value; a refused annotation is logged, never an error.
 */
export function addAuditAnnotation(attrs: AdmissionAttributes, key: string, value: string, logger?: Logger): boolean {
  let problem: string | undefined;
  if (key.split('/').length !== 2) {
    problem = "annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')";
  } else {
    const msgs = isQualifiedName(key);
    if (msgs.length > 0) problem = `annotation key has invalid format ${msgs.join(',')}. A qualified name like 'podsecuritypolicy.admission.k8s.io/admit-policy' is required.`;
  }
  if (!problem && key in attrs.annotations && attrs.annotations[key] !== value) {
    problem = `admission annotations are not allowd to be overwritten, key:${goQuote(key)}, old value: ${attrs.annotations[key]}, new value: ${value}`;
  }
  if (problem) {
    logger?.info('Failed to set admission audit annotation', { key, value, error: problem });
    return false;
  }
  attrs.annotations[key] = value;
  return true;
}

// Go strings are UTF-8: a lone surrogate decoded from JSON becomes U+FFFD.
const wellFormed = (s: string): string => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

// unicode.IsControl: C0, DEL and C1. net.NewWarningHeader refuses such texts, so kube never sends them.
const hasControl = (s: string): boolean => /[\u0000-\u001f\u007f-\u009f]/.test(s);

/**
 * warning.AddWarning for each of the webhook's warnings. Texts kube's recorder would drop (empty, or with control
 * characters) are left out; deduplication and the size limits apply to the response as a whole (see
 * recordedWarningTexts).
 */
export function addWarnings(attrs: AdmissionAttributes, warnings: readonly string[]): void {
  for (const w of warnings) {
    if (w.length === 0 || hasControl(w)) continue;
    attrs.warnings.push(wellFormed(w));
  }
}

/** kube's warning recorder limits (endpoints/filters/warning.go), in runes. */
export const truncateAtTotalRunes = 4 * 1024;
export const truncateItemRunes = 256;

/**
 * The Warning header texts kube-apiserver's recorder writes for warnings added in this order: duplicates and
 * invalid texts dropped; once the texts exceed 4096 runes in total, every text is cut to 256 runes (the earlier
 * ones replayed) and texts beyond the limit are dropped.
 */
export function recordedWarningTexts(texts: readonly string[]): string[] {
  const runes = (t: string): string[] => [...t];
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let out: string[] = [];
  let written = 0;
  let truncating = false;
  for (const original of texts) {
    if (original.length === 0) continue;
    if (written >= truncateAtTotalRunes && truncating) continue;
    if (recorded.has(original)) continue;
    recorded.add(original);
    ordered.push(original);
    let text = original;
    let length = runes(text).length;
    if (truncating && length > truncateItemRunes) {
      text = runes(text).slice(0, truncateItemRunes).join('');
      length = truncateItemRunes;
    }
    if (hasControl(text)) continue;
    if (written + length <= truncateAtTotalRunes || truncating) {
      written += length;
      out.push(text);
      continue;
    }
    truncating = true;
    written = 0;
    out = [];
    for (const w of ordered) {
      let t = w;
      let l = runes(t).length;
      if (l > truncateItemRunes) {
        t = runes(t).slice(0, truncateItemRunes).join('');
        l = truncateItemRunes;
      }
      if (hasControl(t)) continue;
      written += l;
      out.push(t);
    }
  }
  return out;
}

/** encoding/json's string encoding: HTML characters and U+2028/2029 escaped, other controls as \u00XX. */
function goJsonString(s: string): string {
  let out = '"';
  for (const ch of wellFormed(s)) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '<' || ch === '>' || ch === '&' || cp === 0x2028 || cp === 0x2029 || cp < 0x20) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** json.Marshal of a decoded JSON value; `sortKeys` for Go maps (struct fields keep their order). */
export function goJsonMarshal(v: unknown, sortKeys = false): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((e) => goJsonMarshal(e, sortKeys)).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, e]) => e !== undefined);
  if (sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, e]) => `${goJsonString(k)}:${goJsonMarshal(e, sortKeys)}`).join(',')}}`;
}

// ---------------------------------------------------------------------------------------------------------------
// generic.Webhook

/** admission.Handler.WaitForReady for a webhook plugin's configuration source. */
export function waitForReady(source: ConfigurationSource<WebhookAccessor>, attrs: AdmissionAttributes, timeoutMs: number): Promise<void> {
  return waitUntilSynced(() => source.hasSynced(), attrs, timeoutMs);
}

function hasNonEmptySelector(s: WebhookAccessor['webhook']['namespaceSelector']): boolean {
  if (!s) return false;
  return Object.keys(s.matchLabels ?? {}).length > 0 || (s.matchExpressions ?? []).length > 0;
}

/**
 * namespace.Matcher.GetNamespaceLabels, looked up at most once per request and only for a webhook whose
 * namespaceSelector is not empty on a namespaced request: a Namespace being created or updated uses its own
 * labels (the stored namespace is not the one being admitted), a deleted one its stored (old) labels.
 */
export class NamespaceLabelLookup {
  private result: Promise<Record<string, string> | undefined> | undefined;
  constructor(
    private readonly attrs: AdmissionAttributes,
    private readonly lookup: (namespace: string) => Promise<Record<string, string> | undefined>,
  ) {}

  needed(accessor: WebhookAccessor): boolean {
    const a = this.attrs;
    if (a.namespace === '' && a.resource.resource !== 'namespaces') return false;
    return hasNonEmptySelector(accessor.webhook.namespaceSelector);
  }

  labels(): Promise<Record<string, string> | undefined> {
    if (!this.result) this.result = this.compute();
    return this.result;
  }

  private async compute(): Promise<Record<string, string> | undefined> {
    const a = this.attrs;
    if (a.resource.group === '' && a.resource.resource === 'namespaces' && a.subresource === '') {
      if (a.operation === 'CREATE' || a.operation === 'UPDATE') return a.object?.metadata?.labels ?? {};
      if (a.operation === 'DELETE' && a.oldObject) return a.oldObject.metadata?.labels ?? {};
    }
    const name = a.namespace || (a.resource.resource === 'namespaces' ? a.name : '');
    return this.lookup(name);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// VersionedAttributes

const sameKind = (a: GroupVersionKind, b: GroupVersionKind): boolean => a.group === b.group && a.version === b.version && a.kind === b.kind;

/**
 * A conversion failure as both dispatchers return it: VersionedAttribute wraps the converter's error in an
 * internal error, and the dispatcher wraps that once more (apierrors.NewInternalError twice).
 */
function conversionError(err: unknown): StatusError {
  return errors.internal(errors.internal(err));
}

/** The request's attributes with other objects: annotations, warnings and reinvocation stay shared. */
const withObjects = (attrs: AdmissionAttributes, object: KubeObject | undefined, oldObject: KubeObject | undefined): AdmissionAttributes => ({ ...attrs, object, oldObject });

/**
 * The validating dispatcher's versionedAttributeAccessor: the request's objects converted once per kind a webhook
 * is called with (admission.NewVersionedAttributes), always from the request's own objects. A kind the resource
 * has no converter for, or the request's own kind, is the request as it is.
 */
export class VersionedAttributesByKind {
  private readonly byKind = new Map<string, Promise<AdmissionAttributes>>();
  constructor(
    private readonly attrs: AdmissionAttributes,
    private readonly convert: ObjectConverter | undefined,
  ) {}

  attributesFor(kind: GroupVersionKind): Promise<AdmissionAttributes> {
    const convert = this.convert;
    if (!convert || sameKind(kind, this.attrs.kind)) return Promise.resolve(this.attrs);
    const key = `${kind.group}/${kind.version}/${kind.kind}`;
    let got = this.byKind.get(key);
    if (!got) {
      const { object, oldObject } = this.attrs;
      got = Promise.all([object && convert(object, kind), oldObject && convert(oldObject, kind)]).then(
        ([o, old]) => withObjects(this.attrs, o, old),
        (err: unknown) => {
          throw conversionError(err);
        },
      );
      this.byKind.set(key, got);
    }
    return got;
  }
}

/**
 * The mutating dispatcher's versionedAttributeAccessor: one set of objects carried from webhook to webhook and
 * converted to the kind each one is called with (ConvertVersionedAttributes), so a webhook sees what the previous
 * ones patched. Patched objects held in another version are converted back to the request's version when the
 * dispatch ends (or when a webhook for the request's own version comes next), as kube converts a Dirty
 * VersionedObject into the attributes' object.
 */
export class MutableVersionedAttributes {
  /** the objects while they are held in a version other than the request's */
  private held: { kind: GroupVersionKind; object: KubeObject | undefined; oldObject: KubeObject | undefined; dirty: boolean } | undefined;
  constructor(
    private readonly attrs: AdmissionAttributes,
    private readonly convert: ObjectConverter | undefined,
  ) {}

  /** true when the objects are held converted (the request's own objects are not the ones webhooks see) */
  get converted(): boolean {
    return this.held !== undefined;
  }

  /** The attributes a webhook called with `kind` sees (object and oldObject in that version). */
  async attributesFor(kind: GroupVersionKind): Promise<AdmissionAttributes> {
    const convert = this.convert;
    if (!convert) return this.attrs;
    try {
      if (sameKind(kind, this.attrs.kind)) {
        await this.restore();
        return this.attrs;
      }
      const held = this.held;
      if (held && sameKind(held.kind, kind)) return withObjects(this.attrs, held.object, held.oldObject);
      const from = held ?? { object: this.attrs.object, oldObject: this.attrs.oldObject, dirty: false };
      const [object, oldObject] = await Promise.all([from.object && convert(from.object, kind), from.oldObject && convert(from.oldObject, kind)]);
      this.held = { kind, object, oldObject, dirty: from.dirty };
      return withObjects(this.attrs, object, oldObject);
    } catch (err) {
      throw conversionError(err);
    }
  }

  /** A webhook's patched object, in the kind the last attributesFor asked for. */
  setObject(object: KubeObject): void {
    if (this.held) {
      this.held.object = object;
      this.held.dirty = true;
    } else this.attrs.object = object;
  }

  /** Converts patched objects back into the request's version; the request's objects are current afterwards. */
  async restore(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (!held || !held.dirty || !held.object || !this.convert) return;
    this.attrs.object = await this.convert(held.object, this.attrs.kind);
  }
}

export type ShouldCall = { call: false } | { call: true; invocation: WebhookInvocation } | { call: false; error: StatusError };

/** generic.Webhook.ShouldCallHook: matching, then matchConditions (last, as kube evaluates them). */
export async function shouldCallHook(
  accessor: WebhookAccessor,
  attrs: AdmissionAttributes,
  ns: NamespaceLabelLookup,
  opts: WebhookPluginOptions,
  type: WebhookStepType,
  /** the attributes in the invocation's kind, for matchConditions (kube evaluates them on VersionedAttributes) */
  versioned: (kind: GroupVersionKind) => Promise<AdmissionAttributes> = () => Promise.resolve(attrs),
): Promise<ShouldCall> {
  const namespaceLabels = ns.needed(accessor) ? await ns.labels() : undefined;
  const m = opts.matchWebhook(accessor, attrs, { namespaceLabels, excludeVirtualResources: opts.excludeVirtualResources() });
  if ('error' in m) return { call: false, error: matchErrorStatus(m.error) };
  if (!m.matches) return { call: false };
  const conditions = accessor.webhook.matchConditions ?? [];
  if (conditions.length > 0 && opts.matchConditions) {
    let versionedAttrs: AdmissionAttributes;
    try {
      versionedAttrs = await versioned(m.invocation.kind);
    } catch (err) {
      return { call: false, error: err instanceof StatusError ? err : errors.internal(err) };
    }
    const r = await opts.matchConditions(accessor, versionedAttrs, m.invocation);
    if ('error' in r || !r.matches) opts.coverage?.webhookNotCalled(accessor, attrs, m.invocation, r);
    if ('error' in r) {
      if ((accessor.webhook.failurePolicy ?? 'Fail') === 'Fail') {
        opts.logger?.info('Failed evaluating match conditions, failing closed', { webhook: accessor.webhook.name, error: r.error });
        return { call: false, error: errors.forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name, r.error) };
      }
      // with failurePolicy Ignore kube's matcher reports an evaluation error as "does not match"
      opts.metrics.observeMatchConditionExclusion(accessor.webhook.name, 'webhook', type, attrs.operation);
      return { call: false };
    }
    if (!r.matches) {
      opts.metrics.observeMatchConditionExclusion(accessor.webhook.name, 'webhook', type, attrs.operation);
      return { call: false };
    }
  }
  return { call: true, invocation: m.invocation };
}

/**
 * One call as both dispatchers make it (mutating: callAttrMutatingHook up to the patch; validating: callHook).
 * The Status codes of call errors are kube's, they only feed the metrics: mutating and validating differ.
 */
export async function callHook(
  accessor: WebhookAccessor,
  invocation: WebhookInvocation,
  attrs: AdmissionAttributes,
  opts: WebhookPluginOptions,
  mutating: boolean,
): Promise<HookOutcome> {
  const h = accessor.webhook;
  const callError = (reason: string, code: number): HookOutcome => ({ kind: 'callError', message: callingWebhookMessage(h.name, reason), code });
  if (attrs.dryRun) {
    if (h.sideEffects === undefined) return callError('Webhook SideEffects is nil', 400);
    if (h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun') return { kind: 'error', error: dryRunUnsupportedErr(h.name) };
  }
  const objects = createAdmissionObjects(h.admissionReviewVersions, attrs, invocation);
  if (!objects.ok) return callError(`could not create admission objects: ${objects.error}`, 400);

  const call = {
    webhookName: h.name,
    clientConfig: h.clientConfig,
    review: objects.review,
    ...(h.timeoutSeconds !== undefined ? { timeoutSeconds: h.timeoutSeconds } : {}),
    // the call's context is the request's: it gets min(timeoutSeconds, what is left of the request)
    ...(attrs.deadline !== undefined ? { deadline: attrs.deadline } : {}),
  };
  const result = await opts.client.call(call);
  if (!result.ok) {
    if (result.stage === 'client') return callError(`could not get REST client: ${result.error}`, mutating ? 500 : 400);
    // an HTTP error keeps its Status; anything else is "error calling webhook" (503 mutating, 400 validating)
    return callError(`failed to call webhook: ${result.error}`, result.status?.code ?? (mutating ? 503 : 400));
  }
  const verified = verifyAdmissionResponse(objects.uid, mutating, objects.version, result.review);
  if (!verified.ok) return callError(`received invalid webhook response: ${verified.error}`, 503);
  const response = verified.response;

  for (const [k, v] of Object.entries(response.auditAnnotations)) addAuditAnnotation(attrs, `${h.name}/${k}`, v, opts.logger);
  addWarnings(attrs, response.warnings);
  if (!response.allowed) return { kind: 'rejected', error: toStatusErr(h.name, response.result) };
  return { kind: 'allowed', response };
}

/** The metrics both dispatchers record for one call, and whether the call rejected the request. */
export function observeHookOutcome(
  metrics: AdmissionMetrics,
  name: string,
  type: WebhookStepType,
  operation: AdmissionOperation,
  outcome: HookOutcome,
  ignoreCallFailures: boolean,
  seconds: number,
): void {
  const reject = (errorType: WebhookRejectionErrorType, code: number): void => metrics.observeWebhookRejection(name, type, operation, errorType, code);
  switch (outcome.kind) {
    case 'allowed':
      metrics.observeWebhook(name, type, operation, false, 200, seconds);
      return;
    case 'callError':
      if (!ignoreCallFailures) reject('calling_webhook_error', outcome.code);
      metrics.observeWebhook(name, type, operation, !ignoreCallFailures, outcome.code, seconds);
      return;
    case 'rejected':
      reject('no_error', outcome.error.code);
      metrics.observeWebhook(name, type, operation, true, outcome.error.code, seconds);
      return;
    case 'error':
      reject('apiserver_internal_error', 0);
      metrics.observeWebhook(name, type, operation, true, 0, seconds);
      return;
  }
}

export const secondsSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;
