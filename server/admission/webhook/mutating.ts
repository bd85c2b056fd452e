// MutatingAdmissionWebhook: kube's mutating dispatcher. Webhooks run one after another in the source's order, each
// seeing the object as the previous ones left it; a JSONPatch answer is applied to the object; every call is
// recorded in the audit annotations `mutation.webhook.admission.k8s.io/round_{r}_index_{i}` and, for an applied
// patch, `patch.webhook.admission.k8s.io/round_{r}_index_{i}`.
//
// kube logs the patch annotation only at audit level Request or above; admission attributes here have no levels,
// so it is written like the others and appears from level Metadata on.
//
// Reinvocation (reinvocationPolicy IfNeeded) follows kube's webhookReinvokeContext: a webhook that ran and whose
// object was changed afterwards (by a later webhook, or by another plugin before the chain's second round) is
// called once more in round 1; no webhook is called for the first time in round 1.
import { deepCopyJSON } from '../../api/deep-copy.js';
import type { MutatingWebhook, WebhookAccessor } from '../../api/admissionregistration.js';
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { apiVersionOf } from '../../api/types.js';
import { goQuote } from '../../options/go-strconv.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import type { WebhookInvocation } from '../matching/types.js';
import {
  addAuditAnnotation,
  admissionOperations,
  callHook,
  callingWebhookMessage,
  goJsonMarshal,
  MutableVersionedAttributes,
  NamespaceLabelLookup,
  observeHookOutcome,
  secondsSince,
  shouldCallHook,
  toStatusErr,
  waitForReady,
  type HookOutcome,
  type WebhookPluginOptions,
} from './dispatch.js';
import { requestDeadlinePassed, requestTimedOutError } from './deadline.js';
import { applyJsonPatch, decodeJsonPatch, type JsonPatchOperations } from './patch.js';
import { decodeIntoKind, loadTypedKind } from '../../api/openapi/typed-object.js';

export const mutatingWebhookPluginName = 'MutatingAdmissionWebhook';

export const patchAuditAnnotationPrefix = 'patch.webhook.admission.k8s.io/';
export const mutationAuditAnnotationPrefix = 'mutation.webhook.admission.k8s.io/';
export const mutationAuditAnnotationFailedOpenKeyPrefix = `failed-open.${mutationAuditAnnotationPrefix}`;

export interface MutatingWebhookPluginOptions extends WebhookPluginOptions {
  /** Defaults the object after each applied patch, as kube's dispatcher runs the scheme's defaulter. */
  defaultObject?: (object: KubeObject, attrs: AdmissionAttributes) => KubeObject | void;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmpty = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/**
 * apiequality.Semantic.DeepEqual over JSON objects: as for typed objects, an absent field, null and an empty
 * list or map are the same.
 */
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => semanticallyEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticallyEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

/** kube's webhookReinvokeContext, kept per request in attrs.reinvocation.values under the plugin's name. */
export class WebhookReinvokeContext {
  /** the object as the last run of the plugin left it */
  private lastWebhookOutput: KubeObject | undefined;
  /** IfNeeded webhooks that ran and are to be reinvoked if the object changes later */
  private previouslyInvokedReinvocableWebhooks = new Set<string>();
  /** webhooks to call in the reinvocation round */
  private readonly reinvokeWebhooks = new Set<string>();

  shouldReinvokeWebhook(uid: string): boolean {
    return this.reinvokeWebhooks.has(uid);
  }

  isOutputChangedSinceLastWebhookInvocation(object: KubeObject | undefined): boolean {
    return !semanticallyEqual(this.lastWebhookOutput, object);
  }

  setLastWebhookInvocationOutput(object: KubeObject | undefined): void {
    // The output only decides whether IfNeeded webhooks that ran are reinvoked: with none, skip the copy (it was a
    // deep copy on every mutating request, webhooks or not).
    this.lastWebhookOutput = object === undefined || this.previouslyInvokedReinvocableWebhooks.size === 0 ? undefined : deepCopyJSON(object);
  }

  addReinvocableWebhookToPreviouslyInvoked(uid: string): void {
    this.previouslyInvokedReinvocableWebhooks.add(uid);
  }

  requireReinvokingPreviouslyInvokedPlugins(): void {
    if (this.previouslyInvokedReinvocableWebhooks.size === 0) return;
    for (const uid of this.previouslyInvokedReinvocableWebhooks) this.reinvokeWebhooks.add(uid);
    this.previouslyInvokedReinvocableWebhooks = new Set();
  }
}

/** The object as kube encodes it for a webhook and its patch: with apiVersion and kind. */
function versioned(obj: KubeObject, invocation: WebhookInvocation): KubeObject {
  const copy = deepCopyJSON(obj);
  if (copy.apiVersion && copy.kind) return copy;
  return { apiVersion: copy.apiVersion || apiVersionOf(invocation.kind.group, invocation.kind.version), kind: copy.kind || invocation.kind.kind, ...copy };
}

/** json.Marshal of a jsonpatch.Patch: each operation is a map (sorted keys) of raw values (kept as sent). */
function marshalPatch(ops: JsonPatchOperations): string {
  return `[${ops
    .map((op) => {
      const keys = Object.keys(op).sort();
      return `{${keys.map((k) => `${goJsonMarshal(k)}:${goJsonMarshal(op[k])}`).join(',')}}`;
    })
    .join(',')}]`;
}

export class MutatingAdmissionWebhook implements AdmissionPlugin {
  readonly name = mutatingWebhookPluginName;

  constructor(private readonly opts: MutatingWebhookPluginOptions) {}

  handles(operation: AdmissionOperation): boolean {
    return admissionOperations.includes(operation);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    await waitForReady(this.opts.source, attrs, this.opts.readyTimeoutMs ?? 10_000);
    // every one, not only the candidates: the audit annotations count webhooks by their index in this list
    const hooks = this.opts.source.snapshot().items.filter((a) => a.kind === 'mutating');
    const reinvocation = attrs.reinvocation;
    let ctx = reinvocation.values.get(mutatingWebhookPluginName) as WebhookReinvokeContext | undefined;
    if (!ctx) {
      ctx = new WebhookReinvokeContext();
      reinvocation.values.set(mutatingWebhookPluginName, ctx);
    }
    // Another plugin changed the object since this plugin's first run: every IfNeeded webhook that ran is due.
    if (reinvocation.isReinvoke && ctx.isOutputChangedSinceLastWebhookInvocation(attrs.object)) ctx.requireReinvokingPreviouslyInvokedPlugins();
    try {
      await this.dispatch(attrs, hooks, ctx);
    } finally {
      ctx.setLastWebhookInvocationOutput(attrs.object);
    }
  }

  private async dispatch(attrs: AdmissionAttributes, hooks: readonly WebhookAccessor[], ctx: WebhookReinvokeContext): Promise<void> {
    const { opts } = this;
    const reinvocation = attrs.reinvocation;
    const ns = new NamespaceLabelLookup(attrs, opts.namespaceLabels);
    const versioned = new MutableVersionedAttributes(attrs, opts.converterFor?.(attrs.resource));
    for (let i = 0; i < hooks.length; i++) {
      const accessor = hooks[i]!;
      const should = await shouldCallHook(accessor, attrs, ns, opts, 'admit', (kind) => versioned.attributesFor(kind));
      if ('error' in should && should.error) throw should.error;
      if (!should.call) continue;
      // During reinvocation a webhook is never called for the first time.
      if (reinvocation.isReinvoke && !ctx.shouldReinvokeWebhook(accessor.uid)) continue;

      const hook = accessor.webhook as MutatingWebhook;
      const round = reinvocation.isReinvoke ? 1 : 0;
      const start = process.hrtime.bigint();
      // matchPolicy Equivalent: the webhook sees, and patches, the objects in the version it matched
      const hookAttrs = await versioned.attributesFor(should.invocation.kind);
      const { outcome, changed } = await this.callMutatingHook(accessor, should.invocation, hookAttrs, versioned, round, i);
      const ignoreClientCallFailures = hook.failurePolicy === 'Ignore';
      observeHookOutcome(opts.metrics, hook.name, 'admit', attrs.operation, outcome, ignoreClientCallFailures, secondsSince(start));
      opts.coverage?.webhookCalled(accessor, attrs, should.invocation, outcome, changed);
      if (changed) {
        // the patch changed the object: the IfNeeded webhooks that ran before are due again
        ctx.requireReinvokingPreviouslyInvokedPlugins();
        reinvocation.shouldReinvoke = true;
      }
      if (hook.reinvocationPolicy === 'IfNeeded') ctx.addReinvocableWebhookToPreviouslyInvoked(accessor.uid);

      switch (outcome.kind) {
        case 'allowed':
          continue;
        case 'callError':
          if (ignoreClientCallFailures) {
            opts.logger?.info('Failed calling webhook, failing open', { webhook: hook.name, error: outcome.message });
            opts.metrics.observeWebhookFailOpen(hook.name, 'admit');
            addAuditAnnotation(attrs, `${mutationAuditAnnotationFailedOpenKeyPrefix}round_${round}_index_${i}`, hook.name, opts.logger);
            // the request's own deadline passed (not just the webhook's): no later webhook is called
            if (requestDeadlinePassed(attrs)) throw requestTimedOutError();
            continue;
          }
          opts.logger?.info('Failed calling webhook, failing closed', { webhook: hook.name, error: outcome.message });
          throw errors.internal(new Error(outcome.message));
        case 'rejected':
        case 'error':
          throw outcome.error;
      }
    }
    await versioned.restore();
  }

  /** callAttrMutatingHook: the call, then the patch; the mutation annotation is written whatever happened. */
  private async callMutatingHook(
    accessor: WebhookAccessor,
    invocation: WebhookInvocation,
    attrs: AdmissionAttributes,
    versionedAttrs: MutableVersionedAttributes,
    round: number,
    index: number,
  ): Promise<{ outcome: HookOutcome; changed: boolean }> {
    const h = accessor.webhook;
    const annotation = { configuration: accessor.configurationName, webhook: h.name };
    let changed = false;
    try {
      const outcome = await callHook(accessor, invocation, attrs, this.opts, true);
      if (outcome.kind !== 'allowed') return { outcome, changed };
      const r = outcome.response;
      if (r.patch.length === 0) return { outcome, changed };
      const callError = (reason: string, code: number): HookOutcome => ({ kind: 'callError', message: callingWebhookMessage(h.name, reason), code });
      const internal = (message: string): HookOutcome => ({ kind: 'error', error: errors.internal(new Error(message)) });

      const decoded = decodeJsonPatch(r.patch);
      if (!decoded.ok) return { outcome: callError(`received undecodable patch in webhook response: ${decoded.error}`, 503), changed };
      if (decoded.operations.length === 0) return { outcome, changed };
      // a non-empty patch for a request without an object (DELETE) cannot be applied
      if (!attrs.object) return { outcome: internal(`admission webhook ${goQuote(h.name)} attempted to modify the object, which is not supported for this operation`), changed };
      if (r.patchType !== 'JSONPatch') return { outcome: callError(`unsupported patch type ${goQuote(r.patchType)}`, toStatusErr(h.name, r.result).code), changed };

      const before = versioned(attrs.object, invocation);
      const applied = applyJsonPatch(before, decoded.operations);
      if (!applied.ok) return { outcome: internal(applied.error), changed };
      const after = applied.document as KubeObject;
      // the patched JSON is decoded into the kind's Go type (non-strict): a wrong type is an internal error, fields
      // the type does not have vanish
      const typed = decodeIntoKind(await loadTypedKind(invocation.kind), after);
      if (!typed.ok) return { outcome: internal(typed.error), changed };
      changed = !semanticallyEqual(before, after);
      addAuditAnnotation(
        attrs,
        `${patchAuditAnnotationPrefix}round_${round}_index_${index}`,
        `{"configuration":${goJsonMarshal(annotation.configuration)},"webhook":${goJsonMarshal(annotation.webhook)},"patch":${marshalPatch(decoded.operations)},"patchType":"JSONPatch"}`,
        this.opts.logger,
      );
      // the decoder defaults the patched object in its own version (that of the matched resource when converted)
      const defaultAs = versionedAttrs.converted ? { ...attrs, object: after, kind: invocation.kind, resource: invocation.resource } : { ...attrs, object: after };
      const defaulted = this.opts.defaultObject?.(after, defaultAs);
      versionedAttrs.setObject(defaulted ?? after);
      return { outcome, changed };
    } finally {
      addAuditAnnotation(
        attrs,
        `${mutationAuditAnnotationPrefix}round_${round}_index_${index}`,
        `{"configuration":${goJsonMarshal(annotation.configuration)},"webhook":${goJsonMarshal(annotation.webhook)},"mutated":${changed}}`,
        this.opts.logger,
      );
    }
  }
}
