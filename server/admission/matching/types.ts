// The contract between webhook dispatch and matching (kube's webhook/predicates and generic.Source matching).
import type { WebhookAccessor } from '../../api/admissionregistration.js';
import type { GroupVersionKind, GroupVersionResource } from '../../api/types.js';
import type { AdmissionAttributes } from '../attributes.js';

/** What the webhook is called with when it matches: the request's own GVR/GVK, or an equivalent one (matchPolicy Equivalent). */
export interface WebhookInvocation {
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
}

export type MatchResult =
  | { matches: false }
  | { matches: true; invocation: WebhookInvocation }
  /** the webhook's configuration could not be evaluated (e.g. an invalid selector): handled per failurePolicy */
  | { matches: false; error: string };

export interface MatchContext {
  /** labels of the request's namespace (of the Namespace object itself for namespaces); undefined if cluster-scoped or not found */
  namespaceLabels: Record<string, string> | undefined;
  /** the ExcludeAdmissionWebhookVirtualResources feature gate */
  excludeVirtualResources: boolean;
}

export type MatchWebhook = (accessor: WebhookAccessor, attrs: AdmissionAttributes, ctx: MatchContext) => MatchResult;
