// The webhooks of one configuration object as dispatcher accessors, with kube's uid "<configuration>/<webhook>/<index>".
import type { MutatingWebhook, ValidatingWebhook, WebhookAccessor, WebhookKind } from '../../api/admissionregistration.js';
import type { KubeObject } from '../../api/types.js';

export function webhookAccessorsOf(obj: KubeObject, kind: WebhookKind, source: 'api' | 'static'): WebhookAccessor[] {
  const name = obj.metadata?.name ?? '';
  const hooks = (obj['webhooks'] as Array<ValidatingWebhook | MutatingWebhook> | undefined) ?? [];
  return hooks.map((webhook, i) => Object.freeze({ uid: `${source}:${name}/${webhook.name}/${i}`, kind, source, configurationName: name, webhook: Object.freeze(structuredClone(webhook)) }));
}
