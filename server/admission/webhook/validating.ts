// ValidatingAdmissionWebhook: kube's validating dispatcher. Every matching webhook is called at once; the request
// fails with the first error to come back (a denial, or a call error under failurePolicy Fail), after all calls
// have finished. A webhook that fails open is recorded in
// `failed-open.validating.webhook.admission.k8s.io/round_0_index_{i}`, i counting the webhooks called.
import type { WebhookAccessor } from '../../api/admissionregistration.js';
import { errors, StatusError } from '../../api/errors.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import type { WebhookInvocation } from '../matching/types.js';
import {
  addAuditAnnotation,
  admissionOperations,
  callHook,
  NamespaceLabelLookup,
  observeHookOutcome,
  secondsSince,
  shouldCallHook,
  VersionedAttributesByKind,
  waitForReady,
  type WebhookPluginOptions,
} from './dispatch.js';
import { requestDeadlinePassed, requestTimedOutError } from './deadline.js';

export const validatingWebhookPluginName = 'ValidatingAdmissionWebhook';

export const validatingAuditAnnotationPrefix = 'validating.webhook.admission.k8s.io/';
export const validatingAuditAnnotationFailedOpenKeyPrefix = `failed-open.${validatingAuditAnnotationPrefix}`;

export type ValidatingWebhookPluginOptions = WebhookPluginOptions;

export class ValidatingAdmissionWebhook implements AdmissionPlugin {
  readonly name = validatingWebhookPluginName;

  constructor(private readonly opts: ValidatingWebhookPluginOptions) {}

  handles(operation: AdmissionOperation): boolean {
    return admissionOperations.includes(operation);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { opts } = this;
    await waitForReady(opts.source, attrs, opts.readyTimeoutMs ?? 10_000);
    const items = opts.source.snapshot().items;
    const hooks = (opts.candidates ? opts.candidates(items, attrs) : items).filter((a) => a.kind === 'validating');
    const ns = new NamespaceLabelLookup(attrs, opts.namespaceLabels);
    const versioned = new VersionedAttributesByKind(attrs, opts.converterFor?.(attrs.resource));

    // All matching first: an error deciding about any webhook fails the request before any call is made.
    const relevant: Array<{ accessor: WebhookAccessor; invocation: WebhookInvocation; attrs: AdmissionAttributes }> = [];
    for (const accessor of hooks) {
      const should = await shouldCallHook(accessor, attrs, ns, opts, 'validating', (kind) => versioned.attributesFor(kind));
      if ('error' in should && should.error) throw should.error;
      // matchPolicy Equivalent: the webhook sees the objects in the version it matched
      if (should.call) relevant.push({ accessor, invocation: should.invocation, attrs: await versioned.attributesFor(should.invocation.kind) });
    }
    if (relevant.length === 0) return;
    // kube checks the request's context once before spawning the calls
    if (requestDeadlinePassed(attrs)) throw requestTimedOutError();

    // errors in the order the calls finish, as kube's error channel collects them
    const errs: StatusError[] = [];
    await Promise.all(relevant.map(({ accessor, invocation, attrs: hookAttrs }, idx) => this.call(accessor, invocation, hookAttrs, idx, errs)));
    if (errs.length > 0) throw errs[0];
  }

  private async call(accessor: WebhookAccessor, invocation: WebhookInvocation, attrs: AdmissionAttributes, idx: number, errs: StatusError[]): Promise<void> {
    const { opts } = this;
    const hook = accessor.webhook;
    const ignoreClientCallFailures = hook.failurePolicy === 'Ignore';
    const failOpen = (error: string): void => {
      opts.logger?.info('Failed calling webhook, failing open', { webhook: hook.name, error });
      opts.metrics.observeWebhookFailOpen(hook.name, 'validating');
      addAuditAnnotation(attrs, `${validatingAuditAnnotationFailedOpenKeyPrefix}round_0_index_${idx}`, hook.name, opts.logger);
    };
    const start = process.hrtime.bigint();
    let outcome;
    try {
      outcome = await callHook(accessor, invocation, attrs, opts, false);
    } catch (err) {
      // kube recovers a panicking call: open under Ignore, else an internal error naming the webhook
      const msg = err instanceof Error ? err.message : String(err);
      if (ignoreClientCallFailures) return failOpen(msg);
      errs.push(errors.internal(new Error(`${validatingWebhookPluginName}/${hook.name} has panicked: ${msg}`)));
      return;
    }
    observeHookOutcome(opts.metrics, hook.name, 'validating', attrs.operation, outcome, ignoreClientCallFailures, secondsSince(start));
    opts.coverage?.webhookCalled(accessor, attrs, invocation, outcome, false);
    switch (outcome.kind) {
      case 'allowed':
        return;
      case 'callError':
        if (ignoreClientCallFailures) return failOpen(outcome.message);
        opts.logger?.info('Failed calling webhook, failing closed', { webhook: hook.name, error: outcome.message });
        errs.push(errors.internal(new Error(outcome.message)));
        return;
      case 'rejected':
      case 'error':
        opts.logger?.info('rejected by webhook', { webhook: hook.name, message: outcome.error.message });
        errs.push(outcome.error instanceof StatusError ? outcome.error : errors.internal(outcome.error));
        return;
    }
  }
}
