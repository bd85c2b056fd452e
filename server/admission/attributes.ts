// admission.Attributes: everything an admission plugin may look at for one request.
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../api/types.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * kube's admission.ReinvocationContext: the chain runs the mutating plugins again once when a plugin asks for it
 * (a webhook with reinvocationPolicy IfNeeded whose object was changed by a later plugin). Plugins keep their own
 * per-request state under their name in `values`.
 */
export interface ReinvocationContext {
  /** true during the second run of the mutating plugins */
  isReinvoke: boolean;
  /** set by a plugin during the first run to request the second */
  shouldReinvoke: boolean;
  values: Map<string, unknown>;
}

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
  name: string;
  namespace: string;
  /** the object being written; mutating plugins may change it in place (undefined for DELETE) */
  object: KubeObject | undefined;
  /** the stored object for UPDATE and DELETE */
  oldObject: KubeObject | undefined;
  /** CreateOptions / UpdateOptions / DeleteOptions as sent, with kind and apiVersion meta.k8s.io/v1 */
  options: KubeObject;
  dryRun: boolean;
  userInfo: UserInfo;
  /** audit annotations added by plugins (key → value) */
  annotations: Record<string, string>;
  /** warnings for the client (Warning headers) */
  warnings: string[];
  reinvocation: ReinvocationContext;
  /**
   * The request context's deadline (performance.now() ms): webhooks are called with what is left of it, and the
   * dispatchers stop when it has passed. Undefined: no deadline but the webhooks' own.
   */
  deadline?: number;
}

export function newReinvocationContext(): ReinvocationContext {
  return { isReinvoke: false, shouldReinvoke: false, values: new Map() };
}
