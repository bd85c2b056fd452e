// A scenario webhook's `respond:` as the harness WebhookServer's reply builders, so faults behave exactly as they do
// in TypeScript suites (hang, closeConnection, non-JSON bodies, delays).
import type { Operation } from 'fast-json-patch';
import { closeConnection, delay, hang, nonJSON, patch, status, withWarnings, type WebhookReply, type WebhookResponse } from '../../harness/webhook-server.js';
import type { WebhookRespondSpec } from './scenario-types.js';

/** Pure: the reply every AdmissionReview gets. */
export function webhookReplyFor(spec: WebhookRespondSpec): WebhookReply {
  if (spec.hang) return hang();
  if (spec.closeConnection) return closeConnection();
  if (spec.badJSON !== undefined) return spec.delayMs ? delay(spec.delayMs, nonJSON(spec.badJSON)) : nonJSON(spec.badJSON);
  let reply: WebhookResponse;
  if (spec.allowed) {
    reply = spec.patch ? patch(spec.patch as Operation[]) : { allowed: true };
    if (spec.message !== undefined) reply = { ...reply, status: { message: spec.message } };
  } else {
    // controller-runtime's default: a denial without a code is a 403 (kube turns a missing code into 400).
    reply = status({ code: spec.code ?? 403, message: spec.message ?? '', ...(spec.reason !== undefined ? { reason: spec.reason } : {}) });
  }
  if (spec.warnings.length > 0) reply = withWarnings(reply, spec.warnings);
  return spec.delayMs ? delay(spec.delayMs, reply) : reply;
}
